package tfrfile

import (
	"encoding/json"
	"fmt"
	"image"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfr"
)

// Sidecar is the JSON written beside an NPY output (SidecarPath). Its
// keys are fixed: freq_hz (every column's centre frequency, ascending),
// enbw_hz (each column's equivalent noise bandwidth), hop_s, span_s (the
// longest window), frame_time_s (row 0's centre; row i is at
// frame_time_s + i·hop_s), sample_rate, frames, mode, window, unit
// ("dBFS") and the mode's parameters (zero or absent when unused).
type Sidecar struct {
	Mode          string    `json:"mode"`
	Unit          string    `json:"unit"`
	SampleRate    int       `json:"sample_rate"`
	Frames        int       `json:"frames"`
	HopS          float64   `json:"hop_s"`
	SpanS         float64   `json:"span_s"`
	FrameTimeS    float64   `json:"frame_time_s"`
	Window        string    `json:"window,omitempty"`
	FFT           int       `json:"fft,omitempty"`
	Sizes         []int     `json:"sizes,omitempty"`
	BinsPerOctave int       `json:"bins_per_octave,omitempty"`
	FMinHz        float64   `json:"fmin_hz,omitempty"`
	FMaxHz        float64   `json:"fmax_hz,omitempty"`
	GammaHz       float64   `json:"gamma_hz,omitempty"`
	ThresholdDB   float64   `json:"threshold_db,omitempty"`
	Squeeze       bool      `json:"squeeze,omitempty"`
	FreqHz        []float64 `json:"freq_hz"`
	ENBWHz        []float64 `json:"enbw_hz"`
}

// sidecarOf describes tr's frames.
func sidecarOf(tr tfr.Transform, frames int) Sidecar {
	c := tr.Config()
	s := Sidecar{Mode: c.Mode.String(), Unit: "dBFS", SampleRate: int(c.Rate), Frames: frames,
		HopS: float64(c.Hop) / c.Rate, SpanS: float64(tr.Span()) / c.Rate, FrameTimeS: float64(tr.Span()) / 2 / c.Rate,
		Window: c.Window.String(), FreqHz: tr.Freqs(), ENBWHz: tr.ENBW()}
	switch c.Mode {
	case tfr.STFT:
		s.FFT = c.Size
	case tfr.MultiRes:
		s.Sizes = c.Sizes
	case tfr.VQT:
		s.BinsPerOctave, s.FMinHz, s.FMaxHz, s.GammaHz = c.BinsPerOctave, c.FMin, c.FMax, c.Gamma
		s.Window = ""
	case tfr.Reassigned:
		s.ThresholdDB, s.Squeeze, s.Sizes = c.ThresholdDB, c.Squeeze, c.Sizes
		if c.Sizes == nil {
			s.FFT = c.Size
		}
	}
	return s
}

// writer is one output: rows streamed into NPY or CSV on a goroutine of
// its own (encode.AsyncRows: the transform's next call runs while the
// last one's rows go to the file), or folded into a PNG's columns.
type writer struct {
	format encode.Format
	o      *encode.Output
	rw     *encode.AsyncRows
	side   *encode.Output
	png    *pngFold
	path   string
}

func newWriter(out, in string, format encode.Format, opt Options, tr tfr.Transform, frames int) (*writer, error) {
	w := &writer{format: format, path: out}
	if format == encode.FormatPNG {
		w.png = newPNGFold(opt.Image, tr, frames, filepath.Base(in))
		return w, nil
	}
	o, err := encode.CreateWith(out, encode.CreateOptions{Inputs: []string{in}, Force: opt.Force})
	if err != nil {
		return nil, err
	}
	w.o = o
	if format == encode.FormatNPY {
		w.side, err = encode.CreateWith(SidecarPath(out), encode.CreateOptions{Inputs: []string{in}, Force: opt.Force})
		if err == nil {
			err = json.NewEncoder(w.side.W).Encode(sidecarOf(tr, frames))
		}
	}
	var rw encode.RowWriter
	if err == nil && format == encode.FormatNPY {
		rw, err = encode.NewNPYRows(o, len(tr.Freqs()))
	} else if err == nil {
		rw, err = newCSVRows(o, tr)
	}
	if err != nil {
		w.discard()
		return nil, err
	}
	w.rw = encode.NewAsyncRows(rw, len(tr.Freqs()))
	return w, nil
}

func (w *writer) rows(first int, db []float32) error {
	if w.png != nil {
		w.png.add(first, db)
		return nil
	}
	return w.rw.Rows(first, db)
}

func (w *writer) finish(frames int) error {
	if w.png != nil {
		return encode.WritePNG(w.path, w.png.render())
	}
	if err := w.rw.Finish(frames); err != nil {
		return err
	}
	if w.side != nil {
		if err := w.side.Commit(); err != nil {
			return err
		}
	}
	return w.o.Commit()
}

func (w *writer) discard() {
	if w.rw != nil {
		w.rw.Close() // the rows queued are written before the file is removed
	}
	if w.o != nil {
		w.o.Discard()
	}
	if w.side != nil {
		w.side.Discard()
	}
}

// csvRows writes a header time_s, then each column's centre frequency in
// Hz, and one line per frame at the time of its centre.
type csvRows struct {
	o         *encode.Output
	bins      int
	hop, rate float64
	centre    float64
	line      []byte
}

func newCSVRows(o *encode.Output, tr tfr.Transform) (*csvRows, error) {
	c := tr.Config()
	r := &csvRows{o: o, bins: len(tr.Freqs()), hop: float64(c.Hop), rate: c.Rate, centre: float64(tr.Span()) / 2}
	line := []byte("time_s")
	for _, f := range tr.Freqs() {
		line = append(line, ',')
		line = strconv.AppendFloat(line, f, 'f', -1, 64)
	}
	line = append(line, '\n')
	if _, err := o.W.Write(line); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return r, nil
}

func (r *csvRows) Rows(first int, db []float32) error {
	for f := range len(db) / r.bins {
		line := strconv.AppendFloat(r.line[:0], (float64(first+f)*r.hop+r.centre)/r.rate, 'f', -1, 64)
		for _, v := range db[f*r.bins : (f+1)*r.bins] {
			line = append(line, ',')
			line = strconv.AppendFloat(line, float64(v), 'g', -1, 32)
		}
		r.line = append(line, '\n')
		if _, err := r.o.W.Write(r.line); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
	return nil
}

func (r *csvRows) Finish(int) error { return nil }

// pngFold folds frames into the image's columns (the maximum, as every
// spectrogram raster does: plot.ColumnFrames) and the columns of the
// transform into the image's rows: each row shows the maximum of the
// columns whose centres fall in its frequency span, or the column nearest
// its centre where it is narrower than a column.
type pngFold struct {
	layout     *plot.Spectrogram
	frames     int
	rowLo      []int
	rowHi      []int
	pix        []float32 // column-major, row 0 at the low end
	bins       int
	cols, rows int
}

func newPNGFold(img plot.ImageOptions, tr tfr.Transform, frames int, name string) *pngFold {
	c := tr.Config()
	n := 1 << int(math.Ceil(math.Log2(float64(tr.Span()))))
	if img.Title == "" {
		img.Title = fmt.Sprintf("%s   %v  hop=%d  span=%d", name, c.Mode, c.Hop, tr.Span())
	}
	l := plot.NewSpectrogram(img, plot.Geometry{Rate: int(c.Rate), FFT: n, Hop: c.Hop, Frames: frames})
	p := &pngFold{layout: l, frames: frames, cols: l.Columns(), rows: l.Rows(), bins: len(tr.Freqs())}
	p.pix = make([]float32, p.cols*p.rows)
	for i := range p.pix {
		p.pix[i] = float32(math.Inf(-1))
	}
	lo, hi := l.RowBins()
	binHz := c.Rate / float64(n)
	freqs := tr.Freqs()
	p.rowLo, p.rowHi = make([]int, p.rows), make([]int, p.rows)
	for r := range p.rows {
		f0, f1 := (float64(lo[r])-0.5)*binHz, (float64(hi[r])-0.5)*binHz
		a, _ := slices.BinarySearch(freqs, f0) // the first bin at or above f0
		b, _ := slices.BinarySearch(freqs, f1)
		if b <= a {
			a = nearest(freqs, (f0+f1)/2)
			b = a + 1
		}
		p.rowLo[r], p.rowHi[r] = a, b
	}
	return p
}

func nearest(freqs []float64, f float64) int {
	i, _ := slices.BinarySearch(freqs, f)
	if i == len(freqs) || (i > 0 && f-freqs[i-1] < freqs[i]-f) {
		i--
	}
	return i
}

func (p *pngFold) add(first int, db []float32) {
	for f := range len(db) / p.bins {
		row := db[f*p.bins : (f+1)*p.bins]
		c0, c1 := plot.FrameColumns(first+f, p.cols, p.frames)
		for r := range p.rows {
			m := plot.MaxLevel(float32(math.Inf(-1)), row[p.rowLo[r]:p.rowHi[r]])
			for c := c0; c <= c1; c++ {
				if m > p.pix[c*p.rows+r] {
					p.pix[c*p.rows+r] = m
				}
			}
		}
	}
}

func (p *pngFold) render() *image.RGBA { return p.layout.Render(p.pix) }
