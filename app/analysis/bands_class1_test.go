package analysis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

// class1Table is IEC 61260-1:2014 Table 1: the class 1 acceptance limits
// on relative attenuation ΔA (dB, attenuation re the mid-band frequency)
// at the octave filter's breakpoints Ω = G^x, x ≥ 0; below the mid-band
// frequency the same limits hold at 1/Ω. At x = ½ (the band edge) the
// limits jump: the first row holds just inside the band, the second just
// outside.
var class1Table = []struct{ x, min, max float64 }{
	{0, -0.4, 0.4}, {1. / 8, -0.4, 0.5}, {1. / 4, -0.4, 0.7}, {3. / 8, -0.4, 1.4},
	{1. / 2, -0.4, 5.3}, {1. / 2, 1.2, math.Inf(1)},
	{1, 16.6, math.Inf(1)}, {2, 40.5, math.Inf(1)}, {3, 60, math.Inf(1)}, {4, 70, math.Inf(1)},
}

// iecG is the base-10 octave ratio, written out here rather than taken
// from dsp.
var iecG = math.Pow(10, 0.3)

// class1Omega is the standard's breakpoint of a 1/b-octave filter for the
// octave breakpoint G^x (x ≥ 0): Ω = 1 + (G^(1/2b) − 1)/(G^(1/2) − 1)·(G^x − 1),
// so the band edge (x = ½) falls at G^(1/2b).
func class1Omega(x float64, b int) float64 {
	return 1 + (math.Pow(iecG, 1/(2*float64(b)))-1)/(math.Sqrt(iecG)-1)*(math.Pow(iecG, x)-1)
}

// class1Limits are the acceptance limits on ΔA at normalized frequency
// omega for a 1/b-octave band: the table's at a breakpoint and, between
// breakpoints, the straight line between them on a logarithmic frequency
// axis (as the standard draws its mask); beyond G^4 the last row's. At the
// band edge itself (within 1e-9) the looser of the two rows.
func class1Limits(omega float64, b int) (lo, hi float64) {
	u := math.Abs(math.Log(omega))
	edge := math.Log(class1Omega(0.5, b))
	switch {
	case math.Abs(u-edge) <= 1e-9:
		return class1Table[5].min, class1Table[4].max
	case u < edge:
		return class1Interp(u, b, class1Table[:5])
	default:
		return class1Interp(u, b, class1Table[5:])
	}
}

func class1Interp(u float64, b int, rows []struct{ x, min, max float64 }) (lo, hi float64) {
	for i := 1; i < len(rows); i++ {
		u0, u1 := math.Log(class1Omega(rows[i-1].x, b)), math.Log(class1Omega(rows[i].x, b))
		if u <= u1 {
			a := (u - u0) / (u1 - u0)
			lerp := func(p, q float64) float64 {
				if math.IsInf(p, 1) || math.IsInf(q, 1) {
					return math.Inf(1)
				}
				return p + a*(q-p)
			}
			return lerp(rows[i-1].min, rows[i].min), lerp(rows[i-1].max, rows[i].max)
		}
	}
	last := rows[len(rows)-1]
	return last.min, last.max
}

// TestClass1Limits pins the mask against values read off the standard by
// hand: the third-octave breakpoints of its Annex F, the octave ones
// (G^x itself), and the limits at the centre, the edge and G^−4.
func TestClass1Limits(t *testing.T) {
	for _, c := range []struct {
		x     float64
		b     int
		omega float64
	}{
		{1. / 8, 3, 1.02667}, {3. / 8, 3, 1.08746}, {0.5, 3, 1.12202}, {1, 3, 1.29437},
		{2, 3, 1.88173}, {3, 3, 3.05365}, {4, 3, 5.39195}, {0.5, 1, 1.41254}, {1, 1, 1.99526},
	} {
		if got := class1Omega(c.x, c.b); math.Abs(got-c.omega) > 1e-5 {
			t.Errorf("Ω(G^%g, 1/%d) = %.5f, want %.4f", c.x, c.b, got, c.omega)
		}
	}
	if lo, hi := class1Limits(1, 3); lo != -0.4 || hi != 0.4 {
		t.Errorf("mid-band limits %v %v", lo, hi)
	}
	if lo, _ := class1Limits(1/class1Omega(4, 48), 48); lo != 70 {
		t.Errorf("G^-4 limit %v", lo)
	}
	if lo, hi := class1Limits(class1Omega(0.5, 12)*(1-1e-6), 12); lo != -0.4 || hi <= 5.2 {
		t.Errorf("just inside the edge: %v %v", lo, hi)
	}
}

// sweepSine is one sine of a class 1 sweep and the band whose mask point
// it was placed on.
type sweepSine struct {
	hz     float64
	target int
}

// class1Sweep places sines, between 20 Hz and 20 kHz, on the mask points
// of 1/b-octave bands: with full, every breakpoint of the table (G^0 …
// G^±4) for the lowest band, the band at 1 kHz (or just above) and the top
// band; without, for every band below 100 Hz the centre, G^±⅜ (the
// tightest pass-band points) and the upper edge itself, where the two
// bands that share it are held to both rows' limits at once (ΔA between
// 1.2 and 5.3 dB), and the lowest band's lower edge.
func class1Sweep(bands []dsp.Band, b int, full bool) []sweepSine {
	var out []sweepSine
	place := func(j int, hz float64) {
		if hz >= 20 && hz <= 20000 {
			out = append(out, sweepSine{hz, j})
		}
	}
	k1 := slices.IndexFunc(bands, func(band dsp.Band) bool { return band.Upper > 1000 })
	for j, band := range bands {
		switch {
		case full && (j == 0 || j == k1 || j == len(bands)-1):
			place(j, band.Exact)
			for _, row := range class1Table[1:] {
				om := class1Omega(row.x, b)
				if row.x == 0.5 { // just inside (min −0.4) or outside (min 1.2) the edge
					s := 1 - 1e-6
					if row.min > 0 {
						s = 1 + 1e-6
					}
					om *= s
				}
				place(j, band.Exact*om)
				place(j, band.Exact/om)
			}
		case !full && band.Nominal < 100:
			om := class1Omega(3./8, b)
			place(j, band.Exact)
			place(j, band.Exact*om)
			place(j, band.Exact/om)
			place(j, band.Upper)
			if j == 0 {
				place(j, band.Lower)
			}
		}
	}
	return out
}

// class1Margin is the distance in bins a sine keeps from any band it is
// not checked against: the Hann window's leakage 32 bins away is below
// −95 dB, too little to move a pass-band reading by 1e-4 dB or a stop-band
// one past the 70 dB limit.
const class1Margin = 32

// packSweep groups the sweep into frames: each sine with its target band
// (widened by class1Margin bins) takes an interval of frequency, and the
// intervals in one frame do not overlap.
func packSweep(sines []sweepSine, bands []dsp.Band, binHz float64) [][]sweepSine {
	type iv struct {
		lo, hi float64
		s      sweepSine
	}
	ivs := make([]iv, len(sines))
	for i, s := range sines {
		b := bands[s.target]
		ivs[i] = iv{min(s.hz, b.Lower) - class1Margin*binHz, max(s.hz, b.Upper) + class1Margin*binHz, s}
	}
	slices.SortFunc(ivs, func(a, b iv) int { return cmpFloat(a.lo, b.lo) })
	var frames [][]sweepSine
	var ends []float64
	for _, v := range ivs {
		i := slices.IndexFunc(ends, func(e float64) bool { return e < v.lo })
		if i < 0 {
			frames, ends = append(frames, nil), append(ends, 0)
			i = len(frames) - 1
		}
		frames[i], ends[i] = append(frames[i], v.s), v.hi
	}
	return frames
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// class1Levels measures the band levels (mean square, per band) of each
// frame's sines through the band stage AnalyzeBands uses (its window, its
// engine spectrogram, its accumulator), as the whole-file average of
// steady sines reads them: where a sine is within 2·class1Margin bins of
// DC, where its mirror image would interfere with it by more than
// 1e-4 dB, the frame is measured twice, as cosines and as sines, and
// averaged, which cancels that interference.
func class1Levels(t *testing.T, eng gpufft.Engine, frames [][]sweepSine, acc *dsp.BandAccumulator, n, rate int, amp float64) [][]float64 {
	cfg := gpufft.SpectrogramConfig{Size: n, Hop: n, Window: bandsWindow, Channels: 1, Mix: true, MaxSamples: 2 * n, Output: gpufft.Power}
	plan, err := eng.NewSpectrogram(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	r := rand.New(rand.NewPCG(61260, 1))
	src := make([]float32, 2*n)
	power := make([]float32, cfg.DstLen(2*n))
	ms := make([]float64, len(acc.Bands))
	out := make([][]float64, len(frames))
	binHz := float64(rate) / float64(n)
	for f, sines := range frames {
		phases := 1
		for _, s := range sines {
			if s.hz < 2*class1Margin*binHz {
				phases = 2
			}
		}
		clear(src)
		for _, s := range sines {
			addSine(src[:n], src[n:], s.hz/float64(rate), 2*math.Pi*r.Float64(), amp)
		}
		if got, err := plan.Execute(power, src[:phases*n]); err != nil || got != phases {
			t.Fatalf("execute: %d frames, %v", got, err)
		}
		out[f] = make([]float64, len(ms))
		for p := range phases {
			acc.Frame(power[p*cfg.Bins():(p+1)*cfg.Bins()], ms)
			for j, v := range ms {
				out[f][j] += v / float64(phases)
			}
		}
	}
	return out
}

// addSine adds amp·cos(2π·cycles·i + ph) to cos and amp·sin(…) to sin, by
// a rotation recurrence renormalised every 4096 samples (error ~1e-12).
func addSine(cos, sin []float32, cycles, ph, amp float64) {
	sr, cr := math.Sincos(2 * math.Pi * cycles)
	for i0 := 0; i0 < len(cos); i0 += 4096 {
		s, c := math.Sincos(2*math.Pi*cycles*float64(i0) + ph)
		for i := i0; i < min(len(cos), i0+4096); i++ {
			cos[i] += float32(amp * c)
			sin[i] += float32(amp * s)
			c, s = c*cr-s*sr, s*cr+c*sr
		}
	}
}

// TestBandsClass1: 1/b-octave bands (b = 1, 2, 3, 6, 12, 24, 48) from
// 20 Hz to 20 kHz at 48 kHz, with the FFT size AnalyzeBands chooses for a
// long file, meet the IEC 61260-1:2014 class 1 mask (class1Limits,
// computed here from the standard's table) for sines swept across their
// pass bands, edges and stop bands (class1Sweep), read through the band
// stage of AnalyzeBands (its window, the CPU engine's spectrogram, its
// accumulator). A band is checked against a sine of its frame when every
// other sine keeps class1Margin bins away from it (the others can then
// neither lift nor hide a reading by a measurable amount); each sine is
// checked against the band it was placed for and every other band it can
// be. The dense sweep of every band below 100 Hz runs at 6 kHz sampling,
// where AnalyzeBands' transform is an eighth as long with the same bin
// width (6000/2^17 = 48000/2^20 Hz): the same bins, band edges and window
// response in bins as at 48 kHz, for an eighth of the work.
func TestBandsClass1(t *testing.T) {
	eng := testEngines(t)[0].Preferred
	for _, b := range []int{1, 2, 3, 6, 12, 24, 48} {
		t.Run(fmt.Sprintf("1/%d", b), func(t *testing.T) {
			n48 := class1Run(t, eng, b, 48000, true)
			if n6 := class1Run(t, eng, b, 6000, false); n48 != 8*n6 {
				t.Errorf("N = %d at 48 kHz, %d at 6 kHz: the bins differ", n48, n6)
			}
		})
	}
}

// class1Run sweeps the 1/b-octave bands at rate (class1Sweep with full)
// and checks every reading against the mask; it returns the FFT size.
func class1Run(t *testing.T, eng gpufft.Engine, b, rate int, full bool) int {
	const amp = 0.01
	bands, err := dsp.Bands(b, 20, 20000, float64(rate)/2)
	if err != nil {
		t.Fatal(err)
	}
	n := bandsFFT(BandsOptions{}, bands[0], rate, math.MaxInt64)
	binHz := float64(rate) / float64(n)
	for _, band := range bands {
		if dsp.UnderResolved(band, binHz) {
			t.Errorf("%d Hz: band %g Hz under-resolved at N=%d", rate, band.Nominal, n)
		}
	}
	sines := class1Sweep(bands, b, full)
	frames := packSweep(sines, bands, binHz)
	levels := class1Levels(t, eng, frames, bandsAccumulator(bands, n, rate, dsp.WeightZ), n, rate, amp)
	checks, targets, worst := 0, 0, math.Inf(1)
	for f, sines := range frames {
		for j, band := range bands {
			for _, s := range checkedSines(sines, band, binHz) {
				dA := dsp.MeanSquareDBFS(amp*amp/2) - dsp.MeanSquareDBFS(levels[f][j])
				omega := s.hz / band.Exact
				lo, hi := class1Limits(omega, b)
				worst = min(worst, dA-lo, hi-dA)
				if dA < lo || dA > hi {
					t.Errorf("%d Hz: band %g Hz, sine %.4f Hz (Ω %.5f): ΔA %.3f dB outside [%g, %g]", rate, band.Nominal, s.hz, omega, dA, lo, hi)
				}
				checks++
				if s.target == j {
					targets++
				}
			}
		}
	}
	t.Logf("%d Hz, N=%d: %d sines in %d frames, %d band checks, worst margin %.3f dB", rate, n, len(sines), len(frames), checks, worst)
	if targets < len(sines) {
		t.Errorf("%d Hz: %d of %d sines checked against their target band", rate, targets, len(sines))
	}
	return n
}

// checkedSines are the sines of a frame a band can be checked against: the
// one within class1Margin bins of it if there is one only, none if there
// are more, all of them if none is.
func checkedSines(sines []sweepSine, band dsp.Band, binHz float64) []sweepSine {
	near := -1
	for i, s := range sines {
		if s.hz > band.Lower-class1Margin*binHz && s.hz < band.Upper+class1Margin*binHz {
			if near >= 0 {
				return nil
			}
			near = i
		}
	}
	if near >= 0 {
		return sines[near : near+1]
	}
	return sines
}

// TestBandsClass1File: through the whole of AnalyzeBands, a 23 s file is
// long enough for the 2^20-point transform that resolves the 1/48-octave
// band at 20 Hz; a steady sine at that band's centre reads its mean square
// there within the class 1 limits (±0.4 dB), and the neighbouring bands
// attenuate it as the mask requires (the file's own truncation spreads the
// tone by less).
func TestBandsClass1File(t *testing.T) {
	const rate, samples = 48000, 1_100_000
	bands, _ := dsp.Bands(48, 20, 21, rate/2)
	hz := bands[0].Exact
	x := make([]float32, samples)
	ms := 0.0
	for i := range x {
		x[i] = float32(0.1 * math.Sin(2*math.Pi*hz*float64(i)/rate+0.3))
		ms += float64(x[i]) * float64(x[i]) / samples
	}
	in := apptest.TempPath(t, "low.wav")
	apptest.WriteWAV(t, in, rate, [][]float32{x})
	res, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 48, Weighting: dsp.WeightZ, Channel: -1, MinFreq: 20, MaxFreq: 25}, testEngines(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	if res.FFT != 1<<20 || len(res.Levels) < 3 {
		t.Fatalf("N=%d, %d bands", res.FFT, len(res.Levels))
	}
	want := dsp.MeanSquareDBFS(ms)
	for j, l := range res.Levels[:3] {
		dA := want - l.LevelDB
		lo, hi := class1Limits(hz/l.Exact, 48)
		t.Logf("band %g Hz: %.3f dB, ΔA %.3f dB (limits %g…%g)", l.Nominal, l.LevelDB, dA, lo, hi)
		if l.UnderResolved || dA < lo || dA > hi {
			t.Errorf("band %d (%g Hz): ΔA %.3f dB outside [%g, %g], under-resolved %v", j, l.Nominal, dA, lo, hi, l.UnderResolved)
		}
	}
}
