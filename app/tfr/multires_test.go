package tfr

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/window"
)

// joins is every frequency where one size hands over to the next.
func joins(rate float64, sizes []int) []float64 {
	var f []float64
	for _, n := range sizes[1:] {
		f = append(f, JoinBin*rate/float64(n))
	}
	return f
}

// TestMultiResSinesAcrossJoins sweeps sines across every join of the
// default sizes at 48 kHz (one channel per sine, one frame): the strongest
// bin reads the sine's level within ±0.05 dB with the flat-top window and
// within Hann's scalloping loss (1.42 dB) with Hann, the same on both
// sides of each join, and bins of every size equal a float64 DFT of the
// window centred on the frame.
func TestMultiResSinesAcrossJoins(t *testing.T) {
	const rate, amp = 48000.0, 0.5
	wantDB := 20 * math.Log10(amp)
	sizes := DefaultSizes(rate)
	var freqs []float64
	for _, fj := range joins(rate, sizes) {
		for _, d := range []float64{-0.013, -0.006, -0.0021, -0.0004, 0.0004, 0.0017, 0.0052, 0.011} {
			freqs = append(freqs, fj*(1+d))
		}
	}
	for _, tc := range []struct {
		w      window.Func
		lo, hi float64
	}{
		{window.Func{Kind: window.FlatTop}, -0.05, 0.05},
		{window.Func{Kind: window.Hann}, -1.43, 0.01},
	} {
		for _, e := range engines(t) {
			cfg := Config{Mode: MultiRes, Rate: rate, Channels: len(freqs), Hop: 1024, MaxSamples: sizes[0], Window: tc.w}
			tr := mustNew(t, e, cfg)
			span := tr.Span()
			src := make([]float32, len(freqs)*span)
			for c, f := range freqs {
				sine(src[c*span:(c+1)*span], rate, f, amp, 0.1*float64(c))
			}
			_, dst := run(t, tr, src)
			bins := len(tr.Freqs())
			for c, f := range freqs {
				row := dst[c*bins : (c+1)*bins]
				best := float32(-999)
				for _, v := range row {
					best = max(best, v)
				}
				if d := float64(best) - wantDB; d < tc.lo || d > tc.hi {
					t.Errorf("%s %v: sine at %.3f Hz reads %.3f dB, want %.2f %+.2f…%+.2f", e.Name(), tc.w, f, best, wantDB, tc.lo, tc.hi)
				}
			}
			checkAgainstDFT(t, e.Name(), tr, src[:span], dst[:bins], sizes)
		}
	}
}

// checkAgainstDFT compares a frame's bins around each join with a float64
// DFT of the frame, each size's window centred on the frame's centre.
func checkAgainstDFT(t *testing.T, name string, tr Transform, x []float32, row []float32, sizes []int) {
	t.Helper()
	freqs := tr.Freqs()
	span := tr.Span()
	for j, n := range sizes {
		binHz := tr.Config().Rate / float64(n)
		for _, k := range []int{JoinBin, JoinBin + 1, 2*JoinBin - 1} {
			if j == 0 && k < JoinBin {
				continue
			}
			if j == len(sizes)-1 && k > n/2 {
				continue
			}
			i := indexOf(freqs, float64(k)*binHz)
			if i < 0 {
				continue
			}
			want := dftDB(x[(span-n)/2:(span+n)/2], tr.Config().Window, k)
			if want > -100 && math.Abs(float64(row[i])-want) > 0.01 {
				t.Errorf("%s: size %d bin %d (%.2f Hz): %.4f dB, float64 DFT %.4f", name, n, k, freqs[i], row[i], want)
			}
		}
	}
}

func indexOf(freqs []float64, f float64) int {
	for i, v := range freqs {
		if math.Abs(v-f) < 1e-9 {
			return i
		}
	}
	return -1
}

// TestMultiResImpulseIsLocalised puts an impulse in a signal: above the
// smallest size's join only frames whose centre is within half the
// smallest window of it see it.
func TestMultiResImpulseIsLocalised(t *testing.T) {
	const rate, hop = 48000.0, 256
	sizes := DefaultSizes(rate)
	short := sizes[len(sizes)-1]
	for _, e := range engines(t) {
		cfg := Config{Mode: MultiRes, Rate: rate, Channels: 1, Hop: hop, MaxSamples: sizes[0] + 40*hop, Window: window.Func{Kind: window.Hann}}
		tr := mustNew(t, e, cfg)
		src := make([]float32, cfg.MaxSamples)
		at := sizes[0]/2 + 20*hop + 77
		src[at] = 1
		frames, dst := run(t, tr, src)
		bins := len(tr.Freqs())
		top := joins(rate, sizes)[len(sizes)-2]
		for i := range frames {
			dist := math.Abs(float64(i*hop + sizes[0]/2 - at))
			seen := false
			for k, f := range tr.Freqs() {
				if f >= top && dst[i*bins+k] > -150 {
					seen = true
				}
			}
			if want := dist < float64(short)/2; seen != want {
				t.Errorf("%s: frame %d, %.0f samples from the impulse: seen above %.0f Hz %v, want %v", e.Name(), i, dist, top, seen, want)
			}
		}
	}
}

// TestMultiResResolvesOneHertz resolves two tones 1 Hz apart at 40 Hz
// with a largest size of 2^18 at 48 kHz (0.18 Hz bins).
func TestMultiResResolvesOneHertz(t *testing.T) {
	const rate, amp = 48000.0, 0.25
	sizes := []int{1 << 18, 1 << 16, 1 << 14, 1 << 12, 1 << 10}
	cfg := Config{Mode: MultiRes, Rate: rate, Channels: 1, Hop: 1024, MaxSamples: sizes[0], Sizes: sizes, Window: window.Func{Kind: window.Hann}}
	tr := mustNew(t, testCPU, cfg)
	src := make([]float32, sizes[0])
	sine(src, rate, 40, amp, 0)
	sine(src, rate, 41, amp, 1)
	_, dst := run(t, tr, src)
	level := func(lo, hi float64, pick func(a, b float32) float32, start float32) float32 {
		v := start
		for k, f := range tr.Freqs() {
			if f >= lo && f <= hi {
				v = pick(v, dst[k])
			}
		}
		return v
	}
	hi := func(a, b float32) float32 { return max(a, b) }
	lo := func(a, b float32) float32 { return min(a, b) }
	p40 := level(39.8, 40.2, hi, -999)
	p41 := level(40.8, 41.2, hi, -999)
	dip := level(40.4, 40.6, lo, 999)
	want := float32(20 * math.Log10(amp))
	if math.Abs(float64(p40-want)) > 1.43 || math.Abs(float64(p41-want)) > 1.43 || dip > want-20 {
		t.Errorf("40 Hz %.2f dB, 41 Hz %.2f dB (want %.2f), between %.2f dB (want ≤ %.2f)", p40, p41, want, dip, want-20)
	}
}
