package archive

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestHMDBands checks the bands against the standard's definition: 1-Hz
// bands [i−½, i+½) from 0 Hz to the crossover, then millidecade bands
// whose edges are 10^(j/1000) Hz for consecutive j, the last cut at the
// Nyquist frequency. The literals (band count, the first millidecade
// band, the last band's lower edge) are those of pbp's and PyPAM's
// get_hybrid_millidecade_limits(band=[0, rate/2], nfft=rate), run in
// Python on 2026-11-27.
func TestHMDBands(t *testing.T) {
	cases := []struct {
		rate            float64
		count, first    int
		firstLo, lastLo float64
	}{
		{48000, 2178, 435, 434.5102241715715, 23988.329190194883},
		{96000, 2479, 435, 434.5102241715715, 47973.344863668884},
		{44100, 2141, 435, 434.5102241715715, 22029.264630534544},
		{8000, 1400, 435, 434.5102241715715, 3999.4474976109755},
		{800, 401, 401, 0, 399.5}, // below the crossover: 1-Hz bands only
	}
	for _, c := range cases {
		bands := HMDBands(c.rate)
		if len(bands) != c.count {
			t.Errorf("%v Hz: %d bands, want %d", c.rate, len(bands), c.count)
			continue
		}
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
		for i, b := range bands {
			switch {
			case i < c.first:
				if b.Centre != float64(i) || b.Lo != float64(i)-0.5 || (i+1 < c.first && b.Hi != float64(i)+0.5) {
					t.Fatalf("%v Hz: band %d = %+v, want 1 Hz around %d", c.rate, i, b, i)
				}
			default:
				j := math.Round(1000 * math.Log10(b.Lo))
				if !near(b.Lo, math.Pow(10, j/1000)) {
					t.Fatalf("%v Hz: band %d lower edge %v is no 10^(j/1000)", c.rate, i, b.Lo)
				}
				if i+1 < len(bands) && (!near(b.Hi, math.Pow(10, (j+1)/1000)) || !near(b.Centre, math.Sqrt(b.Lo*b.Hi))) {
					t.Fatalf("%v Hz: band %d = %+v, want one millidecade from its lower edge", c.rate, i, b)
				}
			}
			if i > 0 && bands[i-1].Hi != b.Lo {
				t.Fatalf("%v Hz: band %d starts at %v, the previous ends at %v", c.rate, i, b.Lo, bands[i-1].Hi)
			}
		}
		if c.first < len(bands) && !near(bands[c.first].Lo, c.firstLo) {
			t.Errorf("%v Hz: first millidecade band starts at %v, want %v", c.rate, bands[c.first].Lo, c.firstLo)
		}
		last := bands[len(bands)-1]
		if !near(last.Lo, c.lastLo) || last.Hi != c.rate/2 || last.Centre > c.rate/2 {
			t.Errorf("%v Hz: last band %+v, want from %v to %v", c.rate, last, c.lastLo, c.rate/2)
		}
	}
}

// bandPower64 is the reference band integration: the power of the
// piecewise-constant density (bin k's power spread over [(k−½)df,
// (k+½)df] ∩ [0, nyq]) between lo and hi, by exact interval overlap.
func bandPower64(psd []float64, df, nyq, lo, hi float64) float64 {
	p := 0.0
	for k, d := range psd {
		a, b := max(0, (float64(k)-0.5)*df), min(nyq, (float64(k)+0.5)*df)
		if ov := min(b, hi) - max(a, lo); ov > 0 {
			p += d * df * ov / (b - a)
		}
	}
	return p
}

// TestHMDEqualsReference checks two minutes of HMD (the file starting
// mid-minute, so the first and last minutes are partial) against a
// float64 Welch integrated over the bands, and that power is conserved:
// the bands sum to the minute's broadband power computed in the time
// domain (the windowed frames' energy over the window's), within 0.01 dB.
func TestHMDEqualsReference(t *testing.T) {
	const rate = 8000
	n := 90 * rate // 12:00:30 to 12:02:00
	x32 := noise(7, n, rate, 0.2, 0.1, 440.3)
	path := filepath.Join(t.TempDir(), "hmd.wav")
	writeWAV(t, path, rate, [][]float32{x32}, nil)
	f, err := describe(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Start = at(30)
	e := gpufft.NewCPU(1)
	defer e.Close()
	for _, density := range []bool{false, true} {
		var rows []Row
		if err := HMD(context.Background(), e, []File{f}, HMDConfig{Density: density}, func(r Row) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || !rows[0].Start.Equal(at(0)) || !rows[1].Start.Equal(at(60)) || rows[0].Seconds != 30 || rows[1].Seconds != 60 {
			t.Fatalf("rows %d (want 12:00 with 30 s, 12:01 with 60 s)", len(rows))
		}
		bands := HMDBands(rate)
		const fft = 8192 // the smallest power of two ≥ the rate
		win := window.Func{Kind: window.Hann}
		w := win.Values(fft)
		sumSq := 0.0
		for _, v := range w {
			sumSq += v * v
		}
		for m, r := range rows {
			lo := m * 30 * rate
			hi := lo + int(r.Seconds)*rate
			seg := make([]float64, hi-lo)
			for i := range seg {
				seg[i] = float64(x32[lo+i])
			}
			psd := welch64(seg, fft, rate, win)
			worst, sum := 0.0, 0.0
			for b, band := range bands {
				p := bandPower64(psd, float64(rate)/fft, rate/2, band.Lo, band.Hi)
				if density {
					p /= band.Hi - band.Lo
				}
				worst = max(worst, math.Abs(float64(r.Level[b])-10*math.Log10(p)))
				sum += math.Pow(10, float64(r.Level[b])/10)
			}
			if worst > 0.01 {
				t.Errorf("density %v minute %d: worst band %.4f dB from the reference, want ≤ 0.01", density, m, worst)
			}
			if density {
				continue
			}
			// broadband power in the time domain
			energy, frames := 0.0, 0
			for s := 0; s+fft <= len(seg); s += fft / 2 {
				for i := range fft {
					v := seg[s+i] * w[i]
					energy += v * v
				}
				frames++
			}
			broad := energy / (float64(frames) * sumSq)
			if d := 10 * math.Log10(sum/broad); math.Abs(d) > 0.01 {
				t.Errorf("minute %d: bands sum to %.4f dB off the broadband power, want ≤ 0.01", m, d)
			}
		}
	}
}

func TestPercentiles(t *testing.T) {
	nan := float32(math.NaN())
	rows := [][]float32{{5, 10}, {1, nan}, {4, 30}, {2, 20}, {3, nan}}
	got := Percentiles(rows, []float64{0, 5, 50, 95, 100})
	// numpy.percentile([1..5], p) and ([10, 20, 30], p), linear
	want := [][]float32{{1, 10}, {1.2, 11}, {3, 20}, {4.8, 29}, {5, 30}}
	for i := range want {
		for b := range want[i] {
			if math.Abs(float64(got[i][b]-want[i][b])) > 1e-5 {
				t.Errorf("p%d band %d = %v, want %v", i, b, got[i][b], want[i][b])
			}
		}
	}
	if p := Percentiles([][]float32{{nan}}, []float64{50}); !math.IsNaN(float64(p[0][0])) {
		t.Errorf("all-NaN column: %v, want NaN", p[0][0])
	}
}
