package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/audio"
)

// batch is one call's worth of samples of one channel (or the mix), whose
// first frame is frame number first of the whole stream.
type batch struct {
	buf     []float32
	samples int
	first   int
}

// streamer cuts a decoder's output (one channel of it, or the mix of all)
// into batches of whole frames of size N,
// hop H, carrying the samples the next frames still need (N−H and any
// remainder) from one batch into the next, and decodes the next batch on its
// own goroutine while the caller analyzes the current one (two buffers).
type streamer struct {
	dec     audio.Decoder
	n, hop  int
	channel int // −1: the mix (mean of channels); else that channel only
	maxLen  int // samples per channel per batch
	bufs    [2][]float32
	tmp     []float32 // interleaved decode block
	frames  int64     // samples decoded per channel, for Result
}

// batchSamples is about how many samples per channel one batch holds:
// enough to fill a GPU. Tests lower it to cross many batch boundaries.
var batchSamples = 1 << 22

// hostBatchPerWorker caps batches on the CPU engine at this many samples
// per worker: each worker needs a few dozen image columns of a batch to
// share out, and a batch that stays in the caches beats batchSamples' 16
// MiB ones on a small machine, while 2^18 in all starved 16 workers
// (docs/performance.md).
const hostBatchPerWorker = 1 << 18

// batchLimits sizes batches: about batchSamples per channel (at most
// hostBatchPerWorker per worker on a CPU engine of hostWorkers; 0 for
// other engines), but never more frames than keep the dB output of one
// batch under 64 MiB.
func batchLimits(n, hop, channels, hostWorkers int) int {
	per := batchSamples
	if hostWorkers > 0 {
		per = min(per, hostBatchPerWorker*hostWorkers)
	}
	bins := n/2 + 1
	maxFrames := max(1, min(per/hop, (64<<20)/4/bins/max(1, channels)))
	return n + (maxFrames-1)*hop
}

func newStreamer(dec audio.Decoder, n, hop, channel int) *streamer {
	ch := dec.Format().Channels
	// Mixing here, once per sample, beats mixing per frame on the engine
	// (frames overlap N/H times) and halves what crosses to a GPU.
	s := &streamer{dec: dec, n: n, hop: hop, channel: channel}
	s.maxLen = batchLimits(n, hop, 1, 0)
	for i := range s.bufs {
		s.bufs[i] = make([]float32, s.maxLen)
	}
	s.tmp = make([]float32, (1<<18)*ch)
	return s
}

// streamResult is a decoded batch, or the decoder's error.
type streamResult struct {
	b   batch
	err error
}

// run streams every batch to fn on the calling goroutine; decoding happens
// on another (decode). It stops at the first error from either side.
func (s *streamer) run(fn func(b batch) error) error {
	full := make(chan streamResult, 1)
	free := make(chan int, 2)
	free <- 0
	free <- 1
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// On any exit, stop the decoder goroutine and wait for it: the caller
	// closes the decoder and reads s.frames after run returns.
	defer func() {
		close(stop)
		wg.Wait()
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(full)
		s.decode(full, free, stop)
	}()
	// The engine side: each buffer goes back to the decoder once analyzed
	// (a batch's buf is a prefix of bufs[i]).
	for r := range full {
		if r.err != nil {
			return r.err
		}
		if err := fn(r.b); err != nil {
			return err
		}
		for i := range s.bufs {
			if &s.bufs[i][0] == &r.b.buf[0] {
				free <- i
			}
		}
	}
	return nil
}

// decode fills the free buffers with batches and sends them to full until
// the stream ends, an error (sent too) or stop.
func (s *streamer) decode(full chan<- streamResult, free <-chan int, stop <-chan struct{}) {
	carry, carryFrom, first := 0, -1, 0
	for {
		var i int
		select {
		case i = <-free:
		case <-stop:
			return
		}
		buf := s.bufs[i]
		// the samples the next frames still need, from the previous buffer
		// (still being read by the engine: read-only here)
		if carryFrom >= 0 {
			copy(buf[:carry], s.bufs[1-i][carryFrom:carryFrom+carry])
		}
		filled, err := s.fill(buf, carry)
		if err != nil {
			full <- streamResult{err: err}
			return
		}
		frames := dsp.FrameCount(int64(filled), s.n, s.hop)
		if frames == 0 {
			return // end of stream: fewer than N samples left
		}
		consumed := frames * s.hop
		carry, carryFrom = filled-consumed, consumed
		select {
		case full <- streamResult{b: batch{buf: buf[:filled], samples: filled, first: first}}:
		case <-stop:
			return
		}
		first += frames
		if filled < s.maxLen {
			return // the decoder is at its end: the carry cannot make a frame
		}
	}
}

// pick writes the selected channel, or the mix, of interleaved frames.
func (s *streamer) pick(dst, src []float32, ch int) {
	audio.ParallelFor(len(dst), func(lo, hi int) {
		dst, src := dst[lo:hi], src[lo*ch:hi*ch]
		switch {
		case s.channel >= 0:
			for i := range dst {
				dst[i] = src[i*ch+s.channel]
			}
		case ch == 1:
			copy(dst, src)
		case ch == 2: // the common case, without a slice per frame
			src = src[:2*len(dst)]
			for i := range dst {
				dst[i] = (src[2*i] + src[2*i+1]) * 0.5
			}
		default:
			// the engines' definition of the mix: sum in channel order,
			// then times 1/channels
			inv := 1 / float32(ch)
			for i := range dst {
				frame := src[i*ch : i*ch+ch]
				sum := frame[0]
				for _, v := range frame[1:] {
					sum += v
				}
				dst[i] = sum * inv
			}
		}
	})
}

// fill decodes into buf after its first have samples until it holds maxLen
// or the stream ends.
func (s *streamer) fill(buf []float32, have int) (int, error) {
	ch := s.dec.Format().Channels
	for have < s.maxLen {
		want := min(len(s.tmp)/ch, s.maxLen-have)
		got, err := s.dec.Read(s.tmp[:want*ch])
		if got > 0 {
			s.frames += int64(got)
			s.pick(buf[have:have+got], s.tmp[:got*ch], ch)
			have += got
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return have, err
		}
		if got == 0 {
			return have, fmt.Errorf("decoder returned no samples and no error")
		}
	}
	return have, nil
}

// decodeBlocks reads dec to its end in blocks of up to 2^15 samples per
// channel and hands each (interleaved, valid during the call) with its
// samples per channel to fn on the calling goroutine: the one decode loop
// of the measurements that need no engine (levels, distortion). It stops
// when ctx ends; a decoder's failure is classified by streamError.
func decodeBlocks(ctx context.Context, dec audio.Decoder, in string, fn func(block []float32, samples int)) error {
	ch := dec.Format().Channels
	buf := make([]float32, 1<<15*ch)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := dec.Read(buf)
		if n > 0 {
			fn(buf[:n*ch], n)
		}
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return streamError(ctx, rerr)
		}
		if n == 0 {
			return fmt.Errorf("%s: decoder returned no samples and no error", in)
		}
	}
}
