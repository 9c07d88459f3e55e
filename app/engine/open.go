package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prismaudio/prism/gpufft"
)

// Engine choices, as --engine names them.
const (
	Auto = "auto" // the GPU when usable, else the CPU
	GPU  = "gpu"  // the GPU or fail
	CPU  = "cpu"
)

// CheckChoice says whether name is an engine choice.
func CheckChoice(name string) error {
	switch name {
	case Auto, GPU, CPU:
		return nil
	}
	return fmt.Errorf("engine %q: want auto, gpu or cpu", name)
}

// Pair is the engines an analysis runs on: the preferred one (a GPU or
// the CPU backend) and the CPU backend to fall back on when the GPU fails
// (the same engine when the CPU is preferred).
// Strict (the user asked for the GPU) turns a GPU failure into an error
// instead of a fallback.
type Pair struct {
	Preferred gpufft.Engine
	CPU       gpufft.Engine
	Strict    bool
	// Plans, when set, keeps the file pipeline's plans between files of
	// the same shape (a batch of files); nil makes and closes one per
	// file. Close closes it.
	Plans *PlanPool
}

// HasGPU says whether the preferred engine is a GPU one.
func (e Pair) HasGPU() bool { return e.Preferred != e.CPU }

// GPUOnCPU says whether the GPU engine runs on an OpenCL device that is a
// CPU (PoCL, say): a machine without a GPU, where both engines share the
// same cores.
func (e Pair) GPUOnCPU() bool {
	g, ok := e.Preferred.(deviceEngine)
	return ok && g.Info().Type == "CPU"
}

// deviceEngine is an engine on an OpenCL device (gpufft.OpenCL).
type deviceEngine interface {
	gpufft.Engine
	Info() gpufft.DeviceInfo
}

// exitEngine is an engine that can leave its device to the process's
// exit (gpufft.OpenCL).
type exitEngine interface {
	CloseForExit() error
	Stats() gpufft.OpenCLStats
}

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

// Open opens the engines for choice (Auto, GPU,
// CPU) on the OpenCL device (index or name; "": the
// PRISM_OPENCL_DEVICE variable, else the first GPU). With GPU and no
// usable OpenCL it fails; with Auto the notice says why the CPU is
// used, if it is.
func Open(choice, device string) (Pair, string, error) {
	if err := CheckChoice(choice); err != nil {
		return Pair{}, "", err
	}
	cpu := gpufft.NewCPU(0)
	if choice == CPU {
		return Pair{Preferred: cpu, CPU: cpu}, "", nil
	}
	err := probeOpenCL(device)
	var g *gpufft.OpenCL
	if err == nil {
		g, err = gpufft.NewOpenCL(gpufft.OpenCLOptions{Device: device})
	}
	if err != nil {
		if choice == GPU {
			cpu.Close()
			return Pair{}, "", fmt.Errorf("--engine gpu: %w", err)
		}
		return Pair{Preferred: cpu, CPU: cpu}, fmt.Sprintf("%v: using the CPU engine", err), nil
	}
	return Pair{Preferred: g, CPU: cpu, Strict: choice == GPU}, "", nil
}

// DeviceAll is the OpenCL device choice that means every GPU.
const DeviceAll = "all"

// OpenSet opens the engines for choice on every GPU of the host
// (device DeviceAll, or "" when there are several GPUs, spread is set — a
// batch of files — and $PRISM_OPENCL_DEVICE names none), one Pair
// each, sharing one CPU engine to fall back on; for any other device it is
// Open. It waits for every GPU (StartSet does not); a GPU
// that fails fails it. Close them with CloseSet.
func OpenSet(choice, device string, spread bool) ([]Pair, string, error) {
	o, notice, err := StartSet(choice, device, spread)
	if err != nil {
		return nil, "", err
	}
	set, err := o.Wait()
	if err != nil {
		CloseSet(set)
		return nil, "", err
	}
	return set, notice, nil
}

// Opening is a set of engines being opened, one per GPU, all at
// once (StartSet): a caller starts work on each as soon as it is
// open instead of waiting for the slowest (opening a context costs a
// driver 100–250 ms, and several take longer together than one).
type Opening struct {
	// Plans, set by the caller before it reads Ready, is given to every
	// engine of the set (a batch's plan pool).
	Plans *PlanPool
	set   []Pair
	ok    []bool
	ready chan int
	done  chan struct{}
	err   error
}

// Len is how many engines are being opened.
func (o *Opening) Len() int { return len(o.set) }

// Ready delivers the index of each engine as it opens; it is closed once
// every one has opened or failed.
func (o *Opening) Ready() <-chan int { return o.ready }

// Engine returns engine i, which Ready has delivered.
func (o *Opening) Engine(i int) Pair {
	e := o.set[i]
	e.Plans = o.Plans
	return e
}

// Wait waits until every engine has opened or failed and returns those
// that opened and the failures (joined), if any.
func (o *Opening) Wait() ([]Pair, error) {
	<-o.done
	var set []Pair
	for i := range o.set {
		if o.ok[i] {
			set = append(set, o.Engine(i))
		}
	}
	return set, o.err
}

// StartSet starts opening the engines OpenSet opens, each GPU
// on a goroutine of its own, and returns at once; the engines come
// through the opening's Ready. For anything but several GPUs it opens the
// one set of engines before it returns (its errors are returned then).
func StartSet(choice, device string, spread bool) (*Opening, string, error) {
	chosen := device != "" || os.Getenv(gpufft.EnvDevice) != ""
	var gpus []int
	if choice != CPU && (device == DeviceAll || (!chosen && spread)) && probeOpenCL("") == nil {
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
		e, notice, err := Open(choice, device)
		if err != nil {
			return nil, "", err
		}
		o := newOpening(1)
		o.set[0], o.ok[0] = e, true
		o.ready <- 0
		close(o.ready)
		close(o.done)
		return o, notice, nil
	}
	opens := make([]func() (gpufft.Engine, error), len(gpus))
	for k, i := range gpus {
		opens[k] = func() (gpufft.Engine, error) {
			g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{Device: strconv.Itoa(i)})
			if err != nil {
				return nil, fmt.Errorf("GPU %d: %w", i, err)
			}
			return g, nil
		}
	}
	if os.Getenv("PRISM_OPENCL_STAGGER") == "1" {
		opens = oneAfterAnother(opens)
	}
	return Start(opens, gpufft.NewCPU(0), choice == GPU), "", nil
}

// oneAfterAnother makes each of opens start once the one before it has
// returned. $PRISM_OPENCL_STAGGER=1 opens the GPUs so, to measure: on the
// two-H200 host two contexts opened at once were both open after 605 ms
// and one alone after 385 ms, so the first GPU might start on a batch
// sooner when it opens alone (not measured yet).
func oneAfterAnother(opens []func() (gpufft.Engine, error)) []func() (gpufft.Engine, error) {
	out := make([]func() (gpufft.Engine, error), len(opens))
	prev := make(chan struct{})
	close(prev)
	for k, open := range opens {
		wait, mine := prev, make(chan struct{})
		out[k] = func() (gpufft.Engine, error) {
			<-wait
			defer close(mine)
			return open()
		}
		prev = mine
	}
	return out
}

// Start opens engines with opens, each on a goroutine of its own
// (a driver spends most of its start-up per context, so each GPU's at
// once), and returns at once: Pair{Preferred: the opened engine, CPU:
// cpu, Strict: strict} come through the opening's Ready as they open. cpu
// is closed if none opens (else CloseSet closes it).
func Start(opens []func() (gpufft.Engine, error), cpu gpufft.Engine, strict bool) *Opening {
	o := newOpening(len(opens))
	errs := make([]error, len(opens))
	var wg sync.WaitGroup
	for k, open := range opens {
		wg.Go(func() {
			g, err := open()
			if err != nil {
				errs[k] = err
				return
			}
			o.set[k], o.ok[k] = Pair{Preferred: g, CPU: cpu, Strict: strict}, true
			o.ready <- k
		})
	}
	go func() {
		wg.Wait()
		o.err = errors.Join(errs...)
		if !slices.Contains(o.ok, true) {
			cpu.Close()
		}
		close(o.ready)
		close(o.done)
	}()
	return o
}

func newOpening(n int) *Opening {
	return &Opening{set: make([]Pair, n), ok: make([]bool, n), ready: make(chan int, n), done: make(chan struct{})}
}

// CloseSet closes every engine of a set (the shared CPU engine once).
func CloseSet(set []Pair) {
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

// CloseSetForExit ends a set in a process that exits next, with every
// output already in place: each OpenCL engine waits for the work queued on
// it and releases nothing (gpufft.OpenCL.CloseForExit), and the plans kept
// for a batch are left to the exit too; the exit reclaims it all. An
// engine that is not OpenCL is closed as CloseSet does. It returns how
// long it took and, for each OpenCL engine, its statistics (Release zero:
// nothing released).
func CloseSetForExit(set []Pair) (time.Duration, []gpufft.OpenCLStats) {
	t0 := time.Now()
	var stats []gpufft.OpenCLStats
	for i, e := range set {
		if g, ok := e.Preferred.(exitEngine); ok {
			// a queue that fails now has nothing left to give: the
			// outputs came back before
			_ = g.CloseForExit()
			stats = append(stats, g.Stats())
		} else if e.Preferred != e.CPU {
			e.Plans.Close()
			e.Preferred.Close()
		}
		if i == len(set)-1 && e.CPU != nil {
			e.CPU.Close()
		}
	}
	return time.Since(t0), stats
}

// Close closes the engines (the GPU one, then the CPU one). Calling it
// twice is harmless (the engines' Close is).
func (e Pair) Close() {
	e.Plans.Close()
	if e.Preferred != nil && e.Preferred != e.CPU {
		e.Preferred.Close()
	}
	if e.CPU != nil {
		e.CPU.Close()
	}
}
