//go:build cgo && linux

package audio

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

// stderrOf runs fn with file descriptor 2 (where C libraries write)
// redirected to a pipe and returns what was written.
func stderrOf(t *testing.T, fn func()) string {
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
	fn()
	syscall.Dup2(saved, 2) // (restoring a descriptor we duplicated cannot fail here)
	syscall.Close(saved)
	w.Close()
	out, _ := io.ReadAll(r)
	r.Close()
	return string(out)
}

// TestLibraryLoggingQuiet: opening a PCM that does not exist makes ALSA
// print "ALSA lib … Unknown PCM …" through its error handler; silenced,
// nothing reaches stderr, and turned back on, the message does.
func TestLibraryLoggingQuiet(t *testing.T) {
	libs := SetLibraryLogging(false)
	if !strings.Contains(strings.Join(libs, " "), "alsa") {
		if os.Getenv("PRISM_REQUIRE_AUDIO") == "1" {
			t.Fatalf("ALSA is not loaded (found %v)", libs)
		}
		t.Skipf("ALSA is not loaded in this build (found %v)", libs)
	}
	t.Cleanup(func() { SetLibraryLogging(false) })
	var code int
	quiet := stderrOf(t, func() { code = alsaOpenBogus("prism_no_such_pcm") })
	if code >= 0 {
		t.Fatalf("opening a PCM that does not exist returned %d", code)
	}
	if quiet != "" {
		t.Errorf("silenced ALSA still wrote %q", quiet)
	}
	SetLibraryLogging(true)
	loud := stderrOf(t, func() { alsaOpenBogus("prism_no_such_pcm") })
	if !strings.Contains(loud, "prism_no_such_pcm") {
		t.Errorf("with logging on, ALSA wrote %q; want its Unknown PCM message", loud)
	}
}

// TestLibraryLoggingFiltersStderr: with the libraries' logging off, what C
// code writes to stderr reaches file descriptor 2 less PortAudio's failed
// expressions (as its ALSA host API prints them when the sound server
// dies mid-capture) and ALSA's and JACK's lines, in order and at once;
// with logging on, everything does; Go's own writes to os.Stderr never
// pass through the filter.
func TestLibraryLoggingFiltersStderr(t *testing.T) {
	const noise = "Expression 'alsa_snd_pcm_poll_descriptors_revents( self->pcm, pfds, self->nfds, &revents )' failed in 'src/hostapi/alsa/pa_linux_alsa.c', line: 3665\n" +
		"Expression 'PaAlsaStream_WaitForFrames( stream, &framesAvail, &xrun )' failed in 'src/hostapi/alsa/pa_linux_alsa.c', line: 4296\n" +
		"ALSA lib pcm.c:8570:(snd_pcm_recover) overrun occurred\n" +
		"Cannot connect to server socket err = No such file or directory\n"
	const other = "mesa: a line another C library writes\n"
	SetLibraryLogging(false)
	t.Cleanup(func() { SetLibraryLogging(false) })
	got := stderrOf(t, func() {
		cStderr(noise[:40]) // a line written in pieces is judged whole
		cStderr(noise[40:] + other)
		fmt.Fprint(os.Stderr, "prism: capture: outage\n")
		cStderr("Expression 'r' failed in 'src/hostapi/alsa/pa_linux_alsa.c', line: 2097\n")
	})
	if want := other + "prism: capture: outage\n"; got != want {
		t.Errorf("filtered stderr %q, want %q", got, want)
	}
	SetLibraryLogging(true)
	if got := stderrOf(t, func() { cStderr(noise + other) }); got != noise+other {
		t.Errorf("with logging on, stderr %q, want everything", got)
	}
}
