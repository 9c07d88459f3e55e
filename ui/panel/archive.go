package panel

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/cache"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
)

// ArchiveEngine is what the Archive tab needs of the session: the
// catalogue of an archive and its LTSAs. Both block and are called from
// goroutines of the panel's.
type ArchiveEngine interface {
	OpenArchive(paths []string) (*archive.Catalog, error)
	ArchiveLTSA(ctx context.Context, r cache.Request, progress func(float64)) (*cache.LTSA, error)
}

// Archive is the Archive tab: a folder of recordings or a manifest as one
// long-term spectral average in absolute time, built with progress and
// cancel (and kept on disk, so it opens at once the next time), zoomed
// from the whole archive down to a file (each zoom that settles is
// re-computed at a finer average), and a click opens that moment in the
// File tab.
type Archive struct {
	eng      ArchiveEngine
	files    *Files
	dlg      *Dialogs
	do       func(func()) // onto the Fyne goroutine
	view     *view.LTSAView
	info     *widget.Label
	details  *widget.Button
	progress *widget.ProgressBar
	cancel   *widget.Button
	cat      *archive.Catalog
	from, to time.Time // the archive's span
	gen      int       // the archive open (or opening)
	stop     context.CancelFunc
	zoomStop context.CancelFunc
	zoomWait *time.Timer
	side     archiveSide      // the side panel (archive_side.go)
	par      ArchiveParams    // what the LTSA shown was asked with
	shown    bool             // the tab is shown: its keys are taken
	keep     [2]time.Time     // the span to show again once recomputed
	stale    bool             // the overview was cancelled: recompute on any change
	prefs    fyne.Preferences // where the side panel's choices are kept (archive_prefs.go)
	loading  bool             // the choices are being set from prefs
	last     string           // the last archive opened
}

// overviewColumns is how many time bins the whole archive's LTSA has.
const overviewColumns = 2048

// NewArchive makes the Archive tab; files is the File tab a click opens.
func NewArchive(eng ArchiveEngine, files *Files, dlg *Dialogs, do func(func())) *Archive {
	a := &Archive{eng: eng, files: files, dlg: dlg, do: do}
	a.view = view.NewLTSAView(plot.Viridis, "")
	a.view.OnView = a.viewChanged
	a.view.OnPick = a.pick
	a.buildSide()
	return a
}

// View is the tab's LTSA view.
func (a *Archive) View() *view.LTSAView { return a.view }

// Build lays the tab out: the buttons, progress and cancel, the line
// about the archive over the view.
func (a *Archive) Build() fyne.CanvasObject {
	a.info = widget.NewLabel("No archive open.")
	a.info.Truncation = fyne.TextTruncateEllipsis
	a.details = widget.NewButton("Gaps and overlaps…", a.showDetails)
	a.details.Hide()
	a.progress = widget.NewProgressBar()
	a.progress.Hide()
	a.cancel = widget.NewButton("Cancel", a.Cancel)
	a.cancel.Hide()
	buttons := container.NewHBox(
		widget.NewButton("Open archive…", a.openDialog),
		widget.NewButton("Whole archive", a.ZoomReset),
		widget.NewButton("Zoom in", func() { a.view.ZoomCentre(0.5) }),
		widget.NewButton("Zoom out", func() { a.view.ZoomCentre(2) }),
		widget.NewButton("<", func() { a.view.Pan(-0.25) }),
		widget.NewButton(">", func() { a.view.Pan(0.25) }),
		a.details, a.cancel)
	bar := container.NewBorder(nil, nil, buttons, nil, container.NewStack(a.progress))
	return container.NewBorder(container.NewVBox(bar, a.info), nil, nil, nil, a.view)
}

// Info is the line about the archive.
func (a *Archive) Info() string { return a.info.Text }

// Catalog is the archive open (nil: none).
func (a *Archive) Catalog() *archive.Catalog { return a.cat }

// Busy says whether an LTSA is being computed (the progress bar shows).
func (a *Archive) Busy() bool { return a.progress.Visible() }

// Cancel stops the LTSAs being computed (the overview and a zoom's).
func (a *Archive) Cancel() {
	if a.stop != nil {
		a.stop()
	}
	if a.zoomStop != nil {
		a.zoomStop()
	}
}

// Close stops everything the tab runs.
func (a *Archive) Close() {
	a.Cancel()
	if a.zoomWait != nil {
		a.zoomWait.Stop()
	}
}

// ZoomReset shows the whole archive.
func (a *Archive) ZoomReset() { a.view.SetView(a.from, a.to) }

// Open catalogues path (a folder, a recording or a .csv manifest) in the
// background and then computes its LTSA, with progress.
func (a *Archive) Open(path string) {
	a.Close()
	a.gen++
	gen := a.gen
	a.keep = [2]time.Time{}
	a.info.SetText("Reading " + filepath.Base(path) + "…")
	a.view.SetMessage("Reading the archive…")
	a.dlg.RememberFolder(filepath.Dir(path))
	a.last = path
	a.saveSettings()
	go func() {
		cat, err := a.eng.OpenArchive([]string{path})
		a.do(func() { a.opened(gen, path, cat, err) })
	}()
}

func (a *Archive) opened(gen int, path string, cat *archive.Catalog, err error) {
	if gen != a.gen {
		return
	}
	if err != nil {
		a.info.SetText("Could not open " + filepath.Base(path) + ": " + Explain(err))
		a.view.SetMessage("No archive open.")
		a.files.host.Notices().Error(err)
		return
	}
	a.cat = cat
	a.from, a.to = cat.Files[0].Start, cat.Files[0].End()
	for _, f := range cat.Files {
		a.to = maxTime(a.to, f.End())
	}
	a.info.SetText(Summary(cat))
	a.details.Show()
	a.sideOpened()
	a.par, err = a.params()
	if err != nil { // a calibration typed wrong: uncalibrated until it is right
		a.side.problem.SetText(err.Error())
		a.side.problem.Show()
		a.par.Cal = archive.Calibration{}
	}
	a.recompute()
}

// recompute computes the overview again with the parameters a.par,
// keeping the span shown.
func (a *Archive) recompute() {
	if a.cat == nil {
		return
	}
	if a.view.LTSA() != nil {
		from, to := a.view.View()
		a.keep = [2]time.Time{from, to}
	}
	a.Close()
	a.gen++
	a.stale = false
	avg := a.par.Average
	if avg == 0 {
		avg = cache.NiceAverage(a.to.Sub(a.from), overviewColumns)
	}
	a.compute(a.gen, time.Time{}, time.Time{}, avg, true)
}

// request is the LTSA of from..to at average with the parameters a.par.
func (a *Archive) request(from, to time.Time, average time.Duration) cache.Request {
	fft := a.par.FFT
	if fft == 0 {
		fft = ltsaFFT(a.cat.Files[0].Rate)
	}
	return cache.Request{Files: a.cat.Files, From: from, To: to, Average: average, FFT: fft, Channel: a.par.Channel, Cal: a.par.Cal}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// compute runs an LTSA of from..to (zero: all) at average: the overview
// (shown whole) or a zoomed region's detail.
func (a *Archive) compute(gen int, from, to time.Time, average time.Duration, overview bool) {
	ctx, cancel := context.WithCancel(context.Background())
	if overview {
		a.stop = cancel
		a.view.SetMessage("Computing the LTSA…")
	} else {
		if a.zoomStop != nil {
			a.zoomStop()
		}
		a.zoomStop = cancel
	}
	a.progress.SetValue(0)
	a.progress.Show()
	a.cancel.Show()
	req := a.request(from, to, average)
	go func() {
		last, start := time.Time{}, time.Now()
		l, err := a.eng.ArchiveLTSA(ctx, req, func(f float64) {
			if now := time.Now(); now.Sub(last) > 50*time.Millisecond {
				last = now
				a.do(func() {
					if gen == a.gen {
						a.progress.SetValue(f)
					}
				})
			}
		})
		took := time.Since(start)
		a.do(func() { a.computed(gen, l, err, overview, took) })
	}()
}

// ltsaFFT is the window's frame length: about 50 Hz bins (1024 points at
// 48 kHz), 256…4096 points.
func ltsaFFT(rate float64) int {
	n := 1 << bits.Len(uint(math.Ceil(rate/50)-1))
	return min(max(n, 256), 4096)
}

func (a *Archive) computed(gen int, l *cache.LTSA, err error, overview bool, took time.Duration) {
	if gen != a.gen {
		return
	}
	a.progress.Hide()
	a.cancel.Hide()
	switch {
	case err != nil && strings.Contains(err.Error(), context.Canceled.Error()):
		if overview {
			a.view.SetMessage("Cancelled: change a setting or Open archive… to start again.")
			a.stale = true // any setting recomputes
		}
		return
	case err != nil:
		a.view.SetMessage("The LTSA failed: " + Explain(err))
		a.files.host.Notices().Error(err)
		return
	}
	if !overview {
		a.view.SetDetail(l)
		return
	}
	a.view.SetLTSA(l, a.from, a.to)
	a.showRange()
	if k := a.keep; !k[0].IsZero() {
		a.keep = [2]time.Time{}
		a.view.SetView(k[0], k[1])
	}
	how := fmt.Sprintf(" · LTSA in %s on %s", view.FormatDuration(took.Round(time.Millisecond)), l.Engine)
	if l.Cached {
		how = " · LTSA from the cache"
	}
	a.info.SetText(Summary(a.cat) + how)
}

// viewChanged computes a finer LTSA of the region shown once zooming
// settles, when the overview's bins are coarser than the view's pixels.
func (a *Archive) viewChanged(from, to time.Time) {
	if a.zoomWait != nil {
		a.zoomWait.Stop()
	}
	over := a.view.LTSA()
	if over == nil || a.cat == nil || a.par.Average != 0 { // a fixed average: no finer one
		return
	}
	width := max(64, a.view.Area().Dx())
	avg := cache.NiceAverage(to.Sub(from), width)
	if avg >= over.Average {
		return
	}
	gen := a.gen
	pad := to.Sub(from) / 4
	a.zoomWait = time.AfterFunc(300*time.Millisecond, func() {
		a.do(func() {
			if gen == a.gen {
				a.compute(gen, from.Add(-pad).Truncate(avg), to.Add(pad).Truncate(avg).Add(avg), avg, false)
			}
		})
	})
}

// pick opens the recording at t in the File tab, its view centred there
// (ten seconds around it, or the whole of a shorter file).
func (a *Archive) pick(t time.Time) {
	if a.cat == nil {
		return
	}
	for _, f := range a.cat.Files {
		if !t.Before(f.Start) && t.Before(f.End()) {
			at := t.Sub(f.Start).Seconds()
			a.files.OpenFileAt(f.Path, at-5, at+5)
			return
		}
	}
	a.files.host.Notices().Info("No recording at " + t.UTC().Format("2006-01-02 15:04:05") + " UTC: a gap in the archive.")
}

// OpenFileAt opens a file in the File tab as OpenFile does, and once it
// is analyzed shows t0…t1 seconds of it.
func (fp *Files) OpenFileAt(path string, t0, t1 float64) {
	fp.OpenFile(path)
	fp.keepView = [2]float64{max(0, t0), t1}
}
