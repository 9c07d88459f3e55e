//go:build cgo && linux

package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestCaptureServerGoneQuiet: when the capture's PulseAudio daemon (the
// test's own) is killed mid-capture, PortAudio's ALSA host API prints its
// failed calls ("Expression '…' failed in 'src/hostapi/alsa/…'") to the C
// library's stderr; none of them, nor ALSA's or JACK's own lines, reach
// file descriptor 2 (the user's terminal), while Prism's outage message
// still reaches the command's stderr.
func TestCaptureServerGoneQuiet(t *testing.T) {
	pa := apptest.StartPulse(t)
	pa.Play("sine", "440")
	fd2 := redirectFD2(t)
	out := filepath.Join(t.TempDir(), "cap.npy")
	var stdout bytes.Buffer
	var stderr lockedBuffer
	done := make(chan int)
	go func() {
		done <- Run([]string{"capture", "-o", out, "--seconds", "3", "--rate", "48000", "--channels", "2",
			"--engine", "cpu", "--fft", "2048", "--hop", "1024"}, &stdout, &stderr)
	}()
	stderr.waitFor(t, "prism: capturing")
	time.Sleep(2 * time.Second) // the stream is open and polling (the first buffer takes up to ~1.2 s); the assertions hold whenever the kill comes
	pa.Kill()
	code := <-done
	c := fd2()
	t.Logf("exit %d; stderr:\n%s\nfile descriptor 2:\n%s", code, stderr.String(), c)
	if !strings.Contains(stderr.String(), "outage") {
		t.Errorf("exit %d without the outage stated", code)
	}
	for _, noise := range []string{"Expression '", "src/hostapi/", "ALSA lib", "pa_linux_alsa"} {
		if strings.Contains(c, noise) {
			t.Errorf("file descriptor 2 has the libraries' %q lines", noise)
		}
	}
}

// redirectFD2 points file descriptor 2 at a pipe until the returned
// function is called (or the test ends), which restores it and returns
// what was written.
func redirectFD2(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := syscall.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup2(int(w.Fd()), 2); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	restored := false
	restore := func() string {
		if restored {
			return ""
		}
		restored = true
		syscall.Dup2(saved, 2)
		syscall.Close(saved)
		w.Close()
		s := <-got
		r.Close()
		return s
	}
	t.Cleanup(func() { restore() })
	return restore
}
