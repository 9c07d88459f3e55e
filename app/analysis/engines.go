package analysis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/prismaudio/prism/gpufft"
)

// Engine choices, as --engine names them.
const (
	EngineAuto = "auto" // the GPU when usable, else the CPU
	EngineGPU  = "gpu"  // the GPU or fail
	EngineCPU  = "cpu"
)

// CheckEngine says whether name is an engine choice.
func CheckEngine(name string) error {
	switch name {
	case EngineAuto, EngineGPU, EngineCPU:
		return nil
	}
	return fmt.Errorf("engine %q: want auto, gpu or cpu", name)
}

// Engines provides the engines an analysis may use: the preferred one
// (GPU or CPU) and the CPU engine to fall back on when the GPU fails.
// Strict (the user asked for the GPU) turns a GPU failure into an error
// instead of a fallback.
type Engines struct {
	Preferred gpufft.Engine
	CPU       gpufft.Engine
	Strict    bool
	// Plans, when set, keeps the file pipeline's plans between files of
	// the same shape (a batch of files); nil makes and closes one per
	// file. Close closes it.
	Plans *PlanPool
}

// HasGPU says whether the preferred engine is a GPU one.
func (e Engines) HasGPU() bool { return e.Preferred != e.CPU }

// ProbeCommand, when set (main sets it; tests leave it nil), makes the
// child process that checks the OpenCL installation before this process
// loads its driver: the executable run with a hidden subcommand that calls
// gpufft.WriteProbe. A driver that crashes or hangs then costs a fallback
// to the CPU engine, not the process. The check runs once per
// installation (gpufft.ProbeNeeded).
var ProbeCommand func(ctx context.Context, device string) *exec.Cmd

// probeTimeout bounds the child's check: a driver that hangs longer is
// taken as unusable.
const probeTimeout = 20 * time.Second

// probeOpenCL runs the child check when one is due; an error means the
// OpenCL installation is not to be loaded in this process.
func probeOpenCL(device string) error {
	if ProbeCommand == nil || !gpufft.ProbeNeeded() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	res, err := gpufft.ReadProbe(ctx, ProbeCommand(ctx, device))
	if err == nil && res.Err != "" {
		err = errors.New(res.Err)
	}
	if err == nil {
		gpufft.RecordProbe() // not recorded (an unwritable cache): probed again next time
	}
	return err
}

// OpenEngines opens the engines for choice (EngineAuto, EngineGPU,
// EngineCPU) on the OpenCL device (index or name; "": the
// PRISM_OPENCL_DEVICE variable, else the first GPU). With EngineGPU and no
// usable OpenCL it fails; with EngineAuto the notice says why the CPU is
// used, if it is.
func OpenEngines(choice, device string) (Engines, string, error) {
	if err := CheckEngine(choice); err != nil {
		return Engines{}, "", err
	}
	cpu := gpufft.NewCPU(0)
	if choice == EngineCPU {
		return Engines{Preferred: cpu, CPU: cpu}, "", nil
	}
	err := probeOpenCL(device)
	var g *gpufft.OpenCL
	if err == nil {
		g, err = gpufft.NewOpenCL(gpufft.OpenCLOptions{Device: device})
	}
	if err != nil {
		if choice == EngineGPU {
			cpu.Close()
			return Engines{}, "", fmt.Errorf("--engine gpu: %w", err)
		}
		return Engines{Preferred: cpu, CPU: cpu}, fmt.Sprintf("%v: using the CPU engine", err), nil
	}
	return Engines{Preferred: g, CPU: cpu, Strict: choice == EngineGPU}, "", nil
}

// DeviceAll is the OpenCL device choice that means every GPU.
const DeviceAll = "all"

// OpenEngineSet opens the engines for choice on every GPU of the host
// (device DeviceAll, or "" when there are several GPUs, spread is set — a
// batch of files — and $PRISM_OPENCL_DEVICE names none), one Engines
// each, sharing one CPU engine to fall back on; for any other device it is
// OpenEngines. Close them with CloseSet.
func OpenEngineSet(choice, device string, spread bool) ([]Engines, string, error) {
	chosen := device != "" || os.Getenv(gpufft.EnvDevice) != ""
	if choice == EngineCPU || (device != DeviceAll && (chosen || !spread)) {
		e, notice, err := OpenEngines(choice, device)
		if err != nil {
			return nil, "", err
		}
		return []Engines{e}, notice, nil
	}
	var gpus []int
	if err := probeOpenCL(""); err == nil {
		devs, _ := gpufft.Devices()
		for _, d := range devs {
			if d.Type == "GPU" {
				gpus = append(gpus, d.Index)
			}
		}
	}
	if len(gpus) < 2 {
		if device == DeviceAll {
			device = ""
		}
		return OpenEngineSet(choice, device, false)
	}
	// each GPU's context at once: a driver spends most of its start-up
	// per context
	gs := make([]*gpufft.OpenCL, len(gpus))
	errs := make([]error, len(gpus))
	var wg sync.WaitGroup
	for k, i := range gpus {
		wg.Go(func() {
			g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{Device: strconv.Itoa(i)})
			if err != nil {
				err = fmt.Errorf("GPU %d: %w", i, err)
			}
			gs[k], errs[k] = g, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, g := range gs {
			if g != nil {
				g.Close()
			}
		}
		return nil, "", err
	}
	cpu := gpufft.NewCPU(0)
	set := make([]Engines, len(gs))
	for k, g := range gs {
		set[k] = Engines{Preferred: g, CPU: cpu, Strict: choice == EngineGPU}
	}
	return set, "", nil
}

// CloseSet closes every engine of a set (the shared CPU engine once).
func CloseSet(set []Engines) {
	for i, e := range set {
		e.Plans.Close()
		if e.Preferred != e.CPU {
			e.Preferred.Close()
		}
		if i == len(set)-1 && e.CPU != nil {
			e.CPU.Close()
		}
	}
}

// Close closes the engines (the GPU one, then the CPU one). Calling it
// twice is harmless (the engines' Close is).
func (e Engines) Close() {
	e.Plans.Close()
	if e.Preferred != nil && e.Preferred != e.CPU {
		e.Preferred.Close()
	}
	if e.CPU != nil {
		e.CPU.Close()
	}
}

// InputError is bad input (exit code 2): a file that cannot be decoded, a
// channel it does not have, fewer samples than one frame.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// EngineError is a failure of the engine (so that the CPU may succeed
// where the GPU failed), as opposed to an input or output problem.
type EngineError struct{ Err error }

func (e *EngineError) Error() string { return e.Err.Error() }
func (e *EngineError) Unwrap() error { return e.Err }

// FallbackNotice is what every pipeline says when the GPU fails and the
// CPU takes over.
func FallbackNotice(err error) string {
	return fmt.Sprintf("GPU failed: %v — using the CPU", err)
}

// WithFallback runs fn on the preferred engine and, when it fails with an
// EngineError on the GPU (and ctx is not done, and the engines are not
// Strict), once more on the CPU engine; the notice then says so
// (FallbackNotice). It is the one GPU→CPU retry of every file pipeline.
func WithFallback[T any](ctx context.Context, e Engines, fn func(gpufft.Engine) (T, error)) (T, string, error) {
	res, err := fn(e.Preferred)
	var ee *EngineError
	if err == nil || !e.HasGPU() || e.Strict || ctx.Err() != nil || !errors.As(err, &ee) {
		return res, "", err
	}
	notice := FallbackNotice(err)
	res, err = fn(e.CPU)
	return res, notice, err
}
