// Harmonic markers and the distortion readout: the fundamental and its
// harmonics 2…10 marked on the spectrum, and fundamental, THD, THD+N, SNR
// and SINAD measured by dsp.AnalyzeDistortion — the rule `prism
// distortion` uses — on the power of the spectrum shown.

package view

import (
	"errors"
	"image"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/window"
)

// ErrNoSpectrum is the distortion readout's error before a spectrum arrives.
var ErrNoSpectrum = errors.New("prism: distortion: no spectrum yet")

// HarmonicMeter measures a spectrum's distortion and keeps the result
// for the markers and the readout. A measurement takes milliseconds to
// tenths of a second (N=65536) and more at the largest sizes, so the
// window runs it on a goroutine of its own (start) and publishes the
// result on the Fyne goroutine; one runs at a time. Its buffers are reused; dsp.AnalyzeDistortion allocates
// its result once per measurement. Apart from work, only the Fyne
// goroutine uses it.
type HarmonicMeter struct {
	on    bool
	due   time.Time // the next measurement
	stale bool      // the spectrum changed since the last measurement (file view)
	busy  bool      // a measurement is running: work is its goroutine's
	work  harmonicWork
	res   dsp.Distortion
	err   error
	valid bool   // res holds a measurement
	leaky string // the window measured with, if it leaks (leakLimitDB)
	line  []byte // the readout
	note  []byte // why the readout is not to be trusted, if it is not
	unit  string // the unit of the spectrum measured ("dBFS" if empty): the fundamental's level is in it
	gen   uint64 // Discard's count: a measurement started before the last Discard is dropped
}

// harmonicWork is one measurement: its input (a copy of the spectrum),
// the window kernel it keeps from one to the next, and its outcome.
type harmonicWork struct {
	in     []float32
	binHz  float64
	window window.Func
	kwin   window.Func // the kernel's window
	fft    int
	kernel *dsp.WindowKernel
	leakDB float64 // the kernel's highest side lobe beyond leakFromBins (dB)
	power  []float64
	res    dsp.Distortion
	err    error
}

// harmonicLabels label the markers: the fundamental, then harmonics 2…10.
var harmonicLabels = [...][]byte{[]byte("F"), nil, []byte("2"), []byte("3"), []byte("4"), []byte("5"),
	[]byte("6"), []byte("7"), []byte("8"), []byte("9"), []byte("10")}

// measure analyses db (dB per bin, sine-level dBFS, bins 0…N/2 binHz
// apart) taken with window at once, on the calling goroutine.
func (h *HarmonicMeter) measure(db []float32, binHz float64, window window.Func) {
	h.load(db, binHz, window)
	h.work.run()
	h.publish()
}

// startWork measures db in the background unless a measurement is running,
// then, through do (onto the Fyne goroutine), publishes the result and
// calls done.
func (h *HarmonicMeter) startWork(db []float32, binHz float64, window window.Func, do func(func()), done func()) {
	if h.busy {
		return
	}
	h.busy = true
	h.load(db, binHz, window)
	gen := h.gen
	go func() {
		h.work.run()
		do(func() {
			h.busy = false
			if gen == h.gen { // else the spectrum measured is gone (Discard)
				h.publish()
			}
			done()
		})
	}()
}

// Discard forgets the readout and any measurement running: the spectrum
// it was of is not shown any more (file view: another file opened), so
// the readout must never show it; the next Due measures at once.
func (h *HarmonicMeter) Discard() {
	h.gen++
	h.valid, h.err, h.res = false, nil, dsp.Distortion{}
	h.line, h.note = h.line[:0], h.note[:0]
	h.stale, h.due = true, time.Time{}
}

// load copies the job into work (not while busy).
func (h *HarmonicMeter) load(db []float32, binHz float64, window window.Func) {
	h.work.in = append(h.work.in[:0], db...)
	h.work.binHz, h.work.window = binHz, window
}

// publish takes work's outcome for the markers and the readout.
func (h *HarmonicMeter) publish() {
	h.res, h.err = h.work.res, h.work.err
	h.valid = h.err == nil
	h.leaky = ""
	if h.work.kernel != nil && h.work.leakDB > leakLimitDB {
		h.leaky = h.work.kwin.String()
	}
	h.formatLine()
}

// run measures: each bin back to power, then dsp.AnalyzeDistortion with
// the window's kernel, the fundamental found as the strongest component.
func (m *harmonicWork) run() {
	m.res, m.err = dsp.Distortion{}, nil
	if err := m.ensureKernel(m.window, 2*(len(m.in)-1)); err != nil {
		m.err = err
		return
	}
	m.power = slices.Grow(m.power[:0], len(m.in))[:len(m.in)]
	for k, d := range m.in {
		m.power[k] = math.Pow(10, float64(d)/10) // −Inf dB: 0
	}
	m.res, m.err = dsp.AnalyzeDistortion(m.power, m.kernel, m.binHz, 0)
}

// ensureKernel makes the window kernel of window at size fft, unless it
// has it.
func (m *harmonicWork) ensureKernel(window window.Func, fft int) error {
	if m.kernel != nil && m.kwin == window && m.fft == fft {
		return nil
	}
	m.kernel = nil
	if fft < 2 {
		return ErrNoSpectrum
	}
	k, err := dsp.NewWindowKernel(window.Values(fft))
	if err != nil {
		return err
	}
	m.kernel, m.kwin, m.fft = k, window, fft
	m.leakDB = leakageDB(k)
	return nil
}

// The noise AnalyzeDistortion subtracts is the mean of every bin outside
// the lobes; a window whose side lobes stay above leakLimitDB beyond
// leakFromBins spreads the fundamental into it and under the harmonics'
// lobes (with a −6 dBFS sine at 1 kHz, N=8192 and harmonics at 0.11 %,
// Hann reads THD 0.051 % and SNR 31 dB, Blackman 0.113 %, Blackman-Harris,
// flat-top and Kaiser β=20 0.1136 %: measured in TestHarmonicWindows).
// The readout says so.
const (
	leakLimitDB  = -85
	leakFromBins = 7
)

// leakageDB is the highest of the window kernel's side lobes from
// leakFromBins to leakFromBins+10 bins off the centre, in dB.
func leakageDB(k *dsp.WindowKernel) float64 {
	m := 0.0
	for nu := float64(leakFromBins); nu < leakFromBins+10; nu += 0.05 {
		m = max(m, k.Power(nu))
	}
	return 10 * math.Log10(m)
}

// formatLine writes the readout: fundamental frequency and level, THD in
// % and dB, THD+N, SNR and SINAD (or why there is none).
func (h *HarmonicMeter) formatLine() {
	b := h.line[:0]
	h.note = h.note[:0]
	if !h.valid {
		// not a result: said in words, drawn in the text's colour (a
		// result is red), the error itself kept for Result
		if h.err == nil || errors.Is(h.err, dsp.ErrNoFundamental) {
			b = append(b, "THD: no steady tone to measure: play a tone (D hides this)"...)
		} else {
			b = append(b, "THD: not measured: "...)
			b = append(b, h.err.Error()...)
		}
		h.line = b
		return
	}
	r := &h.res
	b = append(b, "F "...)
	b = strconv.AppendFloat(b, r.FundamentalHz, 'f', 2, 64)
	b = append(b, " Hz  "...)
	b = appendRatio(b, r.FundamentalDBFS)
	unit := h.unit
	if unit == "" {
		unit = UnitLabels[dsp.DBFS]
	}
	b = append(b, strings.TrimPrefix(unit, "dB")...) // appendRatio wrote "dB"
	b = append(b, "   THD "...)
	b = strconv.AppendFloat(b, r.THDPercent, 'g', 4, 64)
	b = append(b, " % ("...)
	b = appendRatio(b, r.THDDB)
	b = append(b, ")   THD+N "...)
	b = appendRatio(b, r.THDNDB)
	b = append(b, "   SNR "...)
	b = appendRatio(b, r.SNRDB)
	b = append(b, "   SINAD "...)
	b = appendRatio(b, r.SINADDB)
	h.line = b
	h.note = h.note[:0]
	if h.leaky != "" {
		h.note = append(h.note, "the "...)
		h.note = append(h.note, h.leaky...)
		h.note = append(h.note, " window leaks into the harmonics and noise: use blackman-harris or flattop for THD"...)
	}
}

// appendRatio formats a ratio in dB with two decimals: −60.00 dB.
func appendRatio(b []byte, db float64) []byte {
	if math.IsInf(db, 0) || math.IsNaN(db) {
		return append(b, "— dB"...)
	}
	if db < 0 {
		b = append(b, "−"...)
		db = -db
	}
	b = strconv.AppendFloat(b, db, 'f', 2, 64)
	return append(b, " dB"...)
}

// SetHarmonics marks harmonics and draws the readout of h (nil: none).
func (v *SpectrumView) SetHarmonics(h *HarmonicMeter) { v.harm = h }

// drawHarmonics marks the fundamental (F) and harmonics 2…10 below
// Nyquist at the first spectrum's level, and writes the readout (and the
// note on the window) at the bottom left of the plot area.
func (v *SpectrumView) drawHarmonics(pal *palette) {
	h := v.harm
	if h == nil || !h.on || v.n == 0 {
		return
	}
	a := v.area
	p := &v.p
	th := p.textHeight()
	y := a.Max.Y - p.px(4) - th
	// a veil under the text, so the traces do not run through it
	box := image.Rect(a.Min.X+p.px(2), y-p.px(2), a.Min.X+p.px(6)+max(p.textWidthBytes(h.line), p.textWidthBytes(h.note)), a.Max.Y-p.px(2))
	if len(h.note) > 0 {
		box.Min.Y -= th + p.px(2)
	}
	p.blendFill(box, paletteFor(v.dark).plotBg, 200)
	if len(h.note) > 0 {
		p.textBytes(h.note, a.Min.X+p.px(4), y, 0, 0, pal.peak)
		y -= th + p.px(2)
	}
	if !h.valid {
		p.textBytes(h.line, a.Min.X+p.px(4), y, 0, 0, pal.text)
		return
	}
	p.textBytes(h.line, a.Min.X+p.px(4), y, 0, 0, pal.peak)
	sp := &v.spectra[0]
	v.harmonicMarker(h.res.FundamentalHz, 0, sp, pal)
	for _, hm := range h.res.Harmonics {
		v.harmonicMarker(hm.FreqHz, hm.N, sp, pal)
	}
}

// harmonicMarker draws a tick above the spectrum at f and its label (n
// 0: the fundamental).
func (v *SpectrumView) harmonicMarker(f float64, n int, sp *live.Spectrum, pal *palette) {
	pos := v.axis.Pos(f)
	if pos < 0 || pos > 1 || n >= len(harmonicLabels) {
		return
	}
	a := v.area
	p := &v.p
	x := a.Min.X + int(pos*float64(a.Dx()))
	y := dbToY(float32(spLevelAt(sp, sp.Current, f)), v.dbMin, v.dbMax, a.Min.Y, a.Max.Y)
	top := max(a.Min.Y+p.textHeight()+p.px(6), y-p.px(22))
	p.vline(x, top, max(top, y-p.px(4)), pal.band)
	p.textBytes(harmonicLabels[n], x, top-p.px(1), 0.5, 1, pal.band)
}

// HarmonicEvery is how often a readout is recomputed: a few times a
// second, never per frame.
const HarmonicEvery = 250 * time.Millisecond

// On says whether the markers and the readout are on.
func (h *HarmonicMeter) On() bool { return h.on }

// SetOn turns the markers and the readout on or off; the next Due
// measures at once.
func (h *HarmonicMeter) SetOn(on bool) { h.on, h.due, h.stale = on, time.Time{}, true }

// MarkStale says the spectrum changed since the last measurement (file
// view: the cursor moved).
func (h *HarmonicMeter) MarkStale() { h.stale = true }

// Stale says whether the spectrum changed since the last measurement.
func (h *HarmonicMeter) Stale() bool { return h.stale }

// Due says whether a measurement may start at now: on, none running and
// HarmonicEvery passed since the last.
func (h *HarmonicMeter) Due(now time.Time) bool { return h.on && !h.busy && !now.Before(h.due) }

// Start measures db (dB per bin in unit, bins 0…N/2 binHz apart, taken
// with window) on a goroutine of its own unless one is running, then,
// through do (onto the Fyne goroutine), publishes the result and calls
// done. The next Due is HarmonicEvery after now.
func (h *HarmonicMeter) Start(db []float32, binHz float64, window window.Func, unit string, now time.Time, do func(func()), done func()) {
	h.stale = false
	h.due = now.Add(HarmonicEvery)
	h.unit = unit
	h.startWork(db, binHz, window, do, done)
}

// Result is the last measurement and its readout (with the note on the
// window, if any): ErrNoSpectrum before any.
func (h *HarmonicMeter) Result() (dsp.Distortion, string, error) {
	if !h.valid && h.err == nil {
		return dsp.Distortion{}, "", ErrNoSpectrum
	}
	line := string(h.line)
	if len(h.note) > 0 {
		line += "\n" + string(h.note)
	}
	return h.res, line, h.err
}
