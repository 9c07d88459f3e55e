package tfr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
)

// TestCosineTapsMatchTheWindow rebuilds each window from its taps, w[t] =
// b_0 + 2·Σ_m b_m·cos(2πmt/N), against window.Values at an odd size of
// the DFT used to find them; Kaiser has none.
func TestCosineTapsMatchTheWindow(t *testing.T) {
	for _, k := range []window.Kind{window.Rect, window.Hann, window.Hamming, window.Blackman, window.BlackmanHarris, window.FlatTop} {
		w := window.Func{Kind: k}
		taps := cosineTaps(w)
		if taps == nil {
			t.Fatalf("%v: no taps", w)
		}
		const n = 1000
		for i, v := range w.Values(n) {
			s := taps[0]
			for m := 1; m < len(taps); m++ {
				s += 2 * taps[m] * math.Cos(2*math.Pi*float64(m*i)/n)
			}
			if math.Abs(s-v) > 1e-12 {
				t.Fatalf("%v: w[%d] = %g from %d taps, Values %g", w, i, s, len(taps), v)
			}
		}
	}
	if taps := cosineTaps(window.Func{Kind: window.Kaiser, Beta: 8.6}); taps != nil {
		t.Errorf("kaiser: taps %v, want none", taps)
	}
}

// TestMultiResOneCallEqualsPerSize runs the one-call path (one spectral-
// kernel plan) and the per-size path (one spectrogram plan per size) on
// the same blocks, on both engines, with three windows: every bin above
// −100 dBFS agrees within 0.01 dB (sines near DC, in every band, across
// the joins and near Nyquist, over noise), across a block of several
// rounds of the plan (a small chunk) too. Kaiser takes the per-size path.
func TestMultiResOneCallEqualsPerSize(t *testing.T) {
	const rate, hop, frames, ch = 48000.0, 256, 12, 3
	sizes := []int{4096, 2048, 1024, 512}
	span := sizes[0]
	l := span + (frames-1)*hop
	src := make([]float32, ch*l)
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range ch {
		blk := src[c*l : (c+1)*l]
		for i := range blk {
			blk[i] = float32(0.01 * rng.NormFloat64())
		}
		for i, f := range []float64{7.3, 300, 751.1, 1499.7, 3010, 6000.4, 12345, 23950} {
			sine(blk, rate, f*(1+0.01*float64(c)), 0.3/float64(i+1), float64(c+i))
		}
	}
	chunk := multiResChunkSamples
	defer func() { multiResChunkSamples = chunk }()
	for _, w := range []window.Func{{Kind: window.FlatTop}, {Kind: window.Hann}, {Kind: window.BlackmanHarris}} {
		for _, e := range engines(t) {
			cfg := Config{Mode: MultiRes, Rate: rate, Channels: ch, Hop: hop, MaxSamples: l, Sizes: sizes, Window: w}
			ref, err := newMultiResSizes(e, cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, want := run(t, ref, src)
			ref.Close()
			for _, cs := range []int{chunk, 5 * span * ch} { // one call; rounds of 5 frames of the largest size
				multiResChunkSamples = cs
				tr := mustNew(t, e, cfg)
				if _, ok := tr.(*multiResKernel); !ok {
					t.Fatalf("%v: New made %T, want the one-call path", w, tr)
				}
				_, got := run(t, tr, src)
				worst := 0.0
				for i, v := range want {
					if v > -100 {
						worst = max(worst, math.Abs(float64(got[i]-v)))
					}
				}
				if worst > 0.01 {
					t.Errorf("%s %v chunk %d: one call differs from per size by up to %.4f dB", e.Name(), w, cs, worst)
				}
			}
		}
	}
	multiResChunkSamples = chunk
	tr := mustNew(t, testCPU, Config{Mode: MultiRes, Rate: rate, Channels: 1, Hop: hop, MaxSamples: span, Sizes: sizes, Window: window.Func{Kind: window.Kaiser, Beta: 8}})
	if _, ok := tr.(*multiRes); !ok {
		t.Errorf("kaiser: New made %T, want the per-size path", tr)
	}
}

// TestMultiResPerSizeAllocatesNothing keeps the per-size path (Kaiser)
// pinned allocation-free now that TestModesAllocateNothing's Hann takes
// the one-call path; a block of several rounds of the one-call path too.
func TestMultiResPerSizeAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	chunk := multiResChunkSamples
	defer func() { multiResChunkSamples = chunk }()
	for _, e := range engines(t) {
		for _, w := range []window.Func{{Kind: window.Kaiser, Beta: 8}, {Kind: window.Hann}} {
			multiResChunkSamples = 3 * 8192 * 2 // rounds of 3 frames of the largest size
			cfg := Config{Mode: MultiRes, Rate: 48000, Channels: 2, Hop: 256, MaxSamples: 8192 + 9*256, Sizes: []int{8192, 2048, 512}, Window: w}
			tr := mustNew(t, e, cfg)
			src := make([]float32, 2*cfg.MaxSamples)
			sine(src, 48000, 1000, 0.5, 0)
			dst := make([]float32, 2*10*len(tr.Freqs()))
			if n := testing.AllocsPerRun(3, func() { _, _ = tr.Execute(dst, src) }); n != 0 {
				t.Errorf("%s %v (%T): Execute: %v allocs per call, want 0", e.Name(), w, tr, n)
			}
		}
	}
}
