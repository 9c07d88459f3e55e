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

// Cycles is the sweep's phase at t seconds in cycles, F0·L·(e^{t/L} − 1):
// x(t) = sin(2π·Cycles(t)).
func (s ExpSweep) Cycles(t float64) float64 {
	l := s.L()
	return s.F0 * l * math.Expm1(t/l)
}

// Freq is the instantaneous frequency at t seconds, F0·e^{t/L} Hz.
func (s ExpSweep) Freq(t float64) float64 { return s.F0 * math.Exp(t/s.L()) }
