package room

import "math"

// linearFit is a least-squares line through points (x, y).
type linearFit struct {
	n                     float64
	sx, sy, sxx, syy, sxy float64
}

func (f *linearFit) add(x, y float64) {
	f.n++
	f.sx += x
	f.sy += y
	f.sxx += x * x
	f.syy += y * y
	f.sxy += x * y
}

// line returns the slope and the Pearson correlation coefficient; ok is
// false for fewer than two distinct x.
func (f *linearFit) line() (slope, r float64, ok bool) {
	vx := f.n*f.sxx - f.sx*f.sx
	vy := f.n*f.syy - f.sy*f.sy
	if f.n < 2 || !(vx > 0) {
		return 0, 0, false
	}
	cov := f.n*f.sxy - f.sx*f.sy
	slope = cov / vx
	r = -1
	if vy > 0 {
		r = cov / math.Sqrt(vx*vy)
	}
	return slope, r, true
}

// intercept is the fit's value at x = 0, given its slope.
func (f *linearFit) intercept(slope float64) float64 { return (f.sy - slope*f.sx) / f.n }

// Lundeby's iteration: its constants, from the paper.
const (
	firstInterval  = 0.010 // s: the first envelope's averaging interval
	pointsPer10dB  = 5     // the later intervals: this many per 10 dB of decay
	noiseTail      = 0.1   // the noise is at least the last tenth of the response
	noiseAboveDB   = 7.5   // the late-decay fit ends this far above the noise
	fitRangeDB     = 15    // and spans this much decay
	afterCrossDB   = 7.5   // the noise is measured from this much decay after the crosspoint
	maxIterations  = 8
	convergedShare = 0.001 // the crosspoint moved by less than this share: done
)

// lundebyResult is where a decay meets its noise.
type lundebyResult struct {
	cross int     // the truncation point, samples from the onset
	tail  float64 // the energy after it, from the late decay's slope (compensation C)
	noise float64 // the noise floor's mean square
	rate  float64 // the late decay's energy decay rate, 1/s
}

// lundeby finds the noise floor, the crosspoint and the compensation of
// the squared response e (Lundeby et al. 1995): the noise from the
// response's last tenth, a line through the envelope's decay down to
// 7.5 dB above it, the crosspoint where the two meet; then, with
// intervals of a fifth of 10 dB of that slope, the noise again from 7.5
// dB of decay after the crosspoint, the late decay's line through 15 dB
// of it ending 7.5 dB above the noise, and a new crosspoint, until it
// settles. ok is false when e holds no decay above its noise.
func lundeby(e []float64, rate int) (lundebyResult, bool) {
	fs := float64(rate)
	n := len(e)
	if n < 4 {
		return lundebyResult{}, false
	}
	noise := meanOf(e[n-max(1, int(noiseTail*float64(n))):])
	w := max(1, int(firstInterval*fs))
	env, times := envelope(e, w, fs)
	fit, ok := fitDecay(env, times, 0, 10*math.Log10(noise)+noiseAboveDB, true)
	if !ok {
		return lundebyResult{}, false
	}
	slope, a := fit[0], fit[1]
	cross := crossing(a, slope, noise, fs, n)
	for range maxIterations {
		w = max(1, int(10/-slope/pointsPer10dB*fs))
		env, times = envelope(e, w, fs)
		from := min(cross+int(afterCrossDB/-slope*fs), n-max(1, int(noiseTail*float64(n))))
		noise = meanOf(e[max(0, from):])
		low := 10*math.Log10(noise) + noiseAboveDB
		f, ok := fitDecay(env, times, low+fitRangeDB, low, false)
		if !ok {
			break
		}
		slope, a = f[0], f[1]
		next := crossing(a, slope, noise, fs, n)
		moved := math.Abs(float64(next - cross))
		cross = next
		if moved <= convergedShare*float64(cross) {
			break
		}
	}
	k := -slope * math.Ln10 / 10 // the energy's decay rate, 1/s
	tail := math.Pow(10, (a+slope*float64(cross)/fs)/10) * fs / k
	return lundebyResult{cross: max(1, cross), tail: tail, noise: noise, rate: k}, true
}

// envelope is e averaged over intervals of w samples, in dB, and the
// intervals' middle times.
func envelope(e []float64, w int, fs float64) (env, times []float64) {
	for i := 0; i+w <= len(e); i += w {
		env = append(env, 10*math.Log10(meanOf(e[i:i+w])))
		times = append(times, (float64(i)+float64(w-1)/2)/fs)
	}
	return env, times
}

// fitDecay fits a line to the envelope from where it first falls to top dB
// (fromPeak: from its maximum, top unused) until it first falls below low.
// It returns the slope (dB/s, negative) and the intercept at time 0.
func fitDecay(env, times []float64, top, low float64, fromPeak bool) ([2]float64, bool) {
	start := 0
	if fromPeak {
		for i, v := range env {
			if v > env[start] {
				start = i
			}
		}
	} else {
		for start < len(env) && env[start] > top {
			start++
		}
	}
	var fit linearFit
	for i := start; i < len(env) && env[i] >= low; i++ {
		fit.add(times[i], env[i])
	}
	slope, _, ok := fit.line()
	if !ok || !(slope < 0) {
		return [2]float64{}, false
	}
	return [2]float64{slope, fit.intercept(slope)}, true
}

// crossing is the sample where the line a + slope·t (dB) meets the noise,
// within 1…n.
func crossing(a, slope, noise, fs float64, n int) int {
	t := (10*math.Log10(noise) - a) / slope
	if math.IsNaN(t) {
		return n
	}
	return min(n, max(1, int(t*fs)))
}

func meanOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
