package gpufft

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prismaudio/prism/gpufft/internal/cl"
)

// DeviceInfo describes one OpenCL device, as `prism devices` lists it.
type DeviceInfo struct {
	Index            int    // position in the list of every platform's devices
	Platform         string // platform name, e.g. "NVIDIA CUDA", "Portable Computing Language"
	PlatformVersion  string
	Name             string
	Vendor           string
	Version          string // device OpenCL version string
	Driver           string
	Type             string // "GPU", "CPU", "accelerator" or "other"
	ComputeUnits     int
	ClockMHz         int
	MaxWorkGroupSize int
	LocalMemBytes    int64
	GlobalMemBytes   int64
	MaxAllocBytes    int64

	platform cl.Platform
	device   cl.Device
}

func (d DeviceInfo) String() string {
	return fmt.Sprintf("%s (%s)", d.Name, d.Platform)
}

// EnvDevice is the environment variable that chooses the OpenCL device when
// no explicit choice is made: an index from `prism devices` or a substring of
// the device or platform name.
const EnvDevice = "PRISM_OPENCL_DEVICE"

// OpenCLOptions configures NewOpenCL.
type OpenCLOptions struct {
	// Device selects the device: "" (use $PRISM_OPENCL_DEVICE, else the first
	// GPU, else the first device), an index, or a case-insensitive substring
	// of "name platform vendor".
	Device string
	// Libraries overrides the OpenCL library names tried (tests point this
	// at a bogus name to exercise the no-OpenCL path).
	Libraries []string
	// Profiling enables device timestamps on the queue (bench).
	Profiling bool
	// BuildLog, if set, receives every program's build log, and compiler
	// warnings stay on. Otherwise programs build with -w: a compiler that
	// prints its diagnostics itself (PoCL's "1 warning generated.") says
	// nothing on the terminal. Tuning.BuildLog set means os.Stderr.
	BuildLog io.Writer
	// Tuning is the engine's tuning; nil: TuningFromEnv's (whose error,
	// naming variables it ignored, is dropped here: `prism devices` shows
	// it). Every plan of the engine follows it.
	Tuning *Tuning
}

// EnvLibrary is the environment variable naming the OpenCL library to load
// instead of the system's (a path, or several separated by the OS's list
// separator, tried in order): for drivers installed off the loader's path,
// and for tests that load a fake library.
const EnvLibrary = "PRISM_OPENCL_LIBRARY"

var (
	defaultLibOnce sync.Once
	defaultLib     *cl.Lib
	defaultLibErr  error
)

func loadLib(names []string) (*cl.Lib, error) {
	if len(names) > 0 {
		l, err := cl.Load(names...)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoOpenCL, err)
		}
		return l, nil
	}
	defaultLibOnce.Do(func() {
		defaultLib, defaultLibErr = cl.Load(envLibraries()...)
		if defaultLibErr != nil {
			defaultLibErr = fmt.Errorf("%w: %v", ErrNoOpenCL, defaultLibErr)
		}
	})
	return defaultLib, defaultLibErr
}

// Devices lists every device of every OpenCL platform. It returns an error
// wrapping ErrNoOpenCL when no library can be loaded; a library with no
// platforms yields an empty list.
func Devices() ([]DeviceInfo, error) {
	lib, err := loadLib(nil)
	if err != nil {
		return nil, err
	}
	return listDevices(lib)
}

// A driver that fails while listing platforms or devices is treated as no
// OpenCL (ErrNoOpenCL), so Auto falls back to the CPU.
func listDevices(lib *cl.Lib) ([]DeviceInfo, error) {
	plats, err := lib.Platforms()
	if err != nil {
		return nil, fmt.Errorf("%w: list platforms: %w", ErrNoOpenCL, err)
	}
	var out []DeviceInfo
	for _, p := range plats {
		pi, err := lib.PlatformInfo(p)
		if err != nil {
			return nil, fmt.Errorf("%w: platform info: %w", ErrNoOpenCL, err)
		}
		devs, err := lib.Devices(p, cl.DeviceTypeAll)
		if err != nil {
			return nil, fmt.Errorf("%w: list devices of %s: %w", ErrNoOpenCL, pi.Name, err)
		}
		for _, d := range devs {
			di, err := describe(lib, pi, p, d, len(out))
			if err != nil {
				return nil, err
			}
			out = append(out, di)
		}
	}
	return out, nil
}

func describe(lib *cl.Lib, pi cl.PlatformInfo, p cl.Platform, d cl.Device, index int) (DeviceInfo, error) {
	di, err := lib.DeviceInfo(d)
	if err != nil {
		return DeviceInfo{}, fmt.Errorf("%w: device info on %s: %w", ErrNoOpenCL, pi.Name, err)
	}
	return DeviceInfo{
		Index: index, Platform: pi.Name, PlatformVersion: pi.Version,
		Name: di.Name, Vendor: di.Vendor, Version: di.Version, Driver: di.Driver,
		Type: typeName(di.Type), ComputeUnits: int(di.ComputeUnits), ClockMHz: int(di.ClockMHz),
		MaxWorkGroupSize: di.MaxWorkGroupSize, LocalMemBytes: di.LocalMemBytes,
		GlobalMemBytes: di.GlobalMemBytes, MaxAllocBytes: di.MaxAllocBytes,
		platform: p, device: d,
	}, nil
}

// openDevice finds the device selector names (see OpenCLOptions.Device)
// asking the driver only what that needs: for the default (the first GPU)
// and for an index it counts device handles per platform and reads the
// properties of the chosen device alone; only a name needs every device's
// properties. It picks the same device as SelectDevice(listDevices(lib)).
func openDevice(lib *cl.Lib, selector string) (DeviceInfo, error) {
	selector = strings.TrimSpace(selector)
	i, err := strconv.Atoi(selector)
	if selector != "" && err != nil {
		list, err := listDevices(lib)
		if err != nil {
			return DeviceInfo{}, err
		}
		return SelectDevice(list, selector)
	}
	plats, err := lib.Platforms()
	if err != nil {
		return DeviceInfo{}, fmt.Errorf("%w: list platforms: %w", ErrNoOpenCL, err)
	}
	all := make([][]cl.Device, len(plats))
	load := func(k int) error {
		if all[k] == nil {
			ds, err := lib.Devices(plats[k], cl.DeviceTypeAll)
			if err != nil {
				return fmt.Errorf("%w: list devices: %w", ErrNoOpenCL, err)
			}
			all[k] = append(ds, 0)[:len(ds)] // non-nil: listed
		}
		return nil
	}
	pick := func(k int, d cl.Device) (DeviceInfo, error) {
		index := 0
		for j := range k {
			if err := load(j); err != nil {
				return DeviceInfo{}, err
			}
			index += len(all[j])
		}
		if err := load(k); err != nil {
			return DeviceInfo{}, err
		}
		for _, x := range all[k] {
			if x == d {
				break
			}
			index++
		}
		pi, err := lib.PlatformInfo(plats[k])
		if err != nil {
			return DeviceInfo{}, fmt.Errorf("%w: platform info: %w", ErrNoOpenCL, err)
		}
		return describe(lib, pi, plats[k], d, index)
	}
	if selector == "" {
		for k, p := range plats {
			gpus, err := lib.Devices(p, cl.DeviceTypeGPU)
			if err != nil {
				return DeviceInfo{}, fmt.Errorf("%w: list devices: %w", ErrNoOpenCL, err)
			}
			if len(gpus) > 0 {
				return pick(k, gpus[0])
			}
		}
		i = 0 // no GPU: the first device
	}
	if i >= 0 {
		n := 0
		for k := range plats {
			if err := load(k); err != nil {
				return DeviceInfo{}, err
			}
			if i < n+len(all[k]) {
				return pick(k, all[k][i-n])
			}
			n += len(all[k])
		}
		if n == 0 {
			return DeviceInfo{}, fmt.Errorf("%w: no platform reports any device", ErrNoDevice)
		}
		return DeviceInfo{}, fmt.Errorf("%w: index %d (have 0…%d)", ErrNoDevice, i, n-1)
	}
	return DeviceInfo{}, fmt.Errorf("%w: index %d", ErrNoDevice, i)
}

func typeName(t uint64) string {
	switch {
	case t&cl.DeviceTypeGPU != 0:
		return "GPU"
	case t&cl.DeviceTypeCPU != 0:
		return "CPU"
	case t&cl.DeviceTypeAccel != 0:
		return "accelerator"
	}
	return "other"
}

// SelectDevice picks from list by selector (see OpenCLOptions.Device).
func SelectDevice(list []DeviceInfo, selector string) (DeviceInfo, error) {
	if len(list) == 0 {
		return DeviceInfo{}, fmt.Errorf("%w: no platform reports any device", ErrNoDevice)
	}
	selector = strings.TrimSpace(selector)
	if selector == "" {
		for _, d := range list {
			if d.Type == "GPU" {
				return d, nil
			}
		}
		return list[0], nil
	}
	if i, err := strconv.Atoi(selector); err == nil {
		if i < 0 || i >= len(list) {
			return DeviceInfo{}, fmt.Errorf("%w: index %d (have 0…%d)", ErrNoDevice, i, len(list)-1)
		}
		return list[i], nil
	}
	want := strings.ToLower(selector)
	for _, d := range list {
		if strings.Contains(strings.ToLower(d.Name+" "+d.Platform+" "+d.Vendor), want) {
			return d, nil
		}
	}
	return DeviceInfo{}, fmt.Errorf("%w: none matches %q", ErrNoDevice, selector)
}

// OpenCL is the GPU engine: plans run as OpenCL kernels from package kernels
// on one device, through one in-order queue (a PCM plan may have a queue
// of its own: see withQueue).
type OpenCL struct {
	args  cl.Args // for the engine's own calls (bench); guarded by single use
	lib   *cl.Lib
	info  DeviceInfo
	ctx   cl.Context
	queue cl.Queue
	local int // local memory bytes a work-group may use
	maxWG int
	radix int // 0: automatic
	// passSmall is the radix of four-step passes below 1024 points
	// (PRISM_OPENCL_PASS_RADIX: 8, 16 or 32); 0: passGeom's choice.
	passSmall int
	// groupThreads is the work-group size single-pass kernels aim for
	// (several short transforms share a group up to it).
	groupThreads int
	singleMax    int // largest single-pass transform (complex points)
	// halvesMax is the largest complex transform done in one work-group
	// with half of one component in local memory at a time (HALVES).
	halvesMax int
	// tune holds extra kernel defines (Tuning.Defines, added to every FFT
	// kernel build and the live post-processing's): a tuning aid for
	// trying kernel variants with `prism bench`, and how the tests run
	// post.cl's float-sum path (PRISM_FLOAT_SUMS) on a device with fp64.
	tune []string
	// tuning is what the engine opened with; plan code reads it, never
	// the environment.
	tuning Tuning
	*openclShared
	// fork is set on an engine withQueue made: it owns only its queue
	fork *forkState
}

// openclShared is what an engine shares with the engines withQueue makes
// of it: programs, plans, the program cache and the statistics.
type openclShared struct {
	mu sync.Mutex
	// live serializes the live plans' calls (NewLive, Execute, Close):
	// one host thread at a time enqueues a live plan's work. A window runs
	// two live plans on one engine only for a moment (its background
	// timing of the inactive engine, as the engines are switched); on a
	// CPU device (PoCL) they would share its cores anyway, and PoCL 3.1's
	// kernel-loading cache, which Debian 12 ships, has known races when
	// several threads launch kernels of one program (fixed in PoCL 4 and
	// 6: "dlhandle cache", pthread driver).
	live     sync.Mutex
	progs    map[string]*progBuild
	plans    map[closer]struct{}
	closed   bool
	cache    progCache
	buildLog io.Writer
	stats    OpenCLStats
}

type forkState struct{ once sync.Once }

// withQueue returns the engine on a new in-order queue of its own, sharing
// e's context, programs and plan tracking: the plans made on it enqueue
// their work there, so a file's uploads, kernels and downloads neither
// wait behind other files' nor make them wait (Finish on one file's queue
// waits for that file alone), and the driver may run one file's upload
// beside another's kernels. Closing it releases the queue only (after the
// work queued on it); closing e closes it too.
func (e *OpenCL) withQueue() (*OpenCL, error) {
	if err := e.alive(); err != nil {
		return nil, err
	}
	q, err := e.lib.CreateQueue(e.ctx, e.info.device, 0)
	if err != nil {
		return nil, errGPU("queue", err)
	}
	f := *e
	f.args, f.queue, f.fork = cl.Args{}, q, &forkState{}
	if err := e.track(&f); err != nil {
		e.lib.ReleaseQueue(q)
		return nil, err
	}
	return &f, nil
}

// OpenCLStats says where an engine's start-up time went and how its
// programs were obtained (for `prism bench` and the tests).
type OpenCLStats struct {
	Load    time.Duration // loading the OpenCL library (zero when already loaded in this process)
	Query   time.Duration // platform and device queries
	Context time.Duration // context and queue creation

	Programs      int           // programs obtained
	CacheHits     int           // of them, loaded from the program cache
	CacheRejected int           // cache entries damaged or refused by the driver, rebuilt
	CacheWrites   int           // entries written
	CacheErrors   int           // entries that could not be written (the cache is then off)
	BuildSource   time.Duration // time compiling from OpenCL C
	BuildCached   time.Duration // time loading and building cached binaries

	// Close's time (zero until it ran): all of it, and of it the
	// context's release (clReleaseContext, after the plans, programs
	// and queue)
	Release        time.Duration
	ReleaseContext time.Duration
}

type closer interface{ Close() error }

// NewOpenCL opens the selected device. Errors wrap ErrNoOpenCL (no library
// or platform) or ErrNoDevice (no matching device), so callers can say
// "no OpenCL: <reason>" and use the CPU.
func NewOpenCL(opts OpenCLOptions) (*OpenCL, error) {
	t0 := time.Now()
	lib, err := loadLib(opts.Libraries)
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	sel := opts.Device
	if sel == "" {
		sel = envDevice()
	}
	tuning := opts.Tuning
	if tuning == nil {
		t, _ := TuningFromEnv() // ignored variables keep their defaults, as they always did
		tuning = &t
	}
	info, err := openDevice(lib, sel)
	if err != nil {
		return nil, err
	}
	t2 := time.Now()
	e := &OpenCL{lib: lib, info: info, tuning: tuning.clone(), openclShared: &openclShared{progs: map[string]*progBuild{}, plans: map[closer]struct{}{}, cache: newProgCache(info)}}
	e.stats.Load, e.stats.Query = t1.Sub(t0), t2.Sub(t1)
	e.buildLog = opts.BuildLog
	if e.buildLog == nil && tuning.BuildLog {
		e.buildLog = os.Stderr
	}
	e.local = int(info.LocalMemBytes) - 256
	e.maxWG = min(info.MaxWorkGroupSize, 1024)
	e.applyTuning()
	if e.ctx, err = lib.CreateContext(info.device); err != nil {
		return nil, fmt.Errorf("gpufft: %s: %w", info, err)
	}
	var props uint64
	if opts.Profiling {
		props = cl.QueueProfiling
	}
	if e.queue, err = lib.CreateQueue(e.ctx, info.device, props); err != nil {
		lib.ReleaseContext(e.ctx)
		return nil, fmt.Errorf("gpufft: %s: %w", info, err)
	}
	e.stats.Context = time.Since(t2)
	return e, nil
}

// applyTuning sets the engine's geometry limits from its device and
// e.tuning; the defaults' measurements are in docs/gpufft-experiments.md.
func (e *OpenCL) applyTuning() {
	t, cpu := &e.tuning, e.info.Type == "CPU"
	e.radix, e.passSmall = t.Radix, t.PassRadix
	// CPU devices (PoCL) are slow with 512-item groups full of barriers:
	// above 4096 points two four-step passes win there.
	e.singleMax = maxSingle
	if cpu {
		e.singleMax = 4096
	}
	if t.SingleMax != 0 {
		e.singleMax = t.SingleMax
	}
	// One group in halves beats two four-step passes on GPUs, up to 16384.
	e.halvesMax = 2 * maxSingle
	if cpu {
		e.halvesMax = 0
	}
	if t.HalvesMax != nil {
		e.halvesMax = *t.HalvesMax
	}
	// 128 items a group measured best or equal on the H200.
	e.groupThreads = 128
	if t.GroupThreads != 0 {
		e.groupThreads = t.GroupThreads
	}
	e.tune = append([]string(nil), t.Defines...)
}

// Tuning returns the tuning the engine opened with (a copy).
func (e *OpenCL) Tuning() Tuning { return e.tuning.clone() }

// Stats reports the engine's start-up costs and program builds so far.
func (e *OpenCL) Stats() OpenCLStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

func (e *OpenCL) Name() string { return "opencl" }

func (e *OpenCL) Device() string { return e.info.String() }

// Info describes the engine's device.
func (e *OpenCL) Info() DeviceInfo { return e.info }

// Close releases every plan still open, the programs, the queue and the
// context, in that order. Calling it twice is harmless.
func (e *OpenCL) Close() error {
	if e.fork != nil {
		e.fork.once.Do(func() {
			e.lib.Finish(&e.args, e.queue) // an error no longer matters: the queue goes
			e.lib.ReleaseQueue(e.queue)
			e.untrack(e)
		})
		return nil
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	plans := e.plans
	e.plans = nil
	e.mu.Unlock()
	t0 := time.Now()
	for p := range plans { // plans first: each waits for its queue's work
		if _, ok := p.(*OpenCL); !ok {
			p.Close()
		}
	}
	for p := range plans { // then the plans' own queues
		if f, ok := p.(*OpenCL); ok {
			f.Close()
		}
	}
	e.mu.Lock()
	progs := e.progs
	e.progs = nil
	e.mu.Unlock()
	for _, b := range progs { // a build still running finishes first
		<-b.done
		if b.err == nil {
			e.lib.ReleaseProgram(b.prog)
		}
	}
	e.lib.ReleaseQueue(e.queue)
	t1 := time.Now()
	e.lib.ReleaseContext(e.ctx)
	e.count(func(s *OpenCLStats) { s.Release, s.ReleaseContext = time.Since(t0), time.Since(t1) })
	return nil
}

// CloseForExit is Close for a process that exits next: it waits for the
// work queued on the engine's queue and its plans' own queues, and marks
// the engine closed (plans and requests fail with ErrClosed, Close does
// nothing), but releases no OpenCL object: the process's exit reclaims
// them all at once. Outputs a plan's Image, Rows or Execute returned are
// complete before it returns. Only a caller that exits right after may use
// it (`prism analyze` does, when every output is in place); tests and the
// window call Close.
func (e *OpenCL) CloseForExit() error {
	if e.fork != nil {
		return e.Close()
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	plans := make([]*OpenCL, 0, len(e.plans))
	for p := range e.plans {
		if f, ok := p.(*OpenCL); ok {
			plans = append(plans, f)
		}
	}
	e.mu.Unlock()
	for _, f := range plans {
		if err := f.lib.Finish(&f.args, f.queue); err != nil {
			return errGPU("finish", err)
		}
	}
	if err := e.lib.Finish(&e.args, e.queue); err != nil {
		return errGPU("finish", err)
	}
	return nil
}

// program returns the program for source and defines: from the engine's
// map when this engine built it already (or is building it: a second
// caller waits for the first's build), else from the on-disk program
// cache, else compiled (and then stored in the cache). Builds of different
// programs run at once, outside e.mu (a plan's constructor requests its
// programs together: see prebuild); only the map and the statistics are
// updated under it.
func (e *OpenCL) program(source string, defines []string) (cl.Program, error) {
	opts := "-cl-std=CL1.2 -D " + strings.Join(defines, " -D ")
	if extra := e.tuning.CompilerOptions; extra != "" { // tuning aid, e.g. -cl-nv-verbose
		opts += " " + extra
	}
	if e.buildLog == nil {
		opts += " -w"
	}
	key := e.cache.key(opts, kernelsCommon, source)
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return 0, ErrClosed
	}
	if b, ok := e.progs[key]; ok {
		e.mu.Unlock()
		<-b.done
		return b.prog, b.err
	}
	b := &progBuild{done: make(chan struct{})}
	e.progs[key] = b
	e.mu.Unlock()
	b.prog, b.err = e.build(key, opts, source)
	e.mu.Lock()
	if b.err != nil && e.progs != nil {
		delete(e.progs, key) // a later request tries again
	}
	close(b.done)
	e.mu.Unlock()
	return b.prog, b.err
}

// progBuild is one program of an engine: done is closed once prog (or err)
// is set.
type progBuild struct {
	done chan struct{}
	prog cl.Program
	err  error
}

// build obtains one program, from the program cache or from source, for
// program; it runs outside e.mu, which it takes only for the statistics
// and for storing a new cache entry.
func (e *OpenCL) build(key, opts, source string) (cl.Program, error) {
	t0 := time.Now()
	bin, damaged := e.cache.load(key)
	if bin != nil {
		p, err := e.lib.BuildBinary(e.ctx, e.info.device, opts, bin)
		if err == nil {
			e.cache.touch(key)
			e.count(func(s *OpenCLStats) {
				s.Programs++
				s.CacheHits++
				s.BuildCached += time.Since(t0)
				if damaged {
					s.CacheRejected++
				}
			})
			return p, nil
		}
		damaged = true // stale or damaged in a way only the driver sees
		e.cache.remove(key)
		t0 = time.Now()
	}
	p, err := e.lib.BuildProgram(e.ctx, e.info.device, opts, kernelsCommon, source)
	if err != nil {
		return 0, fmt.Errorf("gpufft: build on %s: %w", e.info, err)
	}
	if p, err = e.capProgram(p, opts); err != nil {
		return 0, err
	}
	took := time.Since(t0)
	if e.buildLog != nil { // compiler diagnostics (e.g. NVIDIA's -cl-nv-verbose)
		log, _ := e.lib.BuildLog(p, e.info.device)
		e.mu.Lock()
		fmt.Fprintf(e.buildLog, "gpufft: built %s\n%s\n", opts, log)
		e.mu.Unlock()
	}
	bin = nil
	if e.cache.dir != "" || e.tuning.DumpDir != "" {
		bin, _ = e.lib.Binary(p) // no binary: nothing to cache or dump
	}
	e.mu.Lock() // the cache's read-only flag and the statistics
	e.stats.Programs++
	e.stats.BuildSource += took
	if damaged {
		e.stats.CacheRejected++
	}
	if len(bin) > 0 && e.cache.dir != "" && !e.cache.readOnly {
		if err := e.cache.store(key, bin); err != nil {
			e.stats.CacheErrors++ // read-only or full: writing stops, silently
		} else {
			e.stats.CacheWrites++
		}
	}
	e.mu.Unlock()
	if dir := e.tuning.DumpDir; dir != "" && len(bin) > 0 { // the device binary (NVIDIA: PTX), a tuning aid
		if err := dumpBinary(dir, key[:16], append([]byte("// "+opts+"\n"), bin...)); err != nil {
			fmt.Fprintf(os.Stderr, "gpufft: %v\n", err)
		}
	}
	return p, nil
}

// count updates the statistics under e.mu.
func (e *OpenCL) count(f func(*OpenCLStats)) {
	e.mu.Lock()
	f(&e.stats)
	e.mu.Unlock()
}

// prebuild requests programs (source, defines pairs) at once, each on a
// goroutine of its own, and returns without waiting: a plan's constructor
// calls it with the programs it will ask for one after another, so that
// their builds overlap (on an empty program cache the compiler is most
// of a plan's start-up). A failure here is left for the constructor's own
// request, which builds again and reports it.
func (e *OpenCL) prebuild(progs ...progSpec) {
	for _, p := range progs {
		go e.program(p.source, p.defines)
	}
}

// progSpec names one program: its source and its -D defines.
type progSpec struct {
	source  string
	defines []string
}

// dumpBinary writes dir/name.bin through a new temporary file renamed into
// place: a symbolic link planted at the predictable name is replaced, not
// followed.
func dumpBinary(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name+".bin"))
	}
	if err != nil {
		os.Remove(f.Name()) // best effort
	}
	return err
}

func (e *OpenCL) alive() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	return nil
}

func (e *OpenCL) track(p closer) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	e.plans[p] = struct{}{}
	return nil
}

func (e *OpenCL) untrack(p closer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.plans != nil {
		delete(e.plans, p)
	}
}

// ---- launch geometry

// geom is the work-group layout of a single-pass kernel over LEN points.
type geom struct {
	len, radix, s int
	split, halves bool
	// halvesPaired lets a real transform in halves pair its mirror bins
	// (HALVES_PAIRED in fft_common.cl; r2cGeom: R2C 16384 on GPUs)
	halvesPaired bool
}

func (g geom) t() int  { return g.len / g.radix }
func (g geom) wg() int { return g.s * g.t() }

// defines gives the kernel its geometry and stage plan: NFULL radix-RADIX
// stages that exchange through local memory, then one of radix LASTR.
func (g geom) defines() []string {
	lr := bitsLen(g.radix) - 1
	nfull, last := g.stages()
	d := []string{"LEN=" + strconv.Itoa(g.len), "RADIX=" + strconv.Itoa(g.radix), "S=" + strconv.Itoa(g.s),
		"SPLIT=" + b01(g.split), "HALVES=" + b01(g.halves), "LOG2R=" + strconv.Itoa(lr), "NFULL=" + strconv.Itoa(nfull), "LASTR=" + strconv.Itoa(last)}
	if g.halvesPaired {
		d = append(d, "HALVES_PAIRED=1")
	}
	return d
}

// paired says whether a real transform's last stage can pair mirror bins
// in one thread (PAIRED in fft_common.cl): it needs an exchange before the
// last stage and an even number of last-stage butterflies per thread; in
// halves also halvesPaired and a last stage of radix 2 or more.
func (g geom) paired() bool {
	nfull, last := g.stages()
	return nfull >= 1 && g.radix/last >= 2 && (!g.halves || g.halvesPaired && last >= 2)
}

// pairedDefine is the PAIRED define where paired holds (real transforms
// only). Without it (H200, medians of 5 alternating runs): R2C 1024 0.152
// ms as with it, 4096 0.153 against 0.155 (six runs of the same code
// spread 0.154–0.159), 16384 0.237 against 0.233, spectrogram 4096/1024
// 0.583 against 0.518, 1024/256 0.508 against 0.419: kept for every plan.
func (g geom) pairedDefine() []string {
	if g.paired() {
		return []string{"PAIRED=1"}
	}
	return nil
}

// stages returns the number of full radix stages that exchange through
// local memory and the radix of the last stage: len = radix^nfull · last.
func (g geom) stages() (nfull, last int) {
	l, lr := bitsLen(g.len)-1, bitsLen(g.radix)-1
	if l%lr == 0 {
		return l/lr - 1, g.radix
	}
	return l / lr, 1 << (l % lr)
}

// stageTable is the twiddle table fft_regs reads: for each stage that
// combines sub-transforms of length ns = radix^st (st ≥ 1, the last one of
// radix `last`), W_{ns·r}^{q·k} for q = 1…r−1 and k < ns, k fastest, so a
// warp's threads read consecutive entries.
func (g geom) stageTable() []complex64 {
	nfull, last := g.stages()
	t := []complex64{}
	ns := g.radix
	for st := 1; st <= nfull; st++ {
		r := g.radix
		if st == nfull {
			r = last
		}
		for q := 1; q < r; q++ {
			for k := range ns {
				s, c := sincos2pi(q*k, ns*r)
				t = append(t, complex(float32(c), float32(-s)))
			}
		}
		ns *= g.radix
	}
	if len(t) == 0 {
		t = append(t, 1) // a single-stage transform reads none; buffers need a size
	}
	return t
}

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// maxSingle is the largest transform one work-group does for every plan:
// 8192 points, or fewer where local memory cannot hold one component of it.
// Plans go to twice that with HALVES (planGeom). (An earlier
// 16384-point kernel for every plan, one component at a time in two halves
// of NVIDIA's 48 KB of local memory, measured slower than the two
// four-step passes on the H200: C2C 16384 0.360 ms against 0.330, R2C
// 32768 0.499 against 0.386; spectrogram 32768/8192 1.475 against 1.537.
// HALVES, whose writers each write within one half so that a round costs
// one barrier pair and no per-value test, takes C2C 16384 to 0.202 and R2C
// 32768 to 0.250.)
const maxSingle = 8192

func (e *OpenCL) radixFor(n int) int {
	// Per length, measured on an H200 (2^26 samples per call, radix 8, 16,
	// 32 and 64 side by side):
	//   - up to 256 points: radix 8;
	//   - 512 and 1024: radix 32, one exchange through local memory instead
	//     of two (spectrogram 1024/256 0.424 ms against 0.586 at radix 8;
	//     C2C 1024 0.144 against 0.146; R2C 1024 equal);
	//   - 2048 and 4096: radix 16 (R2C 4096 0.156 ms against 0.160 at 32
	//     and 0.192 at 64; spectrogram 4096/1024 0.514 against 0.579 and
	//     0.637; C2C 4096 0.142 against 0.146 and 0.182): 32 or 64 values
	//     per work-item cost more in registers than the saved exchange;
	//   - 8192: radix 32 (R2C 16384 0.231 ms against 0.253 at 16, C2C 8192
	//     0.199 against 0.240, spectrogram 16384/4096 0.769 against 1.00);
	//     R2C's kernel then takes 179 registers and C2R's 199, so one group
	//     of 256 items per SM (a cap of 128 registers, for two, spills
	//     and loses: ptxcap.go); R2C's
	//     loops over its transforms in one group per SM (persistGroups).
	//     Again with today's kernels (H200, device events): R2C 16384 at
	//     radix 16, 512 items of 107 registers, 0.245 ms, at radix 8 0.293,
	//     against 0.204 (fft_batch.cl).
	// (A radix-64 butterfly, one exchange for 4096 points, was measured and
	// dropped: slower at every length.)
	r := 8
	switch {
	case n >= 8192:
		r = 32
	case n >= 2048:
		r = 16
	case n >= 512:
		r = 32
	}
	if e.radix != 0 {
		r = e.radix
	}
	for n/r > e.maxWG && r < 16 {
		r *= 2
	}
	return min(r, n)
}

// singleGeom returns the geometry for one-work-group transforms of n points,
// or ok = false if n needs the multi-pass path on this device.
func (e *OpenCL) singleGeom(n int) (geom, bool) { return e.groupGeom(n, e.singleMax, false) }

// planGeom is singleGeom for the plans' single-pass kernels, which also
// take transforms up to halvesMax points of which local memory holds half
// of one component at a time (HALVES in fft_common.cl: four rounds per
// exchange, four more for a real transform's mirrors).
func (e *OpenCL) planGeom(n int) (geom, bool) {
	return e.groupGeom(n, max(e.singleMax, e.halvesMax), true)
}

// groupGeom lays out one-work-group transforms of n ≤ limit points:
// several per group up to groupThreads items, one component in local
// memory at a time where both do not fit, half of one with halves.
func (e *OpenCL) groupGeom(n, limit int, halves bool) (g geom, ok bool) {
	if n > limit {
		return g, false
	}
	g = geom{len: n, radix: e.radixFor(n), s: 1}
	if g.t() > e.maxWG {
		return g, false
	}
	padLen := n + n/g.radix
	g.s = max(1, e.groupThreads/g.t())
	for g.s > 1 && (g.s*g.t() > e.maxWG || 2*g.s*padLen*4 > e.local) {
		g.s /= 2
	}
	switch {
	case 2*padLen*4 <= e.local:
	case padLen*4 <= e.local:
		g.split = true
	case halves && padLen/2*4 <= e.local:
		g.halves = true
	default:
		return g, false
	}
	return g, true
}

// passGeom returns the geometry of a four-step pass of len points: up to 16
// sequences per group so that strided accesses fill whole transactions;
// radix 8 below 1024 points, 16 from 1024 (H200, 2^20 points, both passes
// of 1024: C2C 0.431 ms at radix 16 against 0.496 at 8, R2C 0.500 against
// 0.540). Below 1024, radix 16 or 32 (one exchange fewer at 128 and 256
// points) measured slower but for one row (H200, radix 8 / 16 / 32: C2C
// 16384 0.321 / 0.361 / 0.343 ms, R2C 65536 0.388 / 0.395 / 0.452, C2C
// 65536 0.340 / 0.330 / 0.398, R2C 2^18 0.413 / 0.461 / 0.445,
// spectrogram 65536/16384 1.60 / 1.84 / 1.90). 32 sequences per group at
// 128 points (256-byte runs) measured slower (C2C 16384 0.352 ms against
// 0.326), 8 too (R2C 65536 0.426 against 0.396).
//
// Since pass 1 went slot-fast (SLOT_FAST in fft_passes.cl), 256-point
// passes go at radix 16 on GPUs (16·16, one exchange, against 8·8·4, two)
// except those that do the real split (split: OUT_MODE in fft_passes.cl).
// H200, medians of 2 alternating runs, radix 16 at 256 points only /
// at 128 and 256 / at neither: C2C 65536 0.286 / 0.288 / 0.310 ms, R2C
// 65536 0.347 / 0.357 / 0.364, spectrogram 65536/16384 1.295 / 1.319 /
// 1.431, and with the split pass of R2C 2^18 at 256 points 0.419 against
// 0.388 at radix 8. 512 points stay at 8·8·8 (every pass below 1024 points
// at radix 16, in a run with since-dropped one-component local memory:
// C2C 2^18 0.373 against 0.359, R2C 2^20 0.557 against 0.467). The split
// passes at radix 16 or with 32 sequences per group measured no faster
// again (H200, R2C 65536 to 2^20: numbers at SPLIT_TW in fft_passes.cl).
func (e *OpenCL) passGeom(n int, split bool) geom {
	g := geom{len: n, radix: e.radixFor(n), s: 1}
	if n < 1024 {
		g.radix = min(e.passSmallRadix(n, split), n)
	} else if e.radix == 0 {
		g.radix = min(16, n)
	}
	g.s = min(16, max(1, 4096/n))
	for g.s > 1 && (g.s*g.t() > e.maxWG || g.passLocal() > e.local) {
		g.s /= 2
	}
	return g
}

// passSmallRadix is the radix of a four-step pass of n < 1024 points.
func (e *OpenCL) passSmallRadix(n int, split bool) int {
	switch {
	case e.passSmall != 0:
		return e.passSmall
	case n == 256 && !split && e.info.Type != "CPU":
		return 16
	}
	return 8
}

// passLocal is the local memory in bytes a four-step pass group uses.
func (g geom) passLocal() int { return 2 * g.s * g.passStride() * 4 }

// passStride is the distance in floats between the local-memory regions of
// a four-step pass's sequences (SSTRIDE in fft_passes.cl): the padded
// length rounded up to 32/S mod 32, so that the S sequences a warp's
// coalesced global access spans sit in distinct banks of 32 instead of
// the same one (a padded length of 288 or 1152 is 0 mod 32).
func (g geom) passStride() int {
	pad := g.len + g.len/g.radix
	if g.s < 2 || g.s > 32 {
		return pad
	}
	return pad + ((32/g.s-pad%32)%32+32)%32
}

// fourStepSplit returns A (pass-2 length) and B (pass-1 length), N = A·B:
// A = B or 2B, or with smallA (real transforms, whose pass 2 pairs
// sequences for the split) B = A or 2A. Measured on the H200: R2C 2^18
// 0.424 ms with the smaller A against 0.455, 2^20 0.539 against 0.624,
// 65536 0.396 against 0.390; complex transforms equal or slower with it.
// Again with pass 1 slot-fast (medians of 2): R2C 65536 0.357 against
// 0.382, 2^18 0.419 against 0.397 (its split pass then at radix 16, since
// 0.388 at 8), 2^20 0.452 against 0.720, spectrogram 65536/16384 1.32
// against 1.57.
func fourStepSplit(n int, smallA bool) (a, b int) {
	b = 1 << ((bitsLen(n) - 1) / 2)
	if smallA {
		return b, n / b
	}
	return n / b, b
}

// fourStepOK reports whether both passes of an n-point four-step transform
// fit a work-group on this device.
func (e *OpenCL) fourStepOK(n int) bool {
	if n > MaxSize {
		return false
	}
	a, b := fourStepSplit(n, false) // either way round: the same two lengths
	for _, l := range []int{a, b} {
		for _, split := range []bool{false, true} {
			if g := e.passGeom(l, split); g.wg() > e.maxWG || g.passLocal() > e.local {
				return false
			}
		}
	}
	return true
}

// errGPU wraps an OpenCL failure during execution so callers can tell it
// from a contract error and fall back to the CPU.
func errGPU(op string, err error) error {
	return fmt.Errorf("gpufft: opencl %s: %w", op, err)
}

var errTooBig = errors.New("exceeds the device's largest buffer")
