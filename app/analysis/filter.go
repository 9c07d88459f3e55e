package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// FilterOptions configure `prism filter`.
type FilterOptions struct {
	Band          dsp.BandSpec
	TransitionOct float64 // 0: dsp.DefaultTransitionOct
	KeepFormat    bool    // write the input's sample format, else float32
	Force         bool    // replace an output its permissions protect
}

// FilterResult says what a filtering did.
type FilterResult struct {
	Frames   int64 // written per channel: the input's length
	Engine   string
	Elapsed  time.Duration
	Warnings []string // the decoder's warnings and engine fallbacks
}

// FilterFile filters every channel of in with the band filter into out
// (WAV), by overlap-save FFT convolution on the engines (the CPU if the GPU
// fails, unless Strict); the output has the input's length and the
// filter's delay compensated.
func FilterFile(ctx context.Context, in, out string, o FilterOptions, engines engine.Pair) (FilterResult, error) {
	start := time.Now()
	res, notice, err := engine.WithFallback(ctx, engines, func(eng gpufft.Engine) (FilterResult, error) {
		return filterWith(ctx, in, out, o, eng)
	})
	if notice != "" {
		res.Warnings = append(res.Warnings, notice)
	}
	res.Elapsed = time.Since(start)
	return res, err
}

func filterWith(ctx context.Context, in, out string, o FilterOptions, eng gpufft.Engine) (FilterResult, error) {
	res := FilterResult{Engine: engineLabel(eng)}
	dec, err := audio.Open(in)
	if err != nil {
		return res, &InputError{err}
	}
	defer dec.Close()
	f := dec.Format()
	trans := o.TransitionOct
	if trans == 0 {
		trans = dsp.DefaultTransitionOct
	}
	taps, err := dsp.BandTaps(o.Band, f.SampleRate, trans)
	if err != nil {
		return res, &InputError{fmt.Errorf("%s: %w", in, err)}
	}
	ols, err := newOverlapSave(eng, taps, f.Channels)
	if err != nil {
		return res, err
	}
	defer ols.close()
	of, err := createOutput(out, in, o.Force)
	if err != nil {
		return res, err
	}
	defer of.Discard()
	bits, float := wavFormatOf(f, o.KeepFormat)
	ww, err := encode.NewWAVWriter(of, f.SampleRate, f.Channels, bits, float)
	if err != nil {
		return res, err
	}
	res.Frames, err = ols.run(ctx, dec, ww)
	res.Warnings = dec.Warnings() // the decoder's (a data chunk cut short, say)
	if err != nil {
		return res, err
	}
	if res.Frames == 0 {
		return res, inputErrorf("%s: no samples to filter", in)
	}
	if err := ww.Finish(); err != nil {
		return res, err
	}
	return res, of.Commit()
}

// wavFormatOf is the output's sample format: float32, or with keep the
// input's (its PCM width when it is a PCM WAV, its float width when float).
func wavFormatOf(f audio.Format, keep bool) (bits int, float bool) {
	isFloat := strings.Contains(f.Encoding, "float")
	switch {
	case keep && f.Container == "WAV" && !isFloat:
		return f.Bits, false
	case keep && isFloat:
		return f.Bits, true
	}
	return 32, true
}

// overlapSave convolves every channel of a decoded stream with taps by
// overlap-save on a ConvolvePlan: per channel, hist holds the stream s
// (the input, then zeros) from position produced−(m−1): m−1 samples of
// history, then new ones. A block of size samples ending at s[p+step)
// yields the convolution y[p, p+step). The output is z[n] = y[n + delay],
// n < the input's length: the linear-phase delay compensated, the length
// kept.
type overlapSave struct {
	conv           gpufft.ConvolvePlan
	m, size, step  int // taps, FFT size, outputs per block
	ch, blocks     int // channels, blocks per channel per call
	delay          int
	hist           [][]float32
	src, dst, tmp  []float32
	inter          []float32 // interleaved output
	read, produced int64     // samples per channel decoded; y computed
	written        int64
	eof            bool
}

func newOverlapSave(eng gpufft.Engine, taps []float32, ch int) (*overlapSave, error) {
	m := len(taps)
	size := 4096
	for size < 4*m {
		size *= 2
	}
	size = min(size, gpufft.MaxSize)
	// about 2^22 samples per call over all channels (2^21 per channel of
	// stereo), at least one block per channel
	blocks := max(1, (1<<22)/size/ch)
	conv, err := eng.NewConvolver(taps, size, blocks*ch)
	if err != nil {
		return nil, &engine.Error{Err: err}
	}
	step := conv.Step()
	s := &overlapSave{conv: conv, m: m, size: size, step: step, ch: ch, blocks: blocks, delay: (m - 1) / 2,
		src: make([]float32, blocks*ch*size), dst: make([]float32, blocks*ch*step), tmp: make([]float32, 8192*ch),
		inter: make([]float32, blocks*step*ch)}
	s.hist = make([][]float32, ch)
	for c := range s.hist {
		s.hist[c] = make([]float32, m-1, m-1+blocks*step)
	}
	return s, nil
}

func (s *overlapSave) close() { s.conv.Close() }

// run filters dec into w and returns the frames written.
func (s *overlapSave) run(ctx context.Context, dec audio.Decoder, w *encode.WAVWriter) (int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return s.written, err
		}
		if err := s.fill(dec); err != nil {
			return s.written, err
		}
		end := int64(math.MaxInt64) // y index where output stops
		if s.eof {
			end = int64(s.delay) + s.read
			if s.produced >= end {
				return s.written, nil
			}
			s.padZeros(end)
		}
		blocks := (len(s.hist[0]) - (s.m - 1)) / s.step
		if blocks == 0 {
			return s.written, nil
		}
		if err := s.convolve(blocks); err != nil {
			return s.written, err
		}
		if err := s.emit(w, blocks, end); err != nil {
			return s.written, err
		}
	}
}

// fill decodes until hist holds a whole call's worth or the input ends.
func (s *overlapSave) fill(dec audio.Decoder) error {
	want := s.m - 1 + s.blocks*s.step
	for !s.eof && len(s.hist[0]) < want {
		k := min(len(s.tmp)/s.ch, want-len(s.hist[0]))
		got, err := dec.Read(s.tmp[:k*s.ch])
		for c := range s.ch {
			for i := range got {
				s.hist[c] = append(s.hist[c], s.tmp[i*s.ch+c])
			}
		}
		s.read += int64(got)
		if errors.Is(err, io.EOF) {
			s.eof = true
		} else if err != nil {
			return &InputError{err}
		}
	}
	return nil
}

// padZeros appends the zeros after the input that the output still needs
// (up to y index end), rounded up to whole blocks.
func (s *overlapSave) padZeros(end int64) {
	newS := len(s.hist[0]) - (s.m - 1)
	needS := int(min(end-s.produced, int64(s.blocks*s.step)))
	newS = (max(newS, needS) + s.step - 1) / s.step * s.step
	for c := range s.ch {
		s.hist[c] = append(s.hist[c], make([]float32, s.m-1+newS-len(s.hist[c]))...)
	}
}

// convolve computes y for blocks blocks per channel into dst.
func (s *overlapSave) convolve(blocks int) error {
	for c := range s.ch {
		for b := range blocks {
			copy(s.src[(c*blocks+b)*s.size:(c*blocks+b+1)*s.size], dsp.PadFront(s.hist[c][:s.m-1+(b+1)*s.step], s.size))
		}
	}
	if err := s.conv.Execute(s.dst[:blocks*s.ch*s.step], s.src[:blocks*s.ch*s.size]); err != nil {
		return &engine.Error{Err: err}
	}
	return nil
}

// emit writes y[max(produced, delay), min(produced+blocks·step, end)) and
// drops the consumed history.
func (s *overlapSave) emit(w *encode.WAVWriter, blocks int, end int64) error {
	n := int64(blocks * s.step)
	lo := max(s.produced, int64(s.delay)) - s.produced
	hi := min(s.produced+n, end) - s.produced
	if hi > lo {
		ch := int64(s.ch)
		for i := lo; i < hi; i++ {
			for c := range ch {
				s.inter[(i-lo)*ch+c] = s.dst[c*int64(blocks*s.step)+i]
			}
		}
		if err := w.Write(s.inter[:(hi-lo)*ch]); err != nil {
			return err
		}
		s.written += hi - lo
	}
	s.produced += n
	for c := range s.ch {
		s.hist[c] = append(s.hist[c][:0], s.hist[c][n:]...)
	}
	return nil
}
