// The Transfer workspace's view: a live dual-channel measurement
// (transfer.LiveResult) as magnitude with coherence, phase, group delay,
// impulse response and energy–time curve, per measurement channel, with
// the spatial average, stored references and the delay in words.

package view

import (
	"image"
	"image/color"
	"math"
	"math/cmplx"
	"slices"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/transfer"
)

// TransferSource is what the transfer view pulls from: the session's
// transfer analyzer. Both are called on the Fyne goroutine and copy out
// without blocking for long.
type TransferSource interface {
	// LatestTransfer copies the latest result into dst (reusing its
	// slices); false before the first frame.
	LatestTransfer(dst *transfer.LiveResult) bool
	// TransferImpulse writes measurement channel ch's impulse response
	// and energy–time curve (FFT values each, lag order) and returns the
	// response's peak; ok false when it cannot (no analyzer, the settings
	// changed).
	TransferImpulse(ch int, ir, etc []float64) (d dual.Delay, ok bool)
}

// TransferOptions are what the transfer view shows and how.
type TransferOptions struct {
	Smoothing    int     // 1/Smoothing octave, dual.MinSmoothFraction…MaxSmoothFraction; 0: none
	CohThreshold float64 // magnitude where γ² is below it is drawn faded (0…1)
	Unwrap       bool    // phase unwrapped, with the delay found taken out (wrapped otherwise)
	GroupDelay   bool    // the group delay pane
	Impulse      bool    // the impulse response and ETC panes
	SpeedOfSound float64 // m/s, for the delay in metres (0: dual.SpeedOfSound)
	IRChannel    int     // the measurement channel (index into the result's channels) of the IR and the readout
	MagMin       float64 // the magnitude axis, dB
	MagMax       float64
}

// DefaultTransferOptions: 1/12-octave smoothing, coherence threshold
// 0.5, wrapped phase, the impulse response shown, ±30 dB.
func DefaultTransferOptions() TransferOptions {
	return TransferOptions{Smoothing: 12, CohThreshold: 0.5, Impulse: true, SpeedOfSound: dual.SpeedOfSound,
		MagMin: -30, MagMax: 30}
}

// transferColors are the measurement channels' colours (cycled past 16).
var transferColors = [16]color.RGBA{
	{80, 200, 255, 255}, {255, 170, 60, 255}, {120, 230, 120, 255}, {220, 120, 255, 255},
	{255, 100, 100, 255}, {255, 230, 90, 255}, {90, 240, 220, 255}, {255, 140, 200, 255},
	{150, 160, 255, 255}, {190, 255, 120, 255}, {255, 190, 140, 255}, {130, 200, 170, 255},
	{210, 170, 255, 255}, {240, 240, 160, 255}, {120, 170, 220, 255}, {230, 130, 150, 255},
}

// TransferColor is measurement channel i's colour (the panel's legend
// uses it too).
func TransferColor(i int) color.RGBA { return transferColors[i%len(transferColors)] }

// Spatial averages' colours.
var (
	spatialPowerColor = color.RGBA{255, 255, 255, 255}
	spatialCohColor   = color.RGBA{255, 210, 0, 255}
)

// irRefreshEvery is how often the impulse response is pulled: it costs
// two inverse FFTs of the full length (a few ms at 2^16), so not every
// frame.
const irRefreshEvery = 100 * time.Millisecond

// TransferView draws the live transfer function. Only the Fyne goroutine
// uses it; Pull and the draw allocate nothing in steady state.
type TransferView struct {
	plotBase
	opts    TransferOptions
	res     transfer.LiveResult
	have    bool
	frames  uint64 // res.Frames at the last pull
	tracked bool   // res.Tracked as the background was drawn
	now     func() time.Time

	found  []dual.Delay // Find's delays, per channel (when not tracking)
	nFound int
	refs   []*dsp.Trace
	diffTo int // the reference the difference is taken to; −1: none
	// the measurement microphone's response (SetMic; nil: none) and its
	// value at each bin of the geometry micGeo, subtracted from H
	mic    *dsp.MicResponse
	micDB  []float64
	micGeo [2]int
	bgVer  int // bumped when what the background shows changes

	// per channel and bin (bins of the result's geometry)
	bins     int
	pow      [][]float64    // |H|², smoothed
	coh      [][]float64    // γ², smoothed
	h        [][]complex128 // H (delay taken out when unwrapped), smoothed
	unw      []float64      // scratch: one channel's unwrapped phase
	gd       []float64      // scratch: its group delay
	spatial  [2][]float64   // plain and coherence-weighted power averages
	smoother *dual.Smoother

	// per column of the frequency panes
	axis     plot.FreqAxis
	cols     int
	geo      [2]int // rate, FFT the columns are mapped for
	lo, hi   []int32
	cMag     [][]float32 // per channel, then the two spatial averages
	cPh      [][]float32
	cCoh     [][]float32
	cGD      [][]float32
	rMag     [][]float32 // per reference: its magnitude and phase at the columns
	rPh      [][]float32
	refKey   int     // bumped when the references or the columns change
	refDone  int     // the refKey the references were resampled for
	phLo     float64 // the phase axis (wrapped: ±180)
	phHi     float64
	gdLo     float64 // the group delay axis, ms
	gdHi     float64
	panes    transferPanes
	names    []string // legend labels, per channel
	nameKey  int
	legend   []legendItem
	readout  []byte
	irCh     int
	ir, etc  []float64
	irDelay  dual.Delay
	irOK     bool
	irDue    time.Time // the next pull of the impulse response, no sooner (zero: at once)
	irFrames uint64    // res.Frames of the impulse response pulled
	irStart  int       // the first lag index shown
	irSpan   int       // lags shown
	irLabelN int       // the FFT size the lag axis was labelled for
}

// transferPanes are the plot rectangles of one frame.
type transferPanes struct {
	mag, phase, gd, ir, etc image.Rectangle
}

// NewTransferView makes an empty transfer view.
func NewTransferView() *TransferView {
	v := &TransferView{opts: DefaultTransferOptions(), diffTo: -1, now: time.Now, phLo: -180, phHi: 180, gdLo: -5, gdHi: 5}
	v.dark = true
	v.raster = canvas.NewRaster(v.draw)
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer implements fyne.Widget.
func (v *TransferView) CreateRenderer() fyne.WidgetRenderer {
	return newPlotRenderer(v.raster, fyne.NewSize(480, 360))
}

// SetOptions changes what is shown; the next Pull recomputes.
func (v *TransferView) SetOptions(o TransferOptions) {
	if o.SpeedOfSound <= 0 {
		o.SpeedOfSound = dual.SpeedOfSound
	}
	if !(o.MagMin < o.MagMax) {
		o.MagMin, o.MagMax = v.opts.MagMin, v.opts.MagMax
	}
	if o.IRChannel != v.opts.IRChannel {
		v.irDue = time.Time{}
	}
	v.opts = o
	v.frames = math.MaxUint64 // recompute at the next pull
	v.bgVer++
	v.raster.Refresh()
}

// Options are the options shown.
func (v *TransferView) Options() TransferOptions { return v.opts }

// SetDark chooses the palette.
func (v *TransferView) SetDark(dark bool) { v.dark = dark }

// SetFound keeps Find's delays (per measurement channel), shown and,
// with the phase unwrapped, taken out of it while not tracking.
func (v *TransferView) SetFound(d []dual.Delay) {
	v.found = append(v.found[:0], d...)
	v.nFound = len(d)
	v.frames = math.MaxUint64
}

// SetReferences keeps the stored traces drawn over the magnitude and
// phase: those of a transfer function (PhaseDeg set); others are not
// drawn. The difference (SetDiffTo) indexes this list.
func (v *TransferView) SetReferences(refs []*dsp.Trace) {
	v.refs = append(v.refs[:0], refs...)
	v.refKey++
	if v.diffTo >= len(v.refs) {
		v.diffTo = -1
	}
	v.frames = math.MaxUint64
	v.bgVer++
}

// SetDiffTo shows the difference of each channel to reference i
// (magnitude in dB, phase in degrees); −1 shows the responses.
func (v *TransferView) SetDiffTo(i int) {
	if i >= len(v.refs) || i < 0 || !v.refs[i].IsTransfer() {
		i = -1
	}
	v.diffTo = i
	v.frames = math.MaxUint64
	v.bgVer++
}

// DiffTo is the reference the difference is taken to (−1: none).
func (v *TransferView) DiffTo() int { return v.diffTo }

// Result is the last result pulled (valid until the next Pull).
func (v *TransferView) Result() (*transfer.LiveResult, bool) { return &v.res, v.have }

// Readout is the delay readout last drawn.
func (v *TransferView) Readout() string { return string(v.readout) }

// Image is the last frame drawn.
func (v *TransferView) Image() *image.RGBA { return v.img }

// Pull copies the newest result out of src and recomputes what is drawn
// (only when it changed), and, every irRefreshEvery, the impulse
// response. It does not allocate in steady state.
func (v *TransferView) Pull(src TransferSource) {
	if !src.LatestTransfer(&v.res) {
		if v.have {
			v.have = false
			v.appendReadout()
			v.raster.Refresh()
		}
		return
	}
	v.have = true
	v.nameChannels()
	if v.res.Tracked != v.tracked { // the titles say whose delay is taken out
		v.tracked = v.res.Tracked
		v.bgVer++
	}
	// the impulse response: at most every irRefreshEvery, and only of a
	// new average (or a new channel: nameChannels, SetOptions)
	if now := v.now(); v.opts.Impulse && !now.Before(v.irDue) && (v.res.Frames != v.irFrames || v.irDue.IsZero()) {
		v.irDue, v.irFrames = now.Add(irRefreshEvery), v.res.Frames
		v.pullImpulse(src)
		v.raster.Refresh()
	}
	if v.res.Frames == v.frames {
		return
	}
	v.frames = v.res.Frames
	v.compute()
	v.appendReadout()
	v.raster.Refresh()
}

// nameChannels makes the legend's names when the channels change.
func (v *TransferView) nameChannels() {
	k := len(v.res.Channels)
	for _, c := range v.res.Channels {
		k = k*131 + c + 1
	}
	if k == v.nameKey && len(v.names) == len(v.res.Channels) {
		return
	}
	v.nameKey = k
	v.names = v.names[:0]
	for _, c := range v.res.Channels {
		v.names = append(v.names, "ch "+strconv.Itoa(c+1))
	}
	v.irDue = time.Time{}
	v.bgVer++
}

// pullImpulse copies the impulse response of the chosen channel.
func (v *TransferView) pullImpulse(src TransferSource) {
	n := v.res.Geometry.FFT
	if len(v.ir) != n {
		v.ir, v.etc = make([]float64, n), make([]float64, n)
	}
	v.irCh = min(max(v.opts.IRChannel, 0), len(v.res.Channels)-1)
	v.irDelay, v.irOK = src.TransferImpulse(v.irCh, v.ir, v.etc)
	v.placeIRWindow()
}

// placeIRWindow picks the lags shown: up to 100 ms (the whole response
// when shorter), the peak a quarter in; it moves only when the peak
// leaves the middle half, so the lag axis (in the background) stays.
func (v *TransferView) placeIRWindow() {
	n, rate := v.res.Geometry.FFT, v.res.Geometry.Rate
	span := min(n, max(64, rate/10))
	peak := n / 2
	if v.irOK && v.irDelay.Found {
		peak += int(math.Round(v.irDelay.Samples))
	}
	start := v.irStart
	if span != v.irSpan || n != v.irLabelN || peak < start+span/8 || peak > start+span*5/8 {
		start = peak - span/4
	}
	start = min(max(start, 0), n-span)
	if start != v.irStart || span != v.irSpan || n != v.irLabelN {
		v.irStart, v.irSpan, v.irLabelN = start, span, n
		v.bgVer++
	}
}

// ensure sizes the per-bin and per-column buffers for m channels of bins
// bins and the columns of the current panes.
func (v *TransferView) ensure(m, bins int) {
	if v.bins != bins || len(v.pow) != m {
		v.bins = bins
		v.pow, v.h, v.coh = make([][]float64, m), make([][]complex128, m), make([][]float64, m)
		for c := range m {
			v.pow[c], v.h[c], v.coh[c] = make([]float64, bins), make([]complex128, bins), make([]float64, bins)
		}
		v.unw, v.gd = make([]float64, bins), make([]float64, bins)
		v.spatial = [2][]float64{make([]float64, bins), make([]float64, bins)}
		v.smoother = nil
		v.cols = -1
	}
	if f := v.opts.Smoothing; f > 0 && (v.smoother == nil || v.smoother.Fraction() != f) {
		v.smoother, _ = dual.NewSmoother(bins, f)
	} else if f == 0 {
		v.smoother = nil
	}
	g := v.res.Geometry
	cols := v.panes.mag.Dx()
	if cols < 1 {
		cols = 1
	}
	if cols != v.cols || v.geo != [2]int{g.Rate, g.FFT} || len(v.cMag) != m+2 {
		v.cols, v.geo = cols, [2]int{g.Rate, g.FFT}
		v.axis = plot.NewFreqAxis(plot.Log, g.Rate, g.FFT)
		v.lo, v.hi = v.axis.RowBins(cols, g.FFT, g.Rate)
		mk := func(k int) [][]float32 {
			s := make([][]float32, k)
			for i := range s {
				s[i] = make([]float32, cols)
			}
			return s
		}
		v.cMag, v.cPh, v.cCoh, v.cGD = mk(m+2), mk(m), mk(m), mk(m)
		v.refKey++
		v.bgVer++
	}
	if v.refKey != v.lastRefKey() {
		v.resampleRefs()
	}
}

// compute turns the result into the columns drawn.
func (v *TransferView) compute() {
	r := &v.res
	m := len(r.MagnitudeDB)
	if m == 0 || len(r.MagnitudeDB[0]) < 2 {
		return
	}
	v.ensure(m, len(r.MagnitudeDB[0]))
	binHz := r.Geometry.BinHz()
	for c := range m {
		v.response(c, binHz)
	}
	if m >= 2 {
		dual.SpatialAverage(v.spatial[0], v.pow, v.coh, false)
		dual.SpatialAverage(v.spatial[1], v.pow, v.coh, true)
		v.powerColumns(v.cMag[m], v.spatial[0])
		v.powerColumns(v.cMag[m+1], v.spatial[1])
	}
	phLo, phHi := math.Inf(1), math.Inf(-1)
	gdLo, gdHi := math.Inf(1), math.Inf(-1)
	for c := range m {
		v.powerColumns(v.cMag[c], v.pow[c])
		v.meanColumns(v.cCoh[c], v.coh[c], 1)
		if v.opts.Unwrap || v.opts.GroupDelay {
			for k, h := range v.h[c] {
				v.unw[k] = dual.PhaseDeg(h)
			}
			dual.UnwrapDeg(v.unw, v.unw)
			anchorTurns(v.unw, binHz)
		}
		if v.opts.Unwrap {
			v.meanColumns(v.cPh[c], v.unw, 1)
			lo, hi := coherentRange(v.cPh[c], v.cCoh[c], v.opts.CohThreshold)
			phLo, phHi = min(phLo, lo), max(phHi, hi)
		} else {
			v.phaseColumns(v.cPh[c], v.h[c])
		}
		if v.opts.GroupDelay {
			dual.GroupDelay(v.gd, v.unw, binHz)
			v.meanColumns(v.cGD[c], v.gd, 1000)
			lo, hi := coherentRange(v.cGD[c], v.cCoh[c], v.opts.CohThreshold)
			gdLo, gdHi = min(gdLo, lo), max(gdHi, hi)
		}
	}
	v.applyDiff(m)
	v.setPhaseRange(phLo, phHi)
	v.setGDRange(gdLo, gdHi)
}

// response fills channel c's |H|² and H from the result, the delay
// found taken out (unwrapped, not tracking), smoothed.
func (v *TransferView) response(c int, binHz float64) {
	r := &v.res
	pow, h := v.pow[c], v.h[c]
	mic := v.micBins(binHz)
	for k, db := range r.MagnitudeDB[c] {
		if mic != nil {
			db -= mic[k]
		}
		a := math.Pow(10, db/20)
		s, co := math.Sincos(r.PhaseDeg[c][k] * (math.Pi / 180))
		pow[k], h[k] = a*a, complex(a*co, a*s)
	}
	if d := v.foundDelay(c); v.opts.Unwrap && !r.Tracked && d.Found {
		dual.RemoveDelay(h, h, binHz, d.Samples/float64(r.Geometry.Rate))
	}
	copy(v.coh[c], r.Coherence[c])
	if v.smoother != nil {
		v.smoother.Power(pow, pow)
		v.smoother.Complex(h, h)
		v.smoother.Power(v.coh[c], v.coh[c]) // γ² smoothed as a mean, as the weights of the spatial average want
	}
}

// foundDelay is channel c's delay shown: the tracker's while tracking,
// Find's otherwise (Found false: none, or no clear peak).
func (v *TransferView) foundDelay(c int) dual.Delay {
	if v.res.Tracked {
		if c < len(v.res.Delays) && !v.res.Delays[c].NoPeak {
			return v.res.Delays[c].Delay
		}
		return dual.Delay{}
	}
	if c < v.nFound {
		return v.found[c]
	}
	return dual.Delay{}
}

// powerColumns writes 10·log10 of the mean power of each column's bins.
func (v *TransferView) powerColumns(dst []float32, pow []float64) {
	for x := range dst {
		lo, hi := int(v.lo[x]), int(v.hi[x])
		s := 0.0
		for _, p := range pow[lo:hi] {
			s += p
		}
		dst[x] = finite32(dual.PowerRatioDB(s / float64(hi-lo)))
	}
}

// meanColumns writes the mean of each column's bins times scale.
func (v *TransferView) meanColumns(dst []float32, vals []float64, scale float64) {
	for x := range dst {
		lo, hi := int(v.lo[x]), int(v.hi[x])
		s := 0.0
		for _, p := range vals[lo:hi] {
			s += p
		}
		dst[x] = finite32(s / float64(hi-lo) * scale)
	}
}

// finite32 is v as a float32, NaN (a column left out) where it is not
// finite there.
func finite32(v float64) float32 {
	f := float32(v)
	if math.IsInf(float64(f), 0) {
		return float32(math.NaN())
	}
	return f
}

// phaseColumns writes the phase of each column's vector mean (wrapped).
func (v *TransferView) phaseColumns(dst []float32, h []complex128) {
	for x := range dst {
		var s complex128
		for _, z := range h[v.lo[x]:v.hi[x]] {
			s += z
		}
		dst[x] = float32(dual.PhaseDeg(s))
	}
}

// anchorTurns shifts an unwrapped phase by whole turns so that it
// reads within ±180° at 1 kHz (unwrapping from DC leaves the turns
// arbitrary; the ear's middle is where people read them).
func anchorTurns(unw []float64, binHz float64) {
	k := min(len(unw)-1, int(math.Round(1000/binHz)))
	off := 360 * math.Round(unw[k]/360)
	if off == 0 {
		return
	}
	for i := range unw {
		unw[i] -= off
	}
}

// coherentRange is the least and greatest of vals where coh ≥ thr.
func coherentRange(vals, coh []float32, thr float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for x, y := range vals {
		if float64(coh[x]) >= thr && !math.IsNaN(float64(y)) && !math.IsInf(float64(y), 0) {
			lo, hi = min(lo, float64(y)), max(hi, float64(y))
		}
	}
	return lo, hi
}

// applyDiff subtracts the reference chosen from each channel's columns.
func (v *TransferView) applyDiff(m int) {
	if v.diffTo < 0 || v.diffTo >= len(v.rMag) {
		return
	}
	rm, rp := v.rMag[v.diffTo], v.rPh[v.diffTo]
	for c := range m + 2 {
		for x, y := range rm {
			v.cMag[c][x] -= y
			if c < m {
				d := v.cPh[c][x] - rp[x]
				if !v.opts.Unwrap {
					d = float32(dsp.WrapDeg(float64(d)))
				}
				v.cPh[c][x] = d
			}
		}
	}
}

// setPhaseRange sets the phase axis: ±180 wrapped; unwrapped, the
// coherent columns' span in whole half turns (changed only when they
// leave it, so the background keeps).
func (v *TransferView) setPhaseRange(lo, hi float64) {
	if !v.opts.Unwrap || math.IsInf(lo, 0) {
		lo, hi = -180, 180
	} else {
		lo, hi = math.Floor(lo/180)*180, math.Ceil(hi/180)*180
		lo, hi = min(lo, -180), max(hi, 180)
		if lo >= v.phLo && hi <= v.phHi && v.phHi-v.phLo <= 4*(hi-lo) {
			return
		}
	}
	if lo != v.phLo || hi != v.phHi {
		v.phLo, v.phHi = lo, hi
		v.bgVer++
	}
}

// setGDRange sets the group delay axis (ms) as setPhaseRange does, in
// nice steps, at least ±1 ms.
func (v *TransferView) setGDRange(lo, hi float64) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return
	}
	step := niceStep(max(hi-lo, 2) / 4)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	lo, hi = min(lo, -1), max(hi, 1)
	if lo >= v.gdLo && hi <= v.gdHi && v.gdHi-v.gdLo <= 4*(hi-lo) {
		return
	}
	v.gdLo, v.gdHi = lo, hi
	v.bgVer++
}

// niceStep is the 1, 2, 5 × 10^k at or above s.
func niceStep(s float64) float64 {
	if s <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(s)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= s*0.999 {
			return m * p
		}
	}
	return 10 * p
}

// lastRefKey is the key the references were resampled for.
func (v *TransferView) lastRefKey() int {
	if len(v.rMag) != len(v.refs) {
		return -1
	}
	return v.refDone
}

// resampleRefs maps each reference to the columns (its level and phase
// at each column's centre frequency, interpolated).
func (v *TransferView) resampleRefs() {
	n := len(v.refs)
	for len(v.rMag) < n {
		v.rMag, v.rPh = append(v.rMag, nil), append(v.rPh, nil)
	}
	v.rMag, v.rPh = v.rMag[:n], v.rPh[:n]
	for i, t := range v.refs {
		if len(v.rMag[i]) != v.cols {
			v.rMag[i], v.rPh[i] = make([]float32, v.cols), make([]float32, v.cols)
		}
		for x := range v.cols {
			f := v.axis.Freq((float64(x) + 0.5) / float64(v.cols))
			v.rMag[i][x] = float32(interpAt(t.FreqHz, t.Level, f))
			v.rPh[i][x] = float32(math.NaN())
			if t.IsTransfer() {
				v.rPh[i][x] = float32(phaseAt(t.FreqHz, t.PhaseDeg, f))
			}
		}
	}
	v.refDone = v.refKey
}

// interpAt is vals at f, linear between the points around it (the end
// values outside).
func interpAt(freq, vals []float64, f float64) float64 {
	i, _ := slices.BinarySearch(freq, f) // the first index whose frequency is ≥ f
	switch {
	case i <= 0:
		return vals[0]
	case i >= len(freq):
		return vals[len(vals)-1]
	}
	t := (f - freq[i-1]) / (freq[i] - freq[i-1])
	return vals[i-1] + t*(vals[i]-vals[i-1])
}

// phaseAt is a wrapped phase at f, interpolated as a vector.
func phaseAt(freq, deg []float64, f float64) float64 {
	i, _ := slices.BinarySearch(freq, f)
	i = min(max(i, 1), len(freq)-1)
	if len(freq) < 2 {
		return deg[0]
	}
	t := min(max((f-freq[i-1])/(freq[i]-freq[i-1]), 0), 1)
	a := cmplx.Rect(1-t, deg[i-1]*math.Pi/180) + cmplx.Rect(t, deg[i]*math.Pi/180)
	return dual.PhaseDeg(a)
}

// SetMic sets the measurement microphone's response (a calibration file,
// REW/miniDSP text), subtracted from every channel's magnitude, as the
// spectra's are: H is then the system's, not the system's and the
// microphone's. nil removes it.
func (v *TransferView) SetMic(m *dsp.MicResponse) {
	v.mic, v.micGeo = m, [2]int{}
	v.frames = math.MaxUint64
	v.bgVer++
}

// micBins is the microphone's response at each bin of the result's
// geometry (nil without a microphone), made when the geometry changes.
func (v *TransferView) micBins(binHz float64) []float64 {
	if v.mic == nil {
		return nil
	}
	g := v.res.Geometry
	if geo := [2]int{g.Rate, g.FFT}; geo != v.micGeo || len(v.micDB) != g.FFT/2+1 {
		v.micGeo = geo
		v.micDB = make([]float64, g.FFT/2+1)
		for k := range v.micDB {
			v.micDB[k] = v.mic.ResponseDB(float64(k) * binHz)
		}
	}
	return v.micDB
}
