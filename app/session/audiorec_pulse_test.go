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
// played tone is in it at its level (−12 dBFS ± 0.1 dB, in its loudest
// 0.1 s). The file is 2
// channels at 48 kHz, as long as the status's frames. (Where a loaded
// machine lost input, the recording's silence for it is counted in
// GapFrames, and the equal stretch around the piece is compared.)
func TestAudioRecordingThroughPulse(t *testing.T) {
	pa := apptest.StartPulse(t)
	// silence played all along: the null sink never suspends, so the
	// capture flows before the signal comes (zeros mix in exactly)
	pa.Play("3600", "sine", "1000", "vol", "0")
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
		if apptest.Required("AUDIO") {
			t.Fatalf("no capture from the test's PulseAudio (PRISM_REQUIRE_AUDIO=1): %v", err)
		}
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
	for deadline := time.Now().Add(10 * time.Second); m.AudioRecordStatus().Frames < rate/2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the capture did not start: %+v", m.AudioRecordStatus())
		}
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
	if f.SampleRate != rate || f.Channels != 2 || int64(len(got)/2) != r.st.Frames || r.st.Dropped != 0 {
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
	// a piece of parec's recording (from its middle, or a third or two
	// thirds in), found in ours
	var mid, off int
	found := false
	for _, at := range []int{2, 3, 6} {
		mid = len(want) * (at / 2) / at &^ 1
		if at == 6 {
			mid = len(want) * 2 / 3 &^ 1
		}
		for o := 0; o+512 <= len(got) && !found; o += 2 {
			found = true
			for i := 0; i < 512 && found; i++ {
				found = got[o+i] == want[mid+i]
			}
			off = o - mid // got[i+off] is want[i]
		}
		if found {
			break
		}
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
	// input the stream lost (the machine too loaded to read it in time)
	// is silence of the time it lasted, counted: then only the stretch
	// around the piece is compared
	if r.st.GapFrames > 0 {
		lo, hi = mid, mid
		for lo > 0 && got[lo-1+off] == want[lo-1] {
			lo--
		}
		for hi < len(want) && hi+off < len(got) && got[hi+off] == want[hi] {
			hi++
		}
		t.Logf("%d frames of lost input recorded as silence: %d frames compared", r.st.GapFrames, (hi-lo)/2)
		bad = 0
	}
	if bad > 0 || hi-lo < rate {
		t.Errorf("%d of %d samples both recorded differ", bad, hi-lo)
	}
	// the tone played, at its level: the loudest 0.1-s block of the
	// stretch compared (where playback on a loaded machine underran, the
	// sink mixed silence in: both recordings have it)
	best := math.Inf(-1)
	for i := lo; i+2*rate/10 <= hi; i += 2 * rate / 10 {
		l := make([]float64, 0, rate/10)
		for k := i; k < i+2*rate/10; k += 2 {
			l = append(l, float64(got[k+off]))
		}
		best = max(best, toneDB(l, rate, 997))
	}
	if math.Abs(best+12) > 0.1 {
		t.Errorf("the 997 Hz tone recorded at %.2f dBFS at most, want −12", best)
	}
	t.Logf("%d frames recorded, %d of them also in parec's recording, equal", len(got)/2, (hi-lo)/2)
}
