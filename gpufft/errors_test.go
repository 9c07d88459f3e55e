package gpufft

import (
	"errors"
	"strings"
	"testing"

	"github.com/prismaudio/prism/kernels"
	"github.com/prismaudio/prism/window"
)

func TestNoOpenCLLibrary(t *testing.T) {
	_, err := NewOpenCL(OpenCLOptions{Libraries: []string{"libprism-no-such-opencl.so.1"}})
	if !errors.Is(err, ErrNoOpenCL) {
		t.Fatalf("err = %v, want ErrNoOpenCL", err)
	}
	if !strings.Contains(err.Error(), "libprism-no-such-opencl.so.1") {
		t.Errorf("error %q does not say which library failed", err)
	}
	// Auto falls back to the CPU and says why.
	e, why := autoWith(OpenCLOptions{Libraries: []string{"libprism-no-such-opencl.so.1"}}, 1)
	if e == nil {
		t.Fatalf("auto returned no engine (%v)", why)
	}
	defer e.Close()
	if e.Name() != "cpu" || !errors.Is(why, ErrNoOpenCL) {
		t.Errorf("auto: engine %s, reason %v", e.Name(), why)
	}
}

func TestNoDevice(t *testing.T) {
	g := requireGPU(t)
	_ = g
	for _, sel := range []string{"no-such-device-xyz", "99"} {
		_, err := NewOpenCL(OpenCLOptions{Device: sel})
		if !errors.Is(err, ErrNoDevice) {
			t.Errorf("device %q: err = %v, want ErrNoDevice", sel, err)
		}
	}
	if _, err := SelectDevice(nil, ""); !errors.Is(err, ErrNoDevice) {
		t.Errorf("empty list: %v", err)
	}
	// explicit choice by index and by name
	devs, err := Devices()
	if err != nil || len(devs) == 0 {
		t.Fatalf("Devices: %v, %d", err, len(devs))
	}
	last := devs[len(devs)-1]
	for _, sel := range []string{"", "0", strings.ToUpper(last.Name[:3])} {
		d, err := SelectDevice(devs, sel)
		if err != nil {
			t.Errorf("select %q: %v", sel, err)
		} else if d.Name == "" || d.ComputeUnits < 1 || d.LocalMemBytes <= 0 || d.MaxWorkGroupSize < 1 {
			t.Errorf("select %q: incomplete info %+v", sel, d)
		}
	}
	t.Setenv(EnvDevice, last.Name)
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Info().Name != last.Name {
		t.Errorf("%s=%q chose %s", EnvDevice, last.Name, e.Info().Name)
	}
	e.Close()
	e.Close() // idempotent
}

func TestBuildFailureCarriesLog(t *testing.T) {
	g := requireGPU(t)
	_, err := g.program(kernels.Batch+"\n__kernel void broken(__global float *x) { x[0] = undeclared_thing; }\n",
		geom{len: 64, radix: 8, s: 1}.defines())
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BuildError", err)
	}
	if !strings.Contains(be.Log, "undeclared_thing") {
		t.Errorf("build log does not name the error:\n%s", be.Log)
	}
	var ce *CLError
	if !errors.As(err, &ce) || ce.Code != -11 || !strings.Contains(err.Error(), "CL_BUILD_PROGRAM_FAILURE") {
		t.Errorf("err = %v, want CL_BUILD_PROGRAM_FAILURE", err)
	}
}

func TestInvalidPlans(t *testing.T) {
	good := SpectrogramConfig{Size: 1024, Hop: 256, Window: window.Func{Kind: window.Hann}, Channels: 2, MaxSamples: 4096}
	bad := map[string]func(*SpectrogramConfig){
		"size 0":            func(c *SpectrogramConfig) { c.Size = 0 },
		"size 16":           func(c *SpectrogramConfig) { c.Size = 16 },
		"size 1000":         func(c *SpectrogramConfig) { c.Size = 1000 },
		"size 2^21":         func(c *SpectrogramConfig) { c.Size = 1 << 21; c.MaxSamples = 1 << 21 },
		"hop 0":             func(c *SpectrogramConfig) { c.Hop = 0 },
		"hop > N":           func(c *SpectrogramConfig) { c.Hop = 1025 },
		"channels 0":        func(c *SpectrogramConfig) { c.Channels = 0 },
		"samples < N":       func(c *SpectrogramConfig) { c.MaxSamples = 1023 },
		"negative kaiser β": func(c *SpectrogramConfig) { c.Window = window.Func{Kind: window.Kaiser, Beta: -1} },
		"window kind":       func(c *SpectrogramConfig) { c.Window = window.Func{Kind: 99} },
		"output":            func(c *SpectrogramConfig) { c.Output = 7 },
		"huge":              func(c *SpectrogramConfig) { c.MaxSamples = 1 << 30 },
	}
	for _, e := range engines(t) {
		if p, err := e.NewSpectrogram(good); err != nil {
			t.Fatalf("%s: good config rejected: %v", e.Name(), err)
		} else {
			p.Close()
		}
		for what, mod := range bad {
			cfg := good
			mod(&cfg)
			if _, err := e.NewSpectrogram(cfg); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s %s: err = %v, want ErrInvalid", e.Name(), what, err)
			}
		}
		for _, c := range []struct{ size, batch int }{{0, 1}, {48, 1}, {64, 0}, {64, -3}, {1 << 22, 1}, {65536, 1 << 20}} {
			if _, err := e.NewComplex(c.size, c.batch); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s NewComplex(%d, %d): %v", e.Name(), c.size, c.batch, err)
			}
			if _, err := e.NewReal(c.size, c.batch); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s NewReal(%d, %d): %v", e.Name(), c.size, c.batch, err)
			}
		}
	}
}

// TestContractPanics: wrong slice lengths are the caller's bug and panic
// with a message, as documented.
func TestContractPanics(t *testing.T) {
	for _, e := range engines(t) {
		p, err := e.NewComplex(64, 2)
		if err != nil {
			t.Fatal(err)
		}
		for what, f := range map[string]func(){
			"not a multiple": func() { p.Forward(make([]complex64, 65), make([]complex64, 65)) },
			"over batch":     func() { p.Forward(make([]complex64, 192), make([]complex64, 192)) },
			"dst length":     func() { p.Forward(make([]complex64, 64), make([]complex64, 128)) },
		} {
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.HasPrefix(r.(string), "gpufft: ") {
						t.Errorf("%s %s: recover() = %v", e.Name(), what, r)
					}
				}()
				f()
			}()
		}
		p.Close()
	}
}

func TestClosedPlans(t *testing.T) {
	for _, e := range engines(t) {
		p, err := e.NewReal(64, 1)
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		p.Close()
		if err := p.Forward(make([]complex64, 33), make([]float32, 64)); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: use after Close: %v", e.Name(), err)
		}
	}
	// closing an engine closes its plans
	if g := requireGPU(t); g != nil {
		e, err := NewOpenCL(OpenCLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := e.NewComplex(64, 1)
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
		if err := p.Forward(make([]complex64, 64), make([]complex64, 64)); !errors.Is(err, ErrClosed) {
			t.Errorf("plan of closed engine: %v", err)
		}
		if _, err := e.NewComplex(64, 1); !errors.Is(err, ErrClosed) {
			t.Errorf("NewComplex on closed engine: %v", err)
		}
	}
}

// TestCheckSize: the exported size rule accepts exactly the powers of two
// from MinSize to MaxSize, and its error names the range.
func TestCheckSize(t *testing.T) {
	for n := 1; n <= 4*MaxSize; n *= 2 {
		err := CheckSize(n)
		if ok := n >= MinSize && n <= MaxSize; ok != (err == nil) {
			t.Errorf("CheckSize(%d) = %v", n, err)
		}
	}
	for _, n := range []int{-64, 0, 48, 1000, MaxSize - 1, MaxSize + MinSize} {
		err := CheckSize(n)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "1048576") {
			t.Errorf("CheckSize(%d) = %v, want ErrInvalid naming the range", n, err)
		}
	}
}
