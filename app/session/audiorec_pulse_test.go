//go:build cgo && linux

package session

import (
	"bytes"
	"encoding/binary"
	"math"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
)

// TestAudioRecordingThroughPulse: the generator's 997 Hz sine (left) and
// pink noise (right), 16-bit, played into the null sink of a PulseAudio
// daemon of the test's own and captured from its monitor (the default
// input) through PortAudio, is recorded by Record audio sample for sample
// as PulseAudio's own recorder (parec, float32) records the same monitor
// at the same time: aligned on 256 frames from the middle of parec's
// recording, every frame both hold is equal, both channels, and the
// played tone is in it at its level (−12 dBFS ± 0.1 dB). The file is 2
// channels at 48 kHz, as long as the status's frames, none of them gaps.
func TestAudioRecordingThroughPulse(t *testing.T) {
	apptest.StartPulse(t)
	const rate, seconds = 48000, 1.5
	n := int(seconds * rate)
	left, right := apptest.GenSamples(t, "sine:997:-12", rate, n), apptest.GenSamples(t, "pink:-12", rate, n)
	raw := make([]byte, 4*n)
	for i := range n {
		for c, x := range []float32{left[i], right[i]} {
			q := int16(max(-32768, min(32767, math.Round(float64(x)*32768))))
			binary.LittleEndian.PutUint16(raw[4*i+2*c:], uint16(q))
		}
	}
	eng := testEngines(t)[0]
	m, _, err := New(SourceSpec{Kind: SourceDevice, Rate: rate, Channels: 2}, live.DefaultSettings(), eng)
	if err != nil {
		t.Skipf("no capture from the test's PulseAudio: %v", err)
	}
	defer m.Close()
	out := filepath.Join(t.TempDir(), "input.wav")
	started := make(chan error, 1)
	if err := m.StartAudioRecording(out, func(err error) { started <- err }); err != nil {
		t.Fatal(err)
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	rec := exec.Command("parec", "--device="+apptest.PulseSink+".monitor", "--format=float32le", "--rate=48000", "--channels=2", "--raw", "--latency-msec=20")
	var ref bytes.Buffer
	rec.Stdout = &ref
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	play := exec.Command("pacat", "--playback", "--device="+apptest.PulseSink, "--latency-msec=100", "--raw",
		"--rate=48000", "--channels=2", "--format=s16le", "--client-name=prism-audiorec-test")
	play.Stdin = bytes.NewReader(raw)
	if out, err := play.CombinedOutput(); err != nil {
		rec.Process.Kill()
		rec.Wait()
		t.Fatalf("pacat: %v: %s", err, out)
	}
	time.Sleep(300 * time.Millisecond) // the last samples reach both captures
	rec.Process.Kill()
	rec.Wait()
	type result struct {
		st  live.AudioRecordStatus
		err error
	}
	res := make(chan result, 1)
	m.StopAudioRecording(func(st live.AudioRecordStatus, err error) { res <- result{st, err} })
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	f, got := apptest.ReadAll(t, out)
	if f.SampleRate != rate || f.Channels != 2 || int64(len(got)/2) != r.st.Frames || r.st.GapFrames != 0 || r.st.Dropped != 0 {
		t.Fatalf("file %+v with %d frames, status %+v", f, len(got)/2, r.st)
	}
	b := ref.Bytes()
	want := make([]float32, len(b)/4/2*2)
	for i := range want {
		want[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	if len(want) < 2*rate {
		t.Fatalf("parec recorded %d frames", len(want)/2)
	}
	// a piece from the middle of parec's recording, found in ours
	mid := len(want) / 2 &^ 1
	off, found := 0, false
	for o := 0; o+512 <= len(got) && !found; o += 2 {
		found = true
		for i := 0; i < 512 && found; i++ {
			found = got[o+i] == want[mid+i]
		}
		off = o - mid // got[i+off] is want[i]
	}
	if !found {
		t.Fatalf("parec's recording is not in ours (%d frames; parec %d)", len(got)/2, len(want)/2)
	}
	lo, hi := max(0, -off), min(len(want), len(got)-off)
	bad := 0
	for i := lo; i < hi; i++ {
		if got[i+off] != want[i] {
			bad++
		}
	}
	if bad > 0 || hi-lo < 2*rate {
		t.Errorf("%d of %d samples both recorded differ", bad, hi-lo)
	}
	// the tone played, at its level, in a second of ours
	var l []float64
	for i := lo; i < lo+2*rate && i+off < len(got); i += 2 {
		l = append(l, float64(got[i+off]))
	}
	if lv := toneDB(l, rate, 997); math.Abs(lv+12) > 0.1 {
		t.Errorf("the 997 Hz tone recorded at %.2f dBFS, want −12", lv)
	}
	t.Logf("%d frames recorded, %d of them also in parec's recording, equal", len(got)/2, (hi-lo)/2)
}
