package panel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/ui/view"
)

// Summary is one line about a catalogue: its files, span, and how many
// gaps, overlaps and skipped files it has.
func Summary(c *archive.Catalog) string {
	if c == nil || len(c.Files) == 0 {
		return "No archive open."
	}
	from, to := c.Files[0].Start, c.Files[0].End()
	var size int64
	var audio time.Duration
	for _, f := range c.Files {
		to = maxTime(to, f.End())
		size += f.Size
		audio += f.Duration()
	}
	s := fmt.Sprintf("%d files · %s of audio · %s – %s UTC · %g Hz · %.1f GB", len(c.Files), Span(audio),
		from.UTC().Format("2006-01-02 15:04"), to.UTC().Format("2006-01-02 15:04"), c.Files[0].Rate, float64(size)/1e9)
	s += " · " + plural(len(c.Gaps), "gap") + " · " + plural(len(c.Overlaps), "overlap")
	if len(c.Skipped) > 0 {
		s += " · " + plural(len(c.Skipped), "file") + " skipped"
	}
	return s
}

// Span is a length of audio as people say it: "3 h 40 min", "12 min
// 30 s", "45 s", "2 d 3 h".
func Span(d time.Duration) string {
	d = d.Round(time.Second)
	day, h, m, sec := d/(24*time.Hour), d/time.Hour%24, d/time.Minute%60, d/time.Second%60
	switch {
	case day > 0:
		return fmt.Sprintf("%d d %d h", day, h)
	case h > 0:
		return fmt.Sprintf("%d h %d min", h, m)
	case m > 0 && sec == 0:
		return fmt.Sprintf("%d min", m)
	case m > 0:
		return fmt.Sprintf("%d min %d s", m, sec)
	}
	return fmt.Sprintf("%d s", sec)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Report lists a catalogue's gaps, overlaps and skipped files, a line
// each, for the Gaps and overlaps… dialog.
func Report(c *archive.Catalog) string {
	var b strings.Builder
	const layout = "2006-01-02 15:04:05.000"
	for _, g := range c.Gaps {
		fmt.Fprintf(&b, "gap of %s from %s UTC, between %s and %s\n", view.FormatDuration(g.Length), g.Start.UTC().Format(layout),
			filepath.Base(g.After), filepath.Base(g.Before))
	}
	for _, o := range c.Overlaps {
		fmt.Fprintf(&b, "overlap of %s from %s UTC: %s starts inside %s (read once, from the earlier file)\n", view.FormatDuration(o.Length),
			o.Start.UTC().Format(layout), filepath.Base(o.Second), filepath.Base(o.First))
	}
	for _, s := range c.Skipped {
		fmt.Fprintf(&b, "skipped %s: %s\n", filepath.Base(s.Path), s.Reason)
	}
	if b.Len() == 0 {
		return "No gaps, overlaps or skipped files: the recordings follow each other."
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (a *Archive) showDetails() {
	if a.cat == nil {
		return
	}
	text := widget.NewLabel(Report(a.cat))
	text.Wrapping = fyne.TextWrapWord
	scroll := container.NewVScroll(text)
	scroll.SetMinSize(fyne.NewSize(640, 320))
	dialog.ShowCustom("Gaps, overlaps and skipped files", "Close", scroll, a.dlg.win)
}

// openDialog asks for an archive: a folder of recordings (searched with
// its subfolders) or a manifest (.csv), typed or chosen.
func (a *Archive) openDialog() {
	var dlg dialog.Dialog
	path := newPathEntry(func() { dlg.Hide() })
	path.SetPlaceHolder("/path/to/recordings or /path/to/manifest.csv")
	if a.last != "" {
		path.SetText(a.last) // the last archive opened, kept between runs
	} else if start := a.dlg.StartFolder(); start != "" {
		path.SetText(start)
	}
	msg := widget.NewLabel("")
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.DangerImportance
	msg.Hide()
	submit := func(typed string) {
		p := resolvePath(typed, a.dlg.StartFolder())
		if _, err := os.Stat(p); err != nil || strings.TrimSpace(typed) == "" {
			msg.SetText(fmt.Sprintf("%s does not exist: type the path of a folder of recordings or of a manifest.", p))
			msg.Show()
			return
		}
		dlg.Hide()
		a.Open(p)
	}
	path.OnSubmitted = submit
	folder := widget.NewButton("Choose a folder…", func() {
		dlg.Hide()
		fd := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
			if err == nil && l != nil {
				a.Open(l.Path())
			}
		}, a.dlg.win)
		fd.Resize(a.dlg.win.Canvas().Size().Subtract(fyne.NewSize(40, 40)))
		fd.Show()
	})
	manifest := widget.NewButton("Choose a manifest…", func() {
		dlg.Hide()
		a.dlg.PickFile(a.dlg.StartFolder(), filterOf([]string{".csv"}), func(p string) error { a.Open(p); return nil })
	})
	content := container.NewVBox(
		widget.NewLabel("A folder of recordings (with its subfolders: WAV, FLAC) or a manifest (CSV: path,start_utc,…):"),
		container.NewBorder(nil, nil, nil, widget.NewButton("Open", func() { submit(path.Text) }), path),
		msg, container.NewHBox(folder, manifest))
	dlg = dialog.NewCustom("Open an archive", "Cancel", content, a.dlg.win)
	dlg.Resize(fyne.NewSize(min(720, a.dlg.win.Canvas().Size().Width*0.9), 0))
	dlg.Show()
	a.dlg.win.Canvas().Focus(path)
}
