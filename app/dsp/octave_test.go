package dsp

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// iecWeightings is IEC 61672-1:2013 Table 3: A and C weightings in dB at
// the nominal third-octave frequencies, computed by the standard at the
// exact base-10 frequencies and rounded to 0.1 dB.
var iecWeightings = []struct{ nominal, a, c float64 }{
	{10, -70.4, -14.3}, {12.5, -63.4, -11.2}, {16, -56.7, -8.5}, {20, -50.5, -6.2}, {25, -44.7, -4.4},
	{31.5, -39.4, -3.0}, {40, -34.6, -2.0}, {50, -30.2, -1.3}, {63, -26.2, -0.8}, {80, -22.5, -0.5},
	{100, -19.1, -0.3}, {125, -16.1, -0.2}, {160, -13.4, -0.1}, {200, -10.9, 0}, {250, -8.6, 0},
	{315, -6.6, 0}, {400, -4.8, 0}, {500, -3.2, 0}, {630, -1.9, 0}, {800, -0.8, 0},
	{1000, 0, 0}, {1250, 0.6, 0}, {1600, 1.0, -0.1}, {2000, 1.2, -0.2}, {2500, 1.3, -0.3},
	{3150, 1.2, -0.5}, {4000, 1.0, -0.8}, {5000, 0.5, -1.3}, {6300, -0.1, -2.0}, {8000, -1.1, -3.0},
	{10000, -2.5, -4.4}, {12500, -4.3, -6.2}, {16000, -6.6, -8.5}, {20000, -9.3, -11.2},
}

// TestWeightings: the analytic A and C weightings reproduce the standard's
// table to its rounding (±0.05 dB), far inside class 1 tolerances.
func TestWeightings(t *testing.T) {
	for i, row := range iecWeightings {
		f := 1000 * math.Pow(10, float64(i-20)/10) // exact base-10 frequency
		if math.Abs(f-row.nominal)/row.nominal > 0.03 {
			t.Fatalf("row %d: exact %g Hz is not nominal %g", i, f, row.nominal)
		}
		a, c, z := WeightA.GainDB(f), WeightC.GainDB(f), WeightZ.GainDB(f)
		if math.Abs(a-row.a) > 0.051 || math.Abs(c-row.c) > 0.051 || z != 0 {
			t.Errorf("%g Hz: A %.3f (IEC %.1f), C %.3f (IEC %.1f), Z %g", row.nominal, a, row.a, c, row.c, z)
		}
	}
	if _, err := ParseWeighting("B"); err == nil {
		t.Error("weighting B accepted")
	}
}

func TestBandGeometry(t *testing.T) {
	thirds, err := Bands(3, 20, 20000, 24000)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range thirds {
		names = append(names, fmt.Sprint(b.Nominal))
	}
	want := "20 25 31.5 40 50 63 80 100 125 160 200 250 315 400 500 630 800 1000 1250 1600 2000 2500 3150 4000 5000 6300 8000 10000 12500 16000 20000"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("third-octave nominal frequencies\n got %s\nwant %s", got, want)
	}
	octaves, _ := Bands(1, 20, 20000, 24000)
	if len(octaves) != 10 || octaves[0].Nominal != 31.5 || octaves[9].Nominal != 16000 {
		t.Errorf("octaves: %+v", octaves)
	}
	for _, b := range []int{1, 3, 6, 12, 24} {
		bs, _ := Bands(b, 20, 20000, 24000)
		g := math.Pow(10, 0.3)
		for i, band := range bs {
			if math.Abs(band.Lower*band.Upper/(band.Exact*band.Exact)-1) > 1e-12 || math.Abs(band.Upper/band.Lower-math.Pow(g, 1/float64(b))) > 1e-12 {
				t.Errorf("1/%d band %g: edges %g %g", b, band.Nominal, band.Lower, band.Upper)
			}
			if i > 0 && math.Abs(bs[i-1].Upper/band.Lower-1) > 1e-12 {
				t.Errorf("1/%d: bands %d and %d do not touch", b, i-1, i)
			}
		}
		// 1 kHz: a band centre for odd fractions, a band edge for even ones
		has1k := false
		for _, band := range bs {
			if b%2 == 1 {
				has1k = has1k || band.Exact == 1000
			} else {
				has1k = has1k || math.Abs(band.Lower-1000) < 1e-9
			}
		}
		if !has1k {
			t.Errorf("1/%d: 1 kHz is not where IEC 61260-1 puts it", b)
		}
	}
	if _, err := Bands(5, 20, 20000, 24000); err == nil {
		t.Error("fraction 5 accepted")
	}
}

func TestNoteName(t *testing.T) {
	for f, want := range map[float64]string{440: "A4", 261.63: "C4", 27.5: "A0", 4186: "C8", 1000: "B5", 16.35: "C0"} {
		if n, c := NoteName(f); n != want || math.Abs(c) > 50 {
			t.Errorf("NoteName(%g) = %s %+.1f, want %s", f, n, c, want)
		}
	}
	for f, want := range map[float64]string{8.18: "C-1", 7.72: "B-2", 1.03: "C-4", 126400: "B12", 133000: "C13", 0.5: "C-5"} {
		if n, _ := NoteName(f); n != want {
			t.Errorf("NoteName(%g) = %s, want %s", f, n, want)
		}
	}
	if a := testing.AllocsPerRun(10, func() { NoteName(1.1); NoteName(20000); NoteName(96000) }); a != 0 {
		t.Errorf("NoteName: %v allocs, want 0", a)
	}
	if _, c := NoteName(440 * math.Pow(2, 0.3/12)); math.Abs(c-30) > 1e-6 {
		t.Errorf("cents %g, want 30", c)
	}
}
