package encode

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// lookAlikes are names a person or another program may give files beside
// an output, some of them close to Prism's temporary names (and the names
// of older Prism versions): none may ever be removed.
var lookAlikes = []string{
	".notes.prism-999999-draft.tmp",
	".b.prism-+999998-x.tmp",
	".o.npy.prism-1-1.tmp",
	".o.npy.12345.tmp",
	".o.npy.prism-0123456789abcdef-01234567.tmp", // the shape, not the checksum
	".o.npy.prism-0123456789ABCDEF-01234567.tmp",
	"o.npy.prism-0123456789abcdef-01234567.tmp",
}

// TestTempNames: every name tempName makes is recognised, none of the
// look-alikes is, and a recognised name changed in one place is not.
func TestTempNames(t *testing.T) {
	for range 100 {
		n := tempName("o.npy")
		if !isTempName(n) {
			t.Fatalf("%q not recognised", n)
		}
		for i := range n {
			b := []byte(n)
			b[i] ^= 1
			if isTempName(string(b)) {
				t.Fatalf("%q (from %q) recognised", b, n)
			}
		}
	}
	for _, n := range lookAlikes {
		if isTempName(n) {
			t.Errorf("%q recognised", n)
		}
	}
}

// holdLock starts a process (this test binary) that opens path and holds
// its flock until the test ends, like a live run in another PID namespace
// or on another host; it returns once the lock is held.
func holdLock(t *testing.T, path string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "PRISM_TEST_HOLD_LOCK="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper: %q, %v", line, err)
	}
}

// TestHelperHoldLock is holdLock's process: it locks the file, says so
// and waits for its standard input to close.
func TestHelperHoldLock(t *testing.T) {
	path := os.Getenv("PRISM_TEST_HOLD_LOCK")
	if path == "" {
		t.Skip("a helper process of holdLock")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
}

// TestStaleTemps: Create removes beside its output only the temporary
// files of dead Prism runs (named exactly as Prism names them, lock free);
// the look-alikes stay, and so do the temporaries of live writers: another
// process holding the lock, and an Output of this process.
func TestStaleTemps(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock: nothing is removed")
	}
	dir := t.TempDir()
	keep := []string{}
	for _, n := range lookAlikes {
		p := filepath.Join(dir, n)
		os.WriteFile(p, []byte("the user's"), 0o644)
		keep = append(keep, p)
	}
	dead := filepath.Join(dir, tempName("o.npy"))
	os.WriteFile(dead, []byte("x"), 0o644)
	other := filepath.Join(dir, tempName("o.npy"))
	os.WriteFile(other, []byte("x"), 0o644)
	holdLock(t, other)
	keep = append(keep, other)
	live, err := Create(filepath.Join(dir, "live.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	keep = append(keep, live.tmp.Name())

	o, err := Create(filepath.Join(dir, "o.npy"))
	if err != nil {
		t.Fatal(err)
	}
	o.Discard()
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead run's temporary file is still there (%v)", err)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
	if _, err := live.W.WriteString("still writing"); err != nil {
		t.Fatal(err)
	}
	if err := live.Commit(); err != nil {
		t.Errorf("the live output's Commit: %v", err)
	}
}

// TestNotWritable: an existing output whose permission bits forbid the
// user to write it (0444 of the user's own; as root too, since the bits
// and not access(2) decide) is not replaced: ErrNotWritable, the file
// untouched, no temporary left; with Force it is. A file that appears
// read-only while the output is written is refused at Commit.
func TestNotWritable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "result.npy")
	os.WriteFile(p, []byte("keep"), 0o444)
	os.Chmod(p, 0o444)
	_, err := Create(p)
	if !errors.Is(err, ErrNotWritable) || !strings.Contains(err.Error(), "result.npy: not writable (mode 0444; use --force to replace it)") {
		t.Fatalf("Create: %v, want ErrNotWritable", err)
	}
	checkFile(t, p, "keep")
	checkNoTemps(t, dir)

	o, err := CreateWith(p, CreateOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	o.W.WriteString("new")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	checkFile(t, p, "new")

	q := filepath.Join(dir, "late.npy")
	o, err = Create(q)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(q, []byte("keep"), 0o444)
	os.Chmod(q, 0o444)
	o.W.WriteString("new")
	if err := o.Commit(); !errors.Is(err, ErrNotWritable) {
		t.Fatalf("Commit over a read-only file: %v", err)
	}
	o.Discard()
	checkFile(t, q, "keep")
	checkNoTemps(t, dir)
}

// TestNotWritableOtherUser: another user's file that only its owner may
// write (0644), in a folder everyone may write, is not replaced; one that
// everyone may write (0666) is. Needs root, to give a file away.
func TestNotWritableOtherUser(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root to make another user's file")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		mode os.FileMode
		ok   bool
	}{{0o644, false}, {0o664, false}, {0o666, true}} {
		p := filepath.Join(dir, "shared.npy")
		os.Remove(p)
		os.WriteFile(p, []byte("theirs"), c.mode)
		os.Chmod(p, c.mode)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Skip(err)
		}
		o, err := Create(p)
		if c.ok != (err == nil) || !c.ok && !errors.Is(err, ErrNotWritable) {
			t.Fatalf("mode %04o: Create: %v", c.mode, err)
		}
		if err == nil {
			o.Discard()
		}
	}
}

func checkFile(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s holds %q (%v), want %q", filepath.Base(path), b, err, want)
	}
}

func checkNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if isTempName(e.Name()) {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
}
