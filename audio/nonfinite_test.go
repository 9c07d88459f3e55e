package audio

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWAVNonFinite: NaN and ±Inf samples of a float WAV (32 and 64 bits)
// are read as 0, by Read and by ReadRaw (the bytes the engines convert
// themselves), every other sample as it is, and the warning counts them
// and names the first one's time and channel (1-based).
func TestWAVNonFinite(t *testing.T) {
	const rate, channels, frames = 1000, 2, 3000
	vals := testValues(frames * channels)
	bad := map[int]float64{2*1234 + 1: math.NaN(), 2*1500 + 0: math.Inf(1), 2*2999 + 1: math.Inf(-1)}
	for i, v := range bad {
		vals[i] = v
	}
	const want = "test.wav: 3 non-finite samples (NaN or ±Inf; first at 1.234 s, channel 2) read as 0"
	for _, bits := range []int{32, 64} {
		b := wavSpec{tag: waveFloat, channels: channels, rate: rate, bits: bits, dataSize: -1, data: encode(bits, true, vals)}.bytes()
		t.Run("Read/"+string(rune('0'+bits/32)), func(t *testing.T) {
			got, _, warn, err := decodeAll(t, b)
			if err != nil {
				t.Fatal(err)
			}
			checkNonFinite(t, got, vals, bad, warn, want)
		})
		t.Run("ReadRaw/"+string(rune('0'+bits/32)), func(t *testing.T) {
			d, err := NewWAV(strings.NewReader(string(b)), "test.wav", int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			raw := d.(RawPCM)
			var got []float32
			buf := make([]byte, 7*channels*bits/8) // frames split across reads
			for {
				n, err := raw.ReadRaw(buf)
				for i := range n * channels {
					if bits == 32 {
						got = append(got, math.Float32frombits(le32(buf[4*i:])))
					} else {
						got = append(got, float32(math.Float64frombits(le64(buf[8*i:]))))
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			checkNonFinite(t, got, vals, bad, d.Warnings(), want)
		})
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

func checkNonFinite(t *testing.T, got []float32, vals []float64, bad map[int]float64, warn []string, want string) {
	t.Helper()
	if len(got) != len(vals) {
		t.Fatalf("%d samples, want %d", len(got), len(vals))
	}
	for i, v := range got {
		w := float32(vals[i])
		if _, ok := bad[i]; ok {
			w = 0
		}
		if v != w || math.Signbit(float64(v)) != math.Signbit(float64(w)) {
			t.Fatalf("sample %d (frame %d, channel %d) = %v, want %v", i, i/2, i%2, v, w)
		}
	}
	if len(warn) != 1 || warn[0] != want {
		t.Fatalf("warnings %q, want [%q]", warn, want)
	}
}

// TestWAVGrowing: a WAV still being written (a recording in progress) is
// read as it was at open, whether its writer updates the header or not:
// samples appended after Open are never read, so the length Format
// declared at open holds (an image sized by it is never overrun).
func TestWAVGrowing(t *testing.T) {
	for _, header := range []string{"header kept", "header updated", "size unknown"} {
		t.Run(header, func(t *testing.T) {
			const channels, at = 2, 1000 // frames present at open
			vals := testValues(2 * at * channels)
			spec := wavSpec{tag: wavePCM, channels: channels, rate: 8000, bits: 16, dataSize: -1, data: encode(16, false, vals[:at*channels])}
			if header == "size unknown" {
				spec.dataSize = 0xFFFFFFFF // as streaming writers leave it
			}
			path := filepath.Join(t.TempDir(), "rec.wav")
			if err := os.WriteFile(path, spec.bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if f := d.Format().Frames; f != at {
				t.Fatalf("Frames %d at open, want %d", f, at)
			}
			// the writer goes on: more frames, and perhaps a new header
			more := spec
			more.data = encode(16, false, vals)
			if header == "header kept" {
				more.dataSize = int64(len(spec.data))
			}
			if err := os.WriteFile(path, more.bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			buf := make([]float32, 4096*channels)
			var n int
			for {
				k, err := d.Read(buf)
				for i, v := range buf[:k*channels] {
					if want := float32(vals[n*channels+i]); v != want {
						t.Fatalf("sample %d = %v, want %v", n*channels+i, v, want)
					}
				}
				n += k
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if n != at {
				t.Fatalf("read %d frames, want the %d present at open", n, at)
			}
		})
	}
}

// BenchmarkNonFiniteScan is the cost of the search on a batch of the raw
// path (2^20 float32 samples) that holds no NaN: what every float WAV pays.
func BenchmarkNonFiniteScan(b *testing.B) {
	raw := encode(32, true, testValues(1<<20))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var nf nonFinite
	for b.Loop() {
		nf.scanRaw(raw, 4, 0, 2)
	}
}
