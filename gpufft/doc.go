// Package gpufft is Prism's FFT engine: batched FFTs, the fused
// spectrogram (with optional per-bin power gains applied after the FFT, for
// band display), spectrogram images reduced on the engine, FFT
// convolution (overlap-save, the spectrum multiply on the device) and the
// live analyzer's post-processing (averages, holds, band sums, columns),
// on the GPU through OpenCL and on the CPU in Go, behind one contract
// (Engine, ComplexPlan, RealPlan, SpectrogramPlan, ImagePlan, ConvolvePlan,
// LivePlan) with the
// same output from both, checked against float64 references in the tests.
//
// It knows nothing about audio devices, files or the UI: callers hand it
// float32 samples and get spectra back. Plans own their device buffers,
// twiddle tables and scratch, all sized when the plan is made; Execute,
// Forward and Inverse write into buffers the caller owns and allocate
// nothing. A plan is used by one goroutine at a time; plans may be used
// from several goroutines at once (on OpenCL, the live plans of one engine
// take turns: see openclShared.live), and a plan's Close waits for the
// work it queued.
//
// # GPU (OpenCL)
//
// Kernels live in package kernels and are compiled per plan with -D defines
// (size, radix, stage plan, sequences per work-group). Transforms of up to
// 8192 complex points (16384 real) run one work-group per transform: each
// work-item holds RADIX values in registers, stages are Stockham auto-sort
// radix-8/16/32 butterflies (the radix chosen per length) exchanging
// through local memory (padded structure-of-arrays; one float component at
// a time where local memory is short; for 16384 complex points (32768
// real) on a GPU, half of one component at a time, so they too take one
// pass), global loads and stores are
// coalesced, and twiddles come from
// per-stage tables laid out so a warp reads consecutive entries. Real
// transforms are half-length complex ones plus the split post-processing.
// Larger sizes, up to MaxSize, run the four-step (hierarchical) path: two
// passes over device memory of √N-point transforms, S sequences per group
// so strided accesses fill whole transactions: pass 1's work-items go
// slot-fastest, reading and writing straight from registers, pass 2's
// stores are staged through local memory; the twiddle multiply is folded
// into pass 1's stores. Real transforms
// and spectrograms cost the same two passes: pass 1 reads the real input
// (or, for the spectrogram, the frames straight from the sample buffer,
// windowed on load; for C2R, the half spectrum packed on load), and pass 2
// pairs each sequence with its mirror in one group so the real split and
// the dB output happen as it stores. The single-pass spectrogram plan reads
// frames straight from the sample buffer, windows on load, and writes dBFS
// in one launch.
//
// Tuning aids, read when the engine opens (for `prism bench` on new
// hardware): PRISM_OPENCL_RADIX (4, 8, 16, 32), PRISM_OPENCL_PASS_RADIX (8,
// 16, 32: four-step passes below 1024 points), PRISM_OPENCL_GROUP (items a
// group aims for), PRISM_OPENCL_SINGLE_MAX (largest single-pass size),
// PRISM_OPENCL_HALVES_MAX (largest complex one in halves; 0: none),
// PRISM_OPENCL_FPG (spectrogram frames per group), PRISM_OPENCL_SLOTFAST
// (0: four-step pass 1 staged through local memory), PRISM_OPENCL_PERSIST
// (C2C, R2C and C2R kernels in that many groups per compute unit, each
// looping over transforms; 0: none; by default only R2C 16384 on a GPU
// with PRISM_OPENCL_R2C_HALVES=0 loops, in one), PRISM_OPENCL_R2C_HALVES
// (1: R2C kernels that keep one component in local memory exchange in
// halves instead, the default for 8192 complex points on GPUs; 0: never;
// r2cGeom),
// PRISM_OPENCL_TUNE (extra
// kernel defines), PRISM_OPENCL_OPTIONS (compiler options, e.g.
// -cl-nv-verbose; NVIDIA's compiler on the H200 takes
// -cl-nv-maxrregcount=N but ignores it and refuses "-cl-nv-maxrregcount
// N"; PRISM_OPENCL_TUNE=NV_MAXNREG=N caps registers instead, by
// rebuilding a program's PTX with .maxnreg N, and NV_MINCTAS=K asks for K
// resident groups per multiprocessor by .minnctapersm K: ptxcap.go),
// PRISM_OPENCL_STAGE_ST and PRISM_OPENCL_STHINT (0/1: how single-pass
// kernels store, see storeDefines), PRISM_OPENCL_P2REV and
// PRISM_OPENCL_P1ST (0/1: the four-step passes' order and stores, see
// passDefines), PRISM_OPENCL_SMALL_A (1: complex four-step plans with the
// smaller second pass), PRISM_OPENCL_BUILDLOG (print
// every build log) and
// PRISM_OPENCL_DUMP (a directory for the device binaries: PTX on NVIDIA).
//
// The OpenCL library is loaded at run time (internal/cl, purego), so the
// binary runs where none is installed: NewOpenCL then returns an error
// wrapping ErrNoOpenCL and Auto falls back to the CPU engine.
// $PRISM_OPENCL_LIBRARY names another library to load. Every count and
// size a driver returns (platforms, devices, info strings, build logs,
// binaries) is bounded before anything is allocated by it, so a broken
// driver is an error, not an out-of-memory crash; for a driver that
// crashes outright, WriteProbe and ReadProbe run the same opening in a
// child process and report how it died.
//
// # Start-up
//
// NewOpenCL asks the driver only what it needs: for the default device
// (the first GPU) or an index it counts device handles per platform and
// reads the properties of the chosen device alone. Nothing is compiled
// until a plan needs it, and each plan builds only its own programs,
// requesting them together (prebuild): programs of different keys build
// at once, outside the engine's lock, and a second request for a program
// being built waits for that build (an image plan's three programs from
// source, H200, `prism analyze` with an empty program cache: 0.803–0.818
// s for the whole process against 0.828–0.858 s one after another;
// later 0.737–0.785 s, where --timings showed the three programs compiled
// in 25–30 ms, NVIDIA's compute cache holding them, while opening the
// engine took 572–585 ms against 230–241 with a warm cache: a new cache
// directory also lacks the probe's record, probememo.go, so most of such
// a run is the child's second OpenCL start-up and its teardown). A
// built program is kept on disk (program cache, progcache.go) as the
// device binary clGetProgramInfo returns, under
// os.UserCacheDir()/prism/opencl ($PRISM_OPENCL_CACHE moves it; "off"
// disables it; on PoCL, which caches builds itself and pays a second
// compile to hand out a binary, it is used only when that variable names
// a directory), keyed by platform, device, driver version, sources and
// build options and checked by SHA-256; a damaged or refused entry is
// rebuilt, an unwritable directory only costs the saving. (Writing a new
// entry off the plan's path, on a goroutine, was measured and not kept:
// H200, empty cache, medians of 9 round-robin, 0.737 s against 0.742.)
// Programs build
// with -w unless a build log is asked for (OpenCLOptions.BuildLog or
// $PRISM_OPENCL_BUILDLOG), so no compiler chatter reaches the terminal.
// OpenCL.Stats reports where start-up time went.
//
// Measured with the test binary's start-up report (PRISM_STARTUP_REPORT=1:
// a fresh process opens the engine and makes and runs the image plan of
// `prism analyze` for a 10-minute file at N=4096, hop 1024, 1920×1080;
// three programs), medians of three processes, in ms:
//
//	step                           H200, NVIDIA 5xx   PoCL, 2-core dev box
//	library load                   0.14               0.7–2.5
//	platform + device query        123                210–290 (loads LLVM)
//	context + queue                100–120 ¹          6–20
//	3 programs, from source        385–585 ²          3900–8100
//	3 programs, from our cache     2.6–3.1 ³          21–72
//	first batch (4 M samples)      14                 1600–3900 ⁴
//	whole process, warm cache      380                2200–3400
//
// ¹ 1130–1280 with NVIDIA's own JIT cache off (CUDA_CACHE_DISABLE=1).
// ² NVIDIA's compute cache (~/.nv/ComputeCache) also keeps programs built
// from source: once it holds them, a source build costs 10 ms, and our
// cache saves 7 ms of it; it is worth most where that cache is cold, off
// or shared by many kernels (130–140 ms from our PTX with it off, 385–585
// from source). ³ Loading PTX and finishing the build. ⁴ PoCL compiles
// each kernel once more at its first launch with a new work-group size
// (its own cache, ~/.cache/pocl, keeps that), and runs the FFTs on the
// two shared cores. Closing the engine on NVIDIA takes 57–70 ms more,
// nearly all of it clReleaseContext, and the process's exit after it
// another 56–68 ms as its parent sees it (`prism analyze` of a 10-minute
// file, H200, the --timings exit line against the parent's clock);
// leaving everything to the exit (CloseForExit) saves 10–30 ms of that
// (the exit then takes 113–148 ms: the same teardown, moved); it happens
// when the process's last descriptor of the driver's device files closes,
// so with $PRISM_EXIT_HOLD=1 `prism analyze` hands those to a child that
// outlives it briefly and its caller sees the exit 0.8 ms after the last
// output (package cli: holdDevices; not the default: runs back to back get
// slower, 0.677 s against 0.627). A process that only starts takes 3 ms.
// So about 290 ms of a warm NVIDIA run is the driver's fixed cost (query,
// context, teardown): a caller hides the first two by opening the engine
// on its own goroutine while it opens and reads the input; the third is
// only moved, by the hand-off.
//
// The driver's floor alone, nothing of Prism's (the test binary's
// PRISM_STARTUP_REPORT=floor: clGetPlatformIDs, clGetDeviceIDs,
// clCreateContext, clReleaseContext in a fresh process), H200, driver
// 580.159, warm: platforms 117–128 ms, devices 7 ms, context 107–110 ms,
// release 53–61 ms, 288–303 ms in all, 0.346–0.354 s for the whole
// process (the first process after the machine starts: 0.90 s). The same
// from a process that is not Prism's (Python's ctypes on libOpenCL.so.1:
// platforms, the first GPU, a context and a queue, then exit), medians of
// 5 as the parent sees them: 0.429 s, of which Python's own start and
// exit 0.059 s; `prism devices` 0.203 s; Prism's whole `prism analyze`
// of a 10-minute file to PNG 0.425 s (H200, driver 580.159). A single
// file in 0.25 s is out of reach through NVIDIA's OpenCL.
// # Live plans
//
// NewLive makes the real-time analyzer's plan (LivePlan): each batch's
// spectrogram, then, chained on the engine without a round trip, per
// output channel and bin, frame by frame in order, the latest spectrum,
// the exponential, linear (ring of the last K frames and a running sum)
// and long-term (power mean since the plan was made) averages, the peak
// hold with hold time and decay and the min hold; the RTA's band mean
// squares (a bins→bands matrix with its weights, the caller's
// dsp.BandAccumulator shares, summed in float64) averaged like the
// exponential average; and the waterfall's columns, the per-bin maximum
// of every frame each column covers on the caller's grid (ColumnGrid:
// plot.ColumnFrames's rule), converted to dBFS by PowerDB's rule. On the
// GPU this is kernels/post.cl (live_update: one work-item per channel and
// bin, state in registers through the batch's frames; live_bands: a
// work-group per channel and band); on the CPU the same arithmetic on the
// engine's workers, bin ranges per channel. Only the band levels and the
// completed columns cross back every batch, and the traces when the
// caller asks (Live asks every 15 ms, a display's rate: at 192 kHz × 8,
// N=65536 that is 7 MB 66 times a second instead of 12 GB/s of spectra).
//
// H200, `prism capture --generator pink:-20 --rate 192000 --channels 8
// --fft 65536 --hop 16 --seconds 60` (12,000 frames/s per channel, 9
// output channels with the mix, PNG output): the GPU engine analyzed all
// 715,905 frames, 0 input dropped, latency p50 1.95 ms, p99 4.38 ms, max
// 6.07 ms, 60 frames and 0.77 ms per batch; the CPU engine (16 cores)
// 69,461 of them (9.7 %, 1,141 frames/s). BenchmarkLive (120 frames of
// that setting a batch, traces read back): 2.96 ms, 40,600 frames/s per
// channel, 3.4× real time.
//
// # Raw PCM
//
// NewPCMSpectrogram and NewPCMImage take raw interleaved PCM (int16,
// packed int24, int32, float32) and convert, select or mix channels on
// the engine (kernels/pcm.cl on the GPU), equal bit for bit to the host
// decoder and mix (ConvertPCM is the host form). On the GPU only the raw
// bytes cross the bus, from pinned staging buffers (CL_MEM_ALLOC_HOST_PTR,
// mapped) uploaded asynchronously: an image plan's Add returns once the
// batch is queued, and the caller reads the next batch into the other
// staging buffer while the device works; a spectrogram plan's Submit and
// Rows keep two batches in flight, their dB rows coming back by DMA into
// pinned memory while the caller writes the previous batch's. ReadPCMImage
// and ReadPCMRows run those loops over an io.Reader (a WAV's data chunk):
// reading into staging, carrying the N−H overlap, checking a context
// before each batch. ReadPCMImages spreads one stream over image plans on
// several engines (one per GPU), batch i on plan i mod K, and MergeImages
// takes the maximum of their powers before the one dB conversion: the
// image one plan makes, bit for bit where the devices compute the same per
// frame (tested on two PoCL contexts; a 60-minute file's PNG on two H200s
// equals one's byte for byte). A PCM image plan's Reset empties it for
// another file of its shape, so a batch of files reuses plans, device
// buffers and pinned staging. On a GPU each PCM plan enqueues on an
// in-order queue of its own (sharing the engine's context and programs;
// on a CPU device they share the engine's, see planQueues): files in
// flight neither wait behind one another's uploads nor for one another in
// Image's finish (a batch of 20 10-minute files on the H200: 0.91 s
// against 1.04 s on the engine's one queue in one call, 0.69 s against
// 0.72 s in another; $PRISM_OPENCL_PLAN_QUEUE=0 shares it).
//
// What bounds a batch of files is the host, not the device, on the H200
// machine (the test binary's PRISM_STARTUP_REPORT=transfer): uploads from
// pinned staging run at 50 GB/s on one queue (the same on 2 or 4 at once:
// the 2.3 GB of a batch of 20 10-minute files take 46 ms), from pageable
// memory at 11.7 GB/s; making and mapping a pinned buffer costs 13 ms per
// 16 MiB (so the raw path's batches are small), its first touch 0.15 ms;
// copying into pinned memory runs at 4.4 GB/s on one goroutine and 23 on
// eight, about what reading a cached file does (dd: 3.0 GB/s alone, 24
// GB/s for 20 files at once).
//
// The CPU engine's image plan computes and folds each column's frames
// together on one worker (the columns split over the workers): a frame's
// powers stay in the cache, the maximum kept inside the real-FFT split,
// where the spectrogram's whole batch of rows (34 MB at N=4096, hop 1024)
// went through memory before.
//
// BenchmarkFile: a 10-minute 48 kHz stereo int16 file held in memory
// (the copy into staging stands in for the read), N=4096, hop 1024, the
// mix, on the H200 machine (16 cores), ms per file, two runs:
//
//	                               GPU, raw PCM   GPU, host float   CPU, raw PCM   CPU, host float
//	1920×1080 image                25.6, 45.2     122, 222          94, 108        218, 256
//	every dB row back (NPY/CSV)    43.7           177               156            292
//
// "host float" is today's path: the host converts and mixes on one
// goroutine and the engine gets float32 (GPU: a pageable upload, and for
// rows a blocking pageable download per batch); "raw PCM" converts on the
// engine (the CPU engine spreads it over its workers).
//
// From a file (the test binary's PRISM_PCM_FILE mode: ReadPCMImage of the
// data chunk of a 10-minute 48 kHz stereo int16 WAV in the page cache, to
// the 1920×1080 image, no PNG), same machine, three processes each:
//
//	                             H200 (OpenCL)   CPU engine, 16 workers
//	engine open                  239–261 ms      0.04 ms
//	plan                         3.6–4.9 ms      5.5–6.1 ms
//	read + analyze + image       42–58 ms        111–115 ms
//	whole process                0.40–0.47 s     0.125–0.128 s
//	`prism analyze` today → PNG  0.55–0.58 s     0.19–0.21 s
//
// Per file the GPU path is 2–2.7× the CPU engine's speed; a single-file
// process on the GPU is bound by the driver's ~300 ms of fixed cost.
package gpufft
