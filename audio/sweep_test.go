package audio

import (
	"math"
	"testing"
)

// TestGeneratorSweepIsFarinas: the generator's sweep is ExpSweep's
// definition, sin(2π·f0·L·(e^{t/L} − 1)) with L = T/ln(f1/f0) (written
// out again here), over its first period, and goes on continuously in
// phase after it (the phase a period adds carried over).
func TestGeneratorSweepIsFarinas(t *testing.T) {
	const rate, f0, f1, T = 48000, 50.0, 5000.0, 0.5
	g, err := NewGenerator(GeneratorSpec{Kind: SignalSweep, Freqs: []float64{f0, f1}, LevelDB: 0, SweepSec: T}, rate, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	n := int(2 * T * rate)
	x := make([]float32, n)
	g.Generate(x)
	L := T / math.Log(f1/f0)
	phase := func(t float64) float64 { return 2 * math.Pi * f0 * L * (math.Exp(t/L) - 1) }
	per := int(T * rate)
	for i := range n {
		tt := float64(i%per) / rate
		want := math.Sin(phase(tt) + float64(i/per)*phase(T))
		if math.Abs(float64(x[i])-want) > 1e-5 {
			t.Fatalf("sample %d: %g, want %g", i, x[i], want)
		}
	}
	if s := (ExpSweep{F0: f0, F1: f1, Seconds: T}); math.Abs(s.Freq(T)-f1) > 1e-9 || math.Abs(s.Freq(0)-f0) > 1e-12 {
		t.Errorf("ExpSweep frequency %g → %g, want %g → %g", s.Freq(0), s.Freq(T), f0, f1)
	}
}
