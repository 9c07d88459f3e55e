package tfrfile

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/audio"
)

// blockSamples is the samples per channel one decoder read gives; tests
// lower it to cross many blocks in a short file.
var blockSamples = 1 << 17

// aheadSamples is how many decoded samples may wait for the transform:
// one call's (callSamples), so the decoder prepares the next call while
// the engine runs this one. With 4 blocks (2^19 samples) ahead, a
// 10-minute file's VQT waited 56–63 ms for its 8 calls' samples on an
// H200 host, most of them decoded while the engine was idle.
const aheadSamples = callSamples

// blocksAhead is how many decoded blocks may wait for the transform
// (their buffers are made as the decoder first needs them).
func blocksAhead() int { return max(4, aheadSamples/blockSamples+1) }

// source is one channel of a file, or the mean of all, decoded on a
// goroutine of its own up to blocksAhead() blocks ahead of the caller
// (as app/analysis's file pipeline overlaps reading with the engine),
// and handed out by ranges of samples that never move back.
type source struct {
	dec      audio.Decoder
	in       string
	rate     int
	length   int       // samples per channel, known before the first range
	buf      []float32 // buf[off:] holds samples [base, …)
	off      int
	base     int
	blocks   chan block
	free     chan []float32
	stop     chan struct{}
	running  sync.WaitGroup
	closed   bool
	wait     time.Duration // time the caller waited for the decoder
	warnings []string
}

// block is a decoded block of samples, or the decoder's error.
type block struct {
	x   []float32
	err error
}

// openSource opens in and starts decoding channel ch (< 0: the mix).
func openSource(in string, ch int) (*source, error) {
	dec, err := audio.Open(in)
	if err != nil {
		return nil, &analysis.InputError{Err: err}
	}
	f := dec.Format()
	if ch >= f.Channels {
		dec.Close()
		return nil, &analysis.InputError{Err: fmt.Errorf("%s: no channel %d (the file has %d: 0…%d)", in, ch, f.Channels, f.Channels-1)}
	}
	ahead := blocksAhead()
	s := &source{dec: dec, in: in, rate: f.SampleRate, blocks: make(chan block, ahead),
		free: make(chan []float32, ahead), stop: make(chan struct{})}
	for range ahead {
		s.free <- nil // made on first use
	}
	s.running.Add(1)
	go s.decode(ch, f.Channels)
	if f.Frames >= 0 {
		s.length = int(f.Frames)
		return s, nil
	}
	// Length unknown (the transform's calls need it first): decode it all.
	for {
		more, err := s.next()
		if err != nil {
			s.close()
			return nil, err
		}
		if !more {
			s.length = len(s.buf)
			return s, nil
		}
	}
}

// decode reads blocks until the end, an error (sent on) or stop.
func (s *source) decode(ch, channels int) {
	defer s.running.Done()
	defer close(s.blocks)
	tmp := make([]float32, blockSamples*channels)
	for {
		var x []float32
		select {
		case x = <-s.free:
		case <-s.stop:
			return
		}
		if x == nil {
			x = make([]float32, blockSamples)
		}
		n, err := s.dec.Read(tmp)
		if n > 0 {
			x = x[:n]
			pick(x, tmp[:n*channels], channels, ch)
			s.blocks <- block{x: x} // never blocks: there are only blocksAhead() buffers
		}
		switch {
		case errors.Is(err, io.EOF):
			return
		case err != nil:
			var fe *audio.FormatError
			if errors.As(err, &fe) {
				err = &analysis.InputError{Err: err}
			} else {
				err = fmt.Errorf("%s: %w", s.in, err)
			}
			s.blocks <- block{err: err}
			return
		case n == 0:
			s.blocks <- block{err: fmt.Errorf("%s: decoder returned no samples and no error", s.in)}
			return
		}
	}
}

// reserve makes room for ranges of up to n samples, so buf is not grown
// (and its pages not faulted in again) block by block.
func (s *source) reserve(n int) {
	if need := n + blockSamples; cap(s.buf)-s.off < need {
		s.buf = append(make([]float32, 0, need), s.buf[s.off:]...)
		s.off = 0
	}
}

// next appends the next block to buf; false at the end of the stream.
func (s *source) next() (bool, error) {
	t := time.Now()
	b, ok := <-s.blocks
	s.wait += time.Since(t)
	if !ok {
		return false, nil
	}
	if b.err != nil {
		return false, b.err
	}
	if len(s.buf)+len(b.x) > cap(s.buf) && s.off > 0 {
		s.buf = s.buf[:copy(s.buf, s.buf[s.off:])]
		s.off = 0
	}
	s.buf = append(s.buf, b.x...)
	s.free <- b.x[:cap(b.x)]
	return true, nil
}

// samples returns samples [lo, hi) (valid until the next call); lo and
// hi never go below the last call's.
func (s *source) samples(lo, hi int) ([]float32, error) {
	if lo < s.base || hi > s.length || lo > s.base+len(s.buf)-s.off {
		panic(fmt.Sprintf("tfrfile: samples [%d, %d) of a source at %d…%d of %d", lo, hi, s.base, s.base+len(s.buf)-s.off, s.length))
	}
	s.off += lo - s.base
	s.base = lo
	for s.base+len(s.buf)-s.off < hi {
		more, err := s.next()
		if err != nil {
			return nil, err
		}
		if !more {
			return nil, &analysis.InputError{Err: fmt.Errorf("%s: ended after %d of its %d samples", s.in, s.base+len(s.buf)-s.off, s.length)}
		}
	}
	return s.buf[s.off : s.off+hi-lo], nil
}

// close stops the decoder and closes the file; the warnings are then
// the decoder's.
func (s *source) close() {
	if s.closed {
		return
	}
	s.closed = true
	close(s.stop)
	for range s.blocks { // the decoder may be about to send its last blocks
	}
	s.running.Wait()
	s.warnings = s.dec.Warnings()
	s.dec.Close()
}

// pick writes channel ch of the interleaved frames in src (of channels
// each) to dst, or their mean when ch < 0, split over the cores.
func pick(dst, src []float32, channels, ch int) {
	audio.ParallelFor(len(dst), func(lo, hi int) {
		dst, src := dst[lo:hi], src[lo*channels:hi*channels]
		switch {
		case ch >= 0:
			for i := range dst {
				dst[i] = src[i*channels+ch]
			}
		case channels == 1:
			copy(dst, src)
		case channels == 2:
			src = src[:2*len(dst)]
			for i := range dst {
				dst[i] = (src[2*i] + src[2*i+1]) / 2
			}
		default:
			scale := 1 / float32(channels)
			for i := range dst {
				s := float32(0)
				for _, v := range src[i*channels : (i+1)*channels] {
					s += v
				}
				dst[i] = s * scale
			}
		}
	})
}
