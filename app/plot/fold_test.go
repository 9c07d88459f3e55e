package plot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxLevel: the largest level of a slice and the starting value,
// against a sort-free reference on random levels; NaN is passed over (a
// NaN m too); an empty slice leaves m.
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
	if got := MaxLevel(nan, []float32{nan, -70, -75}); got != -70 {
		t.Errorf("NaN m: %g, want -70", got)
	}
	if got := MaxLevel(nan, []float32{nan, nan}); got == got {
		t.Errorf("every level NaN: %g, want NaN", got)
	}
}

// TestFoldRule: MaxOf, MaxLevels and MaxLevel agree with one another and
// with maxNum (math.Max on the numbers alone, NaN only when every value
// is NaN) on every pair of levels from a set with NaN and ±Inf, whatever
// their order.
func TestFoldRule(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	vals := []float32{nan, -inf, -200, -3.5, 0, 12, inf}
	maxNum := func(a, b float32) float32 {
		switch {
		case a != a:
			return b
		case b != b:
			return a
		}
		return float32(math.Max(float64(a), float64(b)))
	}
	same := func(x, y float32) bool { return x == y || (x != x && y != y) }
	for _, a := range vals {
		for _, b := range vals {
			want := maxNum(a, b)
			dst := []float32{a}
			MaxLevels(dst, []float32{b})
			if got := MaxOf(a, b); !same(got, want) || !same(dst[0], want) || !same(MaxLevel(a, []float32{b}), want) {
				t.Errorf("max(%g, %g): MaxOf %g, MaxLevels %g, MaxLevel %g; want %g", a, b, got, dst[0], MaxLevel(a, []float32{b}), want)
			}
		}
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
