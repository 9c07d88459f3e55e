package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
	"unsafe"

	"github.com/prismaudio/prism/audio"
)

// part is one file of a run, less the frames at its start that an earlier
// file already covered.
type part struct {
	file File
	skip int64
}

// run is files that follow each other within JoinTolerance: one sample
// stream whose sample i is at start + i/rate.
type run struct {
	start  time.Time
	rate   float64
	parts  []part
	frames int64 // samples per channel over all parts, less the skips
}

func (r *run) end() time.Time { return r.start.Add(seconds(float64(r.frames) / r.rate)) }

// runsOf splits files (sorted by start) into runs: a gap larger than
// JoinTolerance starts a new run; an overlap larger than it is skipped in
// the later file (a file wholly inside earlier ones is dropped).
func runsOf(files []File) []run {
	var runs []run
	for _, f := range files {
		if len(runs) == 0 {
			runs = append(runs, run{start: f.Start, rate: f.Rate})
		}
		r := &runs[len(runs)-1]
		var skip int64
		switch d := f.Start.Sub(r.end()); {
		case d > JoinTolerance:
			runs = append(runs, run{start: f.Start, rate: f.Rate})
			r = &runs[len(runs)-1]
		case d < -JoinTolerance:
			skip = int64(math.Ceil(-d.Seconds() * f.Rate))
		}
		if skip >= f.Frames {
			continue
		}
		r.parts = append(r.parts, part{file: f, skip: skip})
		r.frames += f.Frames - skip
	}
	return runs
}

// checkFiles reports files an analysis cannot join into one spectrum
// axis: differing rates (beyond 0.1 %) or channel counts, or a channel
// out of range.
func checkFiles(files []File, channel int) error {
	if len(files) == 0 {
		return errors.New("archive: no files")
	}
	f0 := files[0]
	for _, f := range files {
		if math.Abs(f.Rate/f0.Rate-1) > 1e-3 || f.Channels != f0.Channels {
			return fmt.Errorf("archive: %s (%g Hz, %d channels) differs from %s (%g Hz, %d channels): analyze them apart", f.Path, f.Rate, f.Channels, f0.Path, f0.Rate, f0.Channels)
		}
		if f.Frames < 0 || f.Rate <= 0 {
			return fmt.Errorf("archive: %s: unknown length or rate", f.Path)
		}
	}
	if channel < 0 || channel >= f0.Channels {
		return fmt.Errorf("archive: channel %d: the files have %d", channel+1, f0.Channels)
	}
	return nil
}

// sample is how a run's samples are read: decoded to float32, or, for
// 16-bit PCM of one channel (File.Int16), as the int16 values the file
// holds, which the engine converts itself (gpufft.Int16Executor: the CPU
// engine in its first FFT stage, the OpenCL engine on the device) instead
// of the reader in a pass of its own.
type sample interface{ float32 | int16 }

// int16Run says whether r's samples can be read as int16: every part 16-bit
// PCM of one channel, on a little-endian host (WAV's byte order, read into
// the int16 values as they are).
func (r run) int16Run() bool {
	if !littleEndian {
		return false
	}
	for _, p := range r.parts {
		if !p.file.Int16 || p.file.Channels != 1 {
			return false
		}
	}
	return true
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// runReader streams one channel of a run's files, in order, skipping each
// part's overlapped start.
type runReader[T sample] struct {
	parts   []part
	next    int
	dec     audio.Decoder
	left    int64 // frames still to deliver from dec
	channel int
	inter   []float32 // interleaved scratch for multichannel files
}

func newRunReader[T sample](r run, channel int) *runReader[T] {
	return &runReader[T]{parts: r.parts, channel: channel}
}

// open moves to the next part, reading away its skipped frames.
func (rr *runReader[T]) open() error {
	rr.close()
	if rr.next >= len(rr.parts) {
		return io.EOF
	}
	p := rr.parts[rr.next]
	rr.next++
	d, err := audio.Open(p.file.Path)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	rr.dec, rr.left = d, p.file.Frames
	if _, raw := any(rr).(*runReader[int16]); raw && !isInt16(d) {
		return fmt.Errorf("archive: %s: no longer 16-bit PCM of one channel (it changed since it was catalogued)", p.file.Path)
	}
	for skip := p.skip; skip > 0; {
		n, err := rr.readDec(make([]T, min(skip, 1<<16)))
		if err != nil {
			return err
		}
		skip -= int64(n)
	}
	return nil
}

// isInt16 says whether d's samples are 16-bit integer PCM of one channel.
func isInt16(d audio.Decoder) bool {
	raw, ok := d.(audio.RawPCM)
	return ok && d.Format().Channels == 1 && raw.RawFormat() == audio.RawFormat{BytesPerSample: 2}
}

// readDec reads up to len(dst) samples of the channel from the open file.
func (rr *runReader[T]) readDec(dst []T) (int, error) {
	if rr.left <= 0 {
		return 0, io.EOF
	}
	dst = dst[:min(int64(len(dst)), rr.left)]
	n, err := rr.decode(dst)
	rr.left -= int64(n)
	if n == 0 && err == nil {
		err = io.ErrNoProgress
	}
	if errors.Is(err, io.EOF) && rr.left > 0 {
		err = fmt.Errorf("archive: %s: ends %d frames early", rr.parts[rr.next-1].file.Path, rr.left)
	}
	if n > 0 && errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// decode reads up to len(dst) samples of the channel: int16 as the file
// holds them (one channel), float32 decoded.
func (rr *runReader[T]) decode(dst []T) (int, error) {
	switch dst := any(dst).(type) {
	case []int16:
		return rr.dec.(audio.RawPCM).ReadRaw(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), 2*len(dst)))
	case []float32:
		ch := rr.dec.Format().Channels
		if ch == 1 {
			return rr.dec.Read(dst)
		}
		dst = dst[:min(len(dst), interFrames)] // readFull asks again for the rest
		if need := len(dst) * ch; cap(rr.inter) < need {
			rr.inter = make([]float32, need)
		}
		inter := rr.inter[:len(dst)*ch]
		n, err := rr.dec.Read(inter)
		for i := range n {
			dst[i] = inter[i*ch+rr.channel]
		}
		return n, err
	}
	panic("unreachable")
}

// interFrames bounds a multichannel read, so that the interleaved scratch
// stays small (1 MiB a channel) whatever the block.
const interFrames = 1 << 18

// readFull fills dst from the run, moving across files; it returns fewer
// samples only at the run's end (with io.EOF) or on an error.
func (rr *runReader[T]) readFull(dst []T) (int, error) {
	got := 0
	for got < len(dst) {
		if rr.dec == nil || rr.left <= 0 {
			if err := rr.open(); err != nil {
				return got, err
			}
			continue
		}
		n, err := rr.readDec(dst[got:])
		got += n
		if err != nil && !errors.Is(err, io.EOF) {
			return got, err
		}
	}
	return got, nil
}

func (rr *runReader[T]) close() {
	if rr.dec != nil {
		rr.dec.Close()
		rr.dec = nil
	}
}

// prefetch reads a run on a goroutine of its own, a few blocks ahead of
// the spectra, so that the disk and the engine work at the same time. The
// spectra are computed in the blocks themselves (next), not in a copy:
// each block has headroom before its samples, where the samples a frame
// still needs from the block before are moved (fewer than a frame).
type prefetch[T sample] struct {
	full chan block[T]
	free chan []T
	stop chan struct{}
	done chan struct{}
	head int      // headroom before each block's samples
	cur  block[T] // the block next takes samples from
	off  int      // samples of cur.x taken
}

type block[T sample] struct {
	buf []T   // the whole buffer: head samples of headroom, then x
	x   []T   // the block's samples, buf[head : head+len(x)]
	err error // io.EOF after the run's last block
}

// prefetchBlocks and prefetchSamples size the read-ahead: 4 blocks of
// 1 Mi samples (16 MiB of float32, 8 MiB of int16), each block also one
// Execute of the spectra: a batch big enough to keep a GPU busy.
// prefetchSamples is a variable so that tests can cut runs into blocks
// shorter than a frame.
const prefetchBlocks = 4

var prefetchSamples = 1 << 20

// startPrefetch starts reading channel of r into bufs (prefetchBlocks
// buffers of head+prefetchSamples: blocks with head samples of headroom,
// at least the frame length less one), which are the caller's again once
// close returns. The caller must call close.
func startPrefetch[T sample](r run, channel, head int, bufs [][]T) *prefetch[T] {
	p := &prefetch[T]{full: make(chan block[T], prefetchBlocks), free: make(chan []T, prefetchBlocks),
		stop: make(chan struct{}), done: make(chan struct{}), head: head}
	for _, b := range bufs {
		p.free <- b[:head+prefetchSamples]
	}
	go p.run(newRunReader[T](r, channel))
	return p
}

// run is the reading goroutine: it owns rr.
func (p *prefetch[T]) run(rr *runReader[T]) {
	defer close(p.done)
	defer rr.close()
	for {
		var buf []T
		select {
		case buf = <-p.free:
		case <-p.stop:
			return
		}
		n, err := rr.readFull(buf[p.head:])
		if err == nil && n < len(buf)-p.head {
			err = io.EOF
		}
		select {
		case p.full <- block[T]{buf: buf, x: buf[p.head : p.head+n], err: err}:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// next returns pend followed in memory by up to n more samples of the run
// (added of them: at least one unless err is set), without copying them.
// pend must be empty or the last samples next returned (a suffix of its
// last result), at most head of them; the result is valid until the next
// call. err is io.EOF at the run's end, or the reading error, once the
// samples before it are taken.
func (p *prefetch[T]) next(pend []T, n int) (region []T, added int, err error) {
	if p.off == len(p.cur.x) {
		if p.cur.err != nil {
			return pend, 0, p.cur.err
		}
		b := <-p.full
		moved := b.buf[p.head-len(pend) : p.head]
		copy(moved, pend)
		if p.cur.buf != nil {
			p.free <- p.cur.buf
		}
		p.cur, p.off, pend = b, 0, moved
		if len(b.x) == 0 {
			return pend, 0, b.err
		}
	}
	k := min(n, len(p.cur.x)-p.off)
	at := p.head + p.off
	p.off += k
	return p.cur.buf[at-len(pend) : at+k], k, nil
}

// skip reads count samples and drops them.
func (p *prefetch[T]) skip(count int64) error {
	for count > 0 {
		_, k, err := p.next(nil, int(min(count, int64(prefetchSamples))))
		count -= int64(k)
		if err != nil && count > 0 {
			return endedEarly(err, count)
		}
	}
	return nil
}

// endedEarly is a read's error when count samples were still wanted: the
// run's end (io.EOF) said as such, any other error as it is.
func endedEarly(err error, count int64) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("archive: the files end %d samples early", count)
	}
	return err
}

// close stops the reader and waits for it. Calling it twice is harmless.
func (p *prefetch[T]) close() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
}
