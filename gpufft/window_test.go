package gpufft

import (
	"math"
	"testing"
)

// scipyWindows are scipy.signal.get_window(name, 16, fftbins=True) from
// scipy 1.10.1, printed with %.17g: an independent reference.
var scipyWindows = []struct {
	spec string
	want []float64
}{
	{"rect", []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	{"hann", []float64{0, 0.038060233744356631, 0.14644660940672627, 0.30865828381745514, 0.5, 0.69134171618254492, 0.85355339059327373, 0.96193976625564337, 1, 0.96193976625564337, 0.85355339059327373, 0.69134171618254514, 0.5, 0.30865828381745497, 0.14644660940672627, 0.038060233744356742}},
	{"hamming", []float64{0.080000000000000071, 0.11501541504480817, 0.21473088065418822, 0.36396562111205877, 0.54000000000000004, 0.7160343788879413, 0.86526911934581197, 0.9649845849551919, 1, 0.9649845849551919, 0.86526911934581197, 0.71603437888794152, 0.54000000000000004, 0.3639656211120586, 0.21473088065418822, 0.11501541504480828}},
	{"blackman", []float64{-1.3877787807814457e-17, 0.014628776239280404, 0.06644660940672624, 0.1720897413225313, 0.34000000000000002, 0.55477317368762114, 0.77355339059327377, 0.93850830875056723, 0.99999999999999989, 0.93850830875056723, 0.77355339059327377, 0.55477317368762136, 0.34000000000000002, 0.17208974132253116, 0.06644660940672624, 0.014628776239280473}},
	{"blackman-harris", []float64{6.0000000000001025e-05, 0.00305916662607495, 0.021735837018679628, 0.082780373704146731, 0.21747000000000008, 0.43491953420378254, 0.69576416298132038, 0.914240925465996, 1, 0.914240925465996, 0.69576416298132038, 0.43491953420378276, 0.21747000000000008, 0.082780373704146634, 0.021735837018679628, 0.0030591666260749977}},
	{"flattop", []float64{-0.00042105100000000128, -0.0052680584762615943, -0.026872193286334545, -0.062696833778942085, -0.054736840000000002, 0.10174541538894774, 0.44413535728633452, 0.82853527686625594, 1.000000003, 0.82853527686625594, 0.44413535728633452, 0.10174541538894805, -0.054736840000000002, -0.062696833778942015, -0.026872193286334545, -0.0052680584762615171}},
	{"kaiser:8.6", []float64{0.0013325139979024198, 0.017351642916088306, 0.06747207920440855, 0.17238843402053311, 0.34039362244018856, 0.55522579053280441, 0.7738293810170912, 0.93858366935897009, 1, 0.93858366935897009, 0.7738293810170912, 0.55522579053280441, 0.34039362244018856, 0.17238843402053311, 0.06747207920440855, 0.017351642916088306}},
	{"kaiser:3", []float64{0.20488475640125359, 0.32803634252931935, 0.46197733807295777, 0.59808955523394791, 0.72692553028763662, 0.83907555489194363, 0.92605861557231506, 0.98114189403572116, 1, 0.98114189403572116, 0.92605861557231506, 0.83907555489194363, 0.72692553028763662, 0.59808955523394791, 0.46197733807295777, 0.32803634252931935}},
}

func TestWindowsMatchScipy(t *testing.T) {
	for _, c := range scipyWindows {
		w, err := ParseWindow(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		got := w.Values(len(c.want))
		for i, v := range c.want {
			// scipy evaluates cos on linspace(-π, π) points; 1e-15 covers
			// the two formulas' float64 rounding differences.
			if math.Abs(got[i]-v) > 1e-15 {
				t.Errorf("%s[%d] = %.17g, scipy %.17g", c.spec, i, got[i], v)
			}
		}
		if w.String() != c.spec {
			t.Errorf("String() = %q, want %q", w.String(), c.spec)
		}
	}
}

func TestParseWindowErrors(t *testing.T) {
	for _, s := range []string{"", "hanning", "kaiser:x", "kaiser:-1", "hann:3", "kaiser:nan"} {
		if _, err := ParseWindow(s); err == nil {
			t.Errorf("ParseWindow(%q): no error", s)
		}
	}
	if w, err := ParseWindow(" Kaiser "); err != nil || w.Beta != 8.6 {
		t.Errorf("ParseWindow(Kaiser) = %v, %v", w, err)
	}
}

// TestTwiddles checks the symmetric twiddle generator against plain Sincos.
func TestTwiddles(t *testing.T) {
	for _, n := range []int{2, 4, 8, 64, 4096, 1 << 20} {
		tw := twiddles(n)
		for i := 0; i < n; i += max(1, n/512) {
			s, c := math.Sincos(2 * math.Pi * float64(i) / float64(n))
			if math.Abs(float64(real(tw[i]))-c) > 6e-8 || math.Abs(float64(imag(tw[i]))+s) > 6e-8 {
				t.Fatalf("n=%d i=%d: %v, want (%g, %g)", n, i, tw[i], c, -s)
			}
		}
		if n >= 4 && (tw[n/4] != complex(0, -1) || tw[n/2] != -1) {
			t.Errorf("n=%d: quarter/half turn twiddles %v %v not exact", n, tw[n/4], tw[n/2])
		}
	}
}

// TestPowerDB: the host dB rule against math.Log10 in float64, and its
// floor.
func TestPowerDB(t *testing.T) {
	for _, p := range []float32{1, 0.5, 1e-3, 3.7e-12, 2e-20, 123.4} {
		want := 10 * math.Log10(float64(p))
		if got := float64(PowerDB(p)); math.Abs(got-want) > 1e-4 {
			t.Errorf("PowerDB(%g) = %g, want %g", p, got, want)
		}
	}
	if PowerDB(0) != FloorDB || PowerDB(1e-21) != FloorDB {
		t.Error("no floor")
	}
	got := AppendPowerDB(nil, []float32{1, 0.25}, []float32{0.5, 4})
	if math.Abs(float64(got[0])+3.0103) > 1e-4 || math.Abs(float64(got[1])) > 1e-4 {
		t.Errorf("AppendPowerDB with gains: %v", got)
	}
}
