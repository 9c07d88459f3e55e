package bench

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNPYFloor: the floor writes exactly the NPY's byte count into place
// (chunks of the pattern, the header rewritten at offset 0), leaves no
// temporary file, and its row is reported against each engine's NPY row.
func TestNPYFloor(t *testing.T) {
	dir := t.TempDir()
	npy := filepath.Join(dir, "o.npy")
	const size = 2*writeFloorChunk + 12345 // not a whole number of chunks
	if err := os.WriteFile(npy, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e2eRunner{dir: dir, repeat: 2, stderr: io.Discard}
	row, ok := r.npyFloorRow(npy)
	if !ok || row.Case != npyFloorCase || !(row.Seconds > 0) {
		t.Fatalf("floor row %+v, ok %v", row, ok)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v (want only o.npy)", entries)
	}

	buf := make([]byte, writeFloorChunk)
	for i := range buf {
		buf[i] = byte(i*7 + 1)
	}
	out := filepath.Join(dir, "f.npy")
	if err := writeFloor(out, size, buf); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := append(bytes.Repeat(buf, 2), buf[:12345]...)
	if !bytes.Equal(got, want) {
		t.Errorf("floor file: %d bytes, want %d of the pattern", len(got), len(want))
	}

	if _, ok := r.npyFloorRow(filepath.Join(dir, "missing.npy")); ok || !r.failed {
		t.Errorf("a missing NPY: ok %v, failed %v; want no row and a failure", ok, r.failed)
	}
	var sb strings.Builder
	tl := TimingsPrefix + `{"engines_open_ms":240.5}` + "\n" + TimingsPrefix + `{"file":"in.wav","ok":true,"total_ms":160}` + "\n"
	printNPYFloor(&sb, []e2eRow{{Case: npyFloorCase, Seconds: 0.25},
		{Case: npyCase, Engine: "gpu", Seconds: 0.5, Open: EnginesOpenMs(tl), Stages: MeanTimings(tl)},
		{Case: npyCase, Engine: "cpu", Seconds: 0.3}})
	for _, want := range []string{
		"gpu: 0.500 s = the floor's 0.250 s + 0.250 s; its last run: engines open 240.5 ms, then the file 160.0 ms (the floor's 250.0 ms), the rest of the process 99.5 ms\n",
		"cpu: 0.300 s = the floor's 0.250 s + 0.050 s\n",
	} {
		if s := sb.String(); !strings.Contains(s, want) {
			t.Errorf("summary %q, want %q", s, want)
		}
	}
}
