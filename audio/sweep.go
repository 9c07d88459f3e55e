package audio

import "math"

// ExpSweep is Farina's exponential sine sweep from F0 to F1 Hz in Seconds:
//
//	x(t) = sin(2π·F0·L·(e^{t/L} − 1)),  L = Seconds / ln(F1/F0),
//
// whose instantaneous frequency F0·e^{t/L} = F0·(F1/F0)^{t/Seconds} goes
// from F0 at t = 0 to F1 at t = Seconds (downward when F1 < F0). It is the
// one definition of the generator's sweep (SignalSweep) and of the
// measurement sweep of package app/sweep.
type ExpSweep struct{ F0, F1, Seconds float64 }

// L is the sweep's time constant in seconds, Seconds/ln(F1/F0): the time
// the frequency takes to grow by e. A harmonic of order k of the sweep
// leads it by L·ln k.
func (s ExpSweep) L() float64 { return s.Seconds / math.Log(s.F1/s.F0) }

// Phases writes the sweep's phase at the times t0, t0+dt, t0+2·dt, …
// into dst, in cycles with the whole cycles dropped — the sample is
// sin(2π·dst[i]) — from F0·L·(e^{t/L} − 1), and, if growth is not nil
// (as long as dst), e^{t/L} (the frequency over F0) into growth. It is the
// one evaluation of the definition: e^{t/L} is computed exactly every
// 1024 values and stepped by e^{dt/L} between (its error stays below
// 1e-13 relative, 1e-8 of a cycle at 20 kHz after 30 s). It does not
// allocate.
func (s ExpSweep) Phases(dst, growth []float64, t0, dt float64) {
	l := s.L()
	step := math.Exp(dt / l)
	for i := 0; i < len(dst); {
		e := math.Exp((t0 + float64(i)*dt) / l)
		for end := min(len(dst), i+1024); i < end; i++ {
			_, dst[i] = math.Modf(s.F0 * l * (e - 1))
			if growth != nil {
				growth[i] = e
			}
			e *= step
		}
	}
}

// Freq is the instantaneous frequency at t seconds, F0·e^{t/L} Hz.
func (s ExpSweep) Freq(t float64) float64 { return s.F0 * math.Exp(t/s.L()) }
