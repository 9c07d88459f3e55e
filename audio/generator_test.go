package audio

import (
	"math"
	"testing"
)

func TestParseGenerator(t *testing.T) {
	for in, want := range map[string]string{
		"sine:1000:-6":         "sine:1000:-6",
		"sine":                 "sine:1000:-6",
		"tones:440,880:-12":    "tones:440,880:-12",
		"sweep:20:20000:-12":   "sweep:20:20000:-12:10",
		"sweep:50:5000:-3:2.5": "sweep:50:5000:-3:2.5",
		"pink:-20":             "pink:-20",
		"WHITE":                "white:-20",
	} {
		g, err := ParseGenerator(in)
		if err != nil || g.String() != want {
			t.Errorf("ParseGenerator(%q) = %v, %v; want %s", in, g, err, want)
		}
	}
	for _, bad := range []string{"", "saw:100", "sine:x", "sine:1000:3", "tones", "tones:a,b", "sweep:100:100", "sweep:0:10", "pink:-300", "sine:-5"} {
		if _, err := ParseGenerator(bad); err == nil {
			t.Errorf("ParseGenerator(%q): no error", bad)
		}
	}
	if _, err := NewGenerator(GeneratorSpec{Kind: SignalSine, Freqs: []float64{30000}, LevelDB: -6}, 48000, 1, false); err == nil {
		t.Error("a tone above Nyquist was accepted")
	}
}

// TestNoiseRMS: noise levels are RMS dBFS per AES17 (a full-scale sine is
// 0 dBFS).
func TestNoiseRMS(t *testing.T) {
	for _, kind := range []string{SignalWhite, SignalPink} {
		g, err := NewGenerator(GeneratorSpec{Kind: kind, LevelDB: -20}, 48000, 2, false)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float32, 2*48000*20)
		g.Generate(x)
		var s float64
		for _, v := range x {
			s += float64(v) * float64(v)
		}
		rms := math.Sqrt(s / float64(len(x)))
		// 1.92M samples: the estimate's relative spread is tiny for white;
		// pink's long correlation (the 0.99886 pole) widens it to ~1 %
		if want := 0.1 / math.Sqrt2; math.Abs(rms/want-1) > 0.03 {
			t.Errorf("%s: RMS %.5f, want %.5f ± 3 %%", kind, rms, want)
		}
	}
}
