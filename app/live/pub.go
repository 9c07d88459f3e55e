package live

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// Spectrum is a copy of one output channel's spectra, in dBFS, bins 0…N/2.
// LongAvg is the long-term average: the power mean of every frame since
// the settings were last applied (Apply, which the window's reset does).
// The traces are the engine's state as it last sent them back: every
// 15 ms (a display's frame rate; less often at the largest sizes and
// channel counts, traceInterval), so at most that much older than the
// newest batch; every frame in between is in them. LongFrames is the
// number of frames LongAvg holds (it covers LongFrames·Hop/Rate seconds).
//
// Want is the caller's: the traces Latest fills (0: all of them); the
// others are left empty. A display asks for the ones it draws: at 2^20
// points each trace is half a million logarithms.
type Spectrum struct {
	Current, ExpAvg, LinAvg, LongAvg, PeakHold, MinHold []float32
	LongFrames                                          uint64
	Peak                                                dsp.Peak
	BinHz                                               float64
	Geometry                                            Geometry
	Bands                                               []dsp.BandLevel // RTA levels (Fraction > 0), dBFS, averaged
	Want                                                Traces
	// Freqs, when not nil, is every bin's centre frequency in Hz, for an
	// analysis mode's bins that are not uniform (package tfrlive; shared:
	// never to be written); nil: bin k is at k·BinHz.
	Freqs []float64
	ENBW  []float64 // with Freqs: every bin's equivalent noise bandwidth in Hz

	raw [gpufft.NumTraces][]float32 // Latest's copies of the power traces
}

// Traces is a set of a Spectrum's traces, for Spectrum.Want.
type Traces uint8

// The traces, in gpufft's trace order (TraceCurrent…TraceMin).
const (
	WantCurrent Traces = 1 << iota
	WantExpAvg
	WantLinAvg
	WantLongAvg
	WantPeakHold
	WantMinHold
	// WantBandsOnly fills no trace (and no peak): the bands and geometry.
	WantBandsOnly Traces = 1 << 7
	// WantAll is every trace, what a zero Want means.
	WantAll = WantCurrent | WantExpAvg | WantLinAvg | WantLongAvg | WantPeakHold | WantMinHold
)

// traces are dst's trace slices in gpufft's trace order.
func (dst *Spectrum) traces() [gpufft.NumTraces]*[]float32 {
	return [gpufft.NumTraces]*[]float32{&dst.Current, &dst.ExpAvg, &dst.LinAvg, &dst.LongAvg, &dst.PeakHold, &dst.MinHold}
}

// published holds the copies of Live's results that other goroutines
// read: the latest spectra as power (readers convert to dB on their own
// goroutine, at their own rate) and the spectrogram history's columns in
// dBFS, as the engine folded them.
type published struct {
	mu       sync.Mutex
	geo      Geometry
	colGeo   Geometry      // the columns': Hop is the time between columns
	colFrame int           // frames folded into each column (1: a column per frame)
	spectra  []Spectrum    // as power
	hist     [][][]float32 // [output channel][column % History][bin], dBFS
	histNext uint64        // columns ever pushed
	frames   uint64
	// longFrames counts the frames since the last reset: the long-term
	// average's, copied into the spectra with the traces.
	longFrames uint64
	// peak is the window kernel of the spectra published since the
	// settings last changed (nil from a reset to the next publish): the
	// peak readout's table, built once per settings, never per frame.
	peak    *dsp.WindowKernel
	peakWin window.Func
}

// historyBytes caps the spectrogram history's memory: at large FFT sizes
// it keeps fewer columns (a display pulls them many times a second).
const historyBytes = 256 << 20

// historyColumns is the number of columns kept for settings' History.
func historyColumns(history, bins, outCh int) int {
	if history < 0 {
		return 0
	}
	return max(1, min(history, historyBytes/(4*bins*outCh)))
}

// reset starts the results of geometry geo afresh; columns hold
// colFrames frames each (ownGrid: the history's grid is Live's own, so its
// columns are colFrames·Hop samples apart).
func (p *published) reset(geo Geometry, outCh, history, colFrames int, ownGrid bool) {
	bins := geo.Bins()
	history = historyColumns(history, bins, outCh)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.geo, p.colGeo, p.colFrame = geo, geo, 1
	if ownGrid {
		p.colGeo.Hop *= colFrames
		p.colFrame = colFrames
	}
	p.peak, p.longFrames = nil, 0
	p.spectra = make([]Spectrum, outCh)
	for c := range p.spectra {
		s := &p.spectra[c]
		s.Current, s.ExpAvg, s.LinAvg, s.LongAvg = make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins)
		s.PeakHold, s.MinHold = make([]float32, bins), make([]float32, bins)
		s.BinHz, s.Geometry = geo.BinHz(), geo
	}
	p.hist = make([][][]float32, outCh)
	for c := range p.hist {
		p.hist[c] = make([][]float32, history)
		for i := range p.hist[c] {
			p.hist[c][i] = make([]float32, bins)
		}
	}
	p.histNext = 0
}

// pushColumns appends the columns a batch completed (dBFS, folded on the
// engine) to the history. Every analyzed frame is in a column, so a
// display that folds several into one pixel (taking the maximum) never
// skips a short event.
func (p *published) pushColumns(out *gpufft.LiveOutput) {
	if out.NumColumns == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.hist) == 0 || len(p.hist[0]) == 0 {
		return
	}
	for j := range out.NumColumns {
		for c := range p.hist {
			copy(p.hist[c][p.histNext%uint64(len(p.hist[c]))], out.Column(j, c))
		}
		p.histNext++
	}
}

// publish copies a batch's results: the band levels, and the traces when
// they crossed back.
func (p *published) publish(out *gpufft.LiveOutput, rta *dsp.BandAccumulator, window window.Func, frames int, traces bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setPeakWindow(window)
	p.longFrames += uint64(frames)
	bins := p.geo.Bins()
	for c := range p.spectra {
		s := &p.spectra[c]
		if traces {
			s.LongFrames = p.longFrames
			tr := out.Traces[c*gpufft.NumTraces*bins:]
			for i, dst := range [gpufft.NumTraces][]float32{s.Current, s.ExpAvg, s.LinAvg, s.LongAvg, s.PeakHold, s.MinHold} {
				copy(dst, tr[i*bins:(i+1)*bins])
			}
		}
		s.Bands = s.Bands[:0]
		if rta == nil {
			continue
		}
		binHz := p.geo.BinHz()
		nb := len(rta.Bands)
		for i, b := range rta.Bands {
			s.Bands = append(s.Bands, dsp.BandLevel{Band: b, LevelDB: dsp.MeanSquareDBFS(out.Bands[c*nb+i]),
				UnderResolved: dsp.UnderResolved(b, binHz)})
		}
	}
	p.frames += uint64(frames)
}

// setPeakWindow builds the peak readout's kernel at the first publish of
// new settings: O(N) once, on the engine goroutine. A window the kernel
// refuses leaves the readout empty.
func (p *published) setPeakWindow(w window.Func) {
	if p.peak != nil && p.peakWin == w {
		return
	}
	p.peak, _ = dsp.NewWindowKernel(w.Values(p.geo.FFT))
	p.peakWin = w
}

func (p *published) frameCount() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frames
}

// Latest copies output channel c's spectra (c < Channels for a channel,
// c = Channels for the mix) into dst as dBFS, reusing its slices: the
// traces dst.Want names, and the dominant peak of the current spectrum
// when it is among them (dsp's PeakDB on the window's exact response; the
// zero Peak until the first batch of new settings is published). The
// power traces are copied under the lock and converted after it, so a
// reader never holds the engine back for the conversion. A channel the
// results do not have (the source changed its channel count since the
// caller chose c) leaves dst's traces and bands empty, with the zero Peak
// and the current Geometry, as Columns returns no column for it. Any
// goroutine may call it; it allocates only when dst's slices are short.
func (l *Live) Latest(c int, dst *Spectrum) {
	want := dst.Want
	if want == 0 {
		want = WantAll
	}
	p := &l.pub
	p.mu.Lock()
	if c < 0 || c >= len(p.spectra) {
		geo := p.geo
		p.mu.Unlock()
		dst.empty(geo)
		return
	}
	s := &p.spectra[c]
	src := [gpufft.NumTraces][]float32{s.Current, s.ExpAvg, s.LinAvg, s.LongAvg, s.PeakHold, s.MinHold}
	for i := range dst.raw {
		dst.raw[i] = dst.raw[i][:0]
		if want&(1<<i) != 0 {
			dst.raw[i] = append(dst.raw[i], src[i]...)
		}
	}
	dst.BinHz, dst.Geometry, dst.Freqs, dst.ENBW = s.BinHz, s.Geometry, nil, nil
	dst.LongFrames = s.LongFrames
	dst.Bands = append(dst.Bands[:0], s.Bands...)
	var peak *dsp.WindowKernel // immutable once built; a reset makes a new one
	if p.peak != nil && p.peak.N() == s.Geometry.FFT {
		peak = p.peak
	}
	p.mu.Unlock()
	for i, t := range dst.traces() {
		*t = gpufft.AppendPowerDB((*t)[:0], dst.raw[i], nil)
	}
	dst.Peak = dsp.Peak{}
	if peak != nil && want&WantCurrent != 0 {
		dst.Peak = peak.PeakDB(dst.Current, dst.BinHz)
	}
}

// empty is a Spectrum of geometry geo with no trace, band or peak.
func (dst *Spectrum) empty(geo Geometry) {
	for i, t := range dst.traces() {
		*t = (*t)[:0]
		dst.raw[i] = dst.raw[i][:0]
	}
	dst.Bands = dst.Bands[:0]
	dst.Peak, dst.LongFrames = dsp.Peak{}, 0
	dst.Geometry, dst.BinHz, dst.Freqs, dst.ENBW = geo, 0, nil, nil
	if geo.FFT > 0 {
		dst.BinHz = geo.BinHz()
	}
}

// Columns copies output channel c's spectrogram columns (c = Channels for
// the mix) after column number `after` (oldest first, at most len(dst))
// into dst's rows as dBFS, reusing them, and returns how many it copied,
// the number to pass as `after` next time, and the geometry of the
// columns: they are its Hop samples apart. Every analyzed frame is in a
// column: one per frame up to 500 frames/s, above that each column is
// the maximum of the frames it covers (folded on the engine). Only the
// newest History columns are kept (fewer at large FFT sizes: at most 256
// MiB of them), none with a negative History: a reader that falls behind
// further skips to the oldest kept. New settings start the count again
// from 0 (an `after` beyond the newest column reads from the start).
func (l *Live) Columns(c int, dst [][]float32, after uint64) (int, uint64, Geometry) {
	p := &l.pub
	p.mu.Lock()
	defer p.mu.Unlock()
	if c < 0 || c >= len(p.hist) || len(p.hist[c]) == 0 {
		return 0, p.histNext, p.colGeo
	}
	n, next := CopyColumns(dst, p.hist[c], p.histNext, after)
	return n, next, p.colGeo
}

// CopyColumns copies the columns of the ring h (column k at
// h[k%len(h)], next of them ever pushed) after column number `after` into
// dst's rows, reusing them, as Live.Columns does; it returns how many it
// copied and the `after` for next time.
func CopyColumns(dst, h [][]float32, next, after uint64) (int, uint64) {
	if after > next {
		after = 0
	}
	first := max(after, next-min(next, uint64(len(h))))
	n := 0
	for col := first; col < next && n < len(dst); col++ {
		dst[n] = append(dst[n][:0], h[col%uint64(len(h))]...)
		n++
	}
	return n, first + uint64(n)
}

// snapshotHistory copies the kept columns of output channels chans
// (oldest first; the same columns for every channel, read under one
// lock) into new rows, [channel][column][bin] in dBFS, and says what
// they are. It allocates: an export's copy, off the engine goroutine.
func (p *published) snapshotHistory(chans []int) ([][][]float32, HistoryInfo, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	info := HistoryInfo{Geometry: p.geo, ColumnGeometry: p.colGeo, FramesPerColumn: p.colFrame}
	for _, c := range chans {
		if c < 0 || c >= len(p.hist) {
			return nil, info, fmt.Errorf("live: history: no output channel %d (there are %d)", c, len(p.hist))
		}
	}
	kept := uint64(0)
	if len(p.hist) > 0 {
		kept = min(p.histNext, uint64(len(p.hist[0])))
	}
	if kept == 0 {
		return nil, info, errors.New("live: history: no columns kept yet")
	}
	info.FirstColumn, info.Columns = p.histNext-kept, int(kept)
	out := make([][][]float32, len(chans))
	for i, c := range chans {
		h := p.hist[c]
		out[i] = make([][]float32, kept)
		for j := range out[i] {
			out[i][j] = slices.Clone(h[(info.FirstColumn+uint64(j))%uint64(len(h))])
		}
	}
	return out, info, nil
}
