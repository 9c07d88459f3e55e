package encode

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteTraces: CSV and NPY read back as written.
func TestWriteTraces(t *testing.T) {
	a := []float32{-10, -20.5, -30.25}
	b := []float32{-1, -2, -3}
	tr := []Trace{{"current_dbfs", a}, {"peak_hold_dbfs", b}}
	p := filepath.Join(t.TempDir(), "s.csv")
	if err := WriteTraces(p, FormatCSV, 100, tr); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	if want := "freq_hz,current_dbfs,peak_hold_dbfs\n0,-10.00,-1.00\n100,-20.50,-2.00\n200,-30.25,-3.00\n"; string(raw) != want {
		t.Errorf("CSV:\n%s\nwant\n%s", raw, want)
	}
	p = filepath.Join(t.TempDir(), "s.npy")
	if err := WriteTraces(p, FormatNPY, 100, tr); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(p)
	if len(raw) != 128+3*3*4 || !strings.Contains(string(raw[:128]), "'shape': (3, 3)") {
		t.Fatalf("NPY: %d bytes, %q", len(raw), raw[:128])
	}
	for i, want := range []float32{0, 100, 200, -10, -20.5, -30.25, -1, -2, -3} {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[128+4*i:])); got != want {
			t.Errorf("NPY value %d: %g, want %g", i, got, want)
		}
	}
	if err := WriteTraces(filepath.Join(t.TempDir(), "x.csv"), FormatCSV, 1, []Trace{{"a", a}, {"b", b[:2]}}); err == nil {
		t.Error("traces of different lengths did not fail")
	}
	if err := WriteTraces("/nonexistent-dir/x.csv", FormatCSV, 1, tr); err == nil {
		t.Error("an unwritable path did not fail")
	}
}
