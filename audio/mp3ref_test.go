package audio

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// makeMP3 writes a WAV with sox (format options, then effects) and encodes
// it with LAME (lame options): the paths of both.
func makeMP3(t *testing.T, name, format, effects, lame string) (wav, mp3 string) {
	t.Helper()
	needTools(t, "sox", "lame")
	dir := t.TempDir()
	wav, mp3 = filepath.Join(dir, name+".wav"), filepath.Join(dir, name+".mp3")
	run(t, append(append(append([]string{"sox", "-n"}, strings.Fields(format)...), wav), strings.Fields(effects)...)...)
	run(t, append(append([]string{"lame", "--quiet"}, strings.Fields(lame)...), wav, mp3)...)
	return wav, mp3
}

func run(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return out
}

// decodePath decodes a whole file with Prism.
func decodeAllPath(t *testing.T, path string) ([]float32, Format, []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x, f, warns, err := decodeMP3(t, b, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return x, f, warns
}

// TestMP3MatchesReference: Prism's MP3 samples against two reference
// decoders, sample by sample, on LAME streams of a −60 dBFS tone pair
// (where 16-bit rounding is 1.5 % of the signal): mpg123's float output
// (`mpg123 -e f32`, gapless, i.e. trimmed as LAME's tag says, as Prism
// trims) within 1e-6 absolute (float rounding of one synthesis: the same
// library decodes both; go-mp3's 16-bit output misses by up to 1.5e-5, so
// the bound tells the decoders apart), and LAME's own decoder (`lame
// --decode`, mpglib, 16-bit output) within 1.5/32768 (its rounding to 16
// bits, plus half a step of synthesis differences).
func TestMP3MatchesReference(t *testing.T) {
	needMPG123(t)
	needTools(t, "mpg123")
	for _, c := range []struct {
		name, format, effects, lame string
		untagged                    bool // no LAME tag fits the first frame: mpg123 trims nothing, Prism and LAME the decoder delay
	}{
		{"stereo-cbr", "-r 44100 -c 2 -b 16", "synth 0.6 sine 1000 sine 433 vol 0.001", "-b 128", false},
		{"mono-vbr", "-r 48000 -c 1 -b 16", "synth 0.6 sine 997 vol 0.001", "-V 2", false},
		{"mpeg2-mono", "-r 22050 -c 1 -b 16", "synth 0.6 sine 440 vol 0.001", "-b 64", false},
		{"mpeg2-untagged", "-r 24000 -c 2 -b 16", "synth 0.6 sine 440 sine 1200 vol 0.001", "-b 48", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, mp3 := makeMP3(t, c.name, c.format, c.effects, c.lame)
			got, f, _ := decodeAllPath(t, mp3)
			ref := f32le(run(t, "mpg123", "-q", "-e", "f32", "-s", mp3))
			if c.untagged {
				ref = ref[min(len(ref), mp3DecoderDelay*f.Channels):]
			}
			compareWithin(t, "mpg123 -e f32", got, ref, 1e-6)
			dir := t.TempDir()
			run(t, "lame", "--quiet", "--decode", mp3, filepath.Join(dir, "d.wav"))
			lameOut, lf, _ := decodeAllPathWAV(t, filepath.Join(dir, "d.wav"))
			if lf.Channels != f.Channels {
				t.Fatalf("lame --decode gives %d channels, Prism %d", lf.Channels, f.Channels)
			}
			compareWithin(t, "lame --decode", got, lameOut, 1.5/32768)
		})
	}
}

func decodeAllPathWAV(t *testing.T, path string) ([]float32, Format, []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x, f, warns, err := decodeAll(t, b)
	if err != nil {
		t.Fatal(err)
	}
	return x, f, warns
}

func f32le(b []byte) []float32 {
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

func compareWithin(t *testing.T, ref string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d samples, %s gives %d", len(got), ref, len(want))
	}
	worst, at := 0.0, 0
	for i := range got {
		if d := math.Abs(float64(got[i]) - float64(want[i])); d > worst {
			worst, at = d, i
		}
	}
	t.Logf("%s: %d samples, largest difference %.3g at %d", ref, len(got), worst, at)
	if worst > tol {
		t.Errorf("sample %d = %v, %s gives %v (difference %.3g > %.3g)", at, got[at], ref, want[at], worst, tol)
	}
}

// powerDB is the mean square of x (channels interleaved) from frame lo to
// hi, summed over the channels as loudness sums them, in dB.
func powerDB(x []float32, channels, lo, hi int) float64 {
	var s float64
	for _, v := range x[lo*channels : hi*channels] {
		s += float64(v) * float64(v)
	}
	return 10 * math.Log10(s/float64(hi-lo))
}

// TestMP3Mono: a mono MP3 is one channel, with either decoder. It was read
// as two copies, which put its power summed over channels (what loudness
// adds up) 3.01 dB high; now that power is the reference decoder's (`lame
// --decode`, mono) within 0.1 dB, and the length the WAV's. (LAME itself
// leaves this tone 0.27 dB below the WAV, so the WAV is no reference for
// the level.)
func TestMP3Mono(t *testing.T) {
	wav, mp3 := makeMP3(t, "mono", "-r 44100 -c 1 -b 16", "synth 1 sine 1000 vol 0.1", "-b 192")
	src, _, _ := decodeAllPathWAV(t, wav)
	dec := filepath.Join(t.TempDir(), "d.wav")
	run(t, "lame", "--quiet", "--decode", mp3, dec)
	ref, rf, _ := decodeAllPathWAV(t, dec)
	if rf.Channels != 1 {
		t.Fatalf("lame --decode gives %d channels", rf.Channels)
	}
	want := powerDB(ref, 1, 4410, 39690)
	mp3Decoders(t, func(t *testing.T, _ bool) {
		x, f, _ := decodeAllPath(t, mp3)
		if f.Channels != 1 || len(x) != len(src) {
			t.Fatalf("%d channels, %d samples; want 1, %d", f.Channels, len(x), len(src))
		}
		if got := powerDB(x, f.Channels, 4410, 39690); math.Abs(got-want) > 0.1 {
			t.Errorf("power %.3f dB, lame --decode's %.3f", got, want)
		}
	})
}
