package panel

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/playback"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/selection"
	"github.com/prismaudio/prism/ui/view"
)

// PlayEngine is what the file workspace's playback and selection need of
// the analysis; the calls block and are made from goroutines of the
// panel's own.
type PlayEngine interface {
	// OpenPlayer reads the file at path into a player to the output
	// device ("" the default), band-filtered by band (the zero BandSpec:
	// none).
	OpenPlayer(path string, band dsp.BandSpec, device string) (*playback.Player, error)
	// OutputDevices lists the output devices' names (it may block).
	OutputDevices() ([]string, error)
	// AnalyzeSelection measures the selection r of the file at path.
	AnalyzeSelection(ctx context.Context, path string, r selection.Range, o selection.Options) (selection.Result, error)
	// AnalyzeView analyses the file's view (one channel per lane).
	AnalyzeView(ctx context.Context, path string, o analysis.ViewOptions, progress analysis.Progress) (*analysis.FileSpectrogram, error)
}

// PlayHost is what the playback bar needs of the window (FileHost's
// methods of the same names).
type PlayHost interface {
	FileOptions() (analysis.ViewOptions, plot.ImageOptions)
	SaveDialog(name string, fn func(path string))
	Notices() *Notice
}

// FilePlayKey is one of the file workspace's playback keys.
type FilePlayKey struct {
	Name fyne.KeyName // a named key, or "" for a rune
	Rune rune
	Key  string // as the keys overlay prints it
	Help string
	Do   func(p *FilePlay)
}

// FilePlayKeys are the File workspace's playback and selection keys, a
// table for the keys overlay.
var FilePlayKeys = []FilePlayKey{
	{fyne.KeySpace, 0, "Space", "play / pause the file", (*FilePlay).TogglePlay},
	{"", 'l', "L", "loop the selection on / off", (*FilePlay).ToggleLoop},
	{"", 'c', "C", "every channel as its own lane / the mix", (*FilePlay).ToggleLanes},
	{"", 'z', "Z", "zoom to the selection, in time and frequency", (*FilePlay).ZoomToSelection},
	{fyne.KeyEscape, 0, "Escape", "clear the selection", (*FilePlay).ClearSelection},
}

// FilePlay is the file workspace's playback and selection bar: play and
// pause with the playhead over the view, looping the selection, the
// selection's measurements (stored as a reference, exported as CSV),
// lanes and the zoom to the selection. Only the Fyne goroutine uses it,
// except where a method says.
type FilePlay struct {
	host  PlayHost
	eng   PlayEngine
	fview *view.FileView
	do    func(func())
	band  *dsp.BandSpec            // the band filter heard ("Play it"'s), read on the Fyne goroutine
	store func(t *dsp.Trace) error // stores a reference

	file    *analysis.FileSpectrogram // the file the player and selection belong to
	player  *playback.Player
	pband   dsp.BandSpec // the player's
	device  string       // the output chosen ("" the default)
	pdevice string       // the player's
	output  *widget.Select
	opening bool
	startAt float64 // where play starts before a player exists
	loop    bool
	lanesOn bool
	laneGen int

	sel       selection.Range
	res       *selection.Result
	selCancel context.CancelFunc
	laneStop  context.CancelFunc // the lanes' analyses under way
	selGen    int

	ops chan func() // the player's operations, run in order on a goroutine of their own

	playBtn, loopBtn, lanesBtn, storeBtn, exportBtn *widget.Button
	pos, readout                                    *widget.Label
	shownPos                                        float64
}

// NewFilePlay makes the bar over the file view fview: band is the band
// filter heard (the live "Play it"'s, read when play starts), store
// stores a reference.
func NewFilePlay(host PlayHost, eng PlayEngine, fview *view.FileView, do func(func()), band *dsp.BandSpec, store func(*dsp.Trace) error) *FilePlay {
	p := &FilePlay{host: host, eng: eng, fview: fview, do: do, band: band, store: store, shownPos: -1}
	fview.OnSeek(p.Seek)
	fview.OnSelection(p.Select)
	return p
}

// Build lays the bar out: the buttons and the position over the
// selection's readout.
func (p *FilePlay) Build() fyne.CanvasObject {
	p.playBtn = widget.NewButton("Play (Space)", p.TogglePlay)
	p.loopBtn = widget.NewButton("Loop (L)", p.ToggleLoop)
	p.lanesBtn = widget.NewButton("Lanes (C)", p.ToggleLanes)
	zoom := widget.NewButton("Zoom in (Z)", p.ZoomToSelection)
	clearBtn := widget.NewButton("Clear (Esc)", p.ClearSelection)
	p.storeBtn = widget.NewButton("Store spectrum", p.StoreSelection)
	p.exportBtn = widget.NewButton("Export…", p.exportDialog)
	p.storeBtn.Disable()
	p.exportBtn.Disable()
	p.pos = widget.NewLabel("")
	p.pos.Truncation = fyne.TextTruncateEllipsis
	p.readout = widget.NewLabel(selectHint)
	p.readout.Wrapping = fyne.TextWrapWord
	buttons := container.NewHBox(p.playBtn, p.loopBtn, p.lanesBtn, widget.NewSeparator(), widget.NewLabel("Selection:"),
		zoom, clearBtn, p.storeBtn, p.exportBtn)
	p.output = widget.NewSelect([]string{defaultOutput}, p.chooseOutput)
	p.output.SetSelected(defaultOutput)
	p.listOutputs()
	out := container.NewHBox(widget.NewLabel("Output"), p.output)
	return container.NewVBox(container.NewBorder(nil, nil, buttons, nil, p.pos), container.NewBorder(nil, nil, nil, out, p.readout))
}

// listOutputs offers the output devices (listed off the Fyne goroutine:
// PortAudio may take a while); without any the default stays, and
// playing says why it cannot.
func (p *FilePlay) listOutputs() {
	if p.eng == nil {
		return
	}
	go func() {
		names, err := p.eng.OutputDevices()
		if err != nil {
			return
		}
		p.do(func() { p.output.Options = append([]string{defaultOutput}, names...) })
	}()
}

// chooseOutput plays through the output named (defaultOutput: the
// default device) from the next play on; a player playing stops.
func (p *FilePlay) chooseOutput(name string) {
	if name == defaultOutput {
		name = ""
	}
	if name == p.device {
		return
	}
	p.device = name
	if pl := p.player; pl != nil && pl.Playing() {
		p.act(pl.Pause)
	}
}

// Output is the output device chosen ("" the default).
func (p *FilePlay) Output() string { return p.device }

// ChooseOutput chooses the output device by name ("" the default).
func (p *FilePlay) ChooseOutput(name string) {
	if name == "" {
		name = defaultOutput
	}
	p.output.SetSelected(name)
}

// selectHint is the readout before a selection.
const selectHint = "Select: drag on the time axis (a passage) or Shift+drag on the view (a time × frequency box). A click seeks."

// Key runs the playback key named k or typed r and says whether it was
// one.
func (p *FilePlay) Key(k fyne.KeyName, r rune) bool {
	if r >= 'A' && r <= 'Z' {
		r += 'a' - 'A'
	}
	for _, fk := range FilePlayKeys {
		if (k != "" && fk.Name == k) || (r != 0 && fk.Rune == r) {
			fk.Do(p)
			return true
		}
	}
	return false
}

// Player is the player (nil before the first play).
func (p *FilePlay) Player() *playback.Player { return p.player }

// Pull follows the file shown and moves the playhead: called on every
// tick of the window.
func (p *FilePlay) Pull() {
	if f := p.fview.File(); f != p.file {
		p.fileChanged(f)
	}
	if p.player == nil {
		return
	}
	t := p.player.Position()
	playing := p.player.Playing()
	p.fview.SetPlayhead(t, true)
	if math.Abs(t-p.shownPos) >= 0.01 || playing != (p.playBtn != nil && p.playBtn.Text == "Pause (Space)") {
		p.shownPos = t
		p.showPosition(t, playing)
	}
}

func (p *FilePlay) showPosition(t float64, playing bool) {
	if p.pos == nil || p.file == nil {
		return
	}
	s := view.FormatTime(t, 0.01, p.file.Duration) + " / " + view.FormatTime(p.file.Duration, 0.01, p.file.Duration)
	if st := p.player.Status(); st != "" {
		s += "  " + st
	}
	p.pos.SetText(s)
	if playing {
		p.playBtn.SetText("Pause (Space)")
	} else {
		p.playBtn.SetText("Play (Space)")
	}
}

// act runs op on the player's goroutine, after those before it: opening
// the device, seeking and looping block (the device opens again).
func (p *FilePlay) act(op func()) {
	if p.ops == nil {
		p.ops = make(chan func(), 64)
		go func(ops chan func()) {
			for op := range ops {
				op()
			}
		}(p.ops)
	}
	p.ops <- op
}

// fileChanged drops the player, the selection and the lanes of the file
// before; the same file analysed again (other frames) keeps them, its
// lanes analysed again with the new frames.
func (p *FilePlay) fileChanged(f *analysis.FileSpectrogram) {
	if f != nil && p.file != nil && f.Path == p.file.Path {
		p.file = f
		if p.lanesOn && p.fview.LanesShown() == 0 {
			p.analyzeLanes()
		}
		return
	}
	if pl := p.player; pl != nil {
		p.act(func() { pl.Close() })
		p.player = nil
	}
	p.stopLanes()
	p.file, p.startAt, p.res = f, 0, nil
	p.fview.SetPlayhead(0, false)
	p.fview.SetLanes(nil)
	p.ClearSelection()
	if p.lanesOn && f != nil {
		p.analyzeLanes()
	}
	if p.pos != nil {
		p.pos.SetText("")
	}
}

// TogglePlay plays or pauses the file shown.
func (p *FilePlay) TogglePlay() {
	if p.file == nil || p.opening || p.eng == nil {
		return
	}
	if pl := p.player; pl != nil && pl.Playing() {
		p.act(pl.Pause)
		return
	}
	band := *p.band
	device := p.device
	if p.player != nil && p.pband == band && p.pdevice == device {
		p.start()
		return
	}
	// (re)open: the first play, or the band or the output changed
	if pl := p.player; pl != nil {
		p.startAt = pl.Position()
		p.act(func() { pl.Close() })
		p.player = nil
	}
	p.opening = true
	path, file := p.file.Path, p.file
	go func() {
		pl, err := p.eng.OpenPlayer(path, band, device)
		p.do(func() {
			p.opening = false
			if err != nil {
				p.host.Notices().Error(err)
				return
			}
			if p.file != file {
				p.act(func() { pl.Close() }) // as every close: the device may block
				return
			}
			p.player, p.pband, p.pdevice = pl, band, device
			at := p.startAt
			p.act(func() { pl.Seek(at) })
			p.start()
		})
	}()
}

// start plays from the position (looping the selection when on).
func (p *FilePlay) start() {
	pl, sel, loop := p.player, p.sel, p.loop
	p.act(func() {
		pl.SetLoop(loop && sel.T1 > sel.T0, sel.T0, sel.T1)
		if err := pl.Play(); err != nil {
			p.do(func() { p.host.Notices().Error(err) })
		}
	})
}

// setLoop hands the player the loop: the selection while L is on.
func (p *FilePlay) setLoop() {
	if pl := p.player; pl != nil {
		on, sel := p.loop && p.sel.T1 > p.sel.T0, p.sel
		p.act(func() { pl.SetLoop(on, sel.T0, sel.T1) })
	}
}

// Seek moves the playhead (and the player) to t seconds.
func (p *FilePlay) Seek(t float64) {
	if p.file == nil {
		return
	}
	if pl := p.player; pl != nil {
		p.act(func() { pl.Seek(t) })
	} else {
		p.startAt = t
	}
	p.fview.SetPlayhead(t, true)
}

// ToggleLoop loops the selection while playing, or stops looping.
func (p *FilePlay) ToggleLoop() {
	p.loop = !p.loop
	if p.loop && p.sel.T1 <= p.sel.T0 {
		p.host.Notices().Info("Select a passage first (drag on the time axis): L loops it.")
	}
	p.setLoop()
	if p.loopBtn != nil {
		p.loopBtn.Importance = widget.MediumImportance
		if p.loop {
			p.loopBtn.Importance = widget.HighImportance
		}
		p.loopBtn.Refresh()
	}
}

// Looping says whether L's loop is on.
func (p *FilePlay) Looping() bool { return p.loop }

// ToggleLanes draws every channel as its own lane, or the overview.
func (p *FilePlay) ToggleLanes() {
	p.lanesOn = !p.lanesOn
	if !p.lanesOn {
		p.stopLanes()
	}
	p.fview.ShowLanes(p.lanesOn)
	if p.lanesOn && p.file != nil && p.fview.LanesShown() == 0 { // none yet, or of other frames
		p.analyzeLanes()
	}
	if p.lanesBtn != nil {
		p.lanesBtn.Importance = widget.MediumImportance
		if p.lanesOn {
			p.lanesBtn.Importance = widget.HighImportance
		}
		p.lanesBtn.Refresh()
	}
}

// analyzeLanes analyses each channel of the file shown with the view's
// frames and hands them to the view.
func (p *FilePlay) analyzeLanes() {
	f := p.file
	if p.eng == nil {
		return
	}
	if f.Channels < 2 {
		p.host.Notices().Info("The file has one channel: no lanes to draw.")
		return
	}
	o, _ := p.host.FileOptions()
	o.FFT, o.Hop = f.FFT, f.Hop
	p.laneGen++
	p.stopLanes()
	ctx, stop := context.WithCancel(context.Background())
	p.laneStop = stop
	if me, ok := p.eng.(FileModeEngine); ok && p.fview.ModeFile() != nil {
		p.analyzeModeLanes(ctx, me, p.fview.ModeFile()) // files_modes.go
		return
	}
	runLanes(p, ctx, func(ctx context.Context, c int) (*analysis.FileSpectrogram, error) {
		oc := o
		oc.Channel = c
		return p.eng.AnalyzeView(ctx, f.Path, oc, nil)
	}, p.fview.SetLanes)
}

// stopLanes cancels the lanes' analyses under way (a file changed, the
// lanes turned off or asked again).
func (p *FilePlay) stopLanes() {
	if p.laneStop != nil {
		p.laneStop()
		p.laneStop = nil
	}
}

// runLanes analyses the file's channels (up to 8), one by one(ctx, c) on
// a goroutine, and hands the lanes to set on the Fyne goroutine unless
// other lanes were asked for since; an error other than the cancel is
// said.
func runLanes[T any](p *FilePlay, ctx context.Context, one func(ctx context.Context, c int) (T, error), set func([]T)) {
	f, gen := p.file, p.laneGen
	go func() {
		lanes := make([]T, 0, min(f.Channels, 8))
		for c := range min(f.Channels, 8) {
			l, err := one(ctx, c)
			if err != nil {
				if ctx.Err() == nil {
					p.do(func() { p.host.Notices().Error(err) })
				}
				return
			}
			lanes = append(lanes, l)
		}
		p.do(func() {
			if gen == p.laneGen && p.file == f {
				set(lanes)
			}
		})
	}()
}

// ZoomToSelection shows the selection (times, and a box's band); without
// one, every frequency again.
func (p *FilePlay) ZoomToSelection() { p.fview.ZoomToSelection() }

// ClearSelection drops the selection and its readout (and the loop's
// range: playing goes on).
func (p *FilePlay) ClearSelection() {
	if p.selCancel != nil {
		p.selCancel()
		p.selCancel = nil
	}
	p.sel, p.res = selection.Range{}, nil
	p.fview.SetSelection(p.sel)
	p.setLoop()
	if p.storeBtn != nil {
		p.storeBtn.Disable()
		p.exportBtn.Disable()
		p.readout.SetText(selectHint)
	}
}

// Select takes the selection r (from the view's drag) and measures it.
func (p *FilePlay) Select(r selection.Range) {
	if p.file == nil || r.T1 <= r.T0 || p.eng == nil {
		return
	}
	p.sel, p.res = r, nil
	p.fview.SetSelection(r)
	p.setLoop()
	if p.selCancel != nil {
		p.selCancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.selCancel = cancel
	p.selGen++
	gen, path := p.selGen, p.file.Path
	vo, _ := p.host.FileOptions()
	o := selection.Options{FFT: vo.FFT, Window: vo.Window, Channel: vo.Channel}
	if vo.FFT > 0 {
		o.OverlapPct = 100 * (1 - float64(vo.Hop)/float64(vo.FFT))
	}
	if p.readout != nil {
		p.readout.SetText(rangeText(r) + ": measuring…")
		p.storeBtn.Disable()
		p.exportBtn.Disable()
	}
	go func() {
		res, err := p.eng.AnalyzeSelection(ctx, path, r, o)
		p.do(func() {
			if gen != p.selGen {
				return
			}
			if err != nil {
				if ctx.Err() == nil {
					p.host.Notices().Error(err)
					if p.readout != nil {
						p.readout.SetText(rangeText(r) + ": " + err.Error())
					}
				}
				return
			}
			p.res = &res
			if p.readout != nil {
				p.readout.SetText(Readout(res))
				p.storeBtn.Enable()
				p.exportBtn.Enable()
			}
		})
	}()
}

// Result is the selection's measurements (nil: none yet).
func (p *FilePlay) Result() *selection.Result { return p.res }

// rangeText names a selection: "0.700–2.200 s" and its band.
func rangeText(r selection.Range) string {
	s := fmt.Sprintf("%.3f–%.3f s", r.T0, r.T1)
	if r.HasBand() {
		s += fmt.Sprintf(", %.0f–%.0f Hz", r.LoHz, r.HiHz)
	}
	return s
}

// Readout is a selection's measurements in a line or two: the spectrum's
// peak, each channel's peak, true peak and RMS, the loudness, the
// distortion and the strongest third-octave band.
func Readout(res selection.Result) string {
	var b strings.Builder
	b.WriteString(rangeText(res.Range))
	if !res.Band.IsZero() {
		b.WriteString(" (" + res.Band.String() + ")")
	}
	sp := res.Spectrum
	fmt.Fprintf(&b, ": peak %.1f Hz %.1f dBFS", sp.Peak.FreqHz, sp.PeakDB)
	if sp.Note != "" {
		fmt.Fprintf(&b, " (%s %+.0f cents)", sp.Note, sp.Cents)
	}
	for c, l := range res.Levels.Channels {
		fmt.Fprintf(&b, " · ch %d: peak %s dBFS, true peak %s dBTP, RMS %s dBFS", c+1, dbText(l.SamplePeakDBFS), dbText(l.TruePeakDBTP), dbText(l.RMSDBFS))
	}
	fmt.Fprintf(&b, " · %s LUFS integrated, momentary max %s LUFS", dbText(res.Levels.IntegratedLUFS), dbText(res.Levels.MomentaryMaxLUFS))
	if res.DistErr == nil {
		d := res.Distortion
		fmt.Fprintf(&b, " · THD %.3f %%, THD+N %.1f dB, SINAD %.1f dB at %.1f Hz", d.THDPercent, d.THDNDB, d.SINADDB, d.FundamentalHz)
	}
	if res.BandsErr == nil && len(res.Bands.Levels) > 0 {
		best := res.Bands.Levels[0]
		for _, l := range res.Bands.Levels {
			if l.LevelDB > best.LevelDB {
				best = l
			}
		}
		fmt.Fprintf(&b, " · strongest third-octave band %g Hz at %.1f dB", best.Nominal, best.LevelDB)
	}
	return b.String()
}

func dbText(v float64) string {
	if math.IsInf(v, -1) || math.IsNaN(v) {
		return "-inf"
	}
	return fmt.Sprintf("%.1f", v)
}

// SelectionTrace is the selection's long-term spectrum as a reference
// trace (its first column: the mix or the channel measured).
func SelectionTrace(res selection.Result, file string) *dsp.Trace {
	sp := res.Spectrum
	return &dsp.Trace{Name: filepath.Base(file) + " " + rangeText(res.Range), FreqHz: sp.FreqHz, Level: sp.Levels[0], Unit: "dBFS"}
}

// StoreSelection stores the selection's spectrum as a reference.
func (p *FilePlay) StoreSelection() {
	if p.res == nil || p.file == nil {
		return
	}
	t := SelectionTrace(*p.res, p.file.Path)
	if err := p.store(t); err != nil {
		p.host.Notices().Error(err)
		return
	}
	p.host.Notices().Info("Stored " + t.Name + " as a reference (References lists it).")
}

// exportDialog asks where to export the selection's CSV files.
func (p *FilePlay) exportDialog() {
	if p.res == nil || p.file == nil {
		return
	}
	res := *p.res
	p.host.SaveDialog(strings.TrimSuffix(filepath.Base(p.file.Path), filepath.Ext(p.file.Path))+"_selection.csv", func(path string) {
		if err := p.Export(res, path); err != nil {
			p.host.Notices().Error(err)
		}
	})
}

// Export writes res's CSV files next to path (its name without .csv and
// the files' suffixes: _spectrum.csv, _levels.csv, _bands.csv).
func (p *FilePlay) Export(res selection.Result, path string) error {
	paths, err := selection.Export(strings.TrimSuffix(path, ".csv"), res)
	if err != nil {
		return err
	}
	p.host.Notices().Info("Exported the selection: " + strings.Join(paths, ", "))
	return nil
}
