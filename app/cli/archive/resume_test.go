package archive

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/archive/out"
)

// hmdArchive covers three UTC days, one file crossing midnight.
var hmdArchive = []testFile{
	{time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), 150},
	{time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC), 120},
	{time.Date(2026, 3, 3, 8, 0, 0, 0, time.UTC), 90},
}

// TestResumeAfterKill kills (kill -9, by PID) a prism hmd subprocess once
// its first day's file is in place, reruns it with --resume, and checks
// that the first day was not redone and that every file equals one
// uninterrupted run's (days in parallel), byte for byte.
func TestResumeAfterKill(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	mkdir(t, in)
	writeArchive(t, in, 4000, hmdArchive)
	flags := []string{"--engine", "cpu", "--quiet", "--sensitivity", "-170", "--gain", "20"}
	clean := filepath.Join(dir, "clean")
	run(t, append([]string{"hmd", in, "-o", clean}, flags...)...)

	resumed := filepath.Join(dir, "resumed")
	marker := filepath.Join(dir, "first-day")
	cmd := exec.Command(os.Args[0], append([]string{"hmd", in, "-o", resumed, "--parallel", "1"}, flags...)...)
	cmd.Env = append(os.Environ(), envChild+"=1", envHang+"="+marker)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for waiting := true; waiting; {
		select {
		case <-tick.C:
			_, err := os.Stat(marker)
			waiting = err != nil
		case err := <-exited:
			t.Fatalf("prism hmd ended before it was killed: %v\n%s", err, stderr.String())
		case <-deadline:
			t.Fatal("no day's file in 30 s")
		}
	}
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	first := readFile(t, marker)
	st0, err := os.Stat(string(first))
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(resumed, "*.nc"))
	if len(names) != 1 {
		t.Fatalf("after the kill: %v in place, want the first day only", names)
	}

	run(t, append([]string{"hmd", in, "-o", resumed, "--resume"}, flags...)...)
	st1, err := os.Stat(string(first))
	if err != nil || !os.SameFile(st0, st1) || !st1.ModTime().Equal(st0.ModTime()) {
		t.Errorf("--resume rewrote %s", first)
	}
	want, _ := filepath.Glob(filepath.Join(clean, "*.nc"))
	if len(want) != 3 {
		t.Fatalf("clean run: %v, want 3 days", want)
	}
	for _, w := range want {
		got := filepath.Join(resumed, filepath.Base(w))
		if !bytes.Equal(readFile(t, got), readFile(t, w)) {
			t.Errorf("%s differs from the uninterrupted run's", got)
		}
	}
	var prov out.Provenance
	if err := json.Unmarshal(readFile(t, filepath.Join(resumed, "hmd.provenance.json")), &prov); err != nil {
		t.Fatal(err)
	}
	if prov.Inputs[0].Status != "skipped (complete)" || prov.Inputs[2].Status != "ok" || !strings.HasPrefix(prov.Engine, "cpu") {
		t.Errorf("provenance: %+v", prov)
	}
	leftovers, _ := filepath.Glob(filepath.Join(resumed, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
}
