package encode

import (
	"errors"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mewkiz/flac"
)

// TestFLACWriter: 3 channels of 5000 frames (a full block and a short
// one) written at 24 bits decode (mewkiz/flac's decoder) to round(x·2^23)
// clipped to [−2^23, 2^23−1], computed here in float64, with the samples
// past full scale and the NaN counted as clipped; STREAMINFO holds the
// total, the block sizes and an MD5 that `flac -t` verifies.
func TestFLACWriter(t *testing.T) {
	const ch, frames = 3, 5000
	x := make([]float32, ch*frames)
	for i := range x {
		x[i] = float32(0.9 * math.Sin(float64(i)*0.0123) * math.Cos(float64(i%ch)))
	}
	special := []float32{1, -1, 1.5, -2, float32(math.NaN()), 0.5, 1.0 / (1 << 24), -1.0 / (1 << 24), 1 - 1.0/(1<<23)}
	copy(x[4000:], special)
	wantClipped := int64(4) // 1 (2^23 is past the top), 1.5, −2 and NaN; −1 and 1−2^−23 fit
	path := filepath.Join(t.TempDir(), "x.flac")
	o, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Discard()
	w, err := NewFLACWriter(o, 44100, ch, 24)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(x); i += ch * 999 { // writes that straddle the blocks
		if err := w.Write(x[i:min(i+ch*999, len(x))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if w.Clipped() != wantClipped {
		t.Errorf("Clipped %d, want %d", w.Clipped(), wantClipped)
	}
	s, err := flac.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Info.NSamples != frames || s.Info.NChannels != ch || s.Info.BitsPerSample != 24 || s.Info.SampleRate != 44100 ||
		s.Info.BlockSizeMax != FLACBlockFrames {
		t.Errorf("STREAMINFO %+v", s.Info)
	}
	var got []int32
	for {
		f, err := s.ParseNext()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range int(f.BlockSize) {
			for c := range ch {
				got = append(got, f.Subframes[c].Samples[i])
			}
		}
	}
	if len(got) != len(x) {
		t.Fatalf("%d samples decoded, want %d", len(got), len(x))
	}
	for i, v := range x {
		want := math.Round(float64(v) * (1 << 23))
		switch {
		case math.IsNaN(want):
			want = 0
		case want > 1<<23-1:
			want = 1<<23 - 1
		case want < -1<<23:
			want = -1 << 23
		}
		if float64(got[i]) != want {
			t.Fatalf("sample %d (%v): %d, want %v", i, v, got[i], want)
		}
	}
	if tool, err := exec.LookPath("flac"); err == nil {
		if b, err := exec.Command(tool, "-t", "-s", path).CombinedOutput(); err != nil {
			t.Errorf("flac -t: %v: %s", err, b)
		}
	}
}
