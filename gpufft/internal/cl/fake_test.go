package cl

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// BuildFakeLibrary compiles testdata/fakecl.c (a broken OpenCL library)
// into dir with the system C compiler and returns its path. Without a
// compiler the test is skipped, or fails under PRISM_REQUIRE_OPENCL=1.
func buildFakeLibrary(t *testing.T, src string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			requireOrSkip(t, errors.New("no C compiler for the fake OpenCL library"))
		}
	}
	out := filepath.Join(t.TempDir(), "libfakecl.so")
	if b, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", out, src).CombinedOutput(); err != nil {
		requireOrSkip(t, fmt.Errorf("cannot build the fake OpenCL library: %v\n%s", err, b))
	}
	return out
}

// TestFakeDriver loads a library that answers with absurd counts and sizes
// or fails every call: each is an error naming the call, never an
// allocation by the driver's word (issue 12 item 8: 2^32−1 platforms made
// Prism die with "fatal error: out of memory").
func TestFakeDriver(t *testing.T) {
	path := buildFakeLibrary(t, "testdata/fakecl.c")
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	setMode, err := purego.Dlsym(l.handle, "fakecl_set_mode")
	if err != nil {
		t.Fatal(err)
	}
	mode := func(m string) {
		b := append([]byte(m), 0)
		purego.SyscallN(setMode, uintptr(unsafe.Pointer(&b[0])))
	}

	mode("ok")
	ps, err := l.Platforms()
	if err != nil || len(ps) != 1 {
		t.Fatalf("ok: Platforms = %v, %v", ps, err)
	}
	ds, err := l.Devices(ps[0], DeviceTypeGPU)
	if err != nil || len(ds) != 1 {
		t.Fatalf("ok: Devices = %v, %v", ds, err)
	}
	if di, err := l.DeviceInfo(ds[0]); err != nil || di.Name != "Fake GPU" || di.Type != DeviceTypeGPU {
		t.Fatalf("ok: DeviceInfo = %+v, %v", di, err)
	}
	if ds, err := l.Devices(ps[0], DeviceTypeCPU); err != nil || len(ds) != 0 {
		t.Fatalf("ok: CPU devices = %v, %v (want none, no error)", ds, err)
	}
	// a binary the driver refuses is an error, not a program
	if _, err := l.BuildBinary(1, ds[0], "", []byte("junk")); err == nil {
		t.Error("BuildBinary of a refused binary: no error")
	}

	for _, tc := range []struct {
		mode, call string
		run        func() error
	}{
		{"platforms", "clGetPlatformIDs", func() error { _, err := l.Platforms(); return err }},
		{"devices", "clGetDeviceIDs", func() error { _, err := l.Devices(ps[0], DeviceTypeAll); return err }},
		{"string", "clGetPlatformInfo", func() error { _, err := l.PlatformInfo(ps[0]); return err }},
		{"string", "clGetDeviceInfo", func() error { _, err := l.DeviceInfo(ds[0]); return err }},
		{"string", "clGetProgramBuildInfo", func() error { _, err := l.BuildLog(1, ds[0]); return err }},
		{"binary", "clGetProgramInfo", func() error { _, err := l.Binary(1); return err }},
	} {
		mode(tc.mode)
		err := tc.run()
		if !errors.Is(err, ErrBadDriver) || !strings.Contains(err.Error(), tc.call) {
			t.Errorf("%s: err = %v, want ErrBadDriver from %s", tc.mode, err, tc.call)
		}
	}

	mode("fail")
	_, err = l.Platforms()
	var ce *Error
	if !errors.As(err, &ce) || ce.Func != "clGetPlatformIDs" || ce.Code != -6 {
		t.Errorf("fail: Platforms err = %v, want clGetPlatformIDs CL_OUT_OF_HOST_MEMORY", err)
	}
	if _, err := l.DeviceInfo(ds[0]); !errors.As(err, &ce) || ce.Code != -6 {
		t.Errorf("fail: DeviceInfo err = %v", err)
	}
}
