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
	freqs, enbw     []float64
	maxFrames       int
}

func newReassigned(e gpufft.Engine, cfg Config) (Transform, error) {
	n := cfg.Size
	if err := checkSize(n, cfg); err != nil {
		return nil, err
	}
	switch {
	case cfg.Sizes != nil:
		return nil, fmt.Errorf("tfr: reassigned: a multi-resolution base (Sizes) is not built; give Size: %w", gpufft.ErrInvalid)
	case cfg.ThresholdDB < 0 || math.IsNaN(cfg.ThresholdDB):
		return nil, fmt.Errorf("tfr: reassigned: threshold %g dB: want ≥ 0: %w", cfg.ThresholdDB, gpufft.ErrInvalid)
	case cfg.MaxSamples < n:
		return nil, fmt.Errorf("tfr: reassigned: MaxSamples %d is less than one frame (%d): %w", cfg.MaxSamples, n, gpufft.ErrInvalid)
	}
	if cfg.ThresholdDB == 0 {
		cfg.ThresholdDB = DefaultThresholdDB
	}
	t := &reassigned{cfg: cfg, n: n, nb: n/2 + 1, maxFrames: (cfg.MaxSamples-n)/cfg.Hop + 1}
	t.thr = float32(math.Pow(10, -cfg.ThresholdDB/10))
	t.windows(cfg.Window)
	batch := 3 * cfg.Channels * t.maxFrames
	plan, err := e.NewReal(n, batch)
	if err != nil {
		return nil, fmt.Errorf("tfr: reassigned: %w", err)
	}
	t.plan = plan
	t.stage = make([]float32, batch*n)
	t.spec = make([]complex64, batch*t.nb)
	t.pow = make([]float32, cfg.Channels*t.maxFrames*t.nb)
	t.freqs, _ = gridOf(cfg.Window, cfg.Rate, n, 0, t.nb, nil, nil)
	t.enbw = make([]float64, t.nb)
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
func (t *reassigned) Close() error     { return t.plan.Close() }

// Execute transforms every frame with the three windows in one engine
// call, then moves each bin's power on the host.
func (t *reassigned) Execute(dst, src []float32) (int, error) {
	ch, n, hop, nb := t.cfg.Channels, t.n, t.cfg.Hop, t.nb
	l := len(src) / ch
	if l*ch != len(src) || l > t.cfg.MaxSamples {
		panic(fmt.Sprintf("tfr: reassigned: len(src) %d is not %d channels of at most %d samples", len(src), ch, t.cfg.MaxSamples))
	}
	if l < n {
		return 0, nil
	}
	frames := (l-n)/hop + 1
	if len(dst) < ch*frames*nb {
		panic(fmt.Sprintf("tfr: reassigned: len(dst) %d < %d", len(dst), ch*frames*nb))
	}
	for c := range ch {
		for i := range frames {
			x := src[c*l+i*hop : c*l+i*hop+n]
			s := t.stage[(c*frames+i)*3*n:]
			for m, v := range x {
				s[m], s[n+m], s[2*n+m] = v*t.win[m], v*t.twin[m], v*t.dwin[m]
			}
		}
	}
	count := 3 * ch * frames
	if err := t.plan.Forward(t.spec[:count*nb], t.stage[:count*n]); err != nil {
		return 0, fmt.Errorf("tfr: reassigned: %w", err)
	}
	pow := t.pow[:ch*frames*nb]
	clear(pow)
	for c := range ch {
		for i := range frames {
			t.move(pow[c*frames*nb:(c+1)*frames*nb], t.spec[(c*frames+i)*3*nb:], i, frames)
		}
	}
	for j, p := range pow {
		dst[j] = gpufft.PowerDB(p)
	}
	return frames, nil
}

// move adds frame i's bins (X_h, X_th, X_h' one after another in x) to
// pow (one channel's frames×bins) at their reassigned places.
func (t *reassigned) move(pow []float32, x []complex64, i, frames int) {
	nb := t.nb
	xh, xt, xd := x[:nb], x[nb:2*nb], x[2*nb:3*nb]
	peak := float32(0)
	for k, v := range xh {
		peak = max(peak, (real(v)*real(v)+imag(v)*imag(v))*t.gain[k])
	}
	thr := peak * t.thr
	binsPerRad := float64(t.n) / (2 * math.Pi)
	for k, v := range xh {
		m2 := real(v)*real(v) + imag(v)*imag(v)
		p := m2 * t.gain[k]
		if p == 0 {
			continue
		}
		if p < thr || !(m2 > 0) {
			pow[i*nb+k] += p
			continue
		}
		inv := 1 / float64(m2)
		re, im := float64(real(v)), float64(imag(v))
		d := xd[k]
		// Im(X_h'·conj X_h) and Re(X_th·conj X_h)
		dIm := float64(imag(d))*re - float64(real(d))*im
		kk := clampRound(float64(k)-dIm*inv*binsPerRad, nb)
		ii := i
		if !t.cfg.Squeeze {
			tt := xt[k]
			dt := (float64(real(tt))*re + float64(imag(tt))*im) * inv
			if math.Abs(dt) > float64(t.n/2) { // outside the window: not a place the frame saw
				pow[i*nb+k] += p
				continue
			}
			ii = clampRound(float64(i)+dt/float64(t.cfg.Hop), frames)
		}
		pow[ii*nb+kk] += p
	}
}

// clampRound is round(x) kept in 0…n−1 (NaN: 0).
func clampRound(x float64, n int) int {
	if !(x >= 0) {
		return 0
	}
	return min(int(x+0.5), n-1)
}
