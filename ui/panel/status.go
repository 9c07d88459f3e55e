package panel

import (
	"fmt"
	"math"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/internal/proc"
	"github.com/prismaudio/prism/ui/view"
)

// StatusBar is the status area: the strip (what must always show at
// 1280×800), the line under it (the source and the analysis, or the file
// shown) and the details behind the Details button; it keeps the
// window's frame rate and process CPU and the warning shown.
type StatusBar struct {
	strip, line, details *widget.Label
	detailsBtn           *widget.Button
	win                  fyne.Window
	warn                 string    // the warning shown (engine status or notice)
	warnAt               time.Time // when it appeared
	ticks                int
	tickMark             time.Time
	cpuMark              time.Duration
	fps, cpuPct          float64
}

// StatusFacts are what the status area shows, gathered by the window.
type StatusFacts struct {
	Stats          *live.Stats
	Record         live.RecordStatus
	Paused, HasGPU bool
	Monitor        string // the monitor output ("" off)
	Fill           string // when the first frame of a long FFT comes ("" none)
	Noise          string // how to read the generator's noise in the mix ("" none)
	File           string // the file shown, in place of the live line ("" live)
	Now            time.Time
}

// NewStatusBar makes the status area; refresh runs before the details
// open.
func NewStatusBar(win fyne.Window, refresh func()) *StatusBar {
	b := &StatusBar{win: win, strip: widget.NewLabel("starting…"), line: widget.NewLabel(""), details: widget.NewLabel("")}
	b.strip.Truncation = fyne.TextTruncateEllipsis
	b.line.Truncation = fyne.TextTruncateEllipsis
	b.detailsBtn = widget.NewButton("Details", func() {
		refresh()
		b.showDetails()
	})
	return b
}

// Build lays the status area out, with right (the recording's buttons)
// beside the line under the strip.
func (b *StatusBar) Build(right fyne.CanvasObject) fyne.CanvasObject {
	return container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil, nil, b.detailsBtn,
		container.NewVBox(b.strip, container.NewBorder(nil, nil, nil, right, b.line))))
}

// Rates are the window's frames per second and the process's CPU (%),
// as last measured.
func (b *StatusBar) Rates() (fps, cpuPct float64) { return b.fps, b.cpuPct }

// Strip is the strip's text alone (what shows at any window width).
func (b *StatusBar) Strip() string { return b.strip.Text }

// Line is the text of the line under the strip.
func (b *StatusBar) Line() string { return b.line.Text }

// Details is the text behind the Details button.
func (b *StatusBar) Details() string { return b.details.Text }

// StripWidth is the width the strip's text needs and the width it has.
func (b *StatusBar) StripWidth() (need, room float32) {
	return fyne.MeasureText(b.strip.Text, theme.TextSize(), b.strip.TextStyle).Width,
		b.strip.Size().Width - 2*theme.InnerPadding()
}

// TapDetails taps the Details button: the details, refreshed, open.
func (b *StatusBar) TapDetails() { b.detailsBtn.OnTapped() }

// CountFrame counts a tick; once a second it measures the frames per
// second and the process's CPU, and says so (true).
func (b *StatusBar) CountFrame(now time.Time) bool {
	b.ticks++
	if b.tickMark.IsZero() {
		b.tickMark = now
		b.cpuMark, _ = proc.ProcessCPU()
		return false
	}
	d := now.Sub(b.tickMark)
	if d < time.Second {
		return false
	}
	b.fps = float64(b.ticks) / d.Seconds()
	cpu, ok := proc.ProcessCPU()
	if ok {
		b.cpuPct = 100 * (cpu - b.cpuMark).Seconds() / d.Seconds()
	}
	b.ticks, b.tickMark, b.cpuMark = 0, now, cpu
	return true
}

// engineLabel names an engine for people.
func engineLabel(name string) string {
	if name == "opencl" {
		return "GPU"
	}
	return strings.ToUpper(name)
}

// WarnFor is how long a warning stays in the status strip after it first
// appears (it stays in the details).
const WarnFor = 5 * time.Second

// Show writes the three texts with msg the warning now.
func (b *StatusBar) Show(msg string, f *StatusFacts) {
	if msg != b.warn {
		b.warn, b.warnAt = msg, f.Now
	}
	b.strip.SetText(b.stripText(f))
	b.line.SetText(lineText(f))
	b.details.SetText(b.detailsText(f))
}

// A strip segment's priority: those of a higher number leave the strip
// first when it is too narrow (they stay in the line and the details).
const (
	mustShow    = iota // PAUSED, recording, warnings
	engineFacts        // the engine, its load, drops and stalls
	rates              // frames/s, the process's CPU
	uiRate             // the window's frame rate
)

// segment is a piece of the strip and its priority.
type segment struct {
	text string
	prio int
}

// stripText is what must always show: the segments that fit the strip's
// width, dropping the least needed first (all of them before the strip
// has a size). The warning comes last so that a long one is cut at its
// end, never the facts before it.
func (b *StatusBar) stripText(f *StatusFacts) string {
	segs := b.stripSegments(f)
	room := b.strip.Size().Width - 2*theme.InnerPadding()
	if room <= 0 {
		return joinSegments(segs, uiRate+1)
	}
	for below := uiRate + 1; below > rates; below-- {
		if t := joinSegments(segs, below); fyne.MeasureText(t, theme.TextSize(), b.strip.TextStyle).Width <= room {
			return t
		}
	}
	return joinSegments(segs, rates) // a long warning is cut at its end
}

// joinSegments joins the segments of a priority below below.
func joinSegments(segs []segment, below int) string {
	var s strings.Builder
	for _, g := range segs {
		if g.prio >= below {
			continue
		}
		if s.Len() > 0 {
			s.WriteString(" · ")
		}
		s.WriteString(g.text)
	}
	return s.String()
}

// stripSegments are the strip's pieces in the order shown.
func (b *StatusBar) stripSegments(f *StatusFacts) []segment {
	st := f.Stats
	var segs []segment
	add := func(prio int, format string, args ...any) {
		segs = append(segs, segment{fmt.Sprintf(format, args...), prio})
	}
	if f.Paused {
		add(mustShow, "PAUSED") // plain: ⏸ is drawn as an emoji
	}
	if r := recordText(f.Record); r != "" {
		add(mustShow, "%s", r)
	}
	add(engineFacts, "%s engine %.2f ms/batch", engineLabel(st.Engine), st.MsPerBatch)
	if l := loadText(engineLoads(st)); l != "" {
		add(engineFacts, "%s", l)
	}
	add(engineFacts, "drops %d", st.DroppedFrames+st.Overflows)
	add(engineFacts, "stalls %d", st.Stalls)
	if st.Outages > 0 { // source outages, kept as gaps in the timeline
		add(engineFacts, "gaps %d", st.Outages)
	}
	if f.Fill != "" {
		add(mustShow, "%s", f.Fill)
	}
	add(rates, "%.0f frames/s", st.FramesPerSec)
	add(rates, "process CPU %.0f %%", b.cpuPct)
	add(uiRate, "UI %.0f fps", b.fps)
	if b.warn != "" && f.Now.Sub(b.warnAt) < WarnFor {
		add(mustShow, "⚠ %s", b.warn)
	}
	return segs
}

// lineText is the source and the analysis, or the file shown.
func lineText(f *StatusFacts) string {
	if f.File != "" {
		return f.File + " · live display paused"
	}
	st := f.Stats
	var s strings.Builder
	fmt.Fprintf(&s, "%s · %d Hz × %d · N=%d hop %d · %s · latency p99 %s",
		st.Source, st.SampleRate, st.Channels, st.FFT, st.Hop, st.Device,
		view.FormatDuration(time.Duration(st.LatencyP99Ms*float64(time.Millisecond))))
	if f.Record.Active {
		s.WriteString(" · recording to " + f.Record.Path)
	}
	if f.Monitor != "" {
		s.WriteString(" · " + f.Monitor)
	}
	if f.Noise != "" {
		s.WriteString(" · " + f.Noise)
	}
	return s.String()
}

// detailsText is everything, with the last warning and its age.
func (b *StatusBar) detailsText(f *StatusFacts) string {
	st := f.Stats
	var s strings.Builder
	fmt.Fprintf(&s, "Source: %s\nFormat: %d Hz × %d channels\nAnalysis: N=%d, hop %d\nEngine: %s (%s)\n",
		st.Source, st.SampleRate, st.Channels, st.FFT, st.Hop, engineLabel(st.Engine), st.Device)
	fmt.Fprintf(&s, "Engine: %.3f ms per batch, %.0f frames/s, latency p99 %s\nDropped frames %d, overflows %d, stalls %d\nWindow: %.0f fps; process CPU %.0f %% (all of Prism: window, audio and engines; 100 %% is one core)\n",
		st.MsPerBatch, st.FramesPerSec, view.FormatDuration(time.Duration(st.LatencyP99Ms*float64(time.Millisecond))),
		st.DroppedFrames, st.Overflows, st.Stalls, b.fps, b.cpuPct)
	if st.Outages > 0 {
		fmt.Fprintf(&s, "Source outages %d: %.1f s without input (of the dropped frames), kept as gaps\n",
			st.Outages, float64(st.DroppedOutageFrames)/float64(max(st.SampleRate, 1)))
	}
	s.WriteString(engineTimes(st))
	if !f.HasGPU {
		s.WriteString("No GPU engine here (OpenCL is not usable): the CPU engine does all the work\n")
	}
	if f.Monitor != "" {
		s.WriteString("Monitor: " + f.Monitor + "\n")
	}
	if f.Paused {
		s.WriteString("Display PAUSED (Space resumes)\n")
	}
	if rs := f.Record; rs.Active {
		fmt.Fprintf(&s, "Recording %s: %d frames, %d gap rows, %d dropped (Ctrl+Shift+R stops)\n", rs.Path, rs.Frames, rs.Gaps, rs.Dropped)
	}
	if b.warn != "" {
		fmt.Fprintf(&s, "Last warning (%s ago): %s\n", view.FormatDuration(f.Now.Sub(b.warnAt).Round(time.Second)), b.warn)
	}
	return strings.TrimSuffix(s.String(), "\n")
}

// engineTimes compares the engines' times per batch and their shares of
// real time, a line each.
func engineTimes(st *live.Stats) string {
	var s strings.Builder
	gpu, okG := st.EngineMs["opencl"]
	cpu, okC := st.EngineMs["cpu"]
	switch {
	case okG && okC && gpu > 0 && cpu >= gpu:
		fmt.Fprintf(&s, "Per batch: GPU %.3f ms · CPU %.3f ms → GPU %.1f× faster\n", gpu, cpu, cpu/gpu)
	case okG && okC && cpu > 0:
		fmt.Fprintf(&s, "Per batch: GPU %.3f ms · CPU %.3f ms → CPU %.1f× faster\n", gpu, cpu, gpu/cpu)
	case okC:
		fmt.Fprintf(&s, "Per batch: CPU %.3f ms\n", cpu)
	}
	if loads := engineLoads(st); len(loads) > 0 {
		s.WriteString("Engine load (the share of real time an engine needs at these settings: its time per batch over the audio a batch holds; above 100 % it is overloaded and input is dropped):")
		for _, e := range []string{"opencl", "cpu"} {
			if l, ok := loads[e]; ok && l > 0 {
				fmt.Fprintf(&s, " %s %s", engineLabel(e), loadShare(l))
				if l <= 1 {
					fmt.Fprintf(&s, " (%.1f× headroom)", 1/l)
				}
			}
		}
		s.WriteString("\n")
	}
	return s.String()
}

// showDetails opens the status details under the Details button.
func (b *StatusBar) showDetails() {
	pop := widget.NewPopUp(container.NewPadded(b.details), b.win.Canvas())
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b.detailsBtn)
	size := pop.MinSize()
	pop.ShowAtPosition(fyne.NewPos(max(0, pos.X+b.detailsBtn.Size().Width-size.Width), max(0, pos.Y-size.Height)))
}

// engineLoads is each engine's share of real time at the current settings:
// its mean time per batch (the inactive engine's measured on copies of the
// same batches) over the audio time a batch holds. A load over 1 cannot
// keep up: frames are dropped.
func engineLoads(st *live.Stats) map[string]float64 {
	if st.SampleRate <= 0 || st.FramesPerBatch <= 0 || st.Hop <= 0 {
		return nil
	}
	batchMs := st.FramesPerBatch * float64(st.Hop) / float64(st.SampleRate) * 1e3
	loads := map[string]float64{}
	for e, ms := range st.EngineMs {
		loads[e] = ms / batchMs
	}
	return loads
}

// loadText writes the engines' loads for the status strip, e.g.
// "engine load GPU 4 % · CPU overloaded, 1.4× too slow".
func loadText(loads map[string]float64) string {
	s := ""
	for _, e := range []string{"opencl", "cpu"} {
		l, ok := loads[e]
		if !ok {
			continue
		}
		if s == "" {
			s = "engine load"
		} else {
			s += " ·"
		}
		s += " " + engineLabel(e) + " " + loadShare(l)
	}
	return s
}

// loadShare writes a load (a share of real time): a percentage up to
// 100 %, beyond it "overloaded" and by how much ("overloaded, 3064×
// too slow"), never a percentage in the thousands.
func loadShare(l float64) string {
	switch {
	case l <= 1:
		return fmt.Sprintf("%.0f %%", 100*l)
	case l < 10:
		return fmt.Sprintf("overloaded, %.1f× too slow", l)
	default:
		return fmt.Sprintf("overloaded, %.0f× too slow", l)
	}
}

// FillText says, while the first frame of long FFTs fills, when it will
// be analyzed: at N=2^20 and 48 kHz a frame spans 21.8 s of input, and an
// empty display that long needs a reason. It is empty once a frame has
// been analyzed since the settings changed (st.Frames past framesAt), and
// for frames shorter than a second.
func FillText(st *live.Stats, framesAt uint64, waited time.Duration) string {
	if st.SampleRate <= 0 || st.Frames != framesAt {
		return ""
	}
	span := time.Duration(float64(st.FFT) / float64(st.SampleRate) * float64(time.Second))
	if span < time.Second {
		return ""
	}
	left := max(span-waited, 0)
	return fmt.Sprintf("first frame in %.0f s (N=%d spans %.1f s)", math.Ceil(left.Seconds()), st.FFT, span.Seconds())
}
