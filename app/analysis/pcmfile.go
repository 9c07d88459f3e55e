package analysis

import (
	"context"
	"errors"
	"fmt"
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

// rawStream cuts raw PCM into batches of whole frames of N samples, hop H
// apart, each batch starting with the samples the next frames still need
// from the previous one (N−H and any remainder), like streamer.
type rawStream struct {
	src         audio.RawPCM
	fb          int // bytes per sample frame
	n, hop      int
	maxLen      int // sample frames per batch
	prev        []byte
	carry, from int // sample frames carried, and where they start in prev
	first       int // the next batch's first frame
	samples     int64
	done        bool
}

// next fills buf (room for maxLen sample frames) with the next batch and
// returns it, its first frame number, and false at the end of the stream.
func (s *rawStream) next(buf []byte) ([]byte, int, bool, error) {
	if s.done {
		return nil, 0, false, nil
	}
	have := 0
	if s.prev != nil && s.carry > 0 {
		copy(buf, s.prev[s.from*s.fb:(s.from+s.carry)*s.fb]) // a host plan's one buffer overlaps: copy is memmove
		have = s.carry
	}
	for have < s.maxLen {
		got, err := s.src.ReadRaw(buf[have*s.fb : s.maxLen*s.fb])
		have += got
		s.samples += int64(got)
		if errors.Is(err, io.EOF) {
			s.done = true
			break
		}
		if err != nil {
			return nil, 0, false, err
		}
		if got == 0 {
			return nil, 0, false, fmt.Errorf("decoder returned no samples and no error")
		}
	}
	frames := FrameCount(int64(have), s.n, s.hop)
	if frames == 0 {
		s.done = true
		return nil, 0, false, nil
	}
	first := s.first
	s.first += frames
	s.carry, s.from, s.prev = have-frames*s.hop, frames*s.hop, buf
	return buf[:have*s.fb], first, true, nil
}

// pcmSink turns raw batches into an output format on the device.
type pcmSink interface {
	staging() ([]byte, error)
	add(raw []byte, first int) (frames int, err error)
	finish(frames int) error
	close()
}

// analyzePCM is analyzeWith's GPU-resident path.
func analyzePCM(ctx context.Context, src audio.RawPCM, pf gpufft.PCMFormat, o *encode.Output, format encode.Format, opts AnalyzeOptions,
	eng gpufft.Engine, total, rate int, progress Progress, res *AnalyzeResult) error {
	cfg := gpufft.SpectrogramConfig{Size: opts.FFT, Hop: opts.Hop, Window: opts.Window, Channels: 1, Mix: true,
		MaxSamples: batchLimits(opts.FFT, opts.Hop, 1), Output: gpufft.DBFS}
	sk, err := newPCMSink(o, format, eng, pf, cfg, total, rate, opts.Image)
	if err != nil {
		return err
	}
	defer sk.close()
	rs := &rawStream{src: src, fb: pf.FrameBytes(), n: opts.FFT, hop: opts.Hop, maxLen: cfg.MaxSamples}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf, err := sk.staging()
		if err != nil {
			return &EngineError{err}
		}
		raw, first, ok, err := rs.next(buf)
		if err != nil {
			return &InputError{err}
		}
		if !ok {
			break
		}
		n, err := sk.add(raw, first)
		res.Frames += n
		if err != nil {
			return err
		}
		if progress != nil {
			progress(res.Frames, total)
		}
	}
	res.Samples = rs.samples
	if res.Frames == 0 {
		return nil
	}
	return sk.finish(res.Frames)
}

func newPCMSink(o *encode.Output, format encode.Format, eng gpufft.Engine, pf gpufft.PCMFormat, cfg gpufft.SpectrogramConfig, total, rate int, img plot.ImageOptions) (pcmSink, error) {
	if format == encode.FormatPNG {
		layout := plot.NewSpectrogram(img, plot.Geometry{Rate: rate, FFT: cfg.Size, Hop: cfg.Hop, Frames: total})
		p, err := gpufft.NewPCMImage(eng, pf, cfg, imageConfig(layout, total))
		if err != nil {
			return nil, &EngineError{err}
		}
		return &pcmImageSink{plan: p, layout: layout, o: o}, nil
	}
	var rw encode.RowWriter
	var err error
	if format == encode.FormatNPY {
		rw, err = encode.NewNPYRows(o, cfg.Bins())
	} else {
		rw, err = encode.NewCSVRows(o, cfg.Size, cfg.Hop, rate)
	}
	if err != nil {
		return nil, err
	}
	p, err := gpufft.NewPCMSpectrogram(eng, pf, cfg)
	if err != nil {
		return nil, &EngineError{err}
	}
	return &pcmRowSink{plan: p, out: rw, bins: cfg.Bins()}, nil
}

// pcmImageSink folds frames into the image on the device.
type pcmImageSink struct {
	plan   gpufft.PCMImagePlan
	layout *plot.Spectrogram
	o      *encode.Output
}

func (s *pcmImageSink) staging() ([]byte, error) { return s.plan.Staging() }

func (s *pcmImageSink) add(raw []byte, first int) (int, error) {
	n, err := s.plan.Add(raw, first)
	if err != nil {
		return n, &EngineError{err}
	}
	return n, nil
}

func (s *pcmImageSink) finish(int) error { return writeImage(s.o, s.layout, s.plan.Image) }

func (s *pcmImageSink) close() { s.plan.Close() }

// pcmRowSink keeps two batches in flight: while the device analyzes one,
// the previous one's rows are written and the next one is read.
type pcmRowSink struct {
	plan    gpufft.PCMSpectrogramPlan
	out     encode.RowWriter
	bins    int
	pending []int // first frame of each batch in flight, oldest first
}

func (s *pcmRowSink) staging() ([]byte, error) { return s.plan.Staging() }

func (s *pcmRowSink) add(raw []byte, first int) (int, error) {
	if len(s.pending) == 2 {
		if err := s.drain(); err != nil {
			return 0, err
		}
	}
	n, err := s.plan.Submit(raw)
	if err != nil {
		return 0, &EngineError{err}
	}
	if n > 0 {
		s.pending = append(s.pending, first)
	}
	return n, nil
}

// drain writes the oldest batch's rows.
func (s *pcmRowSink) drain() error {
	rows, n, err := s.plan.Rows()
	if err != nil {
		return &EngineError{err}
	}
	first := s.pending[0]
	s.pending = append(s.pending[:0], s.pending[1:]...)
	return s.out.Rows(first, rows[:n*s.bins])
}

func (s *pcmRowSink) finish(frames int) error {
	for len(s.pending) > 0 {
		if err := s.drain(); err != nil {
			return err
		}
	}
	return s.out.Finish(frames)
}

func (s *pcmRowSink) close() { s.plan.Close() }
