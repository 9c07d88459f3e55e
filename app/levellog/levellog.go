// Package levellog writes level logs: a stream's sound levels per interval
// (package soundlevel's rows) as CSV, from a file (`prism levels --every
// --csv`) or from blocks handed to a Writer (`prism capture
// --levels-every`). It knows nothing of devices or windows; a Writer is
// used by one goroutine at a time and does not allocate per block.
package levellog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/meter/soundlevel"
	"github.com/prismaudio/prism/audio"
)

// Options say what a level log measures.
type Options struct {
	Every   time.Duration // each row's interval (> 0)
	Channel int           // the channel measured
	// OffsetDB is a level calibration's offset (dsp.LevelCal.OffsetDB):
	// 0 gives levels in dB re a full-scale sine, a calibration dB SPL.
	OffsetDB float64
}

// Writer writes the level log of an interleaved stream: CSVHeader, then
// one row per interval as each completes, the last (Close) however short.
type Writer struct {
	m      *soundlevel.Meter
	out    *bufio.Writer
	line   []byte
	offset float64
	rows   int
	frames int64 // samples per channel written
}

// NewWriter starts a level log of a stream of sampleRate Hz and channels
// channels on w and writes its header.
func NewWriter(w io.Writer, sampleRate, channels int, o Options) (*Writer, error) {
	if o.Every <= 0 {
		return nil, fmt.Errorf("levellog: interval %v (want > 0)", o.Every)
	}
	iv := int64(o.Every.Seconds()*float64(sampleRate) + 0.5)
	if iv < 1 {
		return nil, fmt.Errorf("levellog: interval %v is shorter than a sample at %d Hz", o.Every, sampleRate)
	}
	if o.Channel < 0 || o.Channel >= channels {
		return nil, fmt.Errorf("levellog: channel %d of a %d-channel stream", o.Channel, channels)
	}
	m, err := soundlevel.NewMeter(soundlevel.Config{SampleRate: sampleRate, Channels: channels, Channel: o.Channel, IntervalSamples: iv})
	if err != nil {
		return nil, err
	}
	lw := &Writer{m: m, out: bufio.NewWriter(w), line: make([]byte, 0, 128), offset: o.OffsetDB}
	_, err = lw.out.WriteString(soundlevel.CSVHeader + "\n")
	return lw, err
}

// Write measures an interleaved block and writes the rows it completes.
func (w *Writer) Write(block []float32) error {
	w.frames += int64(len(block) / w.m.Config().Channels)
	for len(block) > 0 {
		n, done := w.m.Write(block)
		block = block[n:]
		if done {
			if err := w.emit(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *Writer) emit() error {
	r, ok := w.m.Take()
	if !ok {
		return nil
	}
	w.rows++
	w.line = soundlevel.AppendCSV(w.line[:0], r.Calibrated(w.offset))
	_, err := w.out.Write(w.line)
	return err
}

// Rows is how many rows were written.
func (w *Writer) Rows() int { return w.rows }

// Close writes the last, partial interval (if it has samples) and
// flushes; it does not close the underlying writer.
func (w *Writer) Close() error {
	if err := w.emit(); err != nil {
		return err
	}
	return w.out.Flush()
}

// File writes the level log of the audio file in to out and returns the
// decoder's warnings. An unreadable or undecodable file is an
// *analysis.InputError; cancelling ctx stops it between blocks.
func File(ctx context.Context, in string, o Options, out io.Writer) ([]string, error) {
	dec, err := audio.Open(in)
	if err != nil {
		return nil, &analysis.InputError{Err: err}
	}
	defer dec.Close()
	f := dec.Format()
	w, err := NewWriter(out, f.SampleRate, f.Channels, o)
	if err != nil {
		return nil, &analysis.InputError{Err: fmt.Errorf("%s: %w", in, err)}
	}
	buf := make([]float32, 1<<14*f.Channels)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, rerr := dec.Read(buf)
		if err := w.Write(buf[:n*f.Channels]); err != nil {
			return nil, err
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, &analysis.InputError{Err: fmt.Errorf("%s: %w", in, rerr)}
		}
		if n == 0 {
			return nil, fmt.Errorf("levellog: %s: decoder returned no samples and no error", in)
		}
	}
	if w.frames == 0 {
		return dec.Warnings(), &analysis.InputError{Err: fmt.Errorf("%s: no samples", in)}
	}
	return dec.Warnings(), w.Close()
}
