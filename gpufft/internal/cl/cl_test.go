package cl

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unsafe"
)

func requireOrSkip(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("PRISM_REQUIRE_OPENCL") == "1" {
		t.Fatalf("OpenCL required (PRISM_REQUIRE_OPENCL=1): %v", err)
	}
	t.Skipf("no OpenCL: %v", err)
}

// openQueue loads the OpenCL library and opens a context and an in-order
// queue on the first platform's first device, released when the test
// ends; without OpenCL the test is skipped (or fails under
// PRISM_REQUIRE_OPENCL=1).
func openQueue(t *testing.T) (*Lib, Device, Context, Queue) {
	t.Helper()
	l, err := Load()
	if err != nil {
		requireOrSkip(t, err)
	}
	ps, err := l.Platforms()
	if err != nil || len(ps) == 0 {
		requireOrSkip(t, errors.Join(err, errors.New("no platforms")))
	}
	ds, err := l.Devices(ps[0], DeviceTypeAll)
	if err != nil || len(ds) == 0 {
		t.Fatalf("devices: %v, %v", ds, err)
	}
	c, err := l.CreateContext(ds[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ReleaseContext(c) })
	q, err := l.CreateQueue(c, ds[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ReleaseQueue(q) })
	return l, ds[0], c, q
}

func TestCodeNames(t *testing.T) {
	for code, want := range map[int32]string{0: "CL_SUCCESS", -5: "CL_OUT_OF_RESOURCES", -11: "CL_BUILD_PROGRAM_FAILURE",
		-54: "CL_INVALID_WORK_GROUP_SIZE", -72: "CL_MAX_SIZE_RESTRICTION_EXCEEDED", -1001: "CL_PLATFORM_NOT_FOUND_KHR", -9999: "CL error -9999"} {
		if got := CodeName(code); got != want {
			t.Errorf("CodeName(%d) = %q, want %q", code, got, want)
		}
	}
	// every code from -1 to -19 and -30 to -72 has a name
	for c := int32(-72); c <= 0; c++ {
		if (c > -30 && c < -19) || strings.HasPrefix(CodeName(c), "CL_") {
			continue
		}
		t.Errorf("code %d has no name", c)
	}
	err := error(&Error{Func: "clFinish", Code: -36})
	if err.Error() != "clFinish: CL_INVALID_COMMAND_QUEUE" {
		t.Errorf("Error() = %q", err)
	}
}

func TestLoadMissingLibrary(t *testing.T) {
	_, err := Load("libprism-missing-a.so", "libprism-missing-b.so")
	if !errors.Is(err, ErrNoLibrary) {
		t.Fatalf("err = %v, want ErrNoLibrary", err)
	}
	for _, n := range []string{"libprism-missing-a.so", "libprism-missing-b.so"} {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %s", err, n)
		}
	}
}

// TestDiscovery lists every device with its properties filled in.
func TestDiscovery(t *testing.T) {
	l, err := Load()
	if err != nil {
		requireOrSkip(t, err)
	}
	ps, err := l.Platforms()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		requireOrSkip(t, errors.New("no platforms"))
	}
	for _, p := range ps {
		pi, err := l.PlatformInfo(p)
		if err != nil || pi.Name == "" || !strings.HasPrefix(pi.Version, "OpenCL ") {
			t.Errorf("platform info %+v, %v", pi, err)
		}
		ds, err := l.Devices(p, DeviceTypeAll)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			di, err := l.DeviceInfo(d)
			if err != nil || di.Name == "" || di.ComputeUnits == 0 || di.MaxWorkGroupSize == 0 || di.LocalMemBytes == 0 || di.Type == 0 {
				t.Errorf("device info %+v, %v", di, err)
			}
		}
	}
}

// TestBinary: a built program hands back its device binary (PoCL: its
// own format; NVIDIA: PTX text naming the kernel).
func TestBinary(t *testing.T) {
	l, d, c, _ := openQueue(t)
	p, err := l.BuildProgram(c, d, "", "__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2.0f; }")
	if err != nil {
		t.Fatal(err)
	}
	defer l.ReleaseProgram(p)
	bin, err := l.Binary(p)
	if err != nil || len(bin) < 16 {
		t.Fatalf("Binary: %d bytes, %v", len(bin), err)
	}
	if di, _ := l.DeviceInfo(d); strings.Contains(di.Vendor, "NVIDIA") && !strings.Contains(string(bin), ".entry twice") {
		t.Errorf("NVIDIA binary is not PTX naming the kernel:\n%.300s", bin)
	}
}

// TestEventNanos: a launch's event on a profiling queue gives a positive
// device time once the launch is done (EventNanos waits for it, then
// releases the event), and the launch's result is there.
func TestEventNanos(t *testing.T) {
	l, d, c, _ := openQueue(t)
	q, err := l.CreateQueue(c, d, QueueProfiling)
	if err != nil {
		t.Fatal(err)
	}
	defer l.ReleaseQueue(q)
	p, err := l.BuildProgram(c, d, "", "__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2.0f; }")
	if err != nil {
		t.Fatal(err)
	}
	defer l.ReleaseProgram(p)
	k, err := l.CreateKernel(p, "twice")
	if err != nil {
		t.Fatal(err)
	}
	defer l.ReleaseKernel(k)
	const n = 1 << 16
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	m, err := l.CreateBufferFrom(c, MemReadWrite, 4*n, unsafe.Pointer(&x[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer l.ReleaseMem(m)
	if err := l.SetArg(nil, k, 0, unsafe.Sizeof(m), unsafe.Pointer(&m)); err != nil {
		t.Fatal(err)
	}
	global, local := uintptr(n), uintptr(64)
	var ev Event
	if err := l.Enqueue(nil, q, k, &global, &local, &ev); err != nil {
		t.Fatal(err)
	}
	ns, err := l.EventNanos(ev)
	if err != nil || ns <= 0 {
		t.Fatalf("EventNanos: %d ns, %v", ns, err)
	}
	if err := l.Read(nil, q, m, 0, 4*n, unsafe.Pointer(&x[0])); err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		if v != 2*float32(i) {
			t.Fatalf("x[%d] = %g, want %g", i, v, 2*float32(i))
		}
	}
}
