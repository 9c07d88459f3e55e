package analysis

import (
	"context"
	"errors"
	"io"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// The GPU-resident file pipeline: a WAV file's samples go to the GPU as
// the bytes the file holds (int16, int24, int32 or float32); the device
// converts, mixes or picks a channel, transforms and folds them, and only
// the image (PNG) or the dB rows (NPY, CSV) come back. Reading the next
// batch into pinned staging memory overlaps the device's work on the
// current one.

// pcmSource is what the pipeline needs of a decoder whose bytes the
// engine converts, with the engine's name for their format; ok is false
// for other decoders (FLAC, MP3, 8-bit or 64-bit WAV) and engines that do
// not take raw PCM (the CPU engine keeps its decoding pipeline, which
// overlaps decoding with the transforms on two goroutines).
func pcmSource(dec audio.Decoder, channel int, eng gpufft.Engine) (audio.RawPCM, gpufft.PCMFormat, bool) {
	raw, ok := dec.(audio.RawPCM)
	if _, gpu := eng.(*gpufft.OpenCL); !ok || !gpu {
		return nil, gpufft.PCMFormat{}, false
	}
	rf := raw.RawFormat()
	var enc gpufft.PCMEncoding
	switch {
	case rf.Float && rf.BytesPerSample == 4:
		enc = gpufft.PCMFloat32
	case !rf.Float && rf.BytesPerSample == 2:
		enc = gpufft.PCMInt16
	case !rf.Float && rf.BytesPerSample == 3:
		enc = gpufft.PCMInt24
	case !rf.Float && rf.BytesPerSample == 4:
		enc = gpufft.PCMInt32
	default:
		return nil, gpufft.PCMFormat{}, false
	}
	sel := gpufft.PCMMix
	if channel >= 0 {
		sel = channel
	}
	return raw, gpufft.PCMFormat{Encoding: enc, Channels: dec.Format().Channels, Select: sel}, true
}

// rawReader reads a decoder's undecoded bytes as an io.Reader (whole
// sample frames at a time) for gpufft's PCM loops, keeps the decoder's
// error apart from the engine's, and reports progress.
type rawReader struct {
	src      audio.RawPCM
	fb       int   // bytes per sample frame
	err      error // the decoder's last error other than io.EOF: bad input
	samples  int64
	progress func(samples int64)
}

func (r *rawReader) Read(p []byte) (int, error) {
	n, err := r.src.ReadRaw(p)
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
	}
	r.samples += int64(n)
	if r.progress != nil && n > 0 {
		r.progress(r.samples)
	}
	return n * r.fb, err
}

// analyzePCM is analyzeWith's GPU-resident path: gpufft's PCM loops
// (ReadPCMImage, ReadPCMRows) read the file's bytes straight into the
// plan's staging buffers, two batches in flight.
func analyzePCM(ctx context.Context, src audio.RawPCM, pf gpufft.PCMFormat, o *encode.Output, format encode.Format, opts AnalyzeOptions,
	eng gpufft.Engine, total, rate int, progress Progress, res *AnalyzeResult) error {
	cfg := gpufft.SpectrogramConfig{Size: opts.FFT, Hop: opts.Hop, Window: opts.Window, Channels: 1, Mix: true,
		MaxSamples: batchLimits(opts.FFT, opts.Hop, 1), Output: gpufft.DBFS}
	rr := &rawReader{src: src, fb: pf.FrameBytes()}
	if progress != nil {
		rr.progress = func(s int64) { progress(FrameCount(s, opts.FFT, opts.Hop), total) }
	}
	var outErr error // the output's own failures: neither bad input nor the engine
	var err error
	if format == encode.FormatPNG {
		layout := plot.NewSpectrogram(opts.Image, plot.Geometry{Rate: rate, FFT: cfg.Size, Hop: cfg.Hop, Frames: total})
		p, perr := gpufft.NewPCMImage(eng, pf, cfg, imageConfig(layout, total))
		if perr != nil {
			return &EngineError{perr}
		}
		defer p.Close()
		res.Frames, res.Samples, err = gpufft.ReadPCMImage(ctx, p, rr)
		if err == nil && res.Frames > 0 {
			return writeImage(o, layout, p.Image)
		}
	} else {
		rw, werr := newRowWriter(o, format, cfg, rate)
		if werr != nil {
			return werr
		}
		p, perr := gpufft.NewPCMSpectrogram(eng, pf, cfg)
		if perr != nil {
			return &EngineError{perr}
		}
		defer p.Close()
		res.Frames, res.Samples, err = gpufft.ReadPCMRows(ctx, p, rr, func(rows []float32, first, n int) error {
			outErr = rw.Rows(first, rows[:n*cfg.Bins()])
			return outErr
		})
		if err == nil && res.Frames > 0 {
			return rw.Finish(res.Frames)
		}
	}
	switch {
	case err == nil || ctx.Err() != nil:
		return ctx.Err()
	case rr.err != nil:
		return &InputError{rr.err}
	case outErr != nil:
		return outErr
	}
	return &EngineError{err}
}
