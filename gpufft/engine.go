package gpufft

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/window"
)

// Size limits of the contract, for both engines: every plan takes a power
// of two from MinSize to MaxSize points (CheckSize). Sizes above one
// work-group's transform run as two passes over device memory on the GPU.
const (
	MinSize = 32
	MaxSize = 1 << 20
)

// Errors. Compare with errors.Is / errors.As.
var (
	// ErrNoOpenCL: no OpenCL library or no platform could be loaded.
	ErrNoOpenCL = errors.New("gpufft: no OpenCL")
	// ErrNoDevice: OpenCL is there but no (matching) device is.
	ErrNoDevice = errors.New("gpufft: no OpenCL device")
	// ErrInvalid: a plan's parameters break the contract.
	ErrInvalid = errors.New("gpufft: invalid plan parameters")
	// ErrClosed: the plan or engine was closed.
	ErrClosed = errors.New("gpufft: use of closed plan or engine")
)

// BuildError is a kernel that failed to compile; its Log field holds the
// OpenCL compiler's build log.
type BuildError = cl.BuildError

// CLError is a failed OpenCL call; Error() names the status, e.g.
// "clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES".
type CLError = cl.Error

// Output selects what a spectrogram plan writes for each bin.
type Output int

const (
	// DBFS: 20·log10(|X_k|·c_k/Σw) as float32, c_k = 2 for 0 < k < N/2 and
	// 1 at k = 0 and k = N/2, floored at FloorDB, capped at CeilDB. A full-scale sine at a
	// bin centre reads 0 dBFS with every window.
	DBFS Output = iota
	// Power: |X_k|² as float32, unscaled.
	Power
	// Complex: X_k as interleaved float32 (re, im), unscaled.
	Complex

	// gainedPower is |X_k|²·(c_k/Σw)², whose 10·log10 is the dBFS level:
	// image plans take maxima on it and convert only the final pixels
	// (the maximum commutes with the monotonic dB map).
	gainedPower Output = 3

	// PowerSum: per output channel, the sum over the Execute's frames of
	// each bin's |X_k|² (unscaled, BinGain applied), as float32: dst holds
	// OutChannels×Bins values, dst[c·Bins + k], whatever the frame count
	// (a Welch average's numerator summed on the engine, so only Bins
	// values per channel leave it; see powersum.go for how each engine
	// sums). An Execute of no frame writes zeros.
	PowerSum Output = 4
)

// FloorDB is the lowest level a DBFS spectrogram reports.
const FloorDB = -200

// CeilDB is the highest level a DBFS output reports: 10·log10(2^128), the
// level of a power at float32's overflow. Both engines report it for a
// power that overflows float32 or is NaN, as a frame holding a NaN, an
// infinite or a huge (about 1e19 or more) sample gives: such a frame reads
// as overload, never as silence or NaN (TestNonFiniteSamplesAgree). An
// image pixel whose maximum is +Inf reads it too; Power and Complex
// outputs pass IEEE values through unchanged.
const CeilDB = 385.3183944498959

func (o Output) String() string {
	switch o {
	case DBFS:
		return "dBFS"
	case Power:
		return "power"
	case Complex:
		return "complex"
	case PowerSum:
		return "power sum"
	}
	return fmt.Sprintf("output(%d)", int(o))
}

// Engine makes plans. Plans are immutable: a different size or batch is a
// new plan. An Engine and its plans are closed by the caller; closing the
// engine with plans still open is a contract violation the engine tolerates
// by closing them too.
type Engine interface {
	// Name is "cpu" or "opencl".
	Name() string
	// Device describes where plans run, e.g. "NVIDIA H100 (NVIDIA CUDA)".
	Device() string
	// NewComplex makes a batched complex-to-complex plan of Size points for
	// up to batch transforms per call.
	NewComplex(size, batch int) (ComplexPlan, error)
	// NewReal makes a batched real-input plan (R2C forward, C2R inverse).
	NewReal(size, batch int) (RealPlan, error)
	// NewSpectrogram makes a fused spectrogram plan.
	NewSpectrogram(cfg SpectrogramConfig) (SpectrogramPlan, error)
	// NewImage makes a spectrogram plan that folds its frames into an
	// image on the engine (see ImagePlan).
	NewImage(cfg SpectrogramConfig, img ImageConfig) (ImagePlan, error)
	// NewConvolver makes an FFT-convolution plan for a fixed FIR (see
	// ConvolvePlan) with FFT size size and up to batch blocks per call.
	NewConvolver(taps []float32, size, batch int) (ConvolvePlan, error)
	// NewLive makes a live analyzer plan: the spectrogram with averages,
	// holds, band sums and columns kept on the engine (see LivePlan).
	NewLive(cfg LiveConfig) (LivePlan, error)
	// NewSpectralKernel makes a plan that applies a sparse spectral
	// kernel to the FFTs of frames (see SpectralKernelPlan): the
	// FFT-based variable-Q transform.
	NewSpectralKernel(cfg SpectralKernelConfig) (SpectralKernelPlan, error)
	// Close releases the engine. Calling it twice is harmless.
	Close() error
}

// ComplexPlan is a batched C2C transform. Forward and Inverse take
// n = len(src)/Size transforms (1 ≤ n ≤ Batch) laid out one after another;
// dst must have len(src). The inverse is normalised by 1/Size, so
// Inverse(Forward(x)) = x. They do not allocate, and panic if the lengths
// break this contract. Only one goroutine may use a plan at a time.
type ComplexPlan interface {
	Size() int
	Batch() int
	Forward(dst, src []complex64) error
	Inverse(dst, src []complex64) error
	Close() error
}

// RealPlan is a batched real transform of Size (even) points. Forward takes
// n = len(src)/Size real frames and writes n×(Size/2+1) bins to dst;
// Inverse takes n×(Size/2+1) bins and writes n×Size samples, normalised by
// 1/Size (Inverse(Forward(x)) = x; the imaginary parts of bins 0 and Size/2
// are taken as zero). Same rules as ComplexPlan.
type RealPlan interface {
	Size() int
	Batch() int
	Forward(dst []complex64, src []float32) error
	Inverse(dst []float32, src []complex64) error
	Close() error
}

// SpectrogramConfig describes a fused spectrogram plan: frames of Size
// samples, Hop apart, windowed, transformed and written as Output.
type SpectrogramConfig struct {
	Size       int         // N: frame length, a power of two, MinSize..MaxSize
	Hop        int         // H: 1 ≤ H ≤ N
	Window     window.Func // applied on load
	Channels   int         // planar input channels, ≥ 1
	Mix        bool        // one output: the mean of all channels; else one per channel
	MaxSamples int         // most samples per channel passed to one Execute, ≥ Size
	Output     Output
	// BinGain, if set, multiplies each bin's power by BinGain[k] (N/2+1
	// values ≥ 0) before the output is formed: a band filter's response
	// applied on the device after the FFT, so the displayed spectrum shows
	// the filtered signal. Not for Complex output.
	BinGain []float32
}

// Frames is the number of frames in a buffer of samples per channel:
// ⌊(samples−N)/H⌋+1, or 0 when samples < N.
func (c SpectrogramConfig) Frames(samples int) int {
	if samples < c.Size {
		return 0
	}
	return (samples-c.Size)/c.Hop + 1
}

// Bins is N/2+1.
func (c SpectrogramConfig) Bins() int { return c.Size/2 + 1 }

// OutChannels is 1 for a mix, else Channels.
func (c SpectrogramConfig) OutChannels() int {
	if c.Mix {
		return 1
	}
	return c.Channels
}

// ValuesPerBin is 2 for Complex output, else 1.
func (c SpectrogramConfig) ValuesPerBin() int {
	if c.Output == Complex {
		return 2
	}
	return 1
}

// DstLen is the length dst needs for a buffer of samples per channel
// (OutChannels×Bins for PowerSum, whatever samples is).
func (c SpectrogramConfig) DstLen(samples int) int {
	if c.Output == PowerSum {
		return c.OutChannels() * c.Bins()
	}
	return c.rowsLen(samples)
}

// rowsLen is the length of the frames' rows an engine computes for a
// buffer of samples per channel: OutChannels×frames×Bins×ValuesPerBin.
func (c SpectrogramConfig) rowsLen(samples int) int {
	return c.OutChannels() * c.Frames(samples) * c.Bins() * c.ValuesPerBin()
}

// SpectrogramPlan runs a SpectrogramConfig. Execute reads src as Channels
// planar blocks of L = len(src)/Channels samples each (L ≤ MaxSamples) and
// writes, for output channel c and frame i (covering samples [i·H, i·H+N) of
// each block, no padding), the bins 0…N/2 at
// dst[((c·frames + i)·Bins + k)·ValuesPerBin]. It returns the frame count.
// It does not allocate, and panics if len(src) is not a multiple of
// Channels, L > MaxSamples or dst is shorter than DstLen(L). Only one
// goroutine may use a plan at a time.
type SpectrogramPlan interface {
	Config() SpectrogramConfig
	Execute(dst, src []float32) (frames int, err error)
	Close() error
}

// CheckSize returns nil if every plan accepts size points (a power of two
// in MinSize…MaxSize), else an error wrapping ErrInvalid that says so. It is
// the one size rule of the package, for callers to check flags and settings
// against.
func CheckSize(size int) error {
	if size < MinSize || size > MaxSize || bits.OnesCount(uint(size)) != 1 {
		return fmt.Errorf("%w: size %d (want a power of two in %d…%d)", ErrInvalid, size, MinSize, MaxSize)
	}
	return nil
}

func checkPlan(size, batch int) error {
	if err := CheckSize(size); err != nil {
		return err
	}
	if batch < 1 || batch > math.MaxInt32/size {
		return fmt.Errorf("%w: batch %d (want 1…%d for size %d)", ErrInvalid, batch, math.MaxInt32/size, size)
	}
	return nil
}

func (c SpectrogramConfig) check() error {
	if err := CheckSize(c.Size); err != nil {
		return err
	}
	switch {
	case c.Hop < 1 || c.Hop > c.Size:
		return fmt.Errorf("%w: hop %d (want 1…%d)", ErrInvalid, c.Hop, c.Size)
	case c.Channels < 1 || c.Channels > 1024:
		return fmt.Errorf("%w: %d channels (want 1…1024)", ErrInvalid, c.Channels)
	case c.MaxSamples < c.Size:
		return fmt.Errorf("%w: MaxSamples %d is less than one frame (%d)", ErrInvalid, c.MaxSamples, c.Size)
	case int64(c.MaxSamples)*int64(c.Channels) > math.MaxInt32 || int64(c.rowsLen(c.MaxSamples)) > math.MaxInt32:
		return fmt.Errorf("%w: MaxSamples %d × %d channels is too large for one call", ErrInvalid, c.MaxSamples, c.Channels)
	case !c.Window.Valid():
		return fmt.Errorf("%w: window %v", ErrInvalid, c.Window)
	case c.Output < DBFS || c.Output > PowerSum:
		return fmt.Errorf("%w: output %v", ErrInvalid, c.Output)
	case c.BinGain != nil && (len(c.BinGain) != c.Bins() || c.Output == Complex):
		return fmt.Errorf("%w: BinGain needs %d values and a power or dBFS output", ErrInvalid, c.Bins())
	}
	for _, g := range c.BinGain {
		if !(g >= 0) || math.IsInf(float64(g), 0) {
			return fmt.Errorf("%w: BinGain value %v", ErrInvalid, g)
		}
	}
	return nil
}

// transforms returns n = len/size and panics unless 1 ≤ n ≤ batch and
// len = n·size.
func transforms(length, size, batch int, what string) int {
	n := length / size
	if n*size != length || n < 1 || n > batch {
		panic(fmt.Sprintf("gpufft: %s: length %d is not 1…%d transforms of %d", what, length, batch, size))
	}
	return n
}

// spectrogramCall validates an Execute call and returns L and the frame count.
func (c SpectrogramConfig) spectrogramCall(dst, src []float32) (samples, frames int) {
	return c.spectrogramCallLen(dst, len(src))
}

// int16Call is spectrogramCall for ExecuteInt16, which takes plans of one
// channel only.
func (c SpectrogramConfig) int16Call(dst []float32, src []int16) (samples, frames int) {
	if c.Channels != 1 {
		panic(fmt.Sprintf("gpufft: ExecuteInt16 on a plan of %d channels", c.Channels))
	}
	return c.spectrogramCallLen(dst, len(src))
}

// spectrogramCallLen is spectrogramCall for a source of n values.
func (c SpectrogramConfig) spectrogramCallLen(dst []float32, n int) (samples, frames int) {
	samples = n / c.Channels
	if samples*c.Channels != n || samples > c.MaxSamples {
		panic(fmt.Sprintf("gpufft: spectrogram: len(src) %d is not %d channels of at most %d samples", n, c.Channels, c.MaxSamples))
	}
	if need := c.DstLen(samples); len(dst) < need {
		panic(fmt.Sprintf("gpufft: spectrogram: len(dst) %d < %d", len(dst), need))
	}
	return samples, c.Frames(samples)
}

// windowTable returns the window as float32 and 1/Σw (from the float64 sum).
func windowTable(w window.Func, n int) ([]float32, float32) {
	v := w.Values(n)
	out := make([]float32, n)
	sum := 0.0
	for i, x := range v {
		out[i] = float32(x)
		sum += x
	}
	return out, float32(1 / sum)
}

// twiddles returns W_n^i = exp(-2πi·i/n) for i in [0, n), rounded once from
// float64. Symmetry keeps every entry exact to half an ulp: the angle is
// reduced to the first octant before calling Sincos.
func twiddles(n int) []complex64 {
	t := make([]complex64, n)
	for i := range t {
		s, c := sincos2pi(i, n)
		t[i] = complex(float32(c), float32(-s))
	}
	return t
}

// sincos2pi returns sin and cos of 2π·i/n in float64. For n divisible by 4
// the angle is first reduced to a quadrant (and for n divisible by 8 to
// [0, π/4] by octant symmetry), so entries are exact at multiples of π/2
// and mirror each other exactly.
func sincos2pi(i, n int) (s, c float64) {
	i = (i%n + n) % n
	if n%4 != 0 {
		return math.Sincos(2 * math.Pi * float64(i) / float64(n))
	}
	q, j := i/(n/4), i%(n/4) // quadrant, and θ = 2πj/n in [0, π/2)
	var sj, cj float64
	if n%8 != 0 || 2*j <= n/4 {
		sj, cj = math.Sincos(2 * math.Pi * float64(j) / float64(n))
	} else {
		cj, sj = math.Sincos(2 * math.Pi * float64(n/4-j) / float64(n))
	}
	switch q {
	case 0:
		return sj, cj
	case 1:
		return cj, -sj
	case 2:
		return -sj, -cj
	}
	return -cj, sj
}

// Auto returns the OpenCL engine on the selected device (see
// OpenCLOptions.Device) when one opens, else a CPU engine together with the
// reason OpenCL is not used (nil when it is).
func Auto(device string, cpuWorkers int) (Engine, error) {
	return autoWith(OpenCLOptions{Device: device}, cpuWorkers)
}

func autoWith(opts OpenCLOptions, cpuWorkers int) (Engine, error) {
	g, err := NewOpenCL(opts)
	if err == nil {
		return g, nil
	}
	return NewCPU(cpuWorkers), err
}
