package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary the middle process of TestHandOff
// (holdParentEnv) or its holder (HoldArg).
func TestMain(m *testing.M) {
	if path := os.Getenv(holdParentEnv); path != "" {
		os.Exit(holdParent(path))
	}
	if len(os.Args) > 1 && os.Args[1] == HoldArg {
		Hold()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holdParentEnv makes the test binary the middle process of TestHandOff
// (holdParent): it opens the file the variable names, hands it off, says
// the holder's process ID and exits when its standard input ends.
const holdParentEnv = "PRISM_CLI_HOLD_PARENT"

func holdParent(path string) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	defer f.Close()
	os.Unsetenv(holdParentEnv)
	pid, n := HandOff(func(p string) bool { return p == path }) // the holder is this binary: TestMain runs Hold
	fmt.Println(pid, n)
	bufio.NewReader(os.Stdin).ReadString('\n') // until the test closes it
	return 0
}

// procState is the state letter of process pid ("" when it is gone).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0]
}

// TestHandOff: the files handed off are open in the holder, a process in
// a session of its own, while their first owner lives, and the holder
// exits once that owner has exited.
func TestHandOff(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the hand-off reads /proc/self/fd: Linux only")
	}
	path := filepath.Join(t.TempDir(), "device")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), holdParentEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	var pid, n int
	if _, err := fmt.Sscan(line, &pid, &n); err != nil || pid <= 0 || n != 1 {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("hand-off said %q, want the holder's pid and 1 file", line)
	}
	links, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	holds := false
	for _, l := range links {
		if target, err := os.Readlink(l); err == nil && target == path {
			holds = true
		}
	}
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the files' owner: %v", err)
	}
	if !holds {
		t.Fatalf("holder %d does not hold %s (its descriptors: %v)", pid, path, links)
	}
	if len(fields) < 4 || fields[3] != strconv.Itoa(pid) {
		t.Fatalf("holder %d is not a session leader (stat %q)", pid, stat)
	}
	// the holder ends after its owner; a generous bound against a hang,
	// not a timing check
	deadline := time.Now().Add(time.Minute)
	for st := procState(pid); st != "" && st != "Z"; st = procState(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("holder %d still running (state %s) a minute after its owner exited", pid, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
