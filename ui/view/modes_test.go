package view

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/window"
)

// modeSource is an analysis mode's output as the views see it: 24 bins
// per octave from 20 Hz (a VQT's table), a tone at bin modeToneBin
// (≈ 987 Hz) at −6 dBFS whose skirt falls 40 dB per bin over a floor
// falling 3 dB per octave from −70 dBFS at 100 Hz; its columns are the
// same spectrum.
type modeSource struct {
	freqs, enbw []float64
	cols        int // columns handed out so far
}

const modeToneBin = 135 // 20·2^(135/24) ≈ 987.0 Hz (B5 −1¢)

func newModeSource() *modeSource {
	s := &modeSource{}
	for k := 0; ; k++ {
		f := 20 * math.Pow(2, float64(k)/24)
		if f > 23000 {
			break
		}
		s.freqs = append(s.freqs, f)
		s.enbw = append(s.enbw, f*(math.Pow(2, 1.0/24)-1)*1.5)
	}
	return s
}

// level is the fake's level at bin k.
func (s *modeSource) level(k int) float32 {
	floor := -70 - 10*math.Log10(s.freqs[k]/100)
	d := float64(k - modeToneBin)
	return float32(math.Max(floor, -6-40*d*d))
}

func (s *modeSource) Latest(c int, dst *live.Spectrum) {
	fill := func(t []float32, off float32) []float32 {
		t = t[:0]
		for k := range s.freqs {
			t = append(t, s.level(k)+off)
		}
		return t
	}
	dst.Current, dst.ExpAvg, dst.LinAvg = fill(dst.Current, 0), fill(dst.ExpAvg, -3), fill(dst.LinAvg, -4)
	dst.LongAvg, dst.PeakHold, dst.MinHold = fill(dst.LongAvg, -20), fill(dst.PeakHold, 3), fill(dst.MinHold, -10)
	dst.Freqs, dst.ENBW, dst.BinHz = s.freqs, s.enbw, 48000.0/65536
	dst.Geometry = live.Geometry{Rate: 48000, FFT: 65536, Hop: 512}
	note, cents := dsp.NoteName(s.freqs[modeToneBin])
	dst.Peak = dsp.Peak{Freq: s.freqs[modeToneBin], LevelDB: -6, Note: note, Cents: cents}
}

func (s *modeSource) Columns(c int, dst [][]float32, after uint64) (int, uint64, live.Geometry) {
	n := min(len(dst), 60-s.cols)
	for i := range n {
		dst[i] = dst[i][:0]
		for k := range s.freqs {
			dst[i] = append(dst[i], s.level(k))
		}
	}
	s.cols += n
	return n, after + uint64(n), live.Geometry{Rate: 48000, FFT: 65536, Hop: 512}
}

func (s *modeSource) ModeFreqs() []float64 { return s.freqs }

// TestModeSpectrumGolden renders a mode's spectrum on the log and note
// axes; its tone's trace peaks at the column of its bin's centre
// frequency (the log axis's position, computed here).
func TestModeSpectrumGolden(t *testing.T) {
	test.NewTempApp(t)
	e := newModeSource()
	for _, scale := range []plot.Scale{plot.Log, plot.Note} {
		v := NewSpectrumView(48000, 65536, scale, -120, 0)
		v.SetChannels("mix")
		win := showIn(t, v, 800, 300)
		v.Pull(e, []int{2})
		img := capture(win)
		test.AssertImageMatches(t, "spectrum_mode_"+scale.String()+".png", img)
		f := e.freqs[modeToneBin]
		lo := math.Max(20, 48000.0/65536)
		wantX := v.area.Min.X + int(math.Log(f/lo)/math.Log(24000/lo)*float64(v.area.Dx()))
		top := dbToY(-6, -120, 0, v.area.Min.Y, v.area.Max.Y)
		pal := paletteFor(true)
		found := -1
		for x := wantX - 2; x <= wantX+2; x++ {
			for y := top - 1; y <= top+1; y++ {
				if near(img.RGBAAt(x, y), pal.mix, 40) {
					found = x
				}
			}
		}
		if found < 0 {
			t.Errorf("%s: no trace at −6 dBFS near x=%d (%.1f Hz)", scale, wantX, f)
		}
	}
}

// TestModeReadoutAndReference: the cursor readout reads the mode's level
// at a bin's centre, a reference stored from a mode's spectrum (TraceAt)
// comes back on the same bins level for level (LevelsAt), and the peak
// label shows the mode's peak.
func TestModeReadoutAndReference(t *testing.T) {
	test.NewTempApp(t)
	e := newModeSource()
	v := NewSpectrumView(48000, 65536, plot.Log, -120, 0)
	win := showIn(t, v, 800, 300)
	v.Pull(e, []int{2})
	capture(win)
	f := e.freqs[modeToneBin]
	if l := levelOf(v.spectra[0].Current, v.spectra[0].BinHz, v.spectra[0].Freqs, f); math.Abs(l+6) > 1e-6 {
		t.Errorf("level at the tone's bin %.4f dB, want −6", l)
	}
	test.MoveMouse(win.Canvas(), fyne.NewPos(v.XFor(e.freqs[60]), 100))
	capture(win)
	fields := strings.Fields(v.Readout())
	if len(fields) < 3 {
		t.Fatalf("readout %q", v.Readout())
	}
	got, _ := strconv.ParseFloat(fields[0], 64)
	db, _ := strconv.ParseFloat(strings.ReplaceAll(fields[2], "−", "-"), 64)
	// between the bins either side of the cursor's frequency, linearly
	k := int(math.Floor(24 * math.Log2(got/20)))
	lk, lk1 := float64(e.level(k)), float64(e.level(k+1))
	tf := (got - e.freqs[k]) / (e.freqs[k+1] - e.freqs[k])
	if want := lk + tf*(lk1-lk); math.Abs(db-want) > 0.051 {
		t.Errorf("readout %q: level %.2f, want %.2f", v.Readout(), db, want)
	}
	if !strings.Contains(v.PeakLabel(), "987.0 Hz") || !strings.Contains(v.PeakLabel(), "−6.0") {
		t.Errorf("peak label %q, want 987.0 Hz at −6.0 dBFS", v.PeakLabel())
	}
	tr, err := TraceAt("ref", v.spectra[0].Current, v.spectra[0].BinHz, v.spectra[0].Freqs)
	if err != nil {
		t.Fatal(err)
	}
	var set RefSet
	set.Add(tr)
	var g RefGrid
	back := g.LevelsAt(&set, 0, len(e.freqs), v.spectra[0].BinHz, e.freqs)
	for k := range e.freqs {
		if math.Abs(float64(back[k]-e.level(k))) > 1e-4 {
			t.Fatalf("reference at bin %d (%.1f Hz): %.3f dB, stored %.3f", k, e.freqs[k], back[k], e.level(k))
		}
	}
}

// TestModeDensity: dBFS/Hz on a mode's spectrum subtracts 10·log10(2·ENBW)
// of each bin (the STFT's rule, UnitOffsetDB).
func TestModeDensity(t *testing.T) {
	e, sp, _ := modeDensity()
	for _, k := range []int{0, 50, modeToneBin, len(e.freqs) - 1} {
		want := float64(e.level(k)) - 10*math.Log10(2*e.enbw[k])
		if math.Abs(float64(sp.Current[k])-want) > 1e-3 {
			t.Errorf("bin %d: %.4f dBFS/Hz, want %.4f", k, sp.Current[k], want)
		}
	}
}

// TestModeDensityNoAllocs: converting a mode's spectrum to dBFS/Hz
// frame after frame reuses its offsets (computed once per table).
func TestModeDensityNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	_, sp, cal := modeDensity()
	if n := testing.AllocsPerRun(20, func() { cal.Apply(sp) }); n != 0 {
		t.Errorf("Apply in a mode: %v allocations a frame, want 0", n)
	}
}

// modeDensity is a mode's spectrum converted to dBFS/Hz (Hann) once, its
// source and the conversion.
func modeDensity() (*modeSource, *live.Spectrum, *DisplayCal) {
	e := newModeSource()
	var sp live.Spectrum
	e.Latest(0, &sp)
	var cal DisplayCal
	cal.Set(dsp.DBFSPerHz, 0, nil, window.Func{Kind: window.Hann})
	cal.Apply(&sp)
	return e, &sp, &cal
}

// TestModeWaterfall: a mode's columns draw the tone at its bin's column;
// golden image.
func TestModeWaterfall(t *testing.T) {
	test.NewTempApp(t)
	e := newModeSource()
	wf := NewWaterfall(48000, 65536, 512, plot.Log, plot.Gray, -120, 0, 2)
	win := showIn(t, wf, 600, 240)
	capture(win)
	wf.Pull(e, 0)
	img := capture(win)
	test.AssertImageMatches(t, "waterfall_mode.png", img)
	lo := math.Max(20, 48000.0/65536)
	wantX := wf.area.Min.X + int(math.Log(e.freqs[modeToneBin]/lo)/math.Log(24000/lo)*float64(wf.area.Dx()))
	if x := brightest(img, wantX, wf.area.Min.Y+2); abs(x-wantX) > 1 {
		t.Errorf("tone drawn at x=%d, want %d", x, wantX)
	}
}

// TestNoteAxis: a note axis is a log axis whose ticks are the Cs (C1 =
// 32.70 Hz … C10), labelled by name.
func TestNoteAxis(t *testing.T) {
	a := plot.NewFreqAxis(plot.Note, 48000, 4096)
	ticks := plot.FreqTicks(a, 800)
	var names []string
	for _, f := range ticks {
		if isMajor(a, f) {
			names = append(names, a.Label(f))
		}
	}
	if got := strings.Join(names, " "); got != "C1 C2 C3 C4 C5 C6 C7 C8 C9 C10" {
		t.Errorf("C ticks %q", got)
	}
	c4 := 440 * math.Pow(2, -9.0/12)
	if math.Abs(a.Pos(c4)-math.Log(c4/a.Low)/math.Log(a.High/a.Low)) > 1e-12 {
		t.Error("the note axis is not the log axis")
	}
}

// TestModeWaterfallKeepsRowTables: rows keep the bin table they came
// with: after the mode's table changes (another mode), re-rendering the
// history (a new dB range) still draws the old rows' tone at its place.
func TestModeWaterfallKeepsRowTables(t *testing.T) {
	test.NewTempApp(t)
	e := newModeSource()
	wf := NewWaterfall(48000, 65536, 512, plot.Log, plot.Gray, -120, 0, 2)
	win := showIn(t, wf, 600, 240)
	capture(win)
	wf.Pull(e, 0)
	// another mode: half the bins, none of its columns yet
	other := &modeSource{freqs: e.freqs[:len(e.freqs)/2], cols: 60}
	wf.Pull(other, 0)
	wf.SetRange(-110, 0) // re-renders every row from the history
	img := capture(win)
	lo := math.Max(20, 48000.0/65536)
	wantX := wf.area.Min.X + int(math.Log(e.freqs[modeToneBin]/lo)/math.Log(24000/lo)*float64(wf.area.Dx()))
	if x := brightest(img, wantX, wf.area.Min.Y+2); abs(x-wantX) > 1 {
		t.Errorf("after the table changed, the tone is drawn at x=%d, want %d", x, wantX)
	}
}
