package sweep

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/prismaudio/prism/audio"
)

// Spec is a measurement sweep: Farina's exponential sine sweep
// (audio.ExpSweep) from From to To Hz in Seconds at Rate Hz, its peak at
// LevelDB dBFS, faded in and out over FadeSec (raised cosine) and framed by
// LeadSec of silence before and TailSec after (room for the latency and the
// decay of what it excites).
type Spec struct {
	From, To float64 // Hz, 0 < From < To ≤ Rate/2
	Seconds  float64 // the sweep itself, without the silences
	Rate     int     // Hz
	LevelDB  float64 // peak level, dBFS ≤ 0
	FadeSec  float64 // each fade, 0 ≤ 2·FadeSec ≤ Seconds
	LeadSec  float64 // silence before the sweep
	TailSec  float64 // silence after it
}

// The defaults of `prism sweep` (and of `prism ir --from --to --seconds`,
// which rebuilds that sweep).
const (
	DefaultLevelDB = -3.0
	DefaultFadeSec = 0.05
	DefaultLeadSec = 0.2
	DefaultTailSec = 1.0
)

// NewSpec is the sweep from → to Hz in seconds at rate Hz with the
// default level, fades and silences.
func NewSpec(from, to, seconds float64, rate int) Spec {
	return Spec{From: from, To: to, Seconds: seconds, Rate: rate, LevelDB: DefaultLevelDB,
		FadeSec: DefaultFadeSec, LeadSec: DefaultLeadSec, TailSec: DefaultTailSec}
}

// ErrSpec is a sweep the rules refuse; Check wraps it.
var ErrSpec = errors.New("sweep: bad sweep")

// MaxSeconds bounds a sweep (with its silences) so that its samples and
// those of the recording it measures stay addressable in one call.
const MaxSeconds = 600

// Check says whether the sweep can be made and measured.
func (s Spec) Check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrSpec}, a...)...)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case s.Rate < 1000 || s.Rate > 768000:
		return bad("rate %d Hz (want 1000…768000)", s.Rate)
	case !finite(s.From) || !finite(s.To) || !(s.From > 0) || !(s.To > s.From):
		return bad("%g → %g Hz (want 0 < from < to)", s.From, s.To)
	case s.To > float64(s.Rate)/2:
		return bad("%g Hz is above Nyquist (%d Hz)", s.To, s.Rate/2)
	case !finite(s.Seconds) || s.Seconds <= 0:
		return bad("%g seconds (want > 0)", s.Seconds)
	case !finite(s.LevelDB) || s.LevelDB > 0 || s.LevelDB < -120:
		return bad("level %g dBFS (want −120…0)", s.LevelDB)
	case !finite(s.FadeSec) || s.FadeSec < 0 || 2*s.FadeSec > s.Seconds:
		return bad("fade %g s (want 0…half the sweep, %g s)", s.FadeSec, s.Seconds/2)
	case !finite(s.LeadSec) || !finite(s.TailSec) || s.LeadSec < 0 || s.TailSec < 0:
		return bad("silences %g s and %g s (want ≥ 0)", s.LeadSec, s.TailSec)
	case s.Seconds+s.LeadSec+s.TailSec > MaxSeconds:
		return bad("%g s in all (want at most %d s)", s.Seconds+s.LeadSec+s.TailSec, MaxSeconds)
	case s.SweepSamples() < 16:
		return bad("%g s at %d Hz is shorter than 16 samples", s.Seconds, s.Rate)
	}
	return nil
}

// Exp is the sweep's definition without the level, fades or silences.
func (s Spec) Exp() audio.ExpSweep { return audio.ExpSweep{F0: s.From, F1: s.To, Seconds: s.Seconds} }

// SweepSamples is the length of the sweep itself, round(Seconds·Rate).
func (s Spec) SweepSamples() int { return int(math.Round(s.Seconds * float64(s.Rate))) }

// LeadSamples is the length of the silence before the sweep.
func (s Spec) LeadSamples() int { return int(math.Round(s.LeadSec * float64(s.Rate))) }

// TailSamples is the length of the silence after the sweep.
func (s Spec) TailSamples() int { return int(math.Round(s.TailSec * float64(s.Rate))) }

// Samples is the length of the whole signal Signal returns.
func (s Spec) Samples() int { return s.LeadSamples() + s.SweepSamples() + s.TailSamples() }

// Amplitude is the sweep's peak, 10^(LevelDB/20).
func (s Spec) Amplitude() float64 { return math.Pow(10, s.LevelDB/20) }

// HarmonicLead is how far harmonic k's impulse response comes before the
// linear one in the deconvolution, L·ln k seconds (Farina).
func (s Spec) HarmonicLead(k int) float64 { return s.Exp().L() * math.Log(float64(k)) }

// sweep returns the sweep itself (SweepSamples values, no silences) in
// float64.
func (s Spec) sweep() []float64 {
	x, _ := s.generate(false)
	return x
}

// generate computes the sweep itself (x, float64) or, if inverse, only
// its inverse filter (inv, float32: what the engine convolves with; see
// Inverse), the samples split among the processors.
func (s Spec) generate(inverse bool) (x []float64, inv []float32) {
	n := s.SweepSamples()
	e := s.Exp()
	l := e.L()
	amp := s.Amplitude()
	rate := float64(s.Rate)
	fade := int(math.Round(s.FadeSec * rate))
	k := 4 * s.From / (rate * rate * amp * amp * l)
	if inverse {
		inv = make([]float32, n)
	} else {
		x = make([]float64, n)
	}
	parts := max(1, min(runtime.GOMAXPROCS(0), n/65536))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			var phase, growth [1024]float64
			for lo, hi := p*n/parts, (p+1)*n/parts; lo < hi; lo += len(phase) {
				m := min(len(phase), hi-lo)
				e.Phases(phase[:m], growth[:m], float64(lo)/rate, 1/rate)
				for j := range m {
					i := lo + j
					v := amp * fadeGain(i, n, fade) * math.Sin(2*math.Pi*phase[j])
					if inverse {
						inv[n-1-i] = float32(k * growth[j] * v) // e^{τ/L}: +6 dB/octave
					} else {
						x[i] = v
					}
				}
			}
		})
	}
	wg.Wait()
	return x, inv
}

// fadeGain is the raised-cosine fade of sample i of n, fade samples each
// end (1 in between).
func fadeGain(i, n, fade int) float64 {
	j := min(i, n-1-i)
	if j >= fade {
		return 1
	}
	s := math.Sin(math.Pi / 2 * float64(j) / float64(fade))
	return s * s
}

// Signal returns the sweep with its silences (Samples values), full scale
// ±1.
func (s Spec) Signal() []float32 {
	out := make([]float32, s.Samples())
	lead := s.LeadSamples()
	for i, v := range s.sweep() {
		out[lead+i] = float32(v)
	}
	return out
}

// Inverse returns the sweep's inverse filter (SweepSamples values):
// the sweep itself time-reversed, its amplitude weighted by e^{τ/L} (τ the
// sweep's own time: +6 dB per octave of its instantaneous frequency, which
// undoes the sweep's pink spectrum, each octave lasting as long) and scaled
// by 4·From/(Rate²·A²·L) (A the amplitude) so that, by the stationary-phase
// spectrum of the sweep, |X(f)|·|X⁻¹(f)| = 1 inside From…To: the sweep
// convolved with it is a unit impulse in the band at lag SweepSamples−1
// (band-limited: its peak is 2·(To−From)/Rate).
func (s Spec) Inverse() []float32 {
	_, inv := s.generate(true)
	return inv
}
