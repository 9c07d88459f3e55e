package dsp

import (
	"math"
	"testing"
)

// near checks got against want ± tol (NaN fails) and logs it.
func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	t.Logf("%s = %.4f (want %.3f ± %.3g)", what, got, want, tol)
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s = %.3f, want %.3f ± %.3g", what, got, want, tol)
	}
}
