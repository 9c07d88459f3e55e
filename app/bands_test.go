package app

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
		a, _ := Weighting("A", f)
		c, _ := Weighting("C", f)
		z, _ := Weighting("Z", f)
		if math.Abs(a-row.a) > 0.051 || math.Abs(c-row.c) > 0.051 || z != 0 {
			t.Errorf("%g Hz: A %.3f (IEC %.1f), C %.3f (IEC %.1f), Z %g", row.nominal, a, row.a, c, row.c, z)
		}
	}
	if _, err := Weighting("B", 100); err == nil {
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

func genWAV(t *testing.T, spec string, rate int, seconds float64) string {
	t.Helper()
	x := genSamples(t, spec, rate, int(seconds*float64(rate)))
	path := filepath.Join(t.TempDir(), strings.ReplaceAll(spec, ":", "_")+".wav")
	writeWAV(t, path, rate, [][]float32{x})
	return path
}

// TestSineInItsBand: a sine at −20 dBFS reads −20.0 ± 0.1 dB in its band,
// A-weighted, for every fraction, on both engines: 1 kHz for octaves and
// thirds (a band centre), and for even fractions, where 1 kHz is a band
// edge, the centre of the band just above it (its A weighting is added
// back).
func TestSineInItsBand(t *testing.T) {
	for _, e := range testEngines(t) {
		for _, frac := range []int{1, 3, 6, 12, 24} {
			hz := 1000.0
			if frac%2 == 0 {
				hz = 1000 * math.Pow(math.Pow(10, 0.3), 1/(2*float64(frac)))
			}
			in := genWAV(t, fmt.Sprintf("sine:%.6f:-20", hz), 48000, 4)
			wA, _ := Weighting("A", hz)
			levels, _, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: frac, Weighting: "A", Channel: -1, MinFreq: 20, MaxFreq: 20000}, e.Preferred)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range levels {
				if l.Lower < hz && hz < l.Upper {
					found = true
					if math.Abs(l.LevelDB-wA+20) > 0.1 {
						t.Errorf("%s 1/%d: band %g Hz reads %.3f dB, want −20.0 ± 0.1", e.Preferred.Name(), frac, l.Nominal, l.LevelDB)
					}
				}
			}
			if !found {
				t.Errorf("1/%d: no band holds 1 kHz", frac)
			}
		}
	}
}

// TestPinkIsFlatInThirds: pink noise reads flat across third-octave bands
// from 25 Hz to 16 kHz within ±0.5 dB (60 s, so each band averages enough
// bins and frames; the FFT size is chosen for the 25 Hz band).
func TestPinkIsFlatInThirds(t *testing.T) {
	in := genWAV(t, "pink:-20", 48000, 60)
	e := testEngines(t)[0]
	levels, n, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 3, Weighting: "Z", Channel: -1, MinFreq: 25, MaxFreq: 16000}, e.Preferred)
	if err != nil {
		t.Fatal(err)
	}
	mean := 0.0
	for _, l := range levels {
		mean += l.LevelDB
	}
	mean /= float64(len(levels))
	for _, l := range levels {
		if math.Abs(l.LevelDB-mean) > 0.5 || l.UnderResolved {
			t.Errorf("band %g Hz: %.2f dB, mean %.2f (N=%d, under-resolved %v)", l.Nominal, l.LevelDB, mean, n, l.UnderResolved)
		}
	}
	if len(levels) != 29 {
		t.Errorf("%d bands from 25 Hz to 16 kHz, want 29", len(levels))
	}
}

func TestBandsCLI(t *testing.T) {
	in := genWAV(t, "sine:1000:-20", 48000, 2)
	dir := t.TempDir()
	out := filepath.Join(dir, "b.csv")
	code, msg := runCLI("bands", in, "-o", out, "--fraction", "3", "--weighting", "C", "--engine", "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "nominal_hz,exact_hz,lower_hz,upper_hz,level_db,under_resolved" || len(lines) != 32 {
		t.Errorf("%d lines, header %q", len(lines), lines[0])
	}
	if !strings.Contains(string(b), "\n1000,1000.0000,891.2509,1122.0185,-20.00,0\n") {
		t.Errorf("no −20.00 dB row for 1 kHz:\n%s", b)
	}
	// a 24th-octave analysis down to 20 Hz cannot resolve the low bands
	code, msg = runCLI("bands", in, "-o", filepath.Join(dir, "c.csv"), "--fraction", "24", "--engine", "cpu")
	if code != 0 || !strings.Contains(msg, "under_resolved") {
		t.Errorf("fraction 24: exit %d, %q", code, msg)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"bands", in, "-o", out, "--fraction", "5"}, 2, "fraction 5"},
		{[]string{"bands", in, "-o", out, "--weighting", "B"}, 2, "weighting"},
		{[]string{"bands", in, "-o", filepath.Join(dir, "x.txt")}, 2, "OUT.csv"},
		{[]string{"bands", filepath.Join(dir, "none.wav"), "-o", out}, 2, "no such file"},
		{[]string{"bands", in, "-o", out, "--min-freq", "21000", "--max-freq", "30000"}, 2, "no 1/3-octave band"},
		{[]string{"bands", in, "-o", out, "--min-freq", "500", "--max-freq", "100"}, 2, "min ≤ max"},
	} {
		code, msg := runCLI(c.args...)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args[1:], code, msg, c.code, c.msg)
		}
	}
}

// TestBandsShortFile: a file shorter than the automatic FFT size gets a
// smaller FFT, with the bands it cannot resolve marked, instead of an error.
func TestBandsShortFile(t *testing.T) {
	in := genWAV(t, "sine:1000:-20", 48000, 0.5)
	levels, n, err := AnalyzeBands(context.Background(), in, BandsOptions{Fraction: 3, Weighting: "Z", Channel: -1, MinFreq: 20, MaxFreq: 20000}, testEngines(t)[0].Preferred)
	if err != nil {
		t.Fatal(err)
	}
	under := 0
	for _, l := range levels {
		if l.UnderResolved {
			under++
		}
		if l.Nominal == 1000 && math.Abs(l.LevelDB+20) > 0.1 {
			t.Errorf("1 kHz band %.2f dB", l.LevelDB)
		}
	}
	if n > 24000 || under == 0 {
		t.Errorf("FFT %d for a 24000-sample file, %d bands marked under-resolved", n, under)
	}
}
