package encode

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestWritebackOutput: an output of several writeback chunks, written in
// writes of odd sizes (some larger than Output's buffer, which go straight
// through) with a header rewritten in place, holds exactly the bytes
// written, with and without PRISM_WRITEBACK=0.
func TestWritebackOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]byte, 3*writebackChunk+12345)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	defer func(on func() bool) { writebackOn = on }(writebackOn)
	for _, env := range []string{"", "0"} {
		writebackOn = func() bool { return env != "0" }
		path := filepath.Join(t.TempDir(), "o.bin")
		o, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(3<<20))
			if _, err := o.W.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		head := []byte("header")
		if err := o.WriteAt(head, 0); err != nil {
			t.Fatal(err)
		}
		if err := o.Commit(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := append(append([]byte{}, head...), data[len(head):]...)
		if !bytes.Equal(got, want) {
			t.Errorf("PRISM_WRITEBACK=%q: the file differs from what was written (%d bytes, want %d)", env, len(got), len(want))
		}
	}
}
