// Package tfrfile is the file pipeline of the time-frequency modes: it
// reads an audio file, runs a tfr.Transform (multi-resolution, VQT,
// reassigned, or the plain STFT) over one channel or the mix on an engine
// and writes the frames as NPY with a JSON sidecar, CSV or a labelled PNG.
package tfrfile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/gpufft"
)

// Options configure one file's analysis.
type Options struct {
	// Transform is the mode and its parameters; Rate, Channels and
	// MaxSamples are set from the file.
	Transform tfr.Config
	Channel   int // −1: the mean of every channel; else that channel
	Image     plot.ImageOptions
	Force     bool // replace outputs whose permissions protect them
}

// Result says what an analysis did.
type Result struct {
	Rate     int
	Samples  int // per channel
	Frames   int // rows written
	Bins     int // values per row
	Engine   string
	Elapsed  time.Duration
	Read     time.Duration // of Elapsed, waiting for the file (decoded beside the transform)
	Plan     time.Duration // of Elapsed, making the transform and opening the output
	Compute  time.Duration // of Elapsed, in the transform's calls
	Write    time.Duration // of Elapsed, waiting for the output's writer (rows written beside the transform), finishing it and releasing the transform (meanwhile)
	Warnings []string
}

// Timings is a Result's phases in milliseconds, for a --timings line.
type Timings struct {
	Mode      string  `json:"mode"`
	ElapsedMs float64 `json:"elapsed_ms"`
	ReadMs    float64 `json:"read_wait_ms"`
	PlanMs    float64 `json:"plan_ms"`
	ComputeMs float64 `json:"compute_ms"`
	WriteMs   float64 `json:"write_wait_ms"`
}

// Timings is r's phases for mode.
func (r Result) Timings(mode tfr.Mode) Timings {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return Timings{Mode: mode.String(), ElapsedMs: ms(r.Elapsed), ReadMs: ms(r.Read), PlanMs: ms(r.Plan), ComputeMs: ms(r.Compute), WriteMs: ms(r.Write)}
}

// SidecarPath is the JSON file written beside an NPY output: out + ".json".
func SidecarPath(out string) string { return out + ".json" }

// AnalyzeFile analyzes in into out (format NPY, CSV or PNG) on the
// engines, falling back from the GPU to the CPU once as every file
// command does (reading the file again). The file is decoded on a
// goroutine of its own while the transform runs, and rows are written as
// each call gives them. Bad input is an *analysis.InputError.
func AnalyzeFile(ctx context.Context, in, out string, format encode.Format, o Options, engines engine.Pair) (Result, error) {
	t0 := time.Now()
	res, notice, err := engine.WithFallback(ctx, engines, func(e gpufft.Engine) (Result, error) {
		src, err := openSource(in, o.Channel)
		if err != nil {
			return Result{}, err
		}
		res, err := analyze(ctx, src, out, format, o, e, probeEngine(engines))
		src.close()
		res.Read = src.wait
		res.Warnings = append(src.warnings, res.Warnings...)
		return res, err
	})
	if notice != "" {
		res.Warnings = append(res.Warnings, notice)
	}
	res.Elapsed = time.Since(t0)
	return res, err
}

// chunkValues bounds the values one Execute writes and the values the
// transform keeps per frame (perFrame), so a call's buffers stay near
// 64 MB.
var chunkValues = 1 << 24

// callSamples bounds the samples one Execute reads (frames ending past it
// go to the next call), so the decoder streams the file beside the
// transform's calls instead of before one call over all of it (a VQT's
// 2^24 values are a 10-minute 48 kHz file): the VQT's own benchmark calls
// (BenchmarkVQTFile, its speed in docs/modes.md) read 2^22 too.
const callSamples = 1 << 22

// analyze runs the transform over src on e, call by call, and writes the
// output; probe is the engine the transform's shape is learnt on.
func analyze(ctx context.Context, src *source, out string, format encode.Format, o Options, e, probe gpufft.Engine) (Result, error) {
	in, rate := src.in, src.rate
	res := Result{Rate: rate, Samples: src.length, Engine: e.Name()}
	cfg := o.Transform
	cfg.Rate, cfg.Channels = float64(rate), 1
	span, bins, err := tfr.Shape(probe, cfg)
	if err != nil {
		return res, modeError(err)
	}
	if src.length < span {
		return res, &analysis.InputError{Err: fmt.Errorf("%s: %d samples per channel, fewer than one frame of %d", in, src.length, span)}
	}
	total := (src.length-span)/cfg.Hop + 1
	margin := 0
	if cfg.Mode == tfr.Reassigned { // energy moves up to half a window in time
		margin = span/(2*cfg.Hop) + 1
	}
	per := tfr.FramesPerCall(cfg, span, bins, total, chunkValues, callSamples)
	cfg.MaxSamples = span + (per+2*margin-1)*cfg.Hop
	src.reserve(cfg.MaxSamples)
	t0 := time.Now()
	tr, err := tfr.New(e, cfg)
	if err != nil {
		return res, modeError(err)
	}
	closing := false
	defer func() {
		if !closing {
			tr.Close()
		}
	}()
	res.Frames, res.Bins = total, bins
	w, err := newWriter(out, in, format, o, tr, total)
	if err != nil {
		return res, err
	}
	defer w.discard()
	res.Plan = time.Since(t0)
	dst := make([]float32, (per+2*margin)*bins)
	for a := 0; a < total; a += per {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		b := min(total, a+per)
		s0, e0 := max(0, a-margin), min(total, b+margin)
		x, err := src.samples(s0*cfg.Hop, (e0-1)*cfg.Hop+span)
		if err != nil {
			return res, err
		}
		t0 := time.Now()
		n, err := tr.Execute(dst, x)
		res.Compute += time.Since(t0)
		if err != nil {
			return res, err
		}
		if n != e0-s0 {
			return res, fmt.Errorf("tfrfile: %d frames from a block of %d", n, e0-s0)
		}
		t0 = time.Now()
		err = w.rows(a, dst[(a-s0)*bins:(b-s0)*bins])
		res.Write += time.Since(t0)
		if err != nil {
			return res, err
		}
	}
	// The transform is released (on a GPU: its buffers and kernels) while
	// the output is finished (flushed and synced to the disk).
	closing = true
	closed := make(chan struct{})
	go func() {
		tr.Close()
		close(closed)
	}()
	t0 = time.Now()
	err = w.finish(total)
	<-closed
	res.Write += time.Since(t0)
	return res, err
}

// probeEngine is the CPU engine of the pair where there is one: its
// plans of one frame cost next to nothing, where a GPU's would each be
// built on the device (a multi-resolution probe took a second there).
func probeEngine(p engine.Pair) gpufft.Engine {
	if p.CPU != nil {
		return p.CPU
	}
	return p.Preferred
}

// modeError makes a transform's invalid parameters bad input.
func modeError(err error) error {
	if errors.Is(err, gpufft.ErrInvalid) {
		return &analysis.InputError{Err: err}
	}
	return err
}
