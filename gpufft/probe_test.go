package gpufft

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const probeChildEnv = "PRISM_TEST_PROBE_CHILD"

// fakeLibrary compiles internal/cl/testdata/fakecl.c, a broken OpenCL
// library, with the system C compiler (skipping without one, failing under
// PRISM_REQUIRE_OPENCL=1).
func fakeLibrary(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
				t.Fatal("no C compiler for the fake OpenCL library (PRISM_REQUIRE_OPENCL=1)")
			}
			t.Skip("no C compiler for the fake OpenCL library")
		}
	}
	out := filepath.Join(t.TempDir(), "libfakecl.so")
	if b, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", out, "internal/cl/testdata/fakecl.c").CombinedOutput(); err != nil {
		// a compiler without C headers (seen on the GPU machine) cannot
		// build it either; CI runs with PRISM_REQUIRE_OPENCL=1
		if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
			t.Fatalf("build fake OpenCL library: %v\n%s", err, b)
		}
		t.Skipf("cannot build the fake OpenCL library: %v\n%s", err, b)
	}
	return out
}

// probe runs this test binary as a probing child (TestMain calls
// WriteProbe) with extra environment.
func probe(t *testing.T, env ...string) (ProbeResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(append(os.Environ(), probeChildEnv+"=1"), env...)
	return ReadProbe(ctx, cmd)
}

// TestProbeFakeDrivers loads the fake library through PRISM_OPENCL_LIBRARY
// (the override the real library honours) in a probing child: a working
// fake is found; absurd counts, failing calls and a segfaulting driver each
// come back as an error wrapping ErrNoOpenCL (so Auto would use the CPU),
// while the test process lives on.
func TestProbeFakeDrivers(t *testing.T) {
	lib := fakeLibrary(t)
	res, err := probe(t, EnvLibrary+"="+lib, "FAKECL_MODE=ok")
	if err != nil || len(res.Devices) != 1 || res.Selected != 0 || res.Devices[0].Name != "Fake GPU" || res.Devices[0].Type != "GPU" {
		t.Fatalf("ok: %+v, %v", res, err)
	}
	for _, tc := range []struct{ mode, want string }{
		{"platforms", "4294967295 platforms"},
		{"devices", "4294967295 devices"},
		{"string", "bytes of info"},
		{"fail", "CL_OUT_OF_HOST_MEMORY"},
		{"segv", "SIGSEGV"},
	} {
		res, err := probe(t, EnvLibrary+"="+lib, "FAKECL_MODE="+tc.mode)
		if !errors.Is(err, ErrNoOpenCL) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrNoOpenCL saying %q", tc.mode, err, tc.want)
		}
		if res.Selected != -1 {
			t.Errorf("%s: selected %d", tc.mode, res.Selected)
		}
		if tc.mode == "segv" && !errors.Is(err, ErrProbe) {
			t.Errorf("segv: err = %v, want ErrProbe", err)
		}
	}
	// a library that is not there at all
	if _, err := probe(t, EnvLibrary+"="+filepath.Join(t.TempDir(), "none.so")); !errors.Is(err, ErrNoOpenCL) || errors.Is(err, ErrProbe) {
		t.Errorf("missing library: %v, want ErrNoOpenCL reported by the probe", err)
	}
}

// TestProbeReal: the probe of the real library picks the device this
// process opens.
func TestProbeReal(t *testing.T) {
	g := requireGPU(t)
	res, err := probe(t)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Devices[res.Selected]; d.Name != g.info.Name || d.Index != g.info.Index || d.Platform != g.info.Platform {
		t.Errorf("probe selected %+v, the engine opened %+v", d, g.info)
	}
}

// TestOpenDeviceMatchesSelect: the lazy device choice (NewOpenCL asks only
// about the device it uses) picks what SelectDevice picks from the full list.
func TestOpenDeviceMatchesSelect(t *testing.T) {
	g := requireGPU(t)
	list, err := listDevices(g.lib)
	if err != nil {
		t.Fatal(err)
	}
	sels := []string{"", "0", strings.ToUpper(list[len(list)-1].Name[:3])}
	for i := range list {
		sels = append(sels, strings.Repeat(" ", i%2)+string(rune('0'+i)))
	}
	for _, sel := range sels {
		want, err := SelectDevice(list, sel)
		if err != nil {
			t.Fatal(err)
		}
		got, err := openDevice(g.lib, sel)
		if err != nil {
			t.Fatalf("%q: %v", sel, err)
		}
		if got != want {
			t.Errorf("%q: openDevice %+v, SelectDevice %+v", sel, got, want)
		}
	}
	for _, sel := range []string{"-1", "999"} {
		if _, err := openDevice(g.lib, sel); !errors.Is(err, ErrNoDevice) {
			t.Errorf("%q: %v, want ErrNoDevice", sel, err)
		}
	}
}

// TestProbeMemo: a recorded probe holds until the installation changes (an
// ICD file added or edited, another library named).
func TestProbeMemo(t *testing.T) {
	vendors := t.TempDir()
	t.Setenv("OCL_ICD_VENDORS", vendors)
	t.Setenv(EnvCacheDir, t.TempDir())
	t.Setenv(EnvLibrary, "")
	icd := filepath.Join(vendors, "a.icd")
	if err := os.WriteFile(icd, []byte("libfake-a.so\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !ProbeNeeded() {
		t.Fatal("ProbeNeeded = false before any probe")
	}
	if err := RecordProbe(); err != nil {
		t.Fatal(err)
	}
	fp := ProbeFingerprint()
	if ProbeNeeded() || ProbeFingerprint() != fp {
		t.Fatal("after RecordProbe: probe still needed, or the fingerprint moved")
	}
	for name, change := range map[string]func(){
		"edited ICD": func() { os.WriteFile(icd, []byte("libfake-b.so\n"), 0o644) },
		"new ICD":    func() { os.WriteFile(filepath.Join(vendors, "b.icd"), []byte("libfake-c.so\n"), 0o644) },
		"library":    func() { t.Setenv(EnvLibrary, "/opt/other/libOpenCL.so.1") },
	} {
		change()
		if !ProbeNeeded() {
			t.Errorf("%s: ProbeNeeded = false", name)
		}
		if err := RecordProbe(); err != nil {
			t.Fatal(err)
		}
		if ProbeNeeded() {
			t.Errorf("%s: recorded, still needed", name)
		}
	}
	t.Setenv(EnvCacheDir, "off")
	if !ProbeNeeded() {
		t.Error("cache off: ProbeNeeded = false")
	}
}

// TestProbeNoWaitForExit: with PRISM_PROBE_NOWAIT=1 a result that reads
// well is returned while the child is still running (its driver teardown
// is not waited for) and the child is reaped later; by default the
// child's exit is waited for and a failing exit fails the probe even after
// a good line.
func TestProbeNoWaitForExit(t *testing.T) {
	t.Setenv("PRISM_PROBE_NOWAIT", "1")
	b, err := json.Marshal(ProbeResult{Devices: []DeviceInfo{{Name: "Child GPU", Type: "GPU"}}, Selected: 0})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", "echo '"+string(b)+"'; exec sleep 60")
	res, err := ReadProbe(ctx, cmd)
	if err != nil || res.Selected != 0 || res.Devices[0].Name != "Child GPU" {
		t.Fatalf("%+v, %v", res, err)
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the child had ended before ReadProbe returned (%v): it waited for the exit", err)
	}
	cancel() // kills the child; the reaping goroutine collects it

	t.Setenv("PRISM_PROBE_NOWAIT", "")
	cmd = exec.CommandContext(context.Background(), "sh", "-c", "echo '"+string(b)+"'; exit 3")
	if _, err := ReadProbe(context.Background(), cmd); !errors.Is(err, ErrProbe) || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("by default, a child exiting 3 after its result: %v, want ErrProbe naming the exit", err)
	}
}
