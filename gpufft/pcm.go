package gpufft

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unsafe"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/internal/pages"
	"github.com/prismaudio/prism/kernels"
)

// PCMEncoding is the sample format of raw little-endian PCM.
type PCMEncoding int

// The encodings a PCM plan reads, as WAV files store them.
const (
	PCMInt16   PCMEncoding = 1 // signed 16-bit, scaled by 1/2^15
	PCMInt24   PCMEncoding = 2 // signed 24-bit packed in 3 bytes, scaled by 1/2^23
	PCMInt32   PCMEncoding = 3 // signed 32-bit, scaled by 1/2^31
	PCMFloat32 PCMEncoding = 4 // IEEE float, as it is
)

// Bytes is the size of one sample.
func (e PCMEncoding) Bytes() int {
	switch e {
	case PCMInt16:
		return 2
	case PCMInt24:
		return 3
	case PCMInt32, PCMFloat32:
		return 4
	}
	return 0
}

func (e PCMEncoding) String() string {
	switch e {
	case PCMInt16:
		return "int16"
	case PCMInt24:
		return "int24"
	case PCMInt32:
		return "int32"
	case PCMFloat32:
		return "float32"
	}
	return fmt.Sprintf("pcm(%d)", int(e))
}

// Channel selections of PCMFormat.Select besides a channel index.
const (
	PCMMix = -1 // one plane: the mean of the channels
	PCMAll = -2 // one plane per channel
)

// PCMFormat describes raw interleaved PCM and what a plan makes of it.
type PCMFormat struct {
	Encoding PCMEncoding
	Channels int // interleaved channels, 1…1024
	// Select is PCMMix (the mean: channels summed in order in float32,
	// then times float32(1/Channels), exactly as Prism's host pipeline
	// mixes), PCMAll, or a 0-based channel index.
	Select int
}

// FrameBytes is the size of one sample frame (one sample of each channel).
func (f PCMFormat) FrameBytes() int { return f.Encoding.Bytes() * f.Channels }

// Planes is the number of planar channels the conversion writes: Channels
// for PCMAll, else 1. A PCM plan's SpectrogramConfig.Channels must equal it.
func (f PCMFormat) Planes() int {
	if f.Select == PCMAll {
		return f.Channels
	}
	return 1
}

func (f PCMFormat) check(cfg SpectrogramConfig) error {
	switch {
	case f.Encoding.Bytes() == 0:
		return fmt.Errorf("%w: PCM encoding %d", ErrInvalid, int(f.Encoding))
	case f.Channels < 1 || f.Channels > 1024:
		return fmt.Errorf("%w: PCM of %d channels (want 1…1024)", ErrInvalid, f.Channels)
	case f.Select < PCMAll || f.Select >= f.Channels:
		return fmt.Errorf("%w: PCM channel selection %d of %d channels", ErrInvalid, f.Select, f.Channels)
	case cfg.Output == PowerSum:
		return fmt.Errorf("%w: PCM plans take no %v output", ErrInvalid, cfg.Output)
	case cfg.Channels != f.Planes():
		return fmt.Errorf("%w: spectrogram of %d channels fed %d PCM planes", ErrInvalid, cfg.Channels, f.Planes())
	case int64(cfg.MaxSamples)*int64(f.FrameBytes()) > math.MaxInt32:
		return fmt.Errorf("%w: MaxSamples %d × %d bytes is too large for one call", ErrInvalid, cfg.MaxSamples, f.FrameBytes())
	}
	return nil
}

// pcmFrames returns the sample frames in raw and panics if raw does not
// hold whole frames or more than max.
func (f PCMFormat) pcmFrames(raw []byte, max int) int {
	fb := f.FrameBytes()
	n := len(raw) / fb
	if n*fb != len(raw) || n > max {
		panic(fmt.Sprintf("gpufft: PCM: len(raw) %d is not at most %d frames of %d bytes", len(raw), max, fb))
	}
	return n
}

// ConvertPCM writes the planar float32 samples of raw (whole sample frames
// of f) into dst, plane p at dst[p·L:], L = len(raw)/f.FrameBytes(), and
// returns L. The values equal Prism's host decoder's (audio/wav.go) bit for
// bit, and the mix equals its mixing. It panics if raw does not hold whole
// frames or dst is shorter than f.Planes()·L.
func ConvertPCM(dst []float32, raw []byte, f PCMFormat) int {
	n := f.pcmFrames(raw, math.MaxInt)
	if len(dst) < f.Planes()*n {
		panic(fmt.Sprintf("gpufft: ConvertPCM: len(dst) %d < %d", len(dst), f.Planes()*n))
	}
	convertPCM(dst, raw, f, n, 0, n)
	return n
}

// convertPCM converts sample frames [lo, hi) of n. The mix is summed frame
// by frame (s = c0 + c1 + …, then s·(1/ch)): the same float32 operations
// in the same order as the host pipeline's per-frame sum, in one pass over
// the bytes, with the encoding's loop chosen once per block.
func convertPCM(dst []float32, raw []byte, f PCMFormat, n, lo, hi int) {
	switch {
	case f.Select >= 0:
		decodeChannel(dst[lo:hi], raw, f, lo, f.Select)
	case f.Select == PCMAll:
		for c := range f.Channels {
			decodeChannel(dst[c*n+lo:c*n+hi], raw, f, lo, c)
		}
	default:
		mixFrames(dst[lo:hi], raw, f, lo)
	}
}

// decodeChannel writes channel c of sample frames first… of raw into dst,
// converted as audio/wav.go converts. Each encoding's conversion is one
// small function inlined into the loop (a closure per sample cost a third
// of the CPU engine's conversion).
func decodeChannel(dst []float32, raw []byte, f PCMFormat, first, c int) {
	bps := f.Encoding.Bytes()
	stride := f.Channels * bps
	raw = raw[first*stride+c*bps:]
	switch f.Encoding {
	case PCMInt16:
		decodeLoop(dst, raw, stride, int16Sample)
	case PCMInt24:
		decodeLoop(dst, raw, stride, int24Sample)
	case PCMInt32:
		decodeLoop(dst, raw, stride, int32Sample)
	default:
		decodeLoop(dst, raw, stride, float32Sample)
	}
}

// decodeLoop converts len(dst) samples stride bytes apart in raw with conv.
func decodeLoop(dst []float32, raw []byte, stride int, conv func([]byte) float32) {
	for i := range dst {
		dst[i] = conv(raw[i*stride:])
	}
}

// mixFrames writes the mean of the channels of sample frames first… of raw
// into dst (see convertPCM). Stereo int16, the commonest file, has a loop
// of its own that reads each frame as one word.
func mixFrames(dst []float32, raw []byte, f PCMFormat, first int) {
	ch, bps := f.Channels, f.Encoding.Bytes()
	raw = raw[first*ch*bps:]
	switch f.Encoding {
	case PCMInt16:
		if ch == 2 {
			mixInt16Stereo(dst, raw)
			return
		}
		mixLoop(dst, raw, ch, bps, int16Sample)
	case PCMInt24:
		mixLoop(dst, raw, ch, bps, int24Sample)
	case PCMInt32:
		mixLoop(dst, raw, ch, bps, int32Sample)
	default:
		mixLoop(dst, raw, ch, bps, float32Sample)
	}
}

// mixLoop sums the ch channels of each of len(dst) frames with conv and
// scales the sum by 1/ch (not at all for one channel).
func mixLoop(dst []float32, raw []byte, ch, bps int, conv func([]byte) float32) {
	stride := ch * bps
	raw = raw[:len(dst)*stride]
	inv := 1 / float32(ch)
	for i := range dst {
		fr := raw[i*stride : (i+1)*stride]
		s := conv(fr)
		for c := 1; c < ch; c++ {
			s += conv(fr[c*bps:])
		}
		if ch > 1 {
			s *= inv
		}
		dst[i] = s
	}
}

// mixInt16Stereo is mixLoop for two int16 channels.
func mixInt16Stereo(dst []float32, raw []byte) {
	raw = raw[:4*len(dst)]
	for i := range dst {
		w := binary.LittleEndian.Uint32(raw[4*i:])
		l := float32(int16(w)) / (1 << 15)
		r := float32(int16(w>>16)) / (1 << 15)
		dst[i] = (l + r) * 0.5
	}
}

// The conversions of one sample at b[0:], as audio/wav.go's.
func int16Sample(b []byte) float32 { return float32(int16(binary.LittleEndian.Uint16(b))) / (1 << 15) }

func int24Sample(b []byte) float32 {
	return float32(int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24)>>8) / (1 << 23)
}

func int32Sample(b []byte) float32 {
	return float32(float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31))
}

// float32Sample reads a NaN or ±Inf sample as +0, as every decoder does
// (package audio's rule for non-finite samples), so that no engine's
// spectrum turns into NaN.
func float32Sample(b []byte) float32 {
	u := binary.LittleEndian.Uint32(b)
	if u&0x7f800000 == 0x7f800000 {
		return 0
	}
	return math.Float32frombits(u)
}

// PCMSpectrogramPlan is a SpectrogramPlan fed raw PCM: the conversion
// (scaling, channel selection or mix) runs on the engine, on the GPU next
// to the FFTs, so only the raw bytes cross to the device.
type PCMSpectrogramPlan interface {
	Config() SpectrogramConfig
	Format() PCMFormat
	// Staging returns a buffer of MaxSamples·FrameBytes bytes to read raw
	// PCM into: pinned host memory on the GPU (its upload is a DMA), plain
	// memory elsewhere. Pass a prefix of it to Execute (any other []byte
	// works too, through an ordinary copy).
	Staging() ([]byte, error)
	// Execute analyzes raw (L = len(raw)/FrameBytes whole sample frames,
	// L ≤ MaxSamples) as SpectrogramPlan.Execute analyzes the planar
	// samples ConvertPCM makes of it, with the same dst layout, and returns
	// the frame count. It does not allocate, and panics where Execute would.
	Execute(dst []float32, raw []byte) (frames int, err error)
	// Submit queues the analysis of raw (as Execute) and returns its frame
	// count without waiting for it; Rows returns the output. Two batches
	// may be in flight (submitted, not yet returned by Rows): while the
	// device analyzes one and sends its output back, the caller writes the
	// previous one's rows and reads the next raw batch. A third Submit
	// panics.
	Submit(raw []byte) (frames int, err error)
	// Rows waits for the oldest batch in flight and returns its output
	// (Execute's dst layout, DstLen of its samples) in memory the plan
	// owns, valid until the next Submit; pinned host memory on the GPU.
	// With nothing in flight it returns nil, 0.
	Rows() (rows []float32, frames int, err error)
	Close() error
}

// PCMImagePlan is an ImagePlan fed raw PCM (see PCMSpectrogramPlan). On
// the GPU, Add with a staging buffer returns once the batch is queued:
// while the device uploads, converts, transforms and folds it, the caller
// reads the next batch into the other staging buffer. Only the image
// comes back, by Image.
type PCMImagePlan interface {
	Config() SpectrogramConfig
	Format() PCMFormat
	// Staging returns the staging buffer for the next Add (two alternate;
	// see PCMSpectrogramPlan.Staging). It waits until the device has
	// finished reading that buffer's previous batch.
	Staging() ([]byte, error)
	// Add analyzes raw (whole sample frames, at most MaxSamples) as
	// ImagePlan.Add analyzes ConvertPCM's planes of it, numbering frames
	// from firstFrame, and returns the frame count. A device error of an
	// Add still in flight is returned by a later Add or by Image.
	Add(raw []byte, firstFrame int) (frames int, err error)
	// Image waits for every batch and copies the image into dst, as
	// ImagePlan.Image does.
	Image(dst []float32) error
	// Reset empties the image, so the plan, its buffers and its staging
	// can analyze another file of the same shape (a batch of files reuses
	// plans instead of making new ones). Call it after Image.
	Reset() error
	Close() error
}

// NewPCMSpectrogram makes a spectrogram plan fed raw PCM of format f on
// engine e (the conversion on the device for the OpenCL engine, on the
// host otherwise). cfg.Channels must be f.Planes().
func NewPCMSpectrogram(e Engine, f PCMFormat, cfg SpectrogramConfig) (PCMSpectrogramPlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := f.check(cfg); err != nil {
		return nil, err
	}
	if g, ok := e.(*OpenCL); ok {
		g, own, err := g.planQueue()
		if err != nil {
			return nil, err
		}
		g.prebuild(pcmProgram(f)) // beside the spectrogram's
		sp, err := g.NewSpectrogram(cfg)
		if err != nil {
			own.close()
			return nil, err
		}
		p := &gpuPCM{f: f, cfg: cfg, sp: sp.(*gpuSpectrogram), own: own}
		if err := p.init(); err != nil {
			p.Close()
			return nil, err
		}
		return gpuPCMSpectrogram{p}, nil
	}
	sp, err := e.NewSpectrogram(cfg)
	if err != nil {
		return nil, err
	}
	return hostPCMSpectrogram{&hostPCM{f: f, cfg: cfg, sp: sp, cpu: cpuOf(e), buf: pages.Make[float32](cfg.Channels * cfg.MaxSamples)}}, nil
}

// NewPCMImage makes an image plan fed raw PCM of format f on engine e
// (see NewPCMSpectrogram and ImagePlan).
func NewPCMImage(e Engine, f PCMFormat, cfg SpectrogramConfig, ic ImageConfig) (PCMImagePlan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := f.check(cfg); err != nil {
		return nil, err
	}
	if g, ok := e.(*OpenCL); ok {
		g, own, err := g.planQueue()
		if err != nil {
			return nil, err
		}
		g.prebuild(pcmProgram(f)) // beside the spectrogram's and the image's
		ip, err := g.NewImage(cfg, ic)
		if err != nil {
			own.close()
			return nil, err
		}
		img := ip.(*gpuImage)
		p := &gpuPCM{f: f, cfg: cfg, sp: img.sp, img: img, own: own}
		if err := p.init(); err != nil {
			p.Close()
			return nil, err
		}
		return gpuPCMImage{p}, nil
	}
	ip, err := e.NewImage(cfg, ic)
	if err != nil {
		return nil, err
	}
	return hostPCMImage{&hostPCM{f: f, cfg: cfg, img: ip, cpu: cpuOf(e), buf: pages.Make[float32](cfg.Channels * cfg.MaxSamples)}}, nil
}

// planQueues says whether each PCM plan on e gets an in-order queue of its
// own (withQueue): on a GPU. A CPU device (PoCL) runs every queue on the
// host's cores anyway, and one PoCL (its "cpu" driver, 32 cores) aborted
// at exit in 2 of about 10 batches of 20 files with a queue per file (an
// assertion in pocl_release_dlhandle_cache; one queue was not tried
// there), so there the plans share the engine's queue, as before.
// Tuning.PlanQueue forces either on every device (to measure, and to test
// on PoCL).
func (e *OpenCL) planQueues() bool { return e.tuning.PlanQueue.or(e.info.Type != "CPU") }

// planQueue returns the engine a PCM plan is made on: e on a queue of its
// own (own, which the plan closes after itself), or e itself (own nil).
func (e *OpenCL) planQueue() (g *OpenCL, own *OpenCL, err error) {
	if !e.planQueues() {
		return e, nil, nil
	}
	own, err = e.withQueue()
	if err != nil {
		return nil, nil, err
	}
	return own, own, nil
}

// close closes a plan's own queue (nil: none).
func (e *OpenCL) close() {
	if e != nil {
		e.Close()
	}
}

func cpuOf(e Engine) *CPU {
	c, _ := e.(*CPU)
	return c
}

// ---- host conversion (CPU engine, or any other Engine)

type hostPCM struct {
	f     PCMFormat
	cfg   SpectrogramConfig
	sp    SpectrogramPlan // one of sp, img
	img   ImagePlan
	cpu   *CPU // nil: convert on the calling goroutine
	buf   []float32
	stage []byte
	queue rowQueue
	// the conversion being split across the CPU engine's workers
	raw []byte
	n   int
	wg  sync.WaitGroup
}

func (p *hostPCM) Config() SpectrogramConfig { return p.cfg }
func (p *hostPCM) Format() PCMFormat         { return p.f }

// Staging returns one buffer: a host plan is done with raw when Add or
// Execute returns.
func (p *hostPCM) Staging() ([]byte, error) {
	if p.stage == nil {
		p.stage = pages.Make[byte](p.cfg.MaxSamples * p.f.FrameBytes())
	}
	return p.stage, nil
}

// run converts frames [lo, hi) (a CPU engine worker's share), a block
// at a time, so that the mix's passes over the block stay in the cache.
func (p *hostPCM) run(_, lo, hi int) {
	const block = 4096
	for b := lo; b < hi; b += block {
		convertPCM(p.buf, p.raw, p.f, p.n, b, min(b+block, hi))
	}
}

func (p *hostPCM) convert(raw []byte) ([]float32, error) {
	n := p.f.pcmFrames(raw, p.cfg.MaxSamples)
	p.raw, p.n = raw, n
	defer func() { p.raw = nil }()
	if p.cpu != nil {
		if err := p.cpu.parallel(p, n, &p.wg); err != nil {
			return nil, err
		}
	} else {
		p.run(0, 0, n)
	}
	return p.buf[:p.f.Planes()*n], nil
}

// The plan types: the spectrogram and image sides of a host or GPU PCM
// plan, so each satisfies only its own interface.
type (
	hostPCMSpectrogram struct{ *hostPCM }
	hostPCMImage       struct{ *hostPCM }
	gpuPCMSpectrogram  struct{ *gpuPCM }
	gpuPCMImage        struct{ *gpuPCM }
)

func (p hostPCMSpectrogram) Submit(raw []byte) (int, error) {
	q := &p.queue
	if q.count == len(q.frames) {
		panic("gpufft: PCM Submit with two batches in flight (call Rows)")
	}
	slot := (q.head + q.count) % len(q.frames)
	if q.out[slot] == nil {
		q.out[slot] = make([]float32, p.cfg.DstLen(p.cfg.MaxSamples))
	}
	n := p.f.pcmFrames(raw, p.cfg.MaxSamples)
	frames, err := p.Execute(q.out[slot], raw)
	if err != nil || frames == 0 {
		return frames, err
	}
	q.frames[slot], q.samples[slot] = frames, n
	q.count++
	return frames, nil
}

func (p hostPCMSpectrogram) Rows() ([]float32, int, error) {
	q := &p.queue
	if q.count == 0 {
		return nil, 0, nil
	}
	slot := q.head
	q.head, q.count = (q.head+1)%len(q.frames), q.count-1
	return q.out[slot][:p.cfg.DstLen(q.samples[slot])], q.frames[slot], nil
}

// rowQueue is the two batches a spectrogram plan has in flight: slot
// head is the oldest.
type rowQueue struct {
	out             [2][]float32
	frames, samples [2]int
	head, count     int
}

func (p hostPCMSpectrogram) Execute(dst []float32, raw []byte) (int, error) {
	src, err := p.convert(raw)
	if err != nil {
		return 0, err
	}
	return p.sp.Execute(dst, src)
}

func (p hostPCMImage) Add(raw []byte, firstFrame int) (int, error) {
	src, err := p.convert(raw)
	if err != nil {
		return 0, err
	}
	return p.img.Add(src, firstFrame)
}

func (p hostPCMImage) Image(dst []float32) error { return p.img.Image(dst) }

// power is the image of gained power (MergeImages).
func (p hostPCMImage) power(dst []float32) error {
	if pw, ok := p.img.(interface{ power([]float32) error }); ok {
		return pw.power(dst)
	}
	return fmt.Errorf("%w: %T has no power image", ErrInvalid, p.img)
}

func (p hostPCMImage) Reset() error {
	if r, ok := p.img.(interface{ reset() error }); ok {
		return r.reset()
	}
	return fmt.Errorf("%w: %T cannot be reset", ErrInvalid, p.img)
}

func (p *hostPCM) Close() error {
	if p.sp != nil {
		return p.sp.Close()
	}
	return p.img.Close()
}

// ---- OpenCL

// gpuPCM feeds a GPU spectrogram or image plan from raw PCM: raw bytes go
// to a device buffer (from pinned staging by DMA, or from Go memory by a
// blocking copy), pcm_planar writes the plan's planar input buffer, and
// the plan's kernels run on it.
type gpuPCM struct {
	f    PCMFormat
	cfg  SpectrogramConfig // as the caller made the plan (an image's spectrogram outputs gained power)
	sp   *gpuSpectrogram
	own  *OpenCL   // the plan's own queue (sp.e), closed after the plan; nil: the engine's
	img  *gpuImage // nil for a spectrogram plan
	raw  cl.Mem    // device copy of one batch of raw PCM
	conv launch
	args cl.Args

	// pinned staging: two buffers made on first use, mapped for their
	// whole life; ev is the upload last read from each (0 when none)
	stage  [2]staging
	next   int
	closed bool

	// spectrogram plans: pinned output buffers for Submit/Rows, one per
	// batch in flight, with the event of the download into each
	outStage [2]staging
	queue    rowQueue
}

type staging struct {
	mem  cl.Mem
	host []byte
	ev   cl.Event
}

func (p *gpuPCM) init() error {
	b := &p.sp.gpuBase
	var err error
	if p.raw, err = b.buffer(p.sp.cfg.MaxSamples * p.f.FrameBytes()); err != nil {
		return err
	}
	inv := 1 / float32(p.f.Channels)
	prog := pcmProgram(p.f)
	k, err := b.kernel(prog.source, prog.defines, kernels.PCMPlanar.Kernel, p.raw, p.sp.in, int64(0), inv)
	if err != nil {
		return err
	}
	p.conv = launch{k: k, wg: 256, perUnit: 1, intArg: -1, intMul: 1, longArg: kernels.PCMPlanar.Frames}
	return nil
}

// pcmProgram is the program of pcm_planar for format f.
func pcmProgram(f PCMFormat) progSpec {
	return progSpec{kernels.PCM, append(geom{len: 64, radix: 2, s: 1}.defines(), "ENCODING="+strconv.Itoa(int(f.Encoding)),
		"CHANNELS="+strconv.Itoa(f.Channels), "PICK="+strconv.Itoa(f.Select))}
}

func (p *gpuPCM) Config() SpectrogramConfig { return p.cfg }
func (p *gpuPCM) Format() PCMFormat         { return p.f }

func (p *gpuPCM) Staging() ([]byte, error) {
	if p.closed {
		return nil, ErrClosed
	}
	e := p.sp.e
	s := &p.stage[p.next]
	if s.mem == 0 {
		m, err := e.lib.CreateBuffer(e.ctx, cl.MemReadOnly|cl.MemAllocHostPtr, p.stagingSize())
		if err != nil {
			return nil, errGPU("staging buffer", err)
		}
		s.mem = m
	}
	if err := e.lib.Wait(&p.args, &s.ev); err != nil {
		return nil, errGPU("upload", err)
	}
	if s.host == nil {
		host, err := e.lib.Map(e.queue, s.mem, cl.MapWrite, 0, p.stagingSize())
		if err != nil {
			return nil, errGPU("map staging buffer", err)
		}
		s.host = host
	}
	return s.host, nil
}

func (p *gpuPCM) stagingSize() int { return p.sp.cfg.MaxSamples * p.f.FrameBytes() }

// upload puts raw into the device's raw buffer and enqueues its conversion
// into the plan's input buffer, returning the sample frames. A staging
// buffer is uploaded without waiting (its event is kept; Staging waits on
// it), other memory by a blocking copy.
func (p *gpuPCM) upload(raw []byte) (int, error) {
	n := p.f.pcmFrames(raw, p.sp.cfg.MaxSamples)
	if p.closed {
		return 0, ErrClosed
	}
	if n == 0 {
		return 0, nil
	}
	e := p.sp.e
	src := unsafe.Pointer(&raw[0])
	var err error
	if i := p.stagingOf(src); i >= 0 {
		s := &p.stage[i]
		// (an unmap and a device-side copy from the staging buffer instead
		// took the same time on the H200: 0.813 s for a batch of 20 files
		// against 0.820 s)
		if err = e.lib.Wait(&p.args, &s.ev); err == nil {
			err = e.lib.WriteAsync(&p.args, e.queue, p.raw, 0, len(raw), src, &s.ev)
		}
		p.next = 1 - i
	} else {
		err = e.lib.Write(&p.args, e.queue, p.raw, true, 0, len(raw), src)
	}
	if err != nil {
		return 0, errGPU("upload", err)
	}
	p.conv.longVal = int64(n)
	if err := p.conv.enqueue(e, n); err != nil {
		e.lib.Finish(&p.args, e.queue)
		return 0, errGPU("convert", err)
	}
	return n, nil
}

// stagingOf returns the index of the staging buffer raw starts, or −1.
func (p *gpuPCM) stagingOf(ptr unsafe.Pointer) int {
	for i := range p.stage {
		if h := p.stage[i].host; len(h) > 0 && unsafe.Pointer(&h[0]) == ptr {
			return i
		}
	}
	return -1
}

func (p gpuPCMSpectrogram) Execute(dst []float32, raw []byte) (int, error) {
	n := p.f.pcmFrames(raw, p.sp.cfg.MaxSamples)
	frames := p.sp.cfg.Frames(n)
	if need := p.sp.cfg.DstLen(n); len(dst) < need {
		panic(fmt.Sprintf("gpufft: spectrogram: len(dst) %d < %d", len(dst), need))
	}
	if frames == 0 {
		return 0, nil
	}
	if _, err := p.upload(raw); err != nil {
		return 0, err
	}
	if err := p.sp.resident(n, frames); err != nil {
		return 0, err
	}
	e := p.sp.e
	if err := e.lib.Read(&p.args, e.queue, p.sp.out, 0, 4*p.sp.cfg.DstLen(n), unsafe.Pointer(&dst[0])); err != nil {
		return 0, errGPU("download", err)
	}
	return frames, nil
}

func (p gpuPCMSpectrogram) Submit(raw []byte) (int, error) {
	q := &p.queue
	if q.count == len(q.frames) {
		panic("gpufft: PCM Submit with two batches in flight (call Rows)")
	}
	n := p.f.pcmFrames(raw, p.sp.cfg.MaxSamples)
	frames := p.sp.cfg.Frames(n)
	if frames == 0 {
		return 0, nil
	}
	e := p.sp.e
	slot := (q.head + q.count) % len(q.frames)
	out := &p.outStage[slot]
	if out.host == nil {
		size := 4 * p.sp.cfg.DstLen(p.sp.cfg.MaxSamples)
		m, err := e.lib.CreateBuffer(e.ctx, cl.MemWriteOnly|cl.MemAllocHostPtr, size)
		if err != nil {
			return 0, errGPU("output staging buffer", err)
		}
		host, err := e.lib.Map(e.queue, m, cl.MapRead|cl.MapWrite, 0, size)
		if err != nil {
			e.lib.ReleaseMem(m)
			return 0, errGPU("map output staging buffer", err)
		}
		out.mem, out.host = m, host
		q.out[slot] = unsafe.Slice((*float32)(unsafe.Pointer(&host[0])), size/4)
	}
	if _, err := p.upload(raw); err != nil {
		return 0, err
	}
	if err := p.sp.resident(n, frames); err != nil {
		return 0, err
	}
	if err := e.lib.ReadAsync(&p.args, e.queue, p.sp.out, 0, 4*p.sp.cfg.DstLen(n), unsafe.Pointer(&out.host[0]), &out.ev); err != nil {
		e.lib.Finish(&p.args, e.queue)
		return 0, errGPU("download", err)
	}
	if err := e.lib.Flush(&p.args, e.queue); err != nil {
		return 0, errGPU("flush", err)
	}
	q.frames[slot], q.samples[slot] = frames, n
	q.count++
	return frames, nil
}

func (p gpuPCMSpectrogram) Rows() ([]float32, int, error) {
	q := &p.queue
	if q.count == 0 {
		return nil, 0, nil
	}
	slot := q.head
	q.head, q.count = (q.head+1)%len(q.frames), q.count-1
	if err := p.sp.e.lib.Wait(&p.args, &p.outStage[slot].ev); err != nil {
		return nil, 0, errGPU("download", err)
	}
	return q.out[slot][:p.sp.cfg.DstLen(q.samples[slot])], q.frames[slot], nil
}

func (p gpuPCMImage) Add(raw []byte, firstFrame int) (int, error) {
	n := p.f.pcmFrames(raw, p.sp.cfg.MaxSamples)
	frames := p.sp.cfg.Frames(n)
	if frames == 0 {
		return 0, nil
	}
	if _, err := p.upload(raw); err != nil {
		return 0, err
	}
	if err := p.img.fold(n, frames, firstFrame); err != nil {
		return 0, err
	}
	if err := p.sp.e.lib.Flush(&p.args, p.sp.e.queue); err != nil {
		return 0, errGPU("flush", err)
	}
	return frames, nil
}

func (p gpuPCMImage) Image(dst []float32) error {
	if p.closed {
		return ErrClosed
	}
	if err := p.sp.e.lib.Finish(&p.args, p.sp.e.queue); err != nil {
		return errGPU("finish", err)
	}
	return p.img.Image(dst)
}

// power waits for every batch and downloads the image of gained power
// (MergeImages).
func (p gpuPCMImage) power(dst []float32) error {
	if p.closed {
		return ErrClosed
	}
	if err := p.sp.e.lib.Finish(&p.args, p.sp.e.queue); err != nil {
		return errGPU("finish", err)
	}
	return p.img.power(dst)
}

func (p gpuPCMImage) Reset() error {
	if p.closed {
		return ErrClosed
	}
	return p.img.reset()
}

// Close waits for the transfers in flight, unmaps and frees the staging
// buffers, then closes the plan under it. Calling it twice is harmless.
func (p *gpuPCM) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	e := p.sp.e
	if e.alive() != nil { // the engine released everything with its context: nothing is left to unmap
		return nil
	}
	if p.own != nil { // nothing queued may outlive what it uses
		e.lib.Finish(&p.args, e.queue)
	}
	for _, s := range []*staging{&p.stage[0], &p.stage[1], &p.outStage[0], &p.outStage[1]} {
		e.lib.Wait(&p.args, &s.ev) // a transfer error no longer matters
		if s.host != nil {
			e.lib.Unmap(e.queue, s.mem, s.host) // nothing to do about an unmap error: the buffer is released next
		}
		e.lib.ReleaseMem(s.mem)
		*s = staging{}
	}
	defer p.own.close()
	if p.img != nil {
		return p.img.Close()
	}
	return p.sp.Close()
}
