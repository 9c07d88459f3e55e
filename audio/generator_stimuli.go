package audio

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/dsp/fourier"
)

// The generator's periodic stimuli for dual-channel measurement: a
// stimulus that repeats every N samples gives an N-point frame of the
// reference and of the measurement exactly one period each, so neither
// needs a data window (no leakage) when both are periodic.

// The lengths a periodic stimulus may have.
const (
	minPinkPeriod = 16
	maxPinkPeriod = 1 << 20
	MinMLSOrder   = 2
	MaxMLSOrder   = 20
)

func validPinkPeriod(n int) bool {
	return n >= minPinkPeriod && n <= maxPinkPeriod && n&(n-1) == 0
}

// parsePeriodic reads pinkperiodic's N or mls's K from parts[1] (num
// reads a number, empty taking the default) and returns why it is bad,
// or "".
func (g *GeneratorSpec) parsePeriodic(parts []string, num func(int, float64) (float64, error)) string {
	def := 65536.0
	if g.Kind == SignalMLS {
		def = 16
	}
	v, err := num(1, def)
	if err != nil || v != math.Trunc(v) || v < 0 || v > maxPinkPeriod {
		return "the period is not a whole number"
	}
	g.Period = int(v)
	switch {
	case g.Kind == SignalPinkPeriodic && !validPinkPeriod(g.Period):
		return "pinkperiodic:N needs N a power of two, " + strconv.Itoa(minPinkPeriod) + "…" + strconv.Itoa(maxPinkPeriod)
	case g.Kind == SignalMLS && (g.Period < MinMLSOrder || g.Period > MaxMLSOrder):
		return "mls:K needs an order K of " + strconv.Itoa(MinMLSOrder) + "…" + strconv.Itoa(MaxMLSOrder)
	}
	return ""
}

// PinkPeriodic returns one period of pink noise periodic in n samples (n
// a power of two, 16…2^20): the inverse real FFT of a spectrum with no
// power at DC and at n/2, random phases (seeded by n, so the same n gives
// the same period), and in each octave of bins [2^j, 2^(j+1)) the same
// total power, shared within the octave as 1/k (the pink slope), so that
// the n-point spectrum of one period is flat per octave exactly. The
// period is scaled to an RMS of 1. It panics if n is not such a length.
func PinkPeriodic(n int) []float32 {
	if !validPinkPeriod(n) {
		panic("audio: PinkPeriodic: n " + strconv.Itoa(n) + " is not a power of two in 16…2^20")
	}
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	coeff := make([]complex128, n/2+1)
	for lo := 1; lo < n/2; lo *= 2 {
		var sum float64
		for k := lo; k < 2*lo; k++ {
			sum += 1 / float64(k)
		}
		for k := lo; k < 2*lo; k++ {
			amp := math.Sqrt(1 / float64(k) / sum)
			s, c := math.Sincos(2 * math.Pi * rng.Float64())
			coeff[k] = complex(amp*c, amp*s)
		}
	}
	x := fourier.NewFFT(n).Sequence(nil, coeff)
	var p float64
	for _, v := range x {
		p += v * v
	}
	scale := 1 / math.Sqrt(p/float64(n))
	out := make([]float32, n)
	for i, v := range x {
		out[i] = float32(v * scale)
	}
	return out
}

// mlsTaps are the feedback taps (1-based stage numbers, the order first)
// of a maximal-length Fibonacci shift register per order: Xilinx
// XAPP052's table; every order is checked for its full period by
// TestMLS.
var mlsTaps = [MaxMLSOrder + 1][]uint{
	2: {2, 1}, 3: {3, 2}, 4: {4, 3}, 5: {5, 3}, 6: {6, 5}, 7: {7, 6}, 8: {8, 6, 5, 4},
	9: {9, 5}, 10: {10, 7}, 11: {11, 9}, 12: {12, 6, 4, 1}, 13: {13, 4, 3, 1},
	14: {14, 5, 3, 1}, 15: {15, 14}, 16: {16, 15, 13, 4}, 17: {17, 14}, 18: {18, 11},
	19: {19, 6, 2, 1}, 20: {20, 17},
}

// MLS returns the maximum-length sequence of order k (MinMLSOrder…
// MaxMLSOrder) as 2^k − 1 values ±1 (a 1 bit is −1): its periodic
// autocorrelation is 2^k − 1 at lag 0 and −1 at every other lag, a flat
// spectrum but for DC. It panics if k is out of range.
func MLS(k int) []float32 {
	if k < MinMLSOrder || k > MaxMLSOrder {
		panic("audio: MLS: order " + strconv.Itoa(k) + " out of range")
	}
	var mask uint32
	for _, t := range mlsTaps[k] {
		mask |= 1 << (t - 1)
	}
	n := 1<<k - 1
	out := make([]float32, n)
	state := uint32(1)
	for i := range out {
		bit := state >> (k - 1) & 1
		out[i] = float32(1 - 2*int(bit))
		fb := uint32(bits.OnesCount32(state&mask) & 1)
		state = (state<<1 | fb) & (1<<k - 1)
	}
	return out
}
