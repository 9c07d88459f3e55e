package tfr

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/window"
)

const (
	raRate = 8000.0
	raSize = 512
	raHop  = 32
)

func raConfig(squeeze bool) Config {
	return Config{Mode: Reassigned, Rate: raRate, Channels: 1, Hop: raHop, Size: raSize, MaxSamples: 8000,
		Window: window.Func{Kind: window.Hann}, Squeeze: squeeze}
}

// chirp is a linear chirp from f0 at 0 to f1 at the end; the truth is
// its frequency at t.
func chirp(n int, f0, f1 float64) ([]float32, func(t float64) float64) {
	x := make([]float32, n)
	dur := float64(n) / raRate
	beta := (f1 - f0) / dur
	for i := range x {
		t := float64(i) / raRate
		x[i] = float32(0.5 * math.Sin(2*math.Pi*(f0*t+beta*t*t/2)))
	}
	return x, func(t float64) float64 { return f0 + beta*t }
}

// near is the share of power in row within ±1 bin of bin k.
func near(row []float32, k int) float64 {
	in, all := 0.0, 0.0
	for j, v := range row {
		p := math.Pow(10, float64(v)/10)
		all += p
		if j >= k-1 && j <= k+1 {
			in += p
		}
	}
	return in / all
}

// TestReassignedChirpIsConcentrated: a linear chirp sweeping 15 bins per
// window is spread over several bins by the STFT; reassigned, nearly all
// of each frame's power is within ±1 bin of the chirp's frequency at the
// frame's centre. (Synchrosqueezing alone does not gather a chirp: it
// moves a bin to its instantaneous frequency, not in time.)
func TestReassignedChirpIsConcentrated(t *testing.T) {
	x, truth := chirp(8000, 200, 3800)
	stft := mustNew(t, testCPU, Config{Mode: STFT, Rate: raRate, Channels: 1, Hop: raHop, Size: raSize, MaxSamples: 8000, Window: window.Func{Kind: window.Hann}})
	frames, before := run(t, stft, x)
	for _, squeeze := range []bool{false} {
		for _, e := range engines(t) {
			tr := mustNew(t, e, raConfig(squeeze))
			_, after := run(t, tr, x)
			nb := len(tr.Freqs())
			worstAfter, bestBefore := 1.0, 0.0
			for i := raSize / raHop; i < frames-raSize/raHop; i++ {
				k := int(math.Round(truth(float64(i*raHop+raSize/2)/raRate) / (raRate / raSize)))
				worstAfter = min(worstAfter, near(after[i*nb:(i+1)*nb], k))
				bestBefore = max(bestBefore, near(before[i*nb:(i+1)*nb], k))
			}
			if worstAfter < 0.9 || bestBefore > 0.6 {
				t.Errorf("%s squeeze %v: power within ±1 bin: after ≥ %.3f (want ≥ 0.9), before ≤ %.3f (want ≤ 0.6)", e.Name(), squeeze, worstAfter, bestBefore)
			}
		}
	}
}

// TestReassignedImpulseIsConcentrated: an impulse seen by 16 frames of
// the STFT lands within ±1 hop of its time after reassignment.
func TestReassignedImpulseIsConcentrated(t *testing.T) {
	x := make([]float32, 4000)
	at := 2000 + 11
	x[at] = 1
	share := func(tr Transform) float64 {
		frames, dst := run(t, tr, x)
		nb := len(tr.Freqs())
		in, all := 0.0, 0.0
		for i := range frames {
			for _, v := range dst[i*nb : (i+1)*nb] {
				p := math.Pow(10, float64(v)/10)
				all += p
				if math.Abs(float64(i*raHop+raSize/2-at)) <= raHop {
					in += p
				}
			}
		}
		return in / all
	}
	stft := mustNew(t, testCPU, Config{Mode: STFT, Rate: raRate, Channels: 1, Hop: raHop, Size: raSize, MaxSamples: 8000, Window: window.Func{Kind: window.Hann}})
	before := share(stft)
	for _, e := range engines(t) {
		if after := share(mustNew(t, e, raConfig(false))); after < 0.95 || before > 0.4 {
			t.Errorf("%s: power within ±1 hop of the impulse: %.3f after (want ≥ 0.95), %.3f before (want ≤ 0.4)", e.Name(), after, before)
		}
	}
}

// TestReassignedKeepsFramePower: each frame's total power is the float64
// STFT's divided by the window's ENBW in bins (the level rule), within
// 0.1 dB, when squeezed; when energy also moves in time, a chirp's power
// lands on the frame grid unevenly (its reassigned points are 1.6 hops
// apart), so there the block's total is kept, and each frame's for
// steady sines.
func TestReassignedKeepsFramePower(t *testing.T) {
	x, _ := chirp(8000, 300, 2500)
	sine(x, raRate, 1234.5, 0.1, 0)
	steady := make([]float32, len(x))
	sine(steady, raRate, 555.5, 0.3, 0)
	sine(steady, raRate, 2100.2, 0.01, 1)
	checkFramePower(t, steady, raConfig(false))
	enbw := enbwBins(window.Func{Kind: window.Hann}, raSize)
	for _, squeeze := range []bool{true, false} {
		for _, e := range engines(t) {
			tr := mustNew(t, e, raConfig(squeeze))
			frames, dst := run(t, tr, x)
			nb := len(tr.Freqs())
			gotAll, wantAll := 0.0, 0.0
			for i := range frames {
				got := 0.0
				for _, v := range dst[i*nb : (i+1)*nb] {
					got += math.Pow(10, float64(v)/10)
				}
				want := framePower64(x[i*raHop:i*raHop+raSize], window.Func{Kind: window.Hann}) / enbw
				gotAll += got
				wantAll += want
				if d := 10 * math.Log10(got/want); squeeze && math.Abs(d) > 0.1 {
					t.Errorf("%s squeeze frame %d: total power off by %.3f dB", e.Name(), i, d)
					break
				}
			}
			if d := 10 * math.Log10(gotAll/wantAll); math.Abs(d) > 0.1 {
				t.Errorf("%s squeeze %v: the block's total power off by %.3f dB", e.Name(), squeeze, d)
			}
		}
	}
}

// TestReassignedSineReadsItsLevel: a steady sine gathered into one bin
// reads its level (the ENBW division keeps the level rule).
func TestReassignedSineReadsItsLevel(t *testing.T) {
	x := make([]float32, 4000)
	sine(x, raRate, 1000+raRate/raSize*0.37, 0.5, 0)
	tr := mustNew(t, testCPU, raConfig(true))
	frames, dst := run(t, tr, x)
	nb := len(tr.Freqs())
	for i := range frames {
		best := float32(-999)
		for _, v := range dst[i*nb : (i+1)*nb] {
			best = max(best, v)
		}
		if want := 20 * math.Log10(0.5); math.Abs(float64(best)-want) > 0.1 {
			t.Fatalf("frame %d: %.3f dB, want %.3f", i, best, want)
		}
	}
}

// checkFramePower checks every frame's total power of x against the
// float64 STFT's divided by the ENBW in bins.
func checkFramePower(t *testing.T, x []float32, cfg Config) {
	t.Helper()
	enbw := enbwBins(cfg.Window, cfg.Size)
	for _, e := range engines(t) {
		tr := mustNew(t, e, cfg)
		frames, dst := run(t, tr, x)
		nb := len(tr.Freqs())
		for i := range frames {
			got := 0.0
			for _, v := range dst[i*nb : (i+1)*nb] {
				got += math.Pow(10, float64(v)/10)
			}
			want := framePower64(x[i*cfg.Hop:i*cfg.Hop+cfg.Size], cfg.Window) / enbw
			if d := 10 * math.Log10(got/want); math.Abs(d) > 0.1 {
				t.Fatalf("%s: steady sines, frame %d: total power off by %.3f dB", e.Name(), i, d)
			}
		}
	}
}
