package proc

import (
	"math"
	"strconv"
	"testing"
)

// TestProcessCPU: the process's CPU time grows when it works.
func TestProcessCPU(t *testing.T) {
	a, ok := ProcessCPU()
	if !ok {
		t.Skip("the OS does not report CPU time")
	}
	x := 0.0
	for i := range 20_000_000 {
		x += math.Sqrt(float64(i))
	}
	b, _ := ProcessCPU()
	if b <= a {
		t.Errorf("CPU time %v → %v after work (%s)", a, b, strconv.FormatFloat(x, 'g', 3, 64))
	}
}
