package plot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxLevel: the largest level of a slice and the starting value,
// against a sort-free reference on random levels; NaN is passed over; an
// empty slice leaves m.
func TestMaxLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		db := make([]float32, rng.IntN(300))
		want := float32(-200)
		for i := range db {
			db[i] = -150 + 150*rng.Float32()
			want = float32(math.Max(float64(want), float64(db[i])))
		}
		if got := MaxLevel(-200, db); got != want {
			t.Fatalf("%d levels: %g, want %g", len(db), got, want)
		}
	}
	nan := float32(math.NaN())
	if got := MaxLevel(-90, []float32{nan, -80, nan, -85}); got != -80 {
		t.Errorf("with NaN: %g, want -80", got)
	}
	if got := MaxLevel(-3, nil); got != -3 {
		t.Errorf("empty: %g", got)
	}
}

// BenchmarkMaxLevel folds a 2^20-point spectrum (524,289 bins) into 1080
// rows, as a PNG capture's column does.
func BenchmarkMaxLevel(b *testing.B) {
	const bins, rows = 524289, 1080
	db := make([]float32, bins)
	for i := range db {
		db[i] = float32(i%997) - 500
	}
	pix := make([]float32, rows)
	for b.Loop() {
		for r := range pix {
			pix[r] = MaxLevel(pix[r], db[r*bins/rows:(r+1)*bins/rows])
		}
	}
}
