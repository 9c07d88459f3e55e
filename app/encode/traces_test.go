package encode

import (
	"bytes"
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

// TestOutputMode: outputs get 0666 less the umask, as a plain create
// would, not the temporary file's 0600.
func TestOutputMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.csv")
	o, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	o.W.WriteString("x\n")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0o666 &^ umask(); st.Mode().Perm() != want {
		t.Errorf("mode %v, want %v", st.Mode().Perm(), want)
	}
}

// TestNPYRows: the file is the v1.0 header with the final shape, then
// every value as little-endian IEEE bits in order (odd values included:
// −0, ±Inf, a NaN payload, subnormals), over batches of several sizes.
func TestNPYRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.npy")
	o, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Discard()
	const bins = 5
	w, err := NewNPYRows(o, bins)
	if err != nil {
		t.Fatal(err)
	}
	odd := []float32{float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc01234), math.Float32frombits(1), -120.5}
	var all []float32
	for k, frames := range []int{1, 3, 0, 7} {
		batch := make([]float32, frames*bins)
		for i := range batch {
			batch[i] = float32(k*1000+i) * -0.25
			if i < len(odd) && k == 3 {
				batch[i] = odd[i]
			}
		}
		if err := w.Rows(len(all)/bins, batch); err != nil {
			t.Fatal(err)
		}
		all = append(all, batch...)
	}
	if err := w.Finish(len(all) / bins); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := NPYHeader(len(all)/bins, bins)
	for _, v := range all {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(v))
	}
	if !bytes.Equal(got, want) {
		t.Errorf("NPY file of %d bytes differs from the %d expected", len(got), len(want))
	}
}
