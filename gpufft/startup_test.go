package gpufft

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/prismaudio/prism/gpufft/internal/cl"
	"github.com/prismaudio/prism/window"
)

// startupReportEnv makes the test binary measure one OpenCL start-up and
// exit (TestMain calls startupReport before opening anything): the
// measurement behind the package doc's table, run in a fresh process per
// sample by a script, with $PRISM_OPENCL_CACHE empty (cold) or filled
// (warm).
const startupReportEnv = "PRISM_STARTUP_REPORT"

// startupReport opens the engine and makes the plan `prism analyze` makes
// for a 10-minute file to a 1920×1080 PNG (N=4096, hop 1024), runs one
// batch, and prints where the time went as JSON.
func startupReport() error {
	if path := os.Getenv("PRISM_PCM_FILE"); path != "" {
		return pcmFileReport(path)
	}
	t0 := time.Now()
	e, err := NewOpenCL(OpenCLOptions{})
	if err != nil {
		return err
	}
	open := time.Since(t0)
	cfg := SpectrogramConfig{Size: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 4096 + 4095*1024, Output: DBFS}
	ic := imageConfigFor(cfg, 28_800_000, 1920, 1080)
	t1 := time.Now()
	p, err := NewPCMImage(e, PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix}, cfg, ic)
	if err != nil {
		return err
	}
	plan := time.Since(t1)
	t2 := time.Now()
	st, err := p.Staging()
	if err != nil {
		return err
	}
	if _, err := p.Add(st[:4*cfg.MaxSamples], 0); err != nil {
		return err
	}
	img := make([]float32, 1920*1080)
	if err := p.Image(img); err != nil {
		return err
	}
	first := time.Since(t2)
	s := e.Stats()
	// PRISM_STARTUP_NOCLOSE=1 leaves the plan and engine to the process's
	// exit, to see what releasing them costs
	var closing time.Duration
	if os.Getenv("PRISM_STARTUP_NOCLOSE") != "1" {
		t3 := time.Now()
		p.Close()
		e.Close()
		closing = time.Since(t3)
	}
	ms := func(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/10) / 100 }
	out, _ := json.Marshal(map[string]any{
		"device": e.Device(), "load_ms": ms(s.Load), "query_ms": ms(s.Query), "context_ms": ms(s.Context),
		"open_ms": ms(open), "plan_ms": ms(plan), "first_batch_ms": ms(first), "close_ms": ms(closing),
		"build_source_ms": ms(s.BuildSource), "build_cached_ms": ms(s.BuildCached),
		"programs": s.Programs, "cache_hits": s.CacheHits, "cache_writes": s.CacheWrites,
	})
	fmt.Println(string(out))
	return nil
}

// floorReport (PRISM_STARTUP_REPORT=floor) times the driver's own floor,
// nothing of Prism's: loading the library, clGetPlatformIDs, clGetDeviceIDs
// (GPUs, platform by platform, up to the first that has one),
// clCreateContext on that GPU and clReleaseContext, and prints them as
// JSON. The process's start and exit, timed outside, add the rest.
func floorReport() error {
	ms := func(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/10) / 100 }
	t0 := time.Now()
	lib, err := cl.Load()
	if err != nil {
		return err
	}
	t1 := time.Now()
	plats, err := lib.Platforms()
	if err != nil {
		return err
	}
	t2 := time.Now()
	var dev cl.Device
	for _, typ := range []uint64{cl.DeviceTypeGPU, cl.DeviceTypeAll} { // no GPU (PoCL): any device
		for _, p := range plats {
			ds, err := lib.Devices(p, typ)
			if err != nil {
				return err
			}
			if len(ds) > 0 {
				dev = ds[0]
				break
			}
		}
		if dev != 0 {
			break
		}
	}
	if dev == 0 {
		return fmt.Errorf("floor: no device among %d platforms", len(plats))
	}
	t3 := time.Now()
	ctx, err := lib.CreateContext(dev)
	if err != nil {
		return err
	}
	t4 := time.Now()
	lib.ReleaseContext(ctx)
	t5 := time.Now()
	out, _ := json.Marshal(map[string]any{"load_ms": ms(t1.Sub(t0)), "platforms_ms": ms(t2.Sub(t1)), "devices_ms": ms(t3.Sub(t2)),
		"context_ms": ms(t4.Sub(t3)), "release_ms": ms(t5.Sub(t4)), "total_ms": ms(t5.Sub(t0)), "platforms": len(plats)})
	fmt.Println(string(out))
	return nil
}

// pcmFileReport is startupReport's mode for a whole file (PRISM_PCM_FILE:
// a canonical 44-byte-header 16-bit stereo WAV, PRISM_PCM_ENGINE cpu or
// opencl): open the engine, make the PCM image plan, ReadPCMImage the data
// chunk from the file, fetch the 1920×1080 image, and print the times.
// It is the GPU-resident pipeline end to end minus the PNG encoding,
// which `prism analyze` adds.
func pcmFileReport(path string) error {
	t0 := time.Now()
	var e Engine
	if os.Getenv("PRISM_PCM_ENGINE") == "cpu" {
		e = NewCPU(0)
	} else {
		g, err := NewOpenCL(OpenCLOptions{})
		if err != nil {
			return err
		}
		e = g
	}
	defer e.Close()
	open := time.Since(t0)
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	var hdr [44]byte
	if _, err := io.ReadFull(fh, hdr[:]); err != nil || string(hdr[36:40]) != "data" || binary.LittleEndian.Uint16(hdr[22:]) != 2 || binary.LittleEndian.Uint16(hdr[34:]) != 16 {
		return fmt.Errorf("%s: not a canonical 16-bit stereo WAV", path)
	}
	dataBytes := int64(binary.LittleEndian.Uint32(hdr[40:]))
	f := PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix}
	samples := int(dataBytes) / f.FrameBytes()
	cfg := SpectrogramConfig{Size: 4096, Hop: 1024, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 4096 + 4095*1024, Output: DBFS}
	t1 := time.Now()
	p, err := NewPCMImage(e, f, cfg, imageConfigFor(cfg, samples, 1920, 1080))
	if err != nil {
		return err
	}
	defer p.Close()
	plan := time.Since(t1)
	t2 := time.Now()
	frames, _, err := ReadPCMImage(context.Background(), p, io.LimitReader(fh, dataBytes))
	if err != nil {
		return err
	}
	img := make([]float32, 1920*1080)
	if err := p.Image(img); err != nil {
		return err
	}
	run := time.Since(t2)
	ms := func(d time.Duration) float64 { return math.Round(float64(d.Microseconds())/10) / 100 }
	out, _ := json.Marshal(map[string]any{"engine": e.Device(), "frames": frames, "open_ms": ms(open), "plan_ms": ms(plan), "read_analyze_image_ms": ms(run)})
	fmt.Println(string(out))
	return nil
}

// imageConfigFor is a linear-row image of a file of samples per channel.
func imageConfigFor(cfg SpectrogramConfig, samples, cols, rows int) ImageConfig {
	ic := ImageConfig{Columns: cols, TotalFrames: cfg.Frames(samples)}
	bins := cfg.Bins()
	for r := range rows {
		lo := r * bins / rows
		hi := max(lo+1, (r+1)*bins/rows)
		ic.RowLo = append(ic.RowLo, int32(lo))
		ic.RowHi = append(ic.RowHi, int32(hi))
	}
	return ic
}

// BenchmarkFile analyzes a 10-minute 48 kHz stereo int16 file held in
// memory to a 1920×1080 image (N=4096, hop 1024, the mix) on each engine,
// two ways: "float", today's path (the host converts and mixes, the
// engine gets float32 planes) and "pcm" (raw bytes copied into staging,
// conversion and mix on the engine; on the GPU the upload of one batch
// overlaps the copy of the next). The copy into staging stands in for the
// file read. -short uses 1 minute.
func BenchmarkFile(b *testing.B) {
	seconds := 600
	if testing.Short() {
		seconds = 60
	}
	samples := 48000 * seconds
	r := rand.New(rand.NewPCG(1, 1))
	raw := randomPCM(r, PCMInt16, samples, 2)
	f := PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix}
	const n, hop = 4096, 1024
	cfg := SpectrogramConfig{Size: n, Hop: hop, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: n + (1<<22/hop-1)*hop, Output: DBFS}
	ic := imageConfigFor(cfg, samples, 1920, 1080)
	img := make([]float32, 1920*1080)
	var es []Engine
	es = append(es, testCPU)
	if testGPU != nil {
		es = append(es, testGPU)
	}
	fb := f.FrameBytes()
	rowsCfg := cfg
	rowsCfg.MaxSamples = n + (1<<20/hop-1)*hop // about 4 MiB of rows per batch
	sink := make([]float32, rowsCfg.DstLen(rowsCfg.MaxSamples))
	for _, e := range es {
		// rows: the NPY/CSV path, every frame's dB row back on the host
		// (copied once, standing in for the writer)
		b.Run(e.Name()+"/float-rows", func(b *testing.B) {
			p, err := e.NewSpectrogram(rowsCfg)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			planes := make([]float32, rowsCfg.MaxSamples)
			dst := make([]float32, rowsCfg.DstLen(rowsCfg.MaxSamples))
			b.SetBytes(int64(len(raw)))
			for range b.N {
				for start := 0; start+n <= samples; {
					l := min(samples-start, rowsCfg.MaxSamples)
					m := ConvertPCM(planes, raw[start*fb:(start+l)*fb], f)
					k, err := p.Execute(dst, planes[:m])
					if err != nil {
						b.Fatal(err)
					}
					copy(sink, dst[:k*rowsCfg.Bins()])
					start += k * hop
				}
			}
		})
		b.Run(e.Name()+"/pcm-rows", func(b *testing.B) {
			p, err := NewPCMSpectrogram(e, f, rowsCfg)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.SetBytes(int64(len(raw)))
			for range b.N {
				inFlight := 0
				for start := 0; start+n <= samples; {
					l := min(samples-start, rowsCfg.MaxSamples)
					st, err := p.Staging()
					if err != nil {
						b.Fatal(err)
					}
					k, err := p.Submit(st[:copy(st, raw[start*fb:(start+l)*fb])])
					if err != nil {
						b.Fatal(err)
					}
					if inFlight++; inFlight == 2 {
						rows, _, err := p.Rows()
						if err != nil {
							b.Fatal(err)
						}
						copy(sink, rows)
						inFlight--
					}
					start += k * hop
				}
				for ; inFlight > 0; inFlight-- {
					rows, _, err := p.Rows()
					if err != nil {
						b.Fatal(err)
					}
					copy(sink, rows)
				}
			}
		})
		b.Run(e.Name()+"/float", func(b *testing.B) {
			p, err := e.NewImage(cfg, ic)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			planes := make([]float32, cfg.MaxSamples)
			b.SetBytes(int64(len(raw)))
			for range b.N {
				for start, first := 0, 0; start+n <= samples; {
					l := min(samples-start, cfg.MaxSamples)
					m := ConvertPCM(planes, raw[start*fb:(start+l)*fb], f)
					k, err := p.Add(planes[:m], first)
					if err != nil {
						b.Fatal(err)
					}
					first += k
					start += k * hop
				}
				if err := p.Image(img); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(e.Name()+"/pcm", func(b *testing.B) {
			p, err := NewPCMImage(e, f, cfg, ic)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.SetBytes(int64(len(raw)))
			for range b.N {
				for start, first := 0, 0; start+n <= samples; {
					l := min(samples-start, cfg.MaxSamples)
					st, err := p.Staging()
					if err != nil {
						b.Fatal(err)
					}
					k, err := p.Add(st[:copy(st, raw[start*fb:(start+l)*fb])], first)
					if err != nil {
						b.Fatal(err)
					}
					first += k
					start += k * hop
				}
				if err := p.Image(img); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
