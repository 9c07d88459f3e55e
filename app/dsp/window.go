package dsp

// WindowSums are the sums of a window's samples that scale its spectra.
type WindowSums struct {
	N     int     // samples
	Sum   float64 // Σw: the coherent gain times N
	SumSq float64 // Σw²
}

// SumsOf returns the sums of window samples w.
func SumsOf(w []float64) WindowSums {
	s := WindowSums{N: len(w)}
	for _, v := range w {
		s.Sum += v
		s.SumSq += v * v
	}
	return s
}

// CoherentGain is Σw/N: the amplitude gain of the window for a sine at a
// bin centre.
func (s WindowSums) CoherentGain() float64 { return s.Sum / float64(s.N) }

// ENBW is the equivalent noise bandwidth in bins, N·Σw²/(Σw)²: 1 for the
// rectangular window, 1.5 for Hann.
func (s WindowSums) ENBW() float64 { return float64(s.N) * s.SumSq / (s.Sum * s.Sum) }

// SinePowerGains writes into dst (N/2+1 bins) the factors (c_k/Σw)² that
// turn a one-sided |X_k|² into the power of a sine at bin k relative to a
// full-scale one (c_k = 2 except at DC and Nyquist, where it is 1): the
// dBFS scale of the engines' spectrogram, in power. It panics unless
// len(dst) is N/2+1.
func (s WindowSums) SinePowerGains(dst []float32) {
	if len(dst) != s.N/2+1 {
		panic("dsp: SinePowerGains: len(dst) is not N/2+1")
	}
	for k := range dst {
		g := 2 / s.Sum
		if k == 0 || k == len(dst)-1 {
			g = 1 / s.Sum
		}
		dst[k] = float32(g * g)
	}
}
