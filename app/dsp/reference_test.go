package dsp

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceRoundTrip: WriteCSV then ReadTrace is exact, −Inf included.
func TestTraceRoundTrip(t *testing.T) {
	f := []float64{0, 11.71875, 23.4375, 1000, 24000}
	l := []float64{math.Inf(-1), -80.25, -60.5, 1e-300, -3.0000000000000004}
	tr, err := NewTrace("a", f, l)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tr.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "freq_hz,level\n") {
		t.Fatalf("header: %q", b.String()[:20])
	}
	got, err := ReadTrace(strings.NewReader(b.String()), "a")
	if err != nil {
		t.Fatal(err)
	}
	for i := range f {
		if got.FreqHz[i] != f[i] || got.Level[i] != l[i] {
			t.Errorf("point %d: %v %v, want %v %v", i, got.FreqHz[i], got.Level[i], f[i], l[i])
		}
	}
}

// TestTraceDifference: a spectrum minus a reference sampled on another
// grid. The reference is a straight line in log f (so interpolation is
// exact there) and the spectrum is that line plus a known offset curve:
// the difference must give the offset curve back.
func TestTraceDifference(t *testing.T) {
	line := func(f float64) float64 { return -40 + 6*math.Log2(f/1000) }
	var rf, rl []float64
	for f := 20.0; f < 21000; f *= 1.3 {
		rf = append(rf, f)
		rl = append(rl, line(f))
	}
	ref, err := NewTrace("ref", rf, rl)
	if err != nil {
		t.Fatal(err)
	}
	var sf, sl []float64
	for k := 1; k < 1000; k++ {
		f := 20 * float64(k)
		if f > rf[len(rf)-1] {
			break
		}
		sf = append(sf, f)
		sl = append(sl, line(f)+math.Sin(f/500))
	}
	d := make([]float64, len(sf))
	ref.Difference(d, sf, sl)
	for i, f := range sf {
		if math.Abs(d[i]-math.Sin(f/500)) > 1e-9 {
			t.Fatalf("difference at %v Hz = %v, want %v", f, d[i], math.Sin(f/500))
		}
	}
	// Outside the reference's range its end values hold.
	if ref.At(5) != rl[0] || ref.At(30000) != rl[len(rl)-1] {
		t.Errorf("At outside: %v %v", ref.At(5), ref.At(30000))
	}
	// From 0 Hz the first segment is linear in f.
	z, _ := NewTrace("z", []float64{0, 10}, []float64{-10, 10})
	if z.At(2.5) != -5 {
		t.Errorf("At(2.5) = %v, want -5", z.At(2.5))
	}
	if n := testing.AllocsPerRun(10, func() { ref.Difference(d, sf, sl) }); n != 0 {
		t.Errorf("Difference: %v allocs", n)
	}
}

func TestReadTraceErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"f,level\n1,2\n", "header"},
		{"freq_hz,level\n1,2\n1,3\n", "line 3"},
		{"freq_hz,level\n1,x\n", "line 2"},
		{"freq_hz,level\n-1,2\n", "≥ 0"},
		{"freq_hz,level\n1,NaN\n", "level must"},
		{"freq_hz,level\n1,2,3\n", "wrong number of fields"},
		{"freq_hz,level\n", "no points"},
		{"", "header"},
	} {
		_, err := ReadTrace(strings.NewReader(c.text), "r.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "dsp: trace r.csv") {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := NewTrace("x", []float64{1, 2}, []float64{1}); err == nil {
		t.Error("NewTrace with unequal lengths: no error")
	}
}

// TestReadTraceFile: a trace file is named after the file, without its
// extension (the window's loaded references and `prism spectrum --ref`
// share the rule); its errors name the file's line; a missing file is an
// error.
func TestReadTraceFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.A.csv")
	if err := os.WriteFile(path, []byte("freq_hz,level\n0,-10\n100,-20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := ReadTraceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Name != "bench.A" || len(tr.Level) != 2 || tr.Level[1] != -20 || tr.FreqHz[1] != 100 {
		t.Errorf("read %q %v %v", tr.Name, tr.FreqHz, tr.Level)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("freq_hz,level\n0,-10\n100,loud\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTraceFile(bad); err == nil || !strings.Contains(err.Error(), "trace bad line 3") {
		t.Errorf("bad file: %v", err)
	}
	if _, err := ReadTraceFile(filepath.Join(dir, "none.csv")); err == nil || !strings.HasPrefix(err.Error(), "dsp: trace: ") {
		t.Errorf("missing file: %v", err)
	}
}
