package tfr

import (
	"math"
	"math/cmplx"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/prismaudio/prism/window"
)

// raSizes are the multi-resolution sizes of these tests at raRate: size
// 1024 below 1000 Hz, 512 from 1000 to 2000 Hz, 256 above.
var raSizes = []int{1024, 512, 256}

func raMultiConfig(squeeze bool) Config {
	return Config{Mode: Reassigned, Rate: raRate, Channels: 1, Hop: raHop, Sizes: raSizes, MaxSamples: 8000,
		Window: window.Func{Kind: window.Hann}, Squeeze: squeeze}
}

// raRegions are the columns [lo, hi) of each size's band and its size.
func raRegions(freqs []float64) (lo, hi, size []int) {
	col := 0
	for j, n := range raSizes {
		l, h := 64, 64*n/raSizes[min(j+1, len(raSizes)-1)]
		if j == 0 {
			l = 0
		}
		if j == len(raSizes)-1 {
			h = n/2 + 1
		}
		lo, hi, size = append(lo, col), append(hi, col+h-l), append(size, n)
		col += h - l
	}
	if col != len(freqs) {
		panic("raRegions: bands do not cover the grid")
	}
	return lo, hi, size
}

// TestReassignedMultiGrid: the output grid is MultiRes's (the same
// frequencies) and each bin's ENBW is one bin of its own size.
func TestReassignedMultiGrid(t *testing.T) {
	mr := mustNew(t, testCPU, Config{Mode: MultiRes, Rate: raRate, Channels: 1, Hop: raHop, Sizes: raSizes, MaxSamples: 8000, Window: window.Func{Kind: window.Hann}})
	ra := mustNew(t, testCPU, raMultiConfig(false))
	f, g := mr.Freqs(), ra.Freqs()
	if len(f) != len(g) || ra.Span() != raSizes[0] {
		t.Fatalf("reassigned grid %d bins, span %d; multires %d bins, span %d", len(g), ra.Span(), len(f), raSizes[0])
	}
	lo, hi, size := raRegions(g)
	for r := range lo {
		for k := lo[r]; k < hi[r]; k++ {
			if f[k] != g[k] || ra.ENBW()[k] != raRate/float64(size[r]) {
				t.Fatalf("bin %d: %g Hz, ENBW %g; want %g Hz, %g", k, g[k], ra.ENBW()[k], f[k], raRate/float64(size[r]))
			}
		}
	}
}

// TestReassignedMultiChirpAcrossJoin: a linear chirp from 400 to 2000 Hz
// crosses the join at 1000 Hz (size 1024 to 512); after reassignment
// at least 95 % of each frame's power is within ±1 bin of the chirp's
// frequency on the grid of the region it is in, against a few tenths
// on the multi-resolution STFT (at most 60 %), on both sides of the join.
func TestReassignedMultiChirpAcrossJoin(t *testing.T) {
	x, truth := chirp(4000, 400, 2000)
	mr := mustNew(t, testCPU, Config{Mode: MultiRes, Rate: raRate, Channels: 1, Hop: raHop, Sizes: raSizes, MaxSamples: 8000, Window: window.Func{Kind: window.Hann}})
	frames, before := run(t, mr, x)
	for _, e := range engines(t) {
		tr := mustNew(t, e, raMultiConfig(false))
		_, after := run(t, tr, x)
		freqs := tr.Freqs()
		nb := len(freqs)
		worst, best := [2]float64{1, 1}, [2]float64{}
		for i := raSizes[0] / 2 / raHop; i < frames-raSizes[0]/2/raHop; i++ {
			f := truth(float64(i*raHop+raSizes[0]/2) / raRate)
			k := nearestBin(freqs, f)
			side := 0
			if f > 1000 {
				side = 1
			}
			worst[side] = min(worst[side], near(after[i*nb:(i+1)*nb], k))
			best[side] = max(best[side], near(before[i*nb:(i+1)*nb], k))
		}
		t.Logf("%s: within ±1 bin below/above the join: after ≥ %.3f/%.3f, before ≤ %.3f/%.3f", e.Name(), worst[0], worst[1], best[0], best[1])
		for side := range 2 {
			if worst[side] < 0.95 || best[side] > 0.6 {
				t.Errorf("%s side %d of the join: power within ±1 bin: after ≥ %.3f (want ≥ 0.95), before ≤ %.3f (want ≤ 0.6)", e.Name(), side, worst[side], best[side])
			}
		}
	}
}

// bandPower64 is the float64 DBFS-scaled power of bins lo…hi−1 of x
// windowed by w.
func bandPower64(x []float32, w window.Func, lo, hi int) float64 {
	n := len(x)
	h := w.Values(n)
	seq := make([]float64, n)
	sum := 0.0
	for m, v := range x {
		seq[m] = float64(v) * h[m]
		sum += h[m]
	}
	total := 0.0
	for k, c := range fourier.NewFFT(n).Coefficients(nil, seq)[lo:hi] {
		g := 2.0
		if k+lo == 0 || k+lo == n/2 {
			g = 1
		}
		a := g * cmplx.Abs(c) / sum
		total += a * a
	}
	return total
}

// nearestBin is the bin whose centre is nearest f.
func nearestBin(freqs []float64, f float64) int {
	k := 0
	for j, v := range freqs {
		if math.Abs(v-f) < math.Abs(freqs[k]-f) {
			k = j
		}
	}
	return k
}

// TestReassignedMultiSinesReadTheirLevels: a sine in each size's band
// reads its level there (squeezed, within 0.1 dB), on both engines.
func TestReassignedMultiSinesReadTheirLevels(t *testing.T) {
	x := make([]float32, 4000)
	tones := []struct{ f, a float64 }{{500.3, 0.5}, {1500.7, 0.1}, {3000.2, 0.02}}
	for i, s := range tones {
		sine(x, raRate, s.f, s.a, float64(i))
	}
	for _, e := range engines(t) {
		tr := mustNew(t, e, raMultiConfig(true))
		frames, dst := run(t, tr, x)
		nb := len(tr.Freqs())
		lo, hi, _ := raRegions(tr.Freqs())
		for i := range frames {
			for r, s := range tones {
				best := float32(-999)
				for _, v := range dst[i*nb+lo[r] : i*nb+hi[r]] {
					best = max(best, v)
				}
				if want := 20 * math.Log10(s.a); math.Abs(float64(best)-want) > 0.1 {
					t.Fatalf("%s frame %d, %g Hz: %.3f dB, want %.3f", e.Name(), i, s.f, best, want)
				}
			}
		}
	}
}

// TestReassignedMultiKeepsBandPower: in each band, a frame's power is the
// float64 STFT's power in that band (its size's window centred on the
// frame) divided by that window's ENBW in bins, within 0.1 dB when
// squeezed; moving in time too, each band's total over the block (a
// chirp's points land on the frame grid unevenly).
func TestReassignedMultiKeepsBandPower(t *testing.T) {
	x, _ := chirp(4000, 300, 3500)
	sine(x, raRate, 555.5, 0.3, 0)
	sine(x, raRate, 1234.5, 0.1, 0)
	sine(x, raRate, 2700.1, 0.05, 0)
	w := window.Func{Kind: window.Hann}
	for _, squeeze := range []bool{true, false} {
		for _, e := range engines(t) {
			tr := mustNew(t, e, raMultiConfig(squeeze))
			frames, dst := run(t, tr, x)
			nb := len(tr.Freqs())
			lo, hi, size := raRegions(tr.Freqs())
			for r := range lo {
				n, first := size[r], 64*min(r, 1)
				gotAll, wantAll := 0.0, 0.0
				for i := range frames {
					got, want := 0.0, 0.0
					for _, v := range dst[i*nb+lo[r] : i*nb+hi[r]] {
						got += math.Pow(10, float64(v)/10)
					}
					off := i*raHop + (raSizes[0]-n)/2
					want = bandPower64(x[off:off+n], w, first, first+hi[r]-lo[r]) / enbwBins(w, n)
					gotAll, wantAll = gotAll+got, wantAll+want
					if d := 10 * math.Log10(got/want); squeeze && math.Abs(d) > 0.1 {
						t.Fatalf("%s size %d frame %d: band power off by %.3f dB", e.Name(), n, i, d)
					}
				}
				if d := 10 * math.Log10(gotAll/wantAll); math.Abs(d) > 0.1 {
					t.Errorf("%s size %d: the band's power over the frames off by %.3f dB", e.Name(), n, d)
				}
			}
		}
	}
}
