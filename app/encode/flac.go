package encode

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"hash"
	"io"
	"math"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
)

// FLACWriter streams a FLAC file of integer samples (github.com/mewkiz/flac's
// encoder: fixed predictors, Rice coding, fixed blocks of FLACBlockFrames)
// and completes its STREAMINFO (total frames, block and frame sizes, the
// MD5 of the samples) at the end, in place, so `flac -d` verifies it.
//
// The samples come as float32 at full scale ±1 and are quantized without
// dither: q = round(x·2^(bits−1)), clipped to [−2^(bits−1), 2^(bits−1)−1]
// (the rule WAVWriter's PCM follows); every sample the clip changed is
// counted in Clipped (a NaN is written as 0 and counted too). 24 bits keep
// a float32 capture's 24-bit mantissa at full scale, and the noise floor
// of the rounding (−144 dBFS) is far below any converter's.
type FLACWriter struct {
	o       *Output
	enc     *flac.Encoder
	cw      countWriter
	info    meta.StreamInfo
	ch      int
	bits    int
	scale   float64
	lo, hi  float64
	f       frame.Frame
	n       int // frames (per channel) buffered in f
	total   uint64
	clipped int64
	md5     hash.Hash
	minF    uint32
	maxF    uint32
}

// FLACBlockFrames is the block size of a FLACWriter's frames (the last
// may be shorter): libFLAC's default.
const FLACBlockFrames = 4096

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// NewFLACWriter starts a FLAC of ch channels (1 to 8) at rate Hz on o,
// bits (8 to 24) per sample. Its buffers are sized here; Write allocates
// only what the encoder's predictor analysis does per block.
func NewFLACWriter(o *Output, rate, ch, bits int) (*FLACWriter, error) {
	if ch < 1 || ch > 8 {
		return nil, fmt.Errorf("flac: %d channels: FLAC holds 1 to 8", ch)
	}
	if bits < 8 || bits > 24 {
		return nil, fmt.Errorf("flac: %d bits: 8 to 24 are written", bits)
	}
	if rate < 1 || rate > 655350 {
		return nil, fmt.Errorf("flac: %d Hz: FLAC holds 1 to 655350 Hz", rate)
	}
	w := &FLACWriter{o: o, ch: ch, bits: bits, md5: md5.New(),
		scale: math.Exp2(float64(bits - 1))}
	w.lo, w.hi = -w.scale, w.scale-1
	w.info = meta.StreamInfo{BlockSizeMin: FLACBlockFrames, BlockSizeMax: FLACBlockFrames,
		SampleRate: uint32(rate), NChannels: uint8(ch), BitsPerSample: uint8(bits)}
	w.cw.w = o.W
	enc, err := flac.NewEncoder(&w.cw, &w.info)
	if err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	enc.EnablePredictionAnalysis(true)
	w.enc = enc
	w.f.Header = frame.Header{HasFixedBlockSize: true, SampleRate: uint32(rate),
		Channels: frame.Channels(ch - 1), BitsPerSample: uint8(bits)}
	w.f.Subframes = make([]*frame.Subframe, ch)
	for c := range w.f.Subframes {
		w.f.Subframes[c] = &frame.Subframe{Samples: make([]int32, FLACBlockFrames)}
	}
	return w, nil
}

// Write appends interleaved frames x (full scale ±1), encoding each block
// as it fills.
func (w *FLACWriter) Write(x []float32) error {
	for i := 0; i+w.ch <= len(x); i += w.ch {
		for c := range w.ch {
			v := float64(x[i+c])
			q := math.Round(v * w.scale)
			switch {
			case q != q: // NaN
				q = 0
				w.clipped++
			case q > w.hi:
				q = w.hi
				w.clipped++
			case q < w.lo:
				q = w.lo
				w.clipped++
			}
			w.f.Subframes[c].Samples[w.n] = int32(q)
		}
		if w.n++; w.n == FLACBlockFrames {
			if err := w.block(); err != nil {
				return err
			}
		}
	}
	return nil
}

// block encodes the n frames buffered.
func (w *FLACWriter) block() error {
	if w.n == 0 {
		return nil
	}
	w.f.BlockSize = uint16(w.n)
	for _, s := range w.f.Subframes {
		s.SubHeader = frame.SubHeader{Pred: frame.PredVerbatim}
		s.Samples = s.Samples[:w.n]
		s.NSamples = w.n
	}
	w.f.Hash(w.md5)
	before := w.cw.n
	err := w.enc.WriteFrame(&w.f)
	for _, s := range w.f.Subframes {
		s.Samples = s.Samples[:FLACBlockFrames]
	}
	if err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	size := uint32(w.cw.n - before)
	if w.minF == 0 || size < w.minF {
		w.minF = size
	}
	w.maxF = max(w.maxF, size)
	w.total += uint64(w.n)
	w.n = 0
	return nil
}

// Clipped is the number of samples the quantization clipped so far.
func (w *FLACWriter) Clipped() int64 { return w.clipped }

// Finish encodes the last block and completes the STREAMINFO (it does
// not commit the Output).
func (w *FLACWriter) Finish() error {
	if err := w.block(); err != nil {
		return err
	}
	if err := w.o.W.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	info := w.info
	if w.total < FLACBlockFrames { // one short block, or none
		b := uint16(max(w.total, 16))
		info.BlockSizeMin, info.BlockSizeMax = b, b
	}
	info.FrameSizeMin, info.FrameSizeMax = w.minF, w.maxF
	info.NSamples = w.total
	copy(info.MD5sum[:], w.md5.Sum(nil))
	var head bytes.Buffer
	if _, err := flac.NewEncoder(&head, &info); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return w.o.WriteAt(head.Bytes(), 0)
}
