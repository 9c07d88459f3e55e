// Package cl is the thin OpenCL layer under gpufft: it opens the system's
// OpenCL library (libOpenCL.so.1, OpenCL.dll or the macOS framework) at run
// time with purego and binds only the entry points the engine uses.
//
// Why hand-written: every Go OpenCL binding (github.com/jgillich/go-opencl
// among them) is refused by the module proxy, and a cgo binding would make the
// prism binary fail to start where no OpenCL is installed. Loading at run time
// turns a missing library into an ordinary error, so the caller can fall back
// to the CPU.
//
// Handles are plain values; the caller owns and releases them. Any Go
// memory may be lent to a blocking call (stack or heap): every pointer is
// converted to uintptr inside the argument list of a go:uintptrescapes
// function (purego.SyscallN, or call below for the hot path), so the
// compiler moves what it points to onto the heap, where it cannot move,
// and keeps it alive until the call returns. The non-blocking calls
// (WriteAsync, ReadAsync) use their memory until the event completes:
// there it must be the implementation's (Map) or Go memory pinned with a
// runtime.Pinner until Wait returns.
package cl

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Handle types. Zero is "none".
type (
	Platform uintptr
	Device   uintptr
	Context  uintptr
	Queue    uintptr
	Mem      uintptr
	Program  uintptr
	Kernel   uintptr
	Event    uintptr
)

// ErrNoLibrary wraps the reason no OpenCL library could be loaded.
var ErrNoLibrary = errors.New("no OpenCL library")

// Lib is a loaded OpenCL library. Its methods are safe for concurrent use as
// far as the OpenCL implementation is (OpenCL 1.2 makes every call except
// clSetKernelArg thread-safe; kernels are owned by one plan).
type Lib struct {
	handle uintptr
	Name   string // the library name that was opened

	getPlatformIDs, getPlatformInfo, getDeviceIDs, getDeviceInfo uintptr
	createContext, createCommandQueue, createBuffer              uintptr
	createProgramWithSource, buildProgram, getProgramBuildInfo   uintptr
	getProgramInfo, createProgramWithBinary                      uintptr
	enqueueMapBuffer, enqueueUnmapMemObject                      uintptr
	createKernel, setKernelArg, getKernelWorkGroupInfo           uintptr
	enqueueNDRangeKernel, enqueueWriteBuffer, enqueueReadBuffer  uintptr
	enqueueCopyBuffer, enqueueFillBuffer, finish, flush          uintptr
	waitForEvents, getEventProfilingInfo, releaseEvent           uintptr
	releaseMemObject, releaseKernel, releaseProgram              uintptr
	releaseCommandQueue, releaseContext                          uintptr
}

// Load opens the first library of names that loads (the platform's default
// names when names is empty) and resolves the entry points. The error wraps
// ErrNoLibrary and says why each name failed.
func Load(names ...string) (*Lib, error) {
	if len(names) == 0 {
		names = defaultLibraryNames()
	}
	var reasons []string
	for _, name := range names {
		h, err := openLibrary(name)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		l := &Lib{handle: h, Name: name}
		if err := l.resolve(); err != nil {
			closeLibrary(h)
			reasons = append(reasons, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		return l, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNoLibrary, strings.Join(reasons, "; "))
}

func (l *Lib) resolve() error {
	syms := []struct {
		dst  *uintptr
		name string
	}{
		{&l.getPlatformIDs, "clGetPlatformIDs"},
		{&l.getPlatformInfo, "clGetPlatformInfo"},
		{&l.getDeviceIDs, "clGetDeviceIDs"},
		{&l.getDeviceInfo, "clGetDeviceInfo"},
		{&l.createContext, "clCreateContext"},
		{&l.createCommandQueue, "clCreateCommandQueue"},
		{&l.createBuffer, "clCreateBuffer"},
		{&l.createProgramWithSource, "clCreateProgramWithSource"},
		{&l.buildProgram, "clBuildProgram"},
		{&l.getProgramBuildInfo, "clGetProgramBuildInfo"},
		{&l.getProgramInfo, "clGetProgramInfo"},
		{&l.createProgramWithBinary, "clCreateProgramWithBinary"},
		{&l.enqueueMapBuffer, "clEnqueueMapBuffer"},
		{&l.enqueueUnmapMemObject, "clEnqueueUnmapMemObject"},
		{&l.createKernel, "clCreateKernel"},
		{&l.setKernelArg, "clSetKernelArg"},
		{&l.getKernelWorkGroupInfo, "clGetKernelWorkGroupInfo"},
		{&l.enqueueNDRangeKernel, "clEnqueueNDRangeKernel"},
		{&l.enqueueWriteBuffer, "clEnqueueWriteBuffer"},
		{&l.enqueueReadBuffer, "clEnqueueReadBuffer"},
		{&l.enqueueCopyBuffer, "clEnqueueCopyBuffer"},
		{&l.enqueueFillBuffer, "clEnqueueFillBuffer"},
		{&l.finish, "clFinish"},
		{&l.flush, "clFlush"},
		{&l.waitForEvents, "clWaitForEvents"},
		{&l.getEventProfilingInfo, "clGetEventProfilingInfo"},
		{&l.releaseEvent, "clReleaseEvent"},
		{&l.releaseMemObject, "clReleaseMemObject"},
		{&l.releaseKernel, "clReleaseKernel"},
		{&l.releaseProgram, "clReleaseProgram"},
		{&l.releaseCommandQueue, "clReleaseCommandQueue"},
		{&l.releaseContext, "clReleaseContext"},
	}
	for _, s := range syms {
		p, err := lookup(l.handle, s.name)
		if err != nil || p == 0 {
			return fmt.Errorf("missing entry point %s", s.name)
		}
		*s.dst = p
	}
	return nil
}

// st and h take SyscallN's results as a CL status or a handle. Every pointer
// is converted to uintptr inside the SyscallN (or call) expression itself
// (unsafe.Pointer rule 4; both are go:uintptrescapes), never earlier.
func st(r, _, _ uintptr) int32 { return int32(r) }

func h(r, _, _ uintptr) uintptr { return r }

func check(name string, code int32) error {
	if code == Success {
		return nil
	}
	return &Error{Func: name, Code: code}
}

// Platform and device info parameter names (CL/cl.h).
const (
	platformName    = 0x0902
	platformVendor  = 0x0903
	platformVersion = 0x0901

	DeviceTypeDefault = 1 << 0
	DeviceTypeCPU     = 1 << 1
	DeviceTypeGPU     = 1 << 2
	DeviceTypeAccel   = 1 << 3
	DeviceTypeAll     = 0xFFFFFFFF

	deviceType             = 0x1000
	deviceMaxComputeUnits  = 0x1002
	deviceMaxWorkGroupSize = 0x1004
	deviceMaxClock         = 0x100C
	deviceGlobalMemSize    = 0x101F
	deviceLocalMemSize     = 0x1023
	deviceMaxMemAlloc      = 0x1010
	deviceName             = 0x102B
	deviceVendor           = 0x102C
	deviceVersion          = 0x102F
	driverVersion          = 0x102D
)

// Bounds on what a driver may report. Every count and size a driver returns
// is checked against these before anything is allocated by it, so a broken
// or hostile library (one reporting 2^32−1 platforms or a 2^63-byte name)
// yields an error, not an out-of-memory crash.
const (
	MaxPlatforms     = 64
	MaxDevices       = 256 // per platform
	MaxInfoBytes     = 64 << 10
	MaxBuildLogBytes = 16 << 20
	MaxBinaryBytes   = 256 << 20
)

// ErrBadDriver is what an implausible count or size from the driver wraps.
var ErrBadDriver = errors.New("implausible answer from the OpenCL driver")

func bound(name, what string, n, limit uint64) error {
	if n > limit {
		return fmt.Errorf("%s: %w: %d %s (at most %d accepted)", name, ErrBadDriver, n, what, limit)
	}
	return nil
}

// Platforms lists the installed platforms.
func (l *Lib) Platforms() ([]Platform, error) {
	var n uint32
	code := st(purego.SyscallN(l.getPlatformIDs, 0, 0, uintptr(unsafe.Pointer(&n))))
	if code == -1001 || (code == Success && n == 0) {
		return nil, nil // ICD loader with no vendor installed
	}
	if err := check("clGetPlatformIDs", code); err != nil {
		return nil, err
	}
	if err := bound("clGetPlatformIDs", "platforms", uint64(n), MaxPlatforms); err != nil {
		return nil, err
	}
	ps := make([]Platform, n)
	if err := check("clGetPlatformIDs", st(purego.SyscallN(l.getPlatformIDs, uintptr(n), uintptr(unsafe.Pointer(&ps[0])), 0))); err != nil {
		return nil, err
	}
	return ps, nil
}

// PlatformInfo holds the strings that identify a platform.
type PlatformInfo struct{ Name, Vendor, Version string }

// PlatformInfo reads a platform's name, vendor and version.
func (l *Lib) PlatformInfo(p Platform) (PlatformInfo, error) {
	var pi PlatformInfo
	for _, q := range []struct {
		param uintptr
		dst   *string
	}{{platformName, &pi.Name}, {platformVendor, &pi.Vendor}, {platformVersion, &pi.Version}} {
		s, err := l.infoString("clGetPlatformInfo", l.getPlatformInfo, uintptr(p), q.param)
		if err != nil {
			return pi, err
		}
		*q.dst = s
	}
	return pi, nil
}

// Devices lists a platform's devices of the given type mask. A platform with
// none returns an empty list, not an error.
func (l *Lib) Devices(p Platform, typ uint64) ([]Device, error) {
	var n uint32
	code := st(purego.SyscallN(l.getDeviceIDs, uintptr(p), uintptr(typ), 0, 0, uintptr(unsafe.Pointer(&n))))
	if code == DeviceNotFound || (code == Success && n == 0) {
		return nil, nil
	}
	if err := check("clGetDeviceIDs", code); err != nil {
		return nil, err
	}
	if err := bound("clGetDeviceIDs", "devices", uint64(n), MaxDevices); err != nil {
		return nil, err
	}
	ds := make([]Device, n)
	if err := check("clGetDeviceIDs", st(purego.SyscallN(l.getDeviceIDs, uintptr(p), uintptr(typ), uintptr(n), uintptr(unsafe.Pointer(&ds[0])), 0))); err != nil {
		return nil, err
	}
	return ds, nil
}

// DeviceInfo is what the engine needs to know about a device.
type DeviceInfo struct {
	Name, Vendor, Version, Driver string
	Type                          uint64 // DeviceType* bits
	ComputeUnits                  uint32
	ClockMHz                      uint32
	MaxWorkGroupSize              int
	LocalMemBytes                 int64
	GlobalMemBytes                int64
	MaxAllocBytes                 int64
}

// DeviceInfo reads a device's properties.
func (l *Lib) DeviceInfo(d Device) (DeviceInfo, error) {
	var di DeviceInfo
	var err error
	str := func(param uintptr, dst *string) {
		if err == nil {
			*dst, err = l.infoString("clGetDeviceInfo", l.getDeviceInfo, uintptr(d), param)
		}
	}
	num := func(param uintptr, dst unsafe.Pointer, size uintptr) {
		if err == nil {
			err = check("clGetDeviceInfo", st(purego.SyscallN(l.getDeviceInfo, uintptr(d), param, size, uintptr(dst), 0)))
		}
	}
	str(deviceName, &di.Name)
	str(deviceVendor, &di.Vendor)
	str(deviceVersion, &di.Version)
	str(driverVersion, &di.Driver)
	num(deviceType, unsafe.Pointer(&di.Type), 8)
	num(deviceMaxComputeUnits, unsafe.Pointer(&di.ComputeUnits), 4)
	num(deviceMaxClock, unsafe.Pointer(&di.ClockMHz), 4)
	var wg uintptr
	num(deviceMaxWorkGroupSize, unsafe.Pointer(&wg), unsafe.Sizeof(wg))
	di.MaxWorkGroupSize = int(wg)
	var u64 uint64
	num(deviceLocalMemSize, unsafe.Pointer(&u64), 8)
	di.LocalMemBytes = int64(u64)
	num(deviceGlobalMemSize, unsafe.Pointer(&u64), 8)
	di.GlobalMemBytes = int64(u64)
	num(deviceMaxMemAlloc, unsafe.Pointer(&u64), 8)
	di.MaxAllocBytes = int64(u64)
	di.Name = strings.TrimSpace(di.Name)
	return di, err
}

func (l *Lib) infoString(name string, fn, obj, param uintptr) (string, error) {
	var size uintptr
	if err := check(name, st(purego.SyscallN(fn, obj, param, 0, 0, uintptr(unsafe.Pointer(&size))))); err != nil {
		return "", err
	}
	if size == 0 {
		return "", nil
	}
	if err := bound(name, "bytes of info", uint64(size), MaxInfoBytes); err != nil {
		return "", err
	}
	buf := make([]byte, size)
	if err := check(name, st(purego.SyscallN(fn, obj, param, size, uintptr(unsafe.Pointer(&buf[0])), 0))); err != nil {
		return "", err
	}
	return cString(buf), nil
}

// cString is buf up to its first NUL (a driver's string need not end at
// the size it reported).
func cString(buf []byte) string {
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf)
}

// CreateContext makes a context holding one device.
func (l *Lib) CreateContext(d Device) (Context, error) {
	var code int32
	devs := [1]Device{d}
	c := Context(h(purego.SyscallN(l.createContext, 0, 1, uintptr(unsafe.Pointer(&devs[0])), 0, 0, uintptr(unsafe.Pointer(&code)))))
	return c, check("clCreateContext", code)
}

// QueueProfiling asks for event timestamps on a queue.
const QueueProfiling = 1 << 1

// CreateQueue makes an in-order command queue.
func (l *Lib) CreateQueue(c Context, d Device, props uint64) (Queue, error) {
	var code int32
	q := Queue(h(purego.SyscallN(l.createCommandQueue, uintptr(c), uintptr(d), uintptr(props), uintptr(unsafe.Pointer(&code)))))
	return q, check("clCreateCommandQueue", code)
}

// Buffer flags.
const (
	MemReadWrite    = 1 << 0
	MemWriteOnly    = 1 << 1
	MemReadOnly     = 1 << 2
	MemAllocHostPtr = 1 << 4 // pinned host memory the device can DMA from
	memCopyHostPtr  = 1 << 5 // CreateBufferFrom
)

// Map flags.
const (
	MapRead  = 1 << 0
	MapWrite = 1 << 1
)

// CreateBuffer allocates size bytes of device memory.
func (l *Lib) CreateBuffer(c Context, flags uint64, size int) (Mem, error) {
	var code int32
	m := Mem(h(purego.SyscallN(l.createBuffer, uintptr(c), uintptr(flags), uintptr(size), 0, uintptr(unsafe.Pointer(&code)))))
	return m, check("clCreateBuffer", code)
}

// CreateBufferFrom allocates size bytes of device memory holding the size
// bytes at src (CL_MEM_COPY_HOST_PTR): the contents are set within the
// call, with no command on any queue. Constant tables are made so. (A
// table uploaded by a blocking write once reached a kernel on PoCL 3.1
// as uninitialized memory: most likely the stack move described at Args,
// since fixed.)
func (l *Lib) CreateBufferFrom(c Context, flags uint64, size int, src unsafe.Pointer) (Mem, error) {
	var code int32
	m := Mem(h(purego.SyscallN(l.createBuffer, uintptr(c), uintptr(flags|memCopyHostPtr), uintptr(size), uintptr(src), uintptr(unsafe.Pointer(&code)))))
	return m, check("clCreateBuffer", code)
}

// BuildError is a program that failed to compile; Log is the compiler's output.
type BuildError struct {
	Err     error
	Options string
	Log     string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("%v (options %q):\n%s", e.Err, e.Options, strings.TrimSpace(e.Log))
}

func (e *BuildError) Unwrap() error { return e.Err }

// BuildProgram compiles OpenCL C sources (concatenated in order by the
// compiler) for one device. A compile failure returns a *BuildError carrying
// the build log; the program is released.
func (l *Lib) BuildProgram(c Context, d Device, options string, sources ...string) (Program, error) {
	var code int32
	// ptrs holds pointers, not uintptrs: the array escapes (it is passed to
	// SyscallN), and a heap object's pointers make what they point to heap
	// memory too, kept alive with it.
	ptrs := make([]*byte, len(sources))
	lens := make([]uintptr, len(sources))
	for i, src := range sources {
		ptrs[i] = &append([]byte(src), 0)[0]
		lens[i] = uintptr(len(src))
	}
	p := Program(h(purego.SyscallN(l.createProgramWithSource, uintptr(c), uintptr(len(sources)), uintptr(unsafe.Pointer(&ptrs[0])), uintptr(unsafe.Pointer(&lens[0])), uintptr(unsafe.Pointer(&code)))))
	if err := check("clCreateProgramWithSource", code); err != nil {
		return 0, err
	}
	opts := append([]byte(options), 0)
	devs := [1]Device{d}
	code = st(purego.SyscallN(l.buildProgram, uintptr(p), 1, uintptr(unsafe.Pointer(&devs[0])), uintptr(unsafe.Pointer(&opts[0])), 0, 0))
	if code != Success {
		log, _ := l.BuildLog(p, d)
		l.ReleaseProgram(p)
		return 0, &BuildError{Err: &Error{Func: "clBuildProgram", Code: code}, Options: options, Log: log}
	}
	return p, nil
}

// BuildLog returns the compiler output for a program on a device.
func (l *Lib) BuildLog(p Program, d Device) (string, error) {
	const programBuildLog = 0x1183
	var size uintptr
	if err := check("clGetProgramBuildInfo", st(purego.SyscallN(l.getProgramBuildInfo, uintptr(p), uintptr(d), programBuildLog, 0, 0, uintptr(unsafe.Pointer(&size))))); err != nil {
		return "", err
	}
	if size == 0 {
		return "", nil
	}
	if err := bound("clGetProgramBuildInfo", "bytes of build log", uint64(size), MaxBuildLogBytes); err != nil {
		return "", err
	}
	buf := make([]byte, size)
	err := check("clGetProgramBuildInfo", st(purego.SyscallN(l.getProgramBuildInfo, uintptr(p), uintptr(d), programBuildLog, size, uintptr(unsafe.Pointer(&buf[0])), 0)))
	return cString(buf), err
}

// Binary returns the device binary of a program built for one device (its
// CL_PROGRAM_BINARIES: NVIDIA's is PTX text, PoCL's its own container), for
// the program cache and as a tuning aid. A program built for more than one
// device, or a size beyond MaxBinaryBytes, is an error.
func (l *Lib) Binary(p Program) ([]byte, error) {
	const programNumDevices, programBinarySizes, programBinaries = 0x1162, 0x1165, 0x1166
	var ndev uint32
	if err := check("clGetProgramInfo", st(purego.SyscallN(l.getProgramInfo, uintptr(p), programNumDevices, 4, uintptr(unsafe.Pointer(&ndev)), 0))); err != nil {
		return nil, err
	}
	if ndev != 1 {
		return nil, fmt.Errorf("clGetProgramInfo: %w: program for %d devices (want 1)", ErrBadDriver, ndev)
	}
	var size uintptr
	if err := check("clGetProgramInfo", st(purego.SyscallN(l.getProgramInfo, uintptr(p), programBinarySizes, unsafe.Sizeof(size), uintptr(unsafe.Pointer(&size)), 0))); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, nil
	}
	if err := bound("clGetProgramInfo", "bytes of program binary", uint64(size), MaxBinaryBytes); err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	ptr := &buf[0]
	err := check("clGetProgramInfo", st(purego.SyscallN(l.getProgramInfo, uintptr(p), programBinaries, unsafe.Sizeof(ptr), uintptr(unsafe.Pointer(&ptr)), 0)))
	runtime.KeepAlive(buf)
	return buf, err
}

// BuildBinary creates a program from a device binary that Binary returned
// (for the same device and driver) and builds it. Any failure — the driver
// refusing the binary (CL_INVALID_BINARY) or its build failing — is an
// error, and the program is released: the caller builds from source then.
func (l *Lib) BuildBinary(c Context, d Device, options string, bin []byte) (Program, error) {
	if len(bin) == 0 {
		return 0, fmt.Errorf("clCreateProgramWithBinary: empty binary")
	}
	var code, status int32
	devs := [1]Device{d}
	size := uintptr(len(bin))
	ptr := &bin[0]
	p := Program(h(purego.SyscallN(l.createProgramWithBinary, uintptr(c), 1, uintptr(unsafe.Pointer(&devs[0])),
		uintptr(unsafe.Pointer(&size)), uintptr(unsafe.Pointer(&ptr)), uintptr(unsafe.Pointer(&status)), uintptr(unsafe.Pointer(&code)))))
	runtime.KeepAlive(bin)
	if err := check("clCreateProgramWithBinary", code); err != nil {
		l.ReleaseProgram(p)
		return 0, err
	}
	if err := check("clCreateProgramWithBinary", status); err != nil {
		l.ReleaseProgram(p)
		return 0, err
	}
	opts := append([]byte(options), 0)
	code = st(purego.SyscallN(l.buildProgram, uintptr(p), 1, uintptr(unsafe.Pointer(&devs[0])), uintptr(unsafe.Pointer(&opts[0])), 0, 0))
	if code != Success {
		log, _ := l.BuildLog(p, d)
		l.ReleaseProgram(p)
		return 0, &BuildError{Err: &Error{Func: "clBuildProgram", Code: code}, Options: options, Log: log}
	}
	return p, nil
}

// CreateKernel returns the named kernel of a built program.
func (l *Lib) CreateKernel(p Program, name string) (Kernel, error) {
	var code int32
	cname := append([]byte(name), 0)
	k := Kernel(h(purego.SyscallN(l.createKernel, uintptr(p), uintptr(unsafe.Pointer(&cname[0])), uintptr(unsafe.Pointer(&code)))))
	if err := check("clCreateKernel", code); err != nil {
		return 0, fmt.Errorf("kernel %s: %w", name, err)
	}
	return k, nil
}

// KernelMaxWorkGroupSize is the largest work-group the device runs k with.
func (l *Lib) KernelMaxWorkGroupSize(k Kernel, d Device) (int, error) {
	const kernelWorkGroupSize = 0x11B0
	var n uintptr
	err := check("clGetKernelWorkGroupInfo", st(purego.SyscallN(l.getKernelWorkGroupInfo, uintptr(k), uintptr(d), kernelWorkGroupSize, unsafe.Sizeof(n), uintptr(unsafe.Pointer(&n)), 0)))
	return int(n), err
}

// Args is argument storage for the calls on the hot path (SetArg, Enqueue,
// Write, Read, Finish, ...). SyscallN's variadic slice escapes to the heap,
// so building it per call would allocate; these calls fill a caller-owned
// Args instead (through call). One goroutine uses an Args at a time (a plan
// owns one). nil means "allocate one".
//
// The pointers these calls take may point to any Go memory, a variable on
// the caller's stack included: the calls convert them in call's argument
// list, which moves their targets to the heap. (Storing the uintptrs in
// Args before calling SyscallN, as these calls once did, left small tables
// on the goroutine's stack; when SyscallN's prologue grew the stack, the
// driver read or wrote the freed old one: stale uploads and band tables,
// issue 33. TestDriverSeesMovedStacks.)
type Args struct{ v [9]uintptr }

// call calls fn with the first n of a0…a8 and returns its result. Its
// pragma is what makes the hot path safe: for every argument written as
// uintptr(p) in a call of call, the compiler keeps *p on the heap and alive
// until call returns (unsafe.Pointer rule 4). A uintptr made before the
// call expression is no such argument.
//
//go:uintptrescapes
func call(a *Args, fn uintptr, n int, a0, a1, a2, a3, a4, a5, a6, a7, a8 uintptr) uintptr {
	a.v = [9]uintptr{a0, a1, a2, a3, a4, a5, a6, a7, a8}
	r, _, _ := purego.SyscallN(fn, a.v[:n]...)
	return r
}

// SetArg sets kernel argument i from size bytes at value. A nil value with a
// size declares __local memory.
func (l *Lib) SetArg(a *Args, k Kernel, i int, size uintptr, value unsafe.Pointer) error {
	if a == nil {
		a = new(Args)
	}
	return check("clSetKernelArg", int32(call(a, l.setKernelArg, 4, uintptr(k), uintptr(i), size, uintptr(value), 0, 0, 0, 0, 0)))
}

// Enqueue launches k over a 1-dimensional range of global work-items in
// groups of local. If ev is non-nil it receives the launch's event.
func (l *Lib) Enqueue(a *Args, q Queue, k Kernel, global, local *uintptr, ev *Event) error {
	if a == nil {
		a = new(Args)
	}
	return check("clEnqueueNDRangeKernel", int32(call(a, l.enqueueNDRangeKernel, 9, uintptr(q), uintptr(k), 1, 0,
		uintptr(unsafe.Pointer(global)), uintptr(unsafe.Pointer(local)), 0, 0, uintptr(unsafe.Pointer(ev)))))
}

// Write copies size bytes from host memory at src to m at offset. The
// plans write blocking, and a blocking write waits for its queue too (see
// below): a non-blocking upload read by an in-order queue should be
// equivalent, but it leaves the copy to the implementation's worker
// threads while Go memory is lent. A non-blocking Write lends src until
// the queue has finished with it (Finish), owned as WriteAsync's src is.
func (l *Lib) Write(a *Args, q Queue, m Mem, blocking bool, offset, size int, src unsafe.Pointer) error {
	if a == nil {
		a = new(Args)
	}
	err := check("clEnqueueWriteBuffer", int32(call(a, l.enqueueWriteBuffer, 9, uintptr(q), uintptr(m), boolArg(blocking),
		uintptr(offset), uintptr(size), uintptr(src), 0, 0, 0)))
	if err == nil && blocking {
		// Under load, a read right after a blocking write once returned
		// the old contents here (TestBlockingWriteIsSeen), first blamed on
		// PoCL; the test's table and its read's destination were on the
		// stack, so the stack move described at Args explains it. The
		// wait for the queue stays: it makes the write complete whatever
		// the implementation does, at a few µs per call.
		err = l.Finish(a, q)
	}
	return err
}

// Read copies size bytes from m at offset to host memory at dst, blocking
// until done (so every earlier command on the in-order queue has finished).
func (l *Lib) Read(a *Args, q Queue, m Mem, offset, size int, dst unsafe.Pointer) error {
	if a == nil {
		a = new(Args)
	}
	return check("clEnqueueReadBuffer", int32(call(a, l.enqueueReadBuffer, 9, uintptr(q), uintptr(m), 1,
		uintptr(offset), uintptr(size), uintptr(dst), 0, 0, 0)))
}

// Map maps size bytes of m (made with MemAllocHostPtr for pinned staging)
// into host memory, blocking until the mapping is ready, and returns it.
// The memory belongs to the implementation, not to Go: it stays valid until
// Unmap, and the caller must not touch it while a command reading it is in
// flight.
func (l *Lib) Map(q Queue, m Mem, flags uint64, offset, size int) ([]byte, error) {
	var code int32
	r, _, _ := purego.SyscallN(l.enqueueMapBuffer, uintptr(q), uintptr(m), 1, uintptr(flags), uintptr(offset), uintptr(size),
		0, 0, 0, uintptr(unsafe.Pointer(&code)))
	if err := check("clEnqueueMapBuffer", code); err != nil {
		return nil, err
	}
	if r == 0 {
		return nil, &Error{Func: "clEnqueueMapBuffer", Code: InvalidValue}
	}
	// r is C memory returned by the driver (not Go's heap); going through a
	// pointer to it keeps vet's uintptr rule intact.
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(&r))
	return unsafe.Slice((*byte)(ptr), size), nil
}

// Unmap releases a mapping Map returned and waits for the queue to finish
// with it.
func (l *Lib) Unmap(q Queue, m Mem, mapped []byte) error {
	if len(mapped) == 0 {
		return nil
	}
	if err := check("clEnqueueUnmapMemObject", st(purego.SyscallN(l.enqueueUnmapMemObject, uintptr(q), uintptr(m),
		uintptr(unsafe.Pointer(&mapped[0])), 0, 0, 0))); err != nil {
		return err
	}
	return l.Finish(nil, q)
}

// WriteAsync enqueues a non-blocking copy of size bytes from src to m at
// offset and returns its event in *ev. The copy runs after the call
// returns, so src must stay valid, in place and unchanged until Wait
// returns for *ev: memory the implementation owns (a mapped staging
// buffer, Map), or Go memory the caller has pinned with a runtime.Pinner
// and keeps pinned until then (the call itself only holds Go memory while
// it runs).
func (l *Lib) WriteAsync(a *Args, q Queue, m Mem, offset, size int, src unsafe.Pointer, ev *Event) error {
	if a == nil {
		a = new(Args)
	}
	return check("clEnqueueWriteBuffer", int32(call(a, l.enqueueWriteBuffer, 9, uintptr(q), uintptr(m), 0,
		uintptr(offset), uintptr(size), uintptr(src), 0, 0, uintptr(unsafe.Pointer(ev)))))
}

// ReadAsync enqueues a non-blocking copy of size bytes from m at offset to
// dst and returns its event in *ev. dst is owned as WriteAsync's src is,
// until Wait returns for *ev; only then may the caller read it.
func (l *Lib) ReadAsync(a *Args, q Queue, m Mem, offset, size int, dst unsafe.Pointer, ev *Event) error {
	if a == nil {
		a = new(Args)
	}
	return check("clEnqueueReadBuffer", int32(call(a, l.enqueueReadBuffer, 9, uintptr(q), uintptr(m), 0,
		uintptr(offset), uintptr(size), uintptr(dst), 0, 0, uintptr(unsafe.Pointer(ev)))))
}

// Wait blocks until the command behind *ev has completed, then releases
// the event and sets *ev to zero. A zero event returns at once.
func (l *Lib) Wait(a *Args, ev *Event) error {
	if *ev == 0 {
		return nil
	}
	if a == nil {
		a = new(Args)
	}
	err := check("clWaitForEvents", int32(call(a, l.waitForEvents, 2, 1, uintptr(unsafe.Pointer(ev)), 0, 0, 0, 0, 0, 0, 0)))
	call(a, l.releaseEvent, 1, uintptr(*ev), 0, 0, 0, 0, 0, 0, 0, 0) // a release error leaves nothing to do
	*ev = 0
	return err
}

// Copy enqueues a device-side copy of size bytes.
func (l *Lib) Copy(q Queue, src, dst Mem, srcOffset, dstOffset, size int, ev *Event) error {
	return check("clEnqueueCopyBuffer", st(purego.SyscallN(l.enqueueCopyBuffer, uintptr(q), uintptr(src), uintptr(dst),
		uintptr(srcOffset), uintptr(dstOffset), uintptr(size), 0, 0, uintptr(unsafe.Pointer(ev)))))
}

// Fill sets size bytes of m from offset to zero.
func (l *Lib) Zero(q Queue, m Mem, offset, size int) error {
	var zero [4]byte
	return check("clEnqueueFillBuffer", st(purego.SyscallN(l.enqueueFillBuffer, uintptr(q), uintptr(m), uintptr(unsafe.Pointer(&zero[0])), 4,
		uintptr(offset), uintptr(size), 0, 0, 0)))
}

// Finish blocks until every command on q has completed.
func (l *Lib) Finish(a *Args, q Queue) error {
	if a == nil {
		a = new(Args)
	}
	return check("clFinish", int32(call(a, l.finish, 1, uintptr(q), 0, 0, 0, 0, 0, 0, 0, 0)))
}

// Flush submits the queued commands to the device without waiting.
func (l *Lib) Flush(a *Args, q Queue) error {
	if a == nil {
		a = new(Args)
	}
	return check("clFlush", int32(call(a, l.flush, 1, uintptr(q), 0, 0, 0, 0, 0, 0, 0, 0)))
}

// EventNanos returns the device time in nanoseconds between the start and end
// of a command on a profiling queue, and releases the event.
func (l *Lib) EventNanos(ev Event) (int64, error) {
	defer func() { purego.SyscallN(l.releaseEvent, uintptr(ev)) }() // after the wait and the reads (a deferred call's arguments are evaluated at once)
	evs := [1]Event{ev}
	if err := check("clWaitForEvents", st(purego.SyscallN(l.waitForEvents, 1, uintptr(unsafe.Pointer(&evs[0]))))); err != nil {
		return 0, err
	}
	const profStart, profEnd = 0x1282, 0x1283
	var t0, t1 uint64
	if err := check("clGetEventProfilingInfo", st(purego.SyscallN(l.getEventProfilingInfo, uintptr(ev), profStart, 8, uintptr(unsafe.Pointer(&t0)), 0))); err != nil {
		return 0, err
	}
	if err := check("clGetEventProfilingInfo", st(purego.SyscallN(l.getEventProfilingInfo, uintptr(ev), profEnd, 8, uintptr(unsafe.Pointer(&t1)), 0))); err != nil {
		return 0, err
	}
	return int64(t1 - t0), nil
}

// Release functions ignore zero handles, so cleanup code can call them on
// whatever was created before a failure.
func (l *Lib) ReleaseMem(m Mem) {
	if m != 0 {
		purego.SyscallN(l.releaseMemObject, uintptr(m)) // a release error leaves nothing to do
	}
}

func (l *Lib) ReleaseKernel(k Kernel) {
	if k != 0 {
		purego.SyscallN(l.releaseKernel, uintptr(k)) // a release error leaves nothing to do
	}
}

func (l *Lib) ReleaseProgram(p Program) {
	if p != 0 {
		purego.SyscallN(l.releaseProgram, uintptr(p)) // a release error leaves nothing to do
	}
}

func (l *Lib) ReleaseQueue(q Queue) {
	if q != 0 {
		purego.SyscallN(l.releaseCommandQueue, uintptr(q)) // a release error leaves nothing to do
	}
}

func (l *Lib) ReleaseContext(c Context) {
	if c != 0 {
		purego.SyscallN(l.releaseContext, uintptr(c)) // a release error leaves nothing to do
	}
}

func boolArg(b bool) uintptr {
	if b {
		return 1
	}
	return 0
}
