package tfr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

func init() { builders[Reassigned] = newReassigned }

// DefaultThresholdDB is Reassigned's threshold when Config.ThresholdDB is
// 0: bins 60 dB or more below their frame's strongest bin stay where
// they are.
const DefaultThresholdDB = 60

// reassigned is the reassigned spectrogram (Auger & Flandrin 1995; Fulop
// & Fitz 2006) on the STFT's grid. Each frame is transformed with three
// windows, h, the time-weighted t·h and the derivative h' (t in samples
// from the window's centre), all frames of all channels in one engine
// call (a RealPlan). A bin's power then moves to the bin nearest its
// instantaneous frequency k − Im(X_h'·X_h*)/|X_h|²·N/2π and, unless
// Squeeze, to the frame nearest its group delay t + Re(X_th·X_h*)/|X_h|²
// (kept within the block's frames; a bin whose group delay falls outside
// its own window, as noise's weak bins' may, stays where it is, so no
// energy moves more than half a window). Powers are DBFS-scaled and divided
// by the window's ENBW in bins, so a sine gathered into one bin reads its
// level, each bin's ENBW is one bin, and each frame's total power is the
// STFT's divided by that ENBW (exactly with Squeeze; up to what moves
// between frames without it).
type reassigned struct {
	cfg             Config
	n, nb           int
	plan            gpufft.RealPlan
	win, twin, dwin []float32
	gain            []float32 // (c_k/Σw)²/ENBW per bin
	thr             float32   // power ratio below the frame's maximum
	stage           []float32
	spec            []complex64
	pow             []float32
	to              []int32   // each bin's place in its channel's frames×bins
	val             []float32 // and its power
	freqs, enbw     []float64 // of bins blo…bhi−1
	maxFrames       int
	blo, bhi        int       // the band of bins kept: energy moves only within it
	col, outBins    int       // the band's first column in an output row of outBins
	peak            []float32 // each row's strongest power (shared by a multi-resolution transform's sizes)
	work            *workers
}

func newReassigned(e gpufft.Engine, cfg Config) (Transform, error) {
	switch {
	case cfg.ThresholdDB < 0 || math.IsNaN(cfg.ThresholdDB):
		return nil, fmt.Errorf("tfr: reassigned: threshold %g dB: want ≥ 0: %w", cfg.ThresholdDB, gpufft.ErrInvalid)
	case cfg.Sizes != nil:
		return newReassignedMulti(e, cfg)
	}
	n := cfg.Size
	if err := checkSize(n, cfg); err != nil {
		return nil, err
	}
	if cfg.MaxSamples < n {
		return nil, fmt.Errorf("tfr: reassigned: MaxSamples %d is less than one frame (%d): %w", cfg.MaxSamples, n, gpufft.ErrInvalid)
	}
	if cfg.ThresholdDB == 0 {
		cfg.ThresholdDB = DefaultThresholdDB
	}
	t, err := newReassignedSize(e, cfg, n, 0, n/2+1, cfg.MaxSamples)
	if err != nil {
		return nil, err
	}
	t.outBins = t.nb
	t.peak = make([]float32, cfg.Channels*t.maxFrames)
	t.work = newWorkers(cfg.Channels)
	return t, nil
}

// newReassignedSize makes the transforms of one size n over frames of at
// most maxL samples, keeping bins lo…hi−1 (its band) and moving energy
// only within them; the caller sets outBins, col, peak and work.
func newReassignedSize(e gpufft.Engine, cfg Config, n, lo, hi, maxL int) (*reassigned, error) {
	t := &reassigned{cfg: cfg, n: n, nb: n/2 + 1, maxFrames: (maxL-n)/cfg.Hop + 1, blo: lo, bhi: hi}
	t.thr = float32(math.Pow(10, -cfg.ThresholdDB/10))
	t.windows(cfg.Window)
	batch := 3 * cfg.Channels * t.maxFrames
	plan, err := e.NewReal(n, batch)
	if err != nil {
		return nil, fmt.Errorf("tfr: reassigned: size %d: %w", n, err)
	}
	t.plan = plan
	t.stage = make([]float32, batch*n)
	t.spec = make([]complex64, batch*t.nb)
	t.pow = make([]float32, cfg.Channels*t.maxFrames*t.nb)
	t.to = make([]int32, cfg.Channels*t.maxFrames*t.nb)
	t.val = make([]float32, cfg.Channels*t.maxFrames*t.nb)
	t.freqs, _ = gridOf(cfg.Window, cfg.Rate, n, lo, hi, nil, nil)
	t.enbw = make([]float64, hi-lo)
	for k := range t.enbw {
		t.enbw[k] = cfg.Rate / float64(n)
	}
	return t, nil
}

// windows makes h, t·h and h' (the derivative of the periodic window,
// taken exactly in its Fourier series) and the bins' gains.
func (t *reassigned) windows(w window.Func) {
	n := t.n
	h := w.Values(n)
	fft := fourier.NewFFT(n)
	c := fft.Coefficients(nil, h)
	for k := range c {
		if k == n/2 {
			c[k] = 0
			continue
		}
		c[k] *= complex(0, 2*math.Pi*float64(k)/float64(n)/float64(n))
	}
	dh := fft.Sequence(nil, c)
	t.win, t.twin, t.dwin = make([]float32, n), make([]float32, n), make([]float32, n)
	sum := 0.0
	for m, v := range h {
		t.win[m] = float32(v)
		t.twin[m] = float32(float64(m-n/2) * v)
		t.dwin[m] = float32(dh[m])
		sum += v
	}
	eb := enbwBins(w, n)
	t.gain = make([]float32, t.nb)
	for k := range t.gain {
		ck := 2.0
		if k == 0 || k == n/2 {
			ck = 1
		}
		t.gain[k] = float32(ck * ck / (sum * sum) / eb)
	}
}

func (t *reassigned) Config() Config   { return t.cfg }
func (t *reassigned) Freqs() []float64 { return t.freqs }
func (t *reassigned) ENBW() []float64  { return t.enbw }
func (t *reassigned) Span() int        { return t.n }
func (t *reassigned) Close() error {
	t.work.stop()
	return t.plan.Close()
}

// closePlan frees the engine plan only (a multi-resolution transform's
// sizes share its workers).
func (t *reassigned) closePlan() error { return t.plan.Close() }

// Execute transforms every frame with the three windows in one engine
// call, then moves each bin's power on the host.
func (t *reassigned) Execute(dst, src []float32) (int, error) {
	ch, n, nb := t.cfg.Channels, t.n, t.nb
	l, frames := frameCount("reassigned", t.cfg, n, nb, dst, src)
	if frames == 0 {
		return 0, nil
	}
	if err := t.forward(src, l, frames); err != nil {
		return 0, err
	}
	clear(t.peak[:ch*frames])
	t.work.run(t, phasePeak, nil, l, frames)
	t.work.run(t, phaseMove, nil, l, frames)
	t.gather(frames)
	t.work.run(t, phaseDB, dst, l, frames)
	return frames, nil
}

// forward windows every frame of src (channels of stride l) three ways
// and transforms them all in one engine call.
func (t *reassigned) forward(src []float32, l, frames int) error {
	t.work.run(t, phaseWindow, src, l, frames)
	count := 3 * t.cfg.Channels * frames
	if err := t.plan.Forward(t.spec[:count*t.nb], t.stage[:count*t.n]); err != nil {
		return fmt.Errorf("tfr: reassigned: size %d: %w", t.n, err)
	}
	return nil
}

// gather adds every band bin's power at its place, in bin order, so the
// sums do not depend on the workers.
func (t *reassigned) gather(frames int) {
	nb := t.nb
	pow := t.pow[:t.cfg.Channels*frames*nb]
	clear(pow)
	for c := range t.cfg.Channels {
		block := pow[c*frames*nb : (c+1)*frames*nb]
		for r := c * frames; r < (c+1)*frames; r++ {
			to, val := t.to[r*nb+t.blo:r*nb+t.bhi], t.val[r*nb+t.blo:r*nb+t.bhi]
			for j, p := range val {
				block[to[j]] += p
			}
		}
	}
}

// window fills rows [lo, hi) (row = c·frames + i) of the stage with
// their frames under the three windows.
func (t *reassigned) window(src []float32, l, frames, lo, hi int) {
	n, hop := t.n, t.cfg.Hop
	for r := lo; r < hi; r++ {
		c, i := r/frames, r%frames
		x := src[c*l+i*hop : c*l+i*hop+n]
		s := t.stage[r*3*n : (r+1)*3*n]
		for m, v := range x {
			s[m], s[n+m], s[2*n+m] = v*t.win[m], v*t.twin[m], v*t.dwin[m]
		}
	}
}

// levels writes the band of rows [lo, hi) of pow to dst in dBFS.
func (t *reassigned) levels(dst []float32, lo, hi int) {
	w := t.bhi - t.blo
	for r := lo; r < hi; r++ {
		out, pow := dst[r*t.outBins+t.col:r*t.outBins+t.col+w], t.pow[r*t.nb+t.blo:r*t.nb+t.bhi]
		for k, p := range pow {
			out[k] = gpufft.PowerDB(p)
		}
	}
}

// peaks raises each of rows [lo, hi)'s peak to its band's strongest
// power.
func (t *reassigned) peaks(lo, hi int) {
	nb := t.nb
	for r := lo; r < hi; r++ {
		xh, p := t.spec[r*3*nb+t.blo:r*3*nb+t.bhi], t.peak[r]
		for k, v := range xh {
			p = max(p, (real(v)*real(v)+imag(v)*imag(v))*t.gain[t.blo+k])
		}
		t.peak[r] = p
	}
}

// move finds the place of every bin of rows [lo, hi): to (within its
// channel's frames×bins) and val, its power.
func (t *reassigned) move(frames, lo, hi int) {
	nb := t.nb
	for r := lo; r < hi; r++ {
		t.target(t.to[r*nb:(r+1)*nb], t.val[r*nb:(r+1)*nb], t.spec[r*3*nb:(r+1)*3*nb], t.peak[r], r%frames, frames)
	}
}

// target sets the places (to) and powers (val) of frame i's band bins,
// whose X_h, X_th and X_h' are one after another in x; peak is the
// frame's strongest power.
func (t *reassigned) target(to []int32, val []float32, x []complex64, peak float32, i, frames int) {
	nb := t.nb
	xh, xt, xd := x[:nb], x[nb:2*nb], x[2*nb:3*nb]
	thr := peak * t.thr
	binsPerRad := float64(t.n) / (2 * math.Pi)
	for k := t.blo; k < t.bhi; k++ {
		v := xh[k]
		m2 := real(v)*real(v) + imag(v)*imag(v)
		p := m2 * t.gain[k]
		to[k], val[k] = int32(i*nb+k), p
		if p == 0 || p < thr || !(m2 > 0) {
			continue
		}
		inv := 1 / float64(m2)
		re, im := float64(real(v)), float64(imag(v))
		d := xd[k]
		// Im(X_h'·conj X_h) and Re(X_th·conj X_h)
		dIm := float64(imag(d))*re - float64(real(d))*im
		kk := t.blo + clampRound(float64(k-t.blo)-dIm*inv*binsPerRad, t.bhi-t.blo)
		ii := i
		if !t.cfg.Squeeze {
			tt := xt[k]
			dt := (float64(real(tt))*re + float64(imag(tt))*im) * inv
			if math.Abs(dt) > float64(t.n/2) { // outside the window: not a place the frame saw
				continue
			}
			ii = clampRound(float64(i)+dt/float64(t.cfg.Hop), frames)
		}
		to[k] = int32(ii*nb + kk)
	}
}

// clampRound is round(x) kept in 0…n−1 (NaN: 0).
func clampRound(x float64, n int) int {
	if !(x >= 0) {
		return 0
	}
	return min(int(x+0.5), n-1)
}
