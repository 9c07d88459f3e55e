//go:build linux

package measure

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestIRPulse: for real, through a sound server: the sweep prism sweep
// writes is played into the test's own PulseAudio null sink — channel 1
// the sweep, channel 0 the same 120 samples (2.5 ms) later — and recorded
// back from its monitor (pacat, float32) from before the player starts;
// prism ir finds a clean impulse (SNR over 60 dB, polarity normal) on
// each channel, channel 0 2.5 ms after the loopback on channel 1 (to a
// sample) and as loud, and, without the reference, a latency within the
// bounds the recording's progress sets: after the frames it had when the
// player started, before those it had when the player had drained less
// the sweep's length (each within 300 ms: the recorder's own latency). The
// players buffer 250 and 100 ms: with less, a loaded machine underran
// them now and then, and the gaps cost the impulse up to 10 dB.
func TestIRPulse(t *testing.T) {
	apptest.StartPulse(t)
	dir := t.TempDir()
	sw := filepath.Join(dir, "s.wav")
	if code, _, msg := runOut("sweep", "-o", sw, "--from", "20", "--to", "20000", "--seconds", "2", "--quiet"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, msg)
	}
	_, x := apptest.ReadAll(t, sw)
	const late = 120
	var play bytes.Buffer
	for i := range len(x) + late {
		var a, b float32
		if j := i - late; j >= 0 {
			a = x[j]
		}
		if i < len(x) {
			b = x[i]
		}
		binary.Write(&play, binary.LittleEndian, [2]float32{a, b})
	}
	rec := newPulseRecorder(t)
	before := rec.waitFrames(t, 4800) // the monitor's stream is running
	player := exec.Command("pacat", "--playback", "--device="+apptest.PulseSink, "--raw", "--format=float32le",
		"--rate=48000", "--channels=2", "--latency-msec=250", "--client-name=prism-test-sweep")
	player.Stdin = &play
	if out, err := player.CombinedOutput(); err != nil {
		t.Fatalf("pacat --playback: %v: %s", err, out)
	}
	played := rec.frames()                          // the player drained: the sweep is in the sink
	frames := rec.waitFrames(t, rec.frames()+48000) // 1 s more: the latency and the tail
	ch := rec.stop(frames)
	in := filepath.Join(dir, "rec.wav")
	apptest.WriteWAV(t, in, 48000, ch)

	summary := func(args ...string) map[string]float64 {
		t.Helper()
		code, stdout, msg := runOut(append([]string{"ir", in, "--sweep", sw, "--engine", "cpu", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, msg)
		}
		var sum map[string]float64
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("--json: %v: %q", err, stdout)
		}
		if sum["snr_db"] < 60 || sum["polarity"] != 1 {
			t.Errorf("%v: %v; want SNR over 60 dB, polarity 1", args, sum)
		}
		return sum
	}
	loop := summary("--channel", "1", "-o", filepath.Join(dir, "loop.wav"))
	meas := summary("--channel", "0", "--ref-channel", "1", "-o", filepath.Join(dir, "ir.wav"))
	if math.Abs(meas["latency_ms"]-late/48.0) > 1/48.0 || math.Abs(meas["peak_dbfs"]-loop["peak_dbfs"]) > 0.1 {
		t.Errorf("channel 0 after the loopback: %v; want %.4f ms, peak %.2f dBFS", meas, late/48.0, loop["peak_dbfs"])
	}
	// the sweep started after the recording had `before` frames, and
	// ended in the sink before the player exited, when it had `played`;
	// the recorder's 100-ms buffer and the pipe blur both by up to 300 ms
	if ms, least, most := loop["latency_ms"], max(0, float64(before)/48-300), float64(played-len(x))/48+300; ms < least || ms > most {
		t.Errorf("latency %.2f ms: want %.0f…%.0f ms", ms, least, most)
	}
	t.Logf("loopback latency %.2f ms (the recording had run %.0f ms when the player started), peak %.2f dBFS, SNR %.1f dB",
		loop["latency_ms"], float64(before)/48, loop["peak_dbfs"], loop["snr_db"])
}

// pulseRecorder records the null sink's monitor (stereo float32 at
// 48 kHz) with pacat until stopped.
type pulseRecorder struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	cond *sync.Cond
	buf  []float32
	err  error
}

func newPulseRecorder(t *testing.T) *pulseRecorder {
	r := &pulseRecorder{cmd: exec.Command("pacat", "--record", "--device="+apptest.PulseSink+".monitor", "--raw",
		"--format=float32le", "--rate=48000", "--channels=2", "--latency-msec=100", "--client-name=prism-test-recorder")}
	r.cond = sync.NewCond(&r.mu)
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("pacat --record: %v", err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	go func() {
		var raw [8192]byte
		for {
			n, err := io.ReadFull(out, raw[:])
			r.mu.Lock()
			for i := 0; i+4 <= n; i += 4 {
				r.buf = append(r.buf, math.Float32frombits(binary.LittleEndian.Uint32(raw[i:])))
			}
			if err != nil {
				r.err = err
			}
			r.cond.Broadcast()
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *pulseRecorder) frames() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.buf) / 2
}

// waitFrames waits (at most 20 s) until n frames have arrived and returns
// how many have.
func (r *pulseRecorder) waitFrames(t *testing.T, n int) int {
	t.Helper()
	deadline := time.AfterFunc(20*time.Second, func() {
		r.mu.Lock()
		if r.err == nil {
			r.err = io.ErrNoProgress
		}
		r.cond.Broadcast()
		r.mu.Unlock()
	})
	defer deadline.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.buf)/2 < n && r.err == nil {
		r.cond.Wait()
	}
	if len(r.buf)/2 < n {
		t.Fatalf("pacat --record: %d frames of %d: %v", len(r.buf)/2, n, r.err)
	}
	return len(r.buf) / 2
}

// stop ends the recorder (by its PID) and returns its first n frames,
// planar.
func (r *pulseRecorder) stop(n int) [][]float32 {
	r.cmd.Process.Kill()
	r.cmd.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := [][]float32{make([]float32, n), make([]float32, n)}
	for i := range n {
		ch[0][i], ch[1][i] = r.buf[2*i], r.buf[2*i+1]
	}
	return ch
}
