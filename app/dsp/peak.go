package dsp

import (
	"fmt"
	"math"
)

// Peak is a spectrum's dominant peak, refined between bins.
type Peak struct {
	Freq    float64 // Hz, refined on the window's exact response (WindowKernel.RefineBin)
	LevelDB float64 // dBFS of the sine at Freq
	Note    string  // nearest equal-tempered note, A4 = 440 Hz, e.g. "A4"
	Cents   float64 // deviation from that note
}

// PeakDB returns the dominant peak of a dB spectrum taken with this
// kernel's window (bins 0…N/2 as FindToneDB reads them; DC and Nyquist
// excluded): FindToneDB's frequency and level, and the note. It is the
// peak readout of the live spectrum, the file view and capture --stats.
// It does not allocate; it returns the zero Peak for fewer than 3 bins.
func (k *WindowKernel) PeakDB(db []float32, binHz float64) Peak {
	if len(db) < 3 {
		return Peak{}
	}
	t := k.FindToneDB(db, binHz)
	p := Peak{Freq: t.FreqHz, LevelDB: t.LevelDB}
	p.Note, p.Cents = NoteName(p.Freq)
	return p
}

// peakTableSize is the number of points of a peak table: linear
// interpolation between them adds under 1e-6 bin and 1e-6 dB for every
// window (TestPeakTable).
const peakTableSize = 2048

// peakTable is the inverse of a window's neighbour ratio on a uniform grid
// of the ratio α = √(K(1−δ)/K(δ)), δ ∈ [0, ½]: the offset δ and the level
// correction 1/K(δ) at each point (see RefineBin).
type peakTable struct {
	a0, scale   float64   // α at point 0, points per unit of α
	delta, gain []float64 // δ and 1/K(δ) at each point
}

// lookup returns δ and 1/K(δ) for ratio alpha, clamped to the table (a
// ratio below a centred sine's gives δ = 0, one above 1 gives ½). O(1).
func (t *peakTable) lookup(alpha float64) (delta, gain float64) {
	u := (alpha - t.a0) * t.scale
	last := len(t.delta) - 1
	switch {
	case !(u > 0): // NaN too
		return t.delta[0], t.gain[0]
	case u >= float64(last):
		return t.delta[last], t.gain[last]
	}
	i := int(u)
	f := u - float64(i)
	return t.delta[i] + f*(t.delta[i+1]-t.delta[i]), t.gain[i] + f*(t.gain[i+1]-t.gain[i])
}

// build solves the table for window w on its exact kernel: α on a grid
// of δ brackets each point, secant steps on the kernel (kernelMoments)
// find its δ to ~1e-12. O(N) for the moments, then O(1) per point. It
// fails if α does not rise over [0, ½].
func (t *peakTable) build(w []float64) error {
	m := newKernelMoments(w)
	ratio := func(d float64) float64 { return math.Sqrt(m.power(1-d) / m.power(d)) }
	const grid = 512
	alphas := make([]float64, grid+1)
	for i := range alphas {
		alphas[i] = ratio(0.5 * float64(i) / grid)
		if i > 0 && !(alphas[i] > alphas[i-1]) {
			return fmt.Errorf("dsp: window kernel: the neighbour ratio falls at %.4f bin (a main lobe narrower than ±1 bin?)", 0.5*float64(i)/grid)
		}
	}
	t.a0 = alphas[0]
	t.scale = (peakTableSize - 1) / (alphas[grid] - t.a0)
	t.delta, t.gain = make([]float64, peakTableSize), make([]float64, peakTableSize)
	i := 0
	for j := range t.delta {
		target := t.a0 + float64(j)/t.scale
		for i < grid-1 && alphas[i+1] < target {
			i++
		}
		// linear interpolation between grid points, then two secant
		// steps on the kernel (the grid is fine enough that they land
		// within rounding)
		lo, h := 0.5*float64(i)/grid, 0.5/grid
		slope := (alphas[i+1] - alphas[i]) / h
		d0 := min(lo+h, max(lo, lo+(target-alphas[i])/slope))
		f0 := ratio(d0) - target
		d := min(lo+h, max(lo, d0-f0/slope))
		if f1 := ratio(d) - target; f1 != f0 {
			d = min(lo+h, max(lo, d-f1*(d-d0)/(f1-f0)))
		}
		t.delta[j], t.gain[j] = d, 1/m.power(d)
	}
	return nil
}

// momentTerms is enough terms for kernelMoments at |ν| ≤ 1: the last
// one is below π^32/32! ≈ 4e-20 of Σ|w|.
const momentTerms = 33

// kernelMoments evaluates a window's K(ν) for |ν| ≤ 1 in O(1): with t_n =
// (n − (N−1)/2)/N ∈ [−½, ½], W(ν) = e^{−jπν(N−1)/N}·Σ_p (−j2πν)^p/p!·μ_p,
// μ_p = Σ w[n]·t_n^p, a series whose terms fall below rounding by
// p = 32 (|2πν·t| ≤ π). Exact to ~1e-14 of Σ|w| (TestPeakTable
// compares it with the direct sum).
type kernelMoments struct {
	mu  [momentTerms]float64
	sum float64
}

func newKernelMoments(w []float64) *kernelMoments {
	m := &kernelMoments{}
	n := float64(len(w))
	for i, wi := range w {
		t := (float64(i) - (n-1)/2) / n
		p := wi
		for k := range m.mu {
			m.mu[k] += p
			p *= t
		}
		m.sum += wi
	}
	return m
}

func (m *kernelMoments) power(nu float64) float64 {
	var re, im float64
	term, x := 1.0, 2*math.Pi*nu
	for k, mk := range m.mu {
		v := term * mk
		switch k % 4 { // (−j)^k
		case 0:
			re += v
		case 1:
			im -= v
		case 2:
			re -= v
		default:
			im += v
		}
		term *= x / float64(k+1)
	}
	return (re*re + im*im) / (m.sum * m.sum)
}

var noteNames = [12]string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}

// Notes named without allocating: MIDI notes noteLow …
// noteLow+len(noteTable)−1, C-4 (1.02 Hz) to B12 (126.4 kHz), every
// frequency a spectrum at up to 192 kHz sampling holds above 1 Hz.
const noteLow = -36

// noteTable holds the names of those notes, so naming a peak at display
// rate does not allocate.
var noteTable = func() (t [204]string) {
	for i := range t {
		m := i + noteLow
		t[i] = fmt.Sprintf("%s%d", noteNames[((m%12)+12)%12], floorDiv(m, 12)-1)
	}
	return t
}()

// floorDiv is ⌊a/b⌋ for b > 0.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// NoteName returns the nearest equal-tempered note (A4 = 440 Hz) and the
// deviation in cents; it allocates only below 1.02 Hz or above 126.4 kHz.
func NoteName(f float64) (string, float64) {
	if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return "", 0
	}
	m := 69 + 12*math.Log2(f/440)
	n := math.Round(m)
	i := int(n)
	if j := i - noteLow; j >= 0 && j < len(noteTable) {
		return noteTable[j], (m - n) * 100
	}
	return fmt.Sprintf("%s%d", noteNames[((i%12)+12)%12], floorDiv(i, 12)-1), (m - n) * 100
}
