package live

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/audio"
)

// Audio recording: beside the analysis recording (record.go, dB rows),
// the input itself, every channel at the source's rate, written as the
// engine goroutine reads it from the ring. The ring hands over float32
// samples whatever the device delivered. The file's name chooses its
// format: .wav is 32-bit float WAV, the samples exactly as captured, no
// requantization; .flac is 24-bit FLAC, each sample rounded to the
// nearest of 2^24 steps without dither (encode.FLACWriter's rule), the
// samples it clipped counted in Clipped. Input the stream lost
// (overwritten before it was read, an outage's gap, a settings change's
// drain) is a jump in the ring's position, and the recording writes
// silence for it, in either format, so the file keeps real time and its
// duration is the stream's; those frames are counted in GapFrames. Like
// the analysis recording's rows, the samples go through a bounded queue
// to a writer goroutine: a slow disk never holds up the analysis, and
// what finds no free chunk is written as silence too (Dropped).

// AudioRecordStatus says what the audio recorder is doing. Frames counts
// the sample frames written so far (silence included), GapFrames the
// frames of silence written for input the stream lost, Dropped the
// frames the writer fell behind on (also written as silence), Clipped the
// samples a FLAC's 24-bit quantization clipped (a WAV's float never
// clips). Err is why
// the last recording ended early ("" if it did not); Saved says its file
// is in place.
type AudioRecordStatus struct {
	Active    bool
	Saved     bool
	Path      string
	Rate      int
	Channels  int
	Frames    int64
	GapFrames int64
	Dropped   int64
	Clipped   int64
	Err       string
}

// Seconds is the recording's duration so far.
func (s AudioRecordStatus) Seconds() float64 {
	if s.Rate <= 0 {
		return 0
	}
	return float64(s.Frames) / float64(s.Rate)
}

// audioChunk is silence frames of silence followed by n frames of
// samples (interleaved).
type audioChunk struct {
	silence int64
	n       int
	buf     []float32
}

const (
	audioChunkFrames = 4096
	audioQueueBytes  = 32 << 20 // at 48 kHz × 2 channels: 87 s of input
)

// audioRecording is the engine goroutine's side of an audio recording.
type audioRecording struct {
	path    string
	src     *audio.Recorder
	ch      int
	expect  uint64 // the stream position of the next frame expected
	first   uint64 // the stream position of the first frame recorded
	started bool   // expect and first are set (the first frames seen)
	pending int64  // frames of silence not yet queued (lost or dropped)
	cur     *audioChunk
	free    chan *audioChunk
	queue   chan *audioChunk
	chunks  int
	failed  atomic.Bool // the writer failed

	o    *encode.Output
	ww   audioWriter
	done chan struct{}
	// the writer goroutine's, the finisher's after done
	err                    error
	frames, gapF, dr, clip int64
	mu                     sync.Mutex // guards the counters shared with the status
	zero                   []float32
}

// audioWriter is a recording's file: interleaved frames at full scale ±1
// in, Finish at the end (before the Output's Commit). Gaps are the
// recording's to write (as silence), whatever the format.
type audioWriter interface {
	Write(x []float32) error
	Finish() error
}

// clipCounter is a writer that quantizes and counts what it clips.
type clipCounter interface{ Clipped() int64 }

// audioFormats are the extensions an audio recording may have.
const audioFormats = ".wav or .flac"

// newAudioWriter starts the file of path's format on o.
func newAudioWriter(o *encode.Output, path string, rate, ch int) (audioWriter, error) {
	if strings.EqualFold(filepath.Ext(path), ".flac") {
		return encode.NewFLACWriter(o, rate, ch, 24)
	}
	return encode.NewWAVWriter(o, rate, ch, 32, true)
}

// StartAudioRecording starts writing the input (every channel, at the
// source's rate: 32-bit float WAV, or 24-bit FLAC, as path's extension
// says) to path through a temporary file
// renamed when it stops. The path is checked and its file created at
// once (its error returned); the recording starts between batches, with
// the next input read, and done (if not nil) is called on the engine
// goroutine with its outcome. A change of source ends it (its file kept).
func (l *Live) StartAudioRecording(path string, done func(error)) error {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".wav" && ext != ".flac" {
		return fmt.Errorf("live: record audio: %s: record audio as %s", filepath.Base(path), audioFormats)
	}
	o, err := encode.Create(path)
	if err != nil {
		return fmt.Errorf("live: record audio: %w", err)
	}
	l.cmds <- func(l *Live) error {
		err := l.startAudio(o, path)
		if err != nil {
			o.Discard()
		}
		if done != nil {
			done(err)
			return nil
		}
		return err
	}
	return nil
}

func (l *Live) startAudio(o *encode.Output, path string) error {
	r := &l.run
	if r.audio != nil {
		return fmt.Errorf("live: record audio: already recording to %s", r.audio.path)
	}
	ww, err := newAudioWriter(o, path, r.rate, r.ch)
	if err != nil {
		return fmt.Errorf("live: record audio: %w", err)
	}
	chunks := min(max(audioQueueBytes/(4*audioChunkFrames*r.ch), 4), 4096)
	d := &audioRecording{path: path, src: r.rec, ch: r.ch, o: o, ww: ww,
		free: make(chan *audioChunk, chunks), queue: make(chan *audioChunk, chunks), done: make(chan struct{}),
		zero: make([]float32, audioChunkFrames*r.ch)}
	go d.write()
	r.audio = d
	l.audioPub.mu.Lock()
	l.audioPub.st = AudioRecordStatus{Active: true, Path: path, Rate: r.rate, Channels: r.ch}
	l.audioPub.cur = d
	l.audioPub.seq++
	l.audioPub.mu.Unlock()
	return nil
}

// audioPub is the audio recorder's status for other goroutines.
type audioPub struct {
	mu        sync.Mutex
	st        AudioRecordStatus
	cur       *audioRecording // the one running (its counters are live), nil: none
	seq       uint64
	finishing sync.WaitGroup
}

// AudioRecordStatus copies the audio recorder's status. Any goroutine may
// call it; it does not allocate.
func (l *Live) AudioRecordStatus() AudioRecordStatus {
	l.audioPub.mu.Lock()
	defer l.audioPub.mu.Unlock()
	st := l.audioPub.st
	if d := l.audioPub.cur; d != nil {
		d.mu.Lock()
		st.Frames, st.GapFrames, st.Dropped, st.Clipped = d.frames, d.gapF, d.dr, d.clip
		d.mu.Unlock()
	}
	return st
}

// add takes frames (interleaved) that the ring returned, the first at
// stream position pos: silence first for any frames skipped since the
// last ones, then the samples. It runs on the engine goroutine, never
// blocks, and allocates only while the queue grows.
func (d *audioRecording) add(frames []float32, pos uint64) {
	n := len(frames) / d.ch
	if n == 0 {
		return
	}
	if d.started && pos > d.expect {
		d.flush() // the silence goes after what is queued
		d.pending += int64(pos - d.expect)
		d.mu.Lock()
		d.gapF += int64(pos - d.expect)
		d.mu.Unlock()
	}
	if !d.started {
		d.first = pos
	}
	d.started, d.expect = true, pos+uint64(n)
	for len(frames) > 0 {
		if d.cur == nil {
			if d.cur = d.chunk(); d.cur == nil {
				k := len(frames) / d.ch
				d.pending += int64(k)
				d.mu.Lock()
				d.dr += int64(k)
				d.mu.Unlock()
				return
			}
			d.cur.silence, d.cur.n = d.pending, 0
			d.pending = 0
		}
		c := d.cur
		k := min(audioChunkFrames-c.n, len(frames)/d.ch)
		copy(c.buf[c.n*d.ch:], frames[:k*d.ch])
		c.n += k
		frames = frames[k*d.ch:]
		if c.n == audioChunkFrames {
			d.flush()
		}
	}
}

// flush queues the chunk being filled.
func (d *audioRecording) flush() {
	if d.cur != nil {
		d.queue <- d.cur // never blocks: the queue holds every chunk
		d.cur = nil
	}
}

func (d *audioRecording) chunk() *audioChunk {
	select {
	case c := <-d.free:
		return c
	default:
	}
	if d.chunks < cap(d.queue) {
		d.chunks++
		return &audioChunk{buf: make([]float32, audioChunkFrames*d.ch)}
	}
	return nil
}

// write is the writer goroutine.
func (d *audioRecording) write() {
	defer close(d.done)
	for c := range d.queue {
		if d.err == nil {
			d.err = d.silence(c.silence)
		}
		if d.err == nil {
			d.err = d.ww.Write(c.buf[:c.n*d.ch])
			d.count(int64(c.n))
			if cc, ok := d.ww.(clipCounter); ok {
				d.mu.Lock()
				d.clip = cc.Clipped()
				d.mu.Unlock()
			}
		}
		if d.err != nil {
			d.failed.Store(true)
		}
		d.free <- c
	}
}

// silence writes n frames of zeros.
func (d *audioRecording) silence(n int64) error {
	for n > 0 {
		k := min(n, audioChunkFrames)
		if err := d.ww.Write(d.zero[:k*int64(d.ch)]); err != nil {
			return err
		}
		d.count(k)
		n -= k
	}
	return nil
}

func (d *audioRecording) count(n int64) {
	d.mu.Lock()
	d.frames += n
	d.mu.Unlock()
}

// StopAudioRecording ends the audio recording between batches; its file
// is completed and renamed into place off the engine goroutine, and done
// (if not nil) gets the final status and the error from that goroutine.
// Stopping when not recording reports an error.
func (l *Live) StopAudioRecording(done func(AudioRecordStatus, error)) {
	l.cmds <- func(l *Live) error {
		if l.run.audio == nil {
			if done != nil {
				done(l.AudioRecordStatus(), errors.New("live: record audio: not recording"))
			}
			return nil
		}
		l.endAudio(nil, done)
		return nil
	}
}

// endAudio stops the audio recording on the engine goroutine (cause: why,
// nil when asked to) and finishes its file in the background.
func (l *Live) endAudio(cause error, done func(AudioRecordStatus, error)) {
	d := l.run.audio
	l.run.audio = nil
	d.flush()
	tail := d.pending // lost or dropped at the end: silence, to keep time
	l.audioPub.mu.Lock()
	l.audioPub.st.Active = false
	l.audioPub.cur = nil
	st, seq := l.audioPub.st, l.audioPub.seq
	l.audioPub.mu.Unlock()
	l.audioPub.finishing.Add(1)
	go func() {
		defer l.audioPub.finishing.Done()
		close(d.queue)
		<-d.done
		err := d.err
		if err == nil {
			err = d.silence(tail)
		}
		if err == nil {
			err = errors.Join(d.ww.Finish(), d.o.Commit())
		}
		d.o.Discard()
		switch {
		case err != nil:
			err = fmt.Errorf("live: record audio: %w", err)
		case cause != nil:
			err = cause
			st.Saved = true
		default:
			st.Saved = true
		}
		if err != nil {
			st.Err = err.Error()
		}
		d.mu.Lock()
		st.Frames, st.GapFrames, st.Dropped, st.Clipped = d.frames, d.gapF, d.dr, d.clip
		d.mu.Unlock()
		l.audioPub.mu.Lock()
		if l.audioPub.seq == seq {
			l.audioPub.st = st
		}
		l.audioPub.mu.Unlock()
		if done != nil {
			done(st, err)
		}
	}()
}

// tapAudio hands the frames just read from the ring (got of them in tmp)
// to the audio recording, if one runs; a source change ends it.
func (l *Live) tapAudio(got int) {
	d := l.run.audio
	if d == nil {
		return
	}
	r := &l.run
	if d.src != r.rec {
		l.endAudio(errors.New("live: record audio: stopped: the source changed"), nil)
		return
	}
	d.add(r.tmp[:got*r.ch], r.rec.Ring().Position()-uint64(got))
	if d.failed.Load() {
		l.endAudio(nil, nil)
	}
}
