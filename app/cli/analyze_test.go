package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

func runCLI(args ...string) (code int, stderr string) {
	var out, errb bytes.Buffer
	code = Run(args, &out, &errb)
	return code, errb.String()
}

func TestAnalyzeCLIErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.wav")
	apptest.WriteWAV(t, good, 8000, [][]float32{apptest.Tone(9000, 8000, 500, 0.5)})
	short := filepath.Join(dir, "short.wav")
	apptest.WriteWAV(t, short, 8000, [][]float32{apptest.Tone(100, 8000, 500, 0.5)})
	bad := filepath.Join(dir, "bad.wav")
	os.WriteFile(bad, []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x02\x00\x01\x00\x40\x1f\x00\x00\x00\x7d\x00\x00\x04\x00\x10\x00"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--fft", "1000"}, 2, "--fft 1000"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--hop", "99999"}, 2, "--hop"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--window", "nope"}, 2, "--window"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--db-range", "0:-10"}, 2, "--db-range"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--engine", "tpu"}, 2, "--engine"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--colormap", "jet"}, 2, "--colormap"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.txt")}, 2, "unknown output format"},
		{[]string{"analyze", good}, 2, "-o OUT is required"},
		{[]string{"analyze", filepath.Join(dir, "missing.wav"), "-o", filepath.Join(dir, "m.npy")}, 2, "no such file"},
		{[]string{"analyze", bad, "-o", filepath.Join(dir, "b.npy")}, 2, "offset"},
		{[]string{"analyze", short, "-o", filepath.Join(dir, "s.npy"), "--fft", "256"}, 2, "fewer than one frame"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.npy"), "--channel", "3"}, 2, "no channel 3"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "nodir", "o.npy")}, 1, "nodir"},
	} {
		code, msg := runCLI(append(c.args, "--quiet")...)
		if code != c.code || !strings.Contains(msg, c.msg) || !strings.HasPrefix(msg, "prism: ") {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args[1:], code, msg, c.code, c.msg)
		}
	}
	// no output file (not even a temporary one) is left by a failure
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".wav") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestAnalyzeBatch(t *testing.T) {
	dir := t.TempDir()
	a, b, bad := filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav"), filepath.Join(dir, "c.wav")
	apptest.WriteWAV(t, a, 8000, [][]float32{apptest.Tone(9000, 8000, 500, 0.5)})
	apptest.WriteWAV(t, b, 8000, [][]float32{apptest.Tone(9000, 8000, 700, 0.5), apptest.Tone(9000, 8000, 900, 0.5)})
	os.WriteFile(bad, []byte("not audio at all"), 0o644)
	out := filepath.Join(dir, "out") + "/"
	code, msg := runCLI("analyze", a, bad, b, "-o", out, "--format", "npy", "--fft", "512", "--quiet", "--engine", "cpu")
	if code != 2 || !strings.Contains(msg, "c.wav") {
		t.Errorf("exit %d, stderr %q; want 2 naming c.wav", code, msg)
	}
	for _, name := range []string{"a.npy", "b.npy"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "c.npy")); err == nil {
		t.Error("c.npy written for a bad input")
	}
	// all good: exit 0 and the summary line
	code, msg = runCLI("analyze", a, b, "-o", out, "--fft", "512", "--engine", "cpu")
	if code != 0 || !strings.Contains(msg, "real time") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
}

// TestFullDisk: writing to a full filesystem is a clear runtime error (exit
// 1) and leaves nothing behind. It needs root to mount a small tmpfs.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	mnt := filepath.Join(dir, "full")
	os.Mkdir(mnt, 0o755)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v", err)
	}
	defer exec.Command("umount", mnt).Run()
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, 8000, [][]float32{apptest.Tone(80000, 8000, 500, 0.5)})
	code, msg := runCLI("analyze", in, "-o", filepath.Join(mnt, "o.npy"), "--fft", "256", "--engine", "cpu", "--quiet")
	if code != 1 || !strings.Contains(msg, "no space left on device") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	if ents, _ := os.ReadDir(mnt); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
