//go:build linux

package apptest

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PulseSink is the null sink of a test's own PulseAudio daemon; its
// monitor is that daemon's default source.
const PulseSink = "prism_test_sink"

// Pulse is a PulseAudio daemon of one test's own: its own runtime and
// state directory and socket, a null sink whose monitor is the default
// input, started with --exit-idle-time=-1 and ended by its PID only. The
// test's PULSE_SERVER points at it (restored when the test ends), so the
// PortAudio → ALSA → pulse path of this process, and the players it
// starts, reach it and no other daemon; the shared daemon other tests use
// is never touched.
type Pulse struct {
	t       *testing.T
	dir     string
	daemon  *exec.Cmd
	exited  chan struct{}
	players []*exec.Cmd
	stop    chan struct{} // closed by Kill: the clock players' writers end
}

// StartPulse starts the test's own daemon, or skips (fails under
// PRISM_REQUIRE_AUDIO=1) when pulseaudio, pactl, pacat or sox is missing.
// It calls t.Setenv, so the test must not be parallel. Everything it
// started is ended by PID when the test ends, pass or fail.
func StartPulse(t *testing.T) *Pulse {
	t.Helper()
	for _, tool := range []string{"pulseaudio", "pactl", "pacat", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			if Required("AUDIO") {
				t.Fatalf("audio required (PRISM_REQUIRE_AUDIO=1): %v", err)
			}
			t.Skipf("no %s: %v", tool, err)
		}
	}
	// a short path: a unix socket's name has at most 107 bytes
	dir, err := os.MkdirTemp("", "prism-pa-")
	if err != nil {
		t.Fatal(err)
	}
	p := &Pulse{t: t, dir: dir}
	t.Cleanup(func() {
		p.Kill()
		os.RemoveAll(dir)
	})
	t.Setenv("PULSE_SERVER", "unix:"+p.socket())
	p.Start()
	return p
}

func (p *Pulse) socket() string { return filepath.Join(p.dir, "native") }

// Start starts the daemon (again) on the same socket and waits until it
// answers (at most 10 s).
func (p *Pulse) Start() {
	p.t.Helper()
	if p.daemon != nil {
		p.t.Fatal("apptest: Pulse.Start: the daemon is running")
	}
	log, err := os.OpenFile(filepath.Join(p.dir, "daemon.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		p.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command("pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
		"--system=no", "--log-target=stderr", "--log-level=error",
		"-L", "module-native-protocol-unix socket="+p.socket()+" auth-anonymous=1",
		"-L", "module-null-sink sink_name="+PulseSink+" rate=48000 channels=2")
	cmd.Env = append(os.Environ(), "PULSE_RUNTIME_PATH="+p.dir, "PULSE_STATE_PATH="+p.dir)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("apptest: start pulseaudio: %v", err)
	}
	p.daemon, p.exited, p.stop = cmd, make(chan struct{}), make(chan struct{})
	go func(done chan struct{}) { cmd.Wait(); close(done) }(p.exited)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if exec.Command("pactl", "info").Run() == nil {
			return
		}
		select {
		case <-p.exited:
			p.daemon = nil
			p.t.Fatalf("apptest: pulseaudio exited at start: %s", p.Log())
		default:
		}
		if time.Now().After(deadline) {
			p.Kill()
			p.t.Fatalf("apptest: pulseaudio did not answer in 10 s: %s", p.Log())
		}
	}
}

// Kill ends the daemon with SIGKILL, by its PID, as a crash would, and
// waits for it; its players lose their connection and are ended too.
// Killing a daemon that is not running does nothing.
func (p *Pulse) Kill() {
	if p.daemon != nil {
		p.daemon.Process.Kill()
		<-p.exited
		p.daemon = nil
		close(p.stop)
	}
	for _, c := range p.players {
		c.Process.Kill()
		c.Wait()
	}
	p.players = nil
}

// Pause stops the daemon (SIGSTOP, by its PID), as a hung server: its
// clients' streams stall. Continue lets it go on.
func (p *Pulse) Pause() {
	if p.daemon != nil {
		p.daemon.Process.Signal(syscall.SIGSTOP)
	}
}

// Continue continues a paused daemon (SIGCONT).
func (p *Pulse) Continue() {
	if p.daemon != nil {
		p.daemon.Process.Signal(syscall.SIGCONT)
	}
}

// Play plays `sox -n … synth` with the given synth arguments (48 kHz
// stereo, 16 bit) into the sink at 20 ms latency until the daemon is
// killed or the test ends, and returns when the player has started.
func (p *Pulse) Play(synth ...string) {
	p.t.Helper()
	args := append([]string{"-q", "-n", "-r", "48000", "-c", "2", "-b", "16", "-e", "signed", "-t", "raw", "-", "synth"}, synth...)
	sox := exec.Command("sox", args...)
	play := exec.Command("pacat", "--playback", "--device="+PulseSink, "--latency-msec=20", "--raw",
		"--rate=48000", "--channels=2", "--format=s16le", "--client-name=prism-test-player")
	pipe, err := sox.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	play.Stdin = pipe
	for _, c := range []*exec.Cmd{play, sox} {
		if err := c.Start(); err != nil {
			p.t.Fatalf("apptest: %s: %v", c.Path, err)
		}
		p.players = append(p.players, c)
	}
}

// PlayClockSweep plays a linear sweep tied to the wall clock into the
// sink: the sample due at time t plays f0 + slope·(t − t0) Hz (amplitude
// 0.5), whenever the player starts and however often it is restarted, so
// a captured frame's frequency says when it was played, up to one
// constant latency (the player's 20 ms plus a 21-ms pipe). Samples are
// written as real time reaches them into a pipe of one page; those the
// player is not ready for are dropped, never queued. It plays until the
// daemon is killed or the test ends.
func (p *Pulse) PlayClockSweep(t0 time.Time, f0, slope float64) {
	p.t.Helper()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		p.t.Fatal(err)
	}
	const fSetPipeSz = 1031 // F_SETPIPE_SZ
	syscall.Syscall(syscall.SYS_FCNTL, uintptr(fds[1]), fSetPipeSz, 4096)
	if err := syscall.SetNonblock(fds[1], true); err != nil {
		p.t.Fatal(err)
	}
	rd := os.NewFile(uintptr(fds[0]), "sweep-pipe")
	play := exec.Command("pacat", "--playback", "--device="+PulseSink, "--latency-msec=20", "--raw",
		"--rate=48000", "--channels=2", "--format=s16le", "--client-name=prism-test-clock")
	play.Stdin = rd
	err := play.Start()
	rd.Close()
	if err != nil {
		syscall.Close(fds[1])
		p.t.Fatalf("apptest: pacat: %v", err)
	}
	p.players = append(p.players, play)
	go clockSweep(fds[1], p.stop, t0, f0, slope)
}

// clockSweep writes the sweep's samples to fd as real time reaches them.
func clockSweep(fd int, stop chan struct{}, t0 time.Time, f0, slope float64) {
	defer syscall.Close(fd)
	const rate = 48000
	next := int64(time.Since(t0).Seconds() * rate)
	phase := 0.0
	buf := make([]byte, 0, 4096)
	for tick := time.NewTicker(2 * time.Millisecond); ; {
		select {
		case <-stop:
			tick.Stop()
			return
		case <-tick.C:
		}
		due := int64(time.Since(t0).Seconds() * rate)
		next = max(next, due-1024) // at most one page (1024 frames) at once
		buf = buf[:0]
		for ; next < due; next++ {
			phase += 2 * math.Pi * (f0 + slope*float64(next)/rate) / rate
			v := uint16(int16(math.Round(0.5 * 32767 * math.Sin(phase))))
			buf = binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(buf, v), v)
		}
		phase = math.Mod(phase, 2*math.Pi)
		if _, err := syscall.Write(fd, buf); err != nil && !errors.Is(err, syscall.EAGAIN) {
			return // the player is gone
		}
	}
}

// Log is what the daemon wrote (errors only), for a failure message.
func (p *Pulse) Log() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "daemon.log"))
	return strings.TrimSpace(string(b))
}
