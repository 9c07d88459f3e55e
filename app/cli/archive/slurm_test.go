package archive

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/internal/slurmtest"
)

// sbatchScript is the array job the docs show, the one submitted here.
const sbatchScript = "../../../deploy/slurm/prism-ltsa.sbatch"

// TestSlurmArrayJob starts a one-node Slurm cluster (munged, slurmctld,
// slurmd from Debian's packages, in a temporary folder), submits
// deploy/slurm/prism-ltsa.sbatch as a 4-task array job over a generated
// archive, waits for it, merges the parts and compares the result with
// one process's file byte for byte; the daemons are ended by PID.
func TestSlurmArrayJob(t *testing.T) {
	if err := slurmtest.Available(); err != nil {
		requireTools(t, err)
	}
	dir := t.TempDir()
	c, err := slurmtest.Start(filepath.Join(dir, "slurm"), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	in, parts := filepath.Join(dir, "in"), filepath.Join(dir, "parts")
	mkdir(t, in)
	writeArchive(t, in, 8000, mergeArchive)
	flags := []string{"--average", "10", "--fft", "256", "--engine", "cpu"}
	one := filepath.Join(dir, "one.nc")
	run(t, append([]string{"ltsa", in, "-o", one, "--quiet"}, flags...)...)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(sbatchScript)
	if err != nil {
		t.Fatal(err)
	}
	sb := c.Command("sbatch", append([]string{"--parsable", "--array=0-3", "-D", dir, "-o", filepath.Join(dir, "task-%a.log"),
		script, in, parts}, flags...)...)
	sb.Env = append(sb.Env, "PRISM="+exe, envChild+"=1")
	idb, err := sb.CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v\n%s", err, idb)
	}
	job, _, _ := strings.Cut(strings.TrimSpace(string(idb)), ";")
	t.Cleanup(func() { cancelJob(c, job) }) // before c.Stop: no task outlives a failed test
	waitJob(t, c, job, 60*time.Second)

	states, err := c.Command("scontrol", "-o", "show", "job", job).Output()
	if err != nil {
		t.Fatalf("scontrol: %v", err)
	}
	if n := strings.Count(string(states), "JobState=COMPLETED"); n != 4 || strings.Count(string(states), "ExitCode=0:0") != 4 {
		t.Fatalf("%d of 4 tasks completed:\n%s\n%s", n, states, taskLogs(dir))
	}
	names, _ := filepath.Glob(filepath.Join(parts, "ltsa-*.nc"))
	if len(names) != 4 {
		t.Fatalf("parts %v, want 4", names)
	}
	merged := filepath.Join(dir, "merged.nc")
	run(t, append([]string{"ltsa", "merge", "-o", merged, "--quiet"}, names...)...)
	if !bytes.Equal(readFile(t, merged), readFile(t, one)) {
		t.Errorf("the array job's merged LTSA differs from one process's")
	}
}

// waitJob polls squeue until the job has left the queue.
func waitJob(t *testing.T, c *slurmtest.Cluster, job string, timeout time.Duration) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(timeout)
	for {
		out, err := c.Command("squeue", "-h", "-j", job, "-o", "%i %T").Output()
		if err == nil && strings.TrimSpace(string(out)) == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still queued after %v: %s\n%s", job, timeout, out, c.Logs())
		}
		<-tick.C
	}
}

// cancelJob cancels the job if it is still queued or running and waits
// (up to 30 s) for it to leave the queue, so that its tasks end while
// slurmd, which started them, still runs.
func cancelJob(c *slurmtest.Cluster, job string) {
	queued := func() bool {
		out, err := c.Command("squeue", "-h", "-j", job, "-o", "%i").Output()
		return err == nil && strings.TrimSpace(string(out)) != ""
	}
	if !queued() {
		return
	}
	c.Command("scancel", job).Run()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(30 * time.Second); queued() && time.Now().Before(deadline); {
		<-tick.C
	}
}

func taskLogs(dir string) string {
	var b strings.Builder
	names, _ := filepath.Glob(filepath.Join(dir, "task-*.log"))
	for _, n := range names {
		data, _ := os.ReadFile(n)
		fmt.Fprintf(&b, "--- %s\n%s", n, data)
	}
	return b.String()
}

// requireTools skips, or fails under PRISM_REQUIRE_TOOLS=1.
func requireTools(t *testing.T, why error) {
	t.Helper()
	if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%v (PRISM_REQUIRE_TOOLS=1)", why)
	}
	t.Skip(why)
}
