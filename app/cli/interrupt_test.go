package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// streamHeader is a 16-bit mono WAV header at rate Hz with no length (a
// WAV written into a pipe).
func streamHeader(rate int) []byte {
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(0xFFFFFFFF))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1))
	le(uint16(1))
	le(uint32(rate))
	le(uint32(2 * rate))
	le(uint16(2))
	le(uint16(16))
	b.WriteString("data")
	le(uint32(0xFFFFFFFF))
	return b.Bytes()
}

// startChild starts this test binary as `prism args…` (TestMain); done
// is closed once it has exited.
func startChild(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, chan struct{}) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PRISM_CLI_CHILD=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	})
	return cmd, &errb, done
}

// openWriter opens fifo for writing once the child has opened it to
// read; it fails the test if the child ends first.
func openWriter(t *testing.T, fifo string, done chan struct{}, errb *bytes.Buffer) *os.File {
	t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			w = nil
		}
		opened <- w
	}()
	select {
	case w := <-opened:
		if w == nil {
			t.Fatal("cannot open the FIFO")
		}
		return w
	case <-done:
		// unblock the opener: a reader of our own
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer r.Close()
			if w := <-opened; w != nil {
				w.Close()
			}
		}
		t.Fatalf("the command ended before reading the FIFO: %s", errb.String())
	}
	return nil
}

// waitFor polls cond until it holds; a minute is a bound against a hang,
// not a timing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
	}
}

// temps is the names of Prism's temporary files in dir.
func temps(dir string) []string {
	var out []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".prism-") && strings.HasSuffix(e.Name(), ".tmp") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestSIGHUP: SIGHUP (a closed terminal) ends `prism analyze` as SIGINT
// does: exit 1, "interrupted", and no temporary file left, even while
// the command is blocked reading a pipe that stays open (the process
// then removes its temporaries and exits by itself).
func TestSIGHUP(t *testing.T) {
	dir := t.TempDir()
	fifo, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "o.npy")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	cmd, errb, done := startChild(t, "analyze", fifo, "-o", out, "--fft", "256", "--engine", "cpu", "--quiet")
	w := openWriter(t, fifo, done, errb)
	defer w.Close() // open to the end: the child stays blocked in its read
	w.Write(streamHeader(8000))
	w.Write(make([]byte, 2*4096))
	waitFor(t, "temporary output", func() bool { return len(temps(dir)) > 0 })
	cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the command did not end after SIGHUP")
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitFailure || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d (%v), %q; want 1 and interrupted", code, cmd.ProcessState, errb.String())
	}
	if left := temps(dir); len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an output was written")
	}
}

// TestInterruptedSaysOutputs: an interrupted filter names the output it
// did not write (not "context canceled"); an interrupted batch says which
// outputs were written before the signal and that the others were not.
// (Blocked in a read, the process says the same as it exits: TestSIGHUP's
// case.)
func TestInterruptedSaysOutputs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.wav")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done1 := filepath.Join(dir, "a.wav")
	apptest.WriteWAV(t, done1, 8000, [][]float32{apptest.Tone(8000, 8000, 500, 0.5)})
	outDir := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"filter", fifo, "-o", filepath.Join(dir, "f.wav"), "--band", "lowpass:1000", "--engine", "cpu", "--quiet"},
			[]string{"interrupted: " + filepath.Join(dir, "f.wav") + " not written"}},
		{[]string{"analyze", done1, fifo, "-o", outDir + "/", "--format", "npy", "--fft", "256", "--engine", "cpu", "--quiet"},
			[]string{"interrupted: 1 output(s) written (" + filepath.Join(outDir, "a.npy") + "); the others not written"}},
	} {
		cmd, errb, done := startChild(t, c.args...)
		w := openWriter(t, fifo, done, errb)
		w.Write(streamHeader(8000))
		go func() { // samples keep coming: the command stops by itself, between batches
			for buf := make([]byte, 4096); ; {
				if _, err := w.Write(buf); err != nil {
					return
				}
			}
		}()
		waitFor(t, "temporary output", func() bool { return len(temps(dir))+len(temps(outDir)) > 0 })
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%q did not end", c.args)
		}
		w.Close()
		msg := errb.String()
		for _, want := range c.want {
			if !strings.Contains(msg, want) {
				t.Errorf("%q: %q, want %q", c.args, msg, want)
			}
		}
		if strings.Contains(msg, "context canceled") || strings.Contains(msg, "no output written") {
			t.Errorf("%q: %q", c.args, msg)
		}
	}
}
