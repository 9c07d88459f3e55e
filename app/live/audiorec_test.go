package live

import (
	"errors"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/audio"
)

// readWAV decodes a whole file (interleaved samples) and its format.
func readWAV(t *testing.T, path string) ([]float32, audio.Format) {
	t.Helper()
	dec, err := audio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	f := dec.Format()
	var all []float32
	buf := make([]float32, 4096*f.Channels)
	for {
		n, err := dec.Read(buf)
		all = append(all, buf[:n*f.Channels]...)
		if errors.Is(err, io.EOF) {
			return all, f
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// generated is frames [0, n) of generator spec at 48 kHz, 2 channels, as
// the recorder's source makes them (unpaced: the same samples at once).
func generated(t *testing.T, spec string, n int) []float32 {
	t.Helper()
	gs, err := audio.ParseGenerator(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := audio.NewGenerator(gs, 48000, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 0, 2*n)
	buf := make([]float32, 2*997) // a block size the recorder never uses
	for len(out) < 2*n {
		k, _, err := g.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, buf[:2*k]...)
	}
	return out[:2*n]
}

// TestAudioRecordingIsTheInput: a recording of the generator (two
// channels at 48 kHz) is a 32-bit float WAV of both channels at that
// rate whose samples are bit for bit the generator's at their stream
// positions (an independent, unpaced generator is the reference), with
// the input dropped mid-recording (the ring drained, as a settings change
// does; and a pause, during which the input is still recorded) written as
// exactly that many frames of silence at its place, counted in
// GapFrames; and the duration is Frames at the rate.
func TestAudioRecordingIsTheInput(t *testing.T) {
	const spec = "tones:997,3001:-9"
	out := filepath.Join(t.TempDir(), "input.wav")
	rec := recordWithGap(t, spec, out)
	got, f := readWAV(t, out)
	if f.SampleRate != 48000 || f.Channels != 2 || f.Bits != 32 || f.Encoding != "32-bit float" {
		t.Fatalf("format %+v: want 48000 Hz, 2 channels, 32-bit float", f)
	}
	rec.check(t, spec, got, 0)
}

// TestAudioRecordingFLAC: the same recording named .flac is a 24-bit
// FLAC of both channels at 48 kHz whose samples, decoded by Prism's own
// FLAC decoder and by the reference `flac -d` (which also checks the
// MD5 the writer put in STREAMINFO), are the generator's within half a
// 24-bit step (no dither: round to nearest), both decoders agreeing bit
// for bit, with the drained input as exact silence at its place and no
// sample clipped.
func TestAudioRecordingFLAC(t *testing.T) {
	const spec = "tones:997,3001:-9"
	dir := t.TempDir()
	out := filepath.Join(dir, "input.flac")
	rec := recordWithGap(t, spec, out)
	if rec.st.Clipped != 0 {
		t.Errorf("%d samples clipped at -9 dBFS", rec.st.Clipped)
	}
	got, f := readWAV(t, out)
	if f.SampleRate != 48000 || f.Channels != 2 || f.Bits != 24 || f.Encoding != "FLAC 24-bit" {
		t.Fatalf("format %+v: want 48000 Hz, 2 channels, FLAC 24-bit", f)
	}
	const step = 1.0 / (1 << 23)
	rec.check(t, spec, got, step/2)
	tool, err := exec.LookPath("flac")
	if err != nil {
		if apptest.Required("TOOLS") {
			t.Fatalf("flac required (PRISM_REQUIRE_TOOLS=1; scripts/setup.sh installs it): %v", err)
		}
		t.Skip("no flac command-line tool")
	}
	wav := filepath.Join(dir, "decoded.wav")
	if b, err := exec.Command(tool, "-d", "-s", "-f", "-o", wav, out).CombinedOutput(); err != nil {
		t.Fatalf("flac -d: %v: %s", err, b)
	}
	ref, rf := readWAV(t, wav)
	if rf.SampleRate != 48000 || rf.Channels != 2 || rf.Bits != 24 || len(ref) != len(got) {
		t.Fatalf("flac -d wrote %+v, %d samples: want 48000 Hz, 2 channels, 24 bits, %d samples", rf, len(ref), len(got))
	}
	for i := range ref {
		if ref[i] != got[i] {
			t.Fatalf("sample %d: flac -d %v, Prism %v", i, ref[i], got[i])
		}
	}
}

// gapRecording is what recordWithGap recorded: the final status, the
// stream position of its first frame, and where (frames into the file)
// and how long the gap is.
type gapRecording struct {
	st             AudioRecordStatus
	first          uint64
	gapAt, dropped uint64
}

// recordWithGap records the generator spec to out for about half a
// second, dropping the input (the ring drained) once and pausing once
// in the middle.
func recordWithGap(t *testing.T, spec, out string) gapRecording {
	t.Helper()
	l := startCPULive(t, spec, DefaultSettings())
	defer l.Close()
	runLive(l, 50*time.Millisecond)
	errc := make(chan error, 1)
	if err := l.StartAudioRecording(out, func(err error) { errc <- err }); err != nil {
		t.Fatal(err)
	}
	l.Step()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	runLive(l, 150*time.Millisecond)
	// drop what the ring holds unread now: a jump in the stream
	ring := l.run.rec.Ring()
	for ring.Available() < 2400 { // wait for at least 50 ms of input to drop
		time.Sleep(time.Millisecond)
	}
	gapAt := l.run.audio.expect - l.run.audio.first
	from := ring.Position()
	ring.Drain(0)
	dropped := ring.Position() - from
	l.run.reset(ring.Position())
	runLive(l, 100*time.Millisecond)
	l.SetPaused(true)
	runLive(l, 100*time.Millisecond)
	l.SetPaused(false)
	runLive(l, 100*time.Millisecond)
	first := l.run.audio.first
	type result struct {
		st  AudioRecordStatus
		err error
	}
	res := make(chan result, 1)
	l.StopAudioRecording(func(st AudioRecordStatus, err error) { res <- result{st, err} })
	l.Step()
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	st := r.st
	if !st.Saved || st.Active || st.Rate != 48000 || st.Channels != 2 {
		t.Fatalf("status %+v: want saved, 48000 Hz, 2 channels", st)
	}
	if st.GapFrames != int64(dropped) || st.Dropped != 0 {
		t.Errorf("GapFrames %d, Dropped %d: want the %d frames drained, none dropped", st.GapFrames, st.Dropped, dropped)
	}
	return gapRecording{st: st, first: first, gapAt: gapAt, dropped: dropped}
}

// check compares the file's samples got with the generator's at their
// stream positions (silence in the gap), within tol (0: bit for bit).
func (r gapRecording) check(t *testing.T, spec string, got []float32, tol float64) {
	t.Helper()
	frames := len(got) / 2
	if int64(frames) != r.st.Frames || frames < 48000*3/10 {
		t.Fatalf("%d frames in the file, status %d: want them equal and at least 0.3 s", frames, r.st.Frames)
	}
	ref := generated(t, spec, int(r.first)+frames)[2*r.first:]
	for i := range frames {
		inGap := uint64(i) >= r.gapAt && uint64(i) < r.gapAt+r.dropped
		for c := range 2 {
			want := ref[2*i+c]
			if inGap {
				want = 0
			}
			if d := math.Abs(float64(got[2*i+c]) - float64(want)); d > tol || (inGap && got[2*i+c] != 0) {
				t.Fatalf("frame %d (gap %v at %d+%d) channel %d: %v, want %v (within %g)", i, inGap, r.gapAt, r.dropped, c, got[2*i+c], want, tol)
			}
		}
	}
}

// TestAudioRecordingRefusals: a path that is not .wav or .flac is refused at once,
// and stopping when not recording reports it.
func TestAudioRecordingRefusals(t *testing.T) {
	l := startCPULive(t, "sine:1000:-6", DefaultSettings())
	defer l.Close()
	if err := l.StartAudioRecording(filepath.Join(t.TempDir(), "a.npy"), nil); err == nil {
		t.Error("a .npy audio recording was accepted")
	}
	errc := make(chan error, 1)
	l.StopAudioRecording(func(_ AudioRecordStatus, err error) { errc <- err })
	l.Step()
	if err := <-errc; err == nil {
		t.Error("stopping with no recording reported no error")
	}
}
