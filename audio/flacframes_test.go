package audio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needTools skips a test when a reference tool is missing, except under
// PRISM_REQUIRE_TOOLS=1, where that is a failure.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
				t.Fatalf("%s not found (PRISM_REQUIRE_TOOLS=1; scripts/setup.sh installs it)", tool)
			}
			t.Skipf("%s not found", tool)
		}
	}
}

// stripFLACHeader returns a FLAC file's frames without the fLaC marker and
// the metadata blocks before them.
func stripFLACHeader(t *testing.T, b []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("fLaC")) {
		t.Fatal("no fLaC marker")
	}
	p := 4
	for {
		last := b[p]&0x80 != 0
		p += 4 + (int(b[p+1])<<16 | int(b[p+2])<<8 | int(b[p+3]))
		if last {
			return b[p:]
		}
	}
}

func decodeBytes(t *testing.T, b []byte, name string) ([]float32, Format, error) {
	t.Helper()
	d, err := NewDecoder(bytes.NewReader(b), name, int64(len(b)))
	if err != nil {
		return nil, Format{}, err
	}
	defer d.Close()
	f := d.Format()
	var out []float32
	buf := make([]float32, 13*f.Channels) // odd size: frames split across reads
	for {
		n, err := d.Read(buf)
		out = append(out, buf[:n*f.Channels]...)
		if errors.Is(err, io.EOF) {
			return out, f, nil
		}
		if err != nil {
			return out, f, err
		}
	}
}

// TestFLACFramesOnly: a FLAC stream without its fLaC marker and metadata
// (the IETF test file uncommon/10 starts so; `flac -d` decodes it) is
// decoded from what its frame headers say: the same samples, sample by
// sample, as the whole file (whose STREAMINFO MD5 the decoder checks, so
// the whole file's samples are the encoder's input), at the rate, depth and
// channels of the fixture; the length is unknown until the end.
func TestFLACFramesOnly(t *testing.T) {
	for _, c := range []struct {
		file                 string
		rate, channels, bits int
	}{
		{"pcm32", 48000, 1, 32},
		{"wasted24", 44100, 2, 24},
		{"side24", 96000, 2, 24},
		{"fixed6ch", 22050, 6, 16},
		{"lpc8bit", 8000, 2, 8},
		{"tone", 44100, 2, 16},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + c.file + ".flac")
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := decodeBytes(t, b, c.file+".flac")
			if err != nil {
				t.Fatal(err)
			}
			got, f, err := decodeBytes(t, stripFLACHeader(t, b), c.file+".flac")
			if err != nil {
				t.Fatal(err)
			}
			if f.SampleRate != c.rate || f.Channels != c.channels || f.Bits != c.bits || f.Frames != -1 {
				t.Errorf("format %+v", f)
			}
			compareSamples(t, got, want)
		})
	}
}

func compareSamples(t *testing.T, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("sample %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestFLACFramesOnlyTools: a WAV made by sox, encoded by the reference
// encoder (flac) and stripped of its metadata, decodes to the WAV's
// samples exactly.
func TestFLACFramesOnlyTools(t *testing.T) {
	needTools(t, "sox", "flac")
	dir := t.TempDir()
	wav, fl := filepath.Join(dir, "a.wav"), filepath.Join(dir, "a.flac")
	for _, cmd := range [][]string{
		{"sox", "-n", "-r", "48000", "-c", "2", "-b", "24", wav, "synth", "0.3", "sine", "997", "pinknoise", "vol", "0.4"},
		{"flac", "-s", "-8", "-o", fl, wav},
	} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, out)
		}
	}
	wb, _ := os.ReadFile(wav)
	want, _, err := decodeBytes(t, wb, "a.wav")
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := os.ReadFile(fl)
	got, f, err := decodeBytes(t, stripFLACHeader(t, fb), "a.flac")
	if err != nil {
		t.Fatal(err)
	}
	if f.SampleRate != 48000 || f.Channels != 2 || f.Bits != 24 {
		t.Errorf("format %+v", f)
	}
	compareSamples(t, got, want)
}

// TestFLACFramesOnlyRefused: headerless frames whose headers leave the
// sample rate or the bit depth to STREAMINFO (code 0) cannot be decoded:
// a FormatError saying which is missing.
func TestFLACFramesOnlyRefused(t *testing.T) {
	x := ramp(64, -3000, 3000)
	for _, c := range []struct {
		name              string
		rateCode, bpsCode int
		want              string
	}{
		{"rate", 0, -1, "leaves the sample rate to STREAMINFO"},
		{"depth", -1, 0, "leaves the bit depth to STREAMINFO"},
		{"both", 0, 0, "leaves the sample rate and bit depth to STREAMINFO"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := testFLAC{rate: 44100, channels: 2, bps: 16, total: -1}
			s.frames = []testFrame{{samples: [][]int64{x, x}, rateCode: c.rateCode, bpsCode: c.bpsCode, assign: -1, number: -1}}
			b := s.bytes()[flacFrame0:]
			_, _, err := decodeBytes(t, b, "cut.flac")
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a FormatError containing %q", err, c.want)
			}
		})
	}
}
