package audio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeFile decodes a whole file and returns its format and samples.
func decodeFile(t *testing.T, path string) (Format, []float32) {
	t.Helper()
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f := d.Format()
	var out []float32
	buf := make([]float32, 1000*f.Channels)
	for {
		n, err := d.Read(buf)
		out = append(out, buf[:n*f.Channels]...)
		if errors.Is(err, io.EOF) {
			return f, out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// toneLevel measures the amplitude of hz in channel 0 by correlation
// (a single-bin DFT over whole cycles), independently of the FFT engine.
func toneLevel(x []float32, ch, channels, rate int, hz float64) float64 {
	n := len(x) / channels
	cycles := math.Floor(float64(n) * hz / float64(rate))
	n = int(cycles * float64(rate) / hz)
	var re, im float64
	for i := range n {
		a := 2 * math.Pi * hz * float64(i) / float64(rate)
		re += float64(x[i*channels+ch]) * math.Cos(a)
		im += float64(x[i*channels+ch]) * math.Sin(a)
	}
	return 2 * math.Hypot(re, im) / float64(n)
}

func TestFLAC(t *testing.T) {
	f, x := decodeFile(t, "testdata/tone.flac")
	if f.Container != "FLAC" || f.SampleRate != 44100 || f.Channels != 2 || f.Bits != 16 || f.Frames != 44100 {
		t.Errorf("format %+v", f)
	}
	if len(x) != 2*44100 {
		t.Fatalf("%d samples", len(x))
	}
	for ch := range 2 {
		if a := toneLevel(x, ch, 2, 44100, 1000); math.Abs(a-0.5) > 0.001 {
			t.Errorf("channel %d: 1 kHz amplitude %.4f, want 0.5", ch, a)
		}
	}
}

func TestMP3(t *testing.T) {
	f, x := decodeFile(t, "testdata/tone.mp3")
	if f.Container != "MP3" || f.SampleRate != 44100 || f.Channels != 2 {
		t.Errorf("format %+v", f)
	}
	// the encoder pads the start and end: at least the second of audio
	if n := len(x) / 2; n < 44100 || n > 44100+4*1152 {
		t.Errorf("%d frames", n)
	}
	// lossy at 128 kb/s: the tone's level within 0.5 dB
	if a := toneLevel(x[2*4000:2*34000], 0, 2, 44100, 1000); math.Abs(20*math.Log10(a/0.5)) > 0.5 {
		t.Errorf("1 kHz amplitude %.4f, want 0.5 ± 0.5 dB", a)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open("testdata/no-such-file.wav"); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := Open("testdata"); !errors.As(err, new(*FormatError)) {
		t.Errorf("directory: %v", err)
	}
	if _, err := Open("testdata/README.md"); !errors.As(err, new(*FormatError)) {
		t.Errorf("text file: %v", err)
	}
}

// BenchmarkDecode decodes the 1 s fixtures (44.1 kHz stereo: 16-bit FLAC
// with LPC and mid/side, 128 kb/s MP3) from memory; bytes are the 16-bit
// PCM they hold, so MB/s compare across formats.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"tone.flac", "tone.mp3"} {
		file, err := os.ReadFile("testdata/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimPrefix(filepath.Ext(name), "."), func(b *testing.B) {
			buf := make([]float32, 4096*2)
			b.SetBytes(44100 * 2 * 2)
			b.ReportAllocs()
			for b.Loop() {
				d, err := NewDecoder(bytes.NewReader(file), name, int64(len(file)))
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := d.Read(buf)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				d.Close()
			}
		})
	}
}
