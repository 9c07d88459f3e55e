package live

import (
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

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
	l := startCPULive(t, spec, DefaultSettings())
	defer l.Close()
	runLive(l, 50*time.Millisecond)
	out := filepath.Join(t.TempDir(), "input.wav")
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
	got, f := readWAV(t, out)
	if f.SampleRate != 48000 || f.Channels != 2 || f.Bits != 32 || f.Encoding != "32-bit float" {
		t.Fatalf("format %+v: want 48000 Hz, 2 channels, 32-bit float", f)
	}
	frames := len(got) / 2
	if int64(frames) != st.Frames || frames < 48000*3/10 {
		t.Fatalf("%d frames in the file, status %d: want them equal and at least 0.3 s", frames, st.Frames)
	}
	ref := generated(t, spec, int(first)+frames)[2*first:]
	for i := range frames {
		inGap := uint64(i) >= gapAt && uint64(i) < gapAt+dropped
		for c := range 2 {
			want := ref[2*i+c]
			if inGap {
				want = 0
			}
			if got[2*i+c] != want {
				t.Fatalf("frame %d (gap %v at %d+%d) channel %d: %v, want %v", i, inGap, gapAt, dropped, c, got[2*i+c], want)
			}
		}
	}
}

// TestAudioRecordingRefusals: a path that is not .wav is refused at once,
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
