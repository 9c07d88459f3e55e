package live

import (
	"sync"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
)

// Spectrum is a copy of one output channel's spectra, in dBFS, bins 0…N/2.
type Spectrum struct {
	Current, ExpAvg, LinAvg, PeakHold, MinHold []float32
	Peak                                       dsp.Peak
	BinHz                                      float64
	Geometry                                   Geometry
	Bands                                      []analysis.BandLevel // RTA levels (Fraction > 0), dBFS, averaged
}

// published holds the copies of Live's results that other goroutines
// read: the latest spectra and the spectrogram history, as power (readers
// convert to dB on their own goroutine, at their own rate).
type published struct {
	mu       sync.Mutex
	geo      Geometry
	spectra  []Spectrum    // as power
	bands    []dsp.Band    // the RTA's bands (nil: none)
	hist     [][][]float32 // [output channel][column % History][bin], power
	histNext uint64        // columns (frames) ever pushed
	frames   uint64
}

func (p *published) reset(geo Geometry, outCh, history int) {
	bins := geo.Bins()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.geo = geo
	p.spectra = make([]Spectrum, outCh)
	for c := range p.spectra {
		s := &p.spectra[c]
		s.Current, s.ExpAvg, s.LinAvg, s.PeakHold, s.MinHold = make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins)
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

// pushColumn appends every output channel's newest frame (its power
// spectrum) to the history. Every analyzed frame gets a column, so a
// display that folds several into one pixel (taking the maximum) never
// skips a short event.
func (p *published) pushColumn(chans []chanState) {
	p.mu.Lock()
	for c := range chans {
		copy(p.hist[c][p.histNext%uint64(len(p.hist[c]))], chans[c].pow)
	}
	p.histNext++
	p.mu.Unlock()
}

// publish copies the post-processed state after a batch of frames.
func (p *published) publish(post *postState, frames int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range post.chans {
		st, s := &post.chans[c], &p.spectra[c]
		copy(s.Current, st.pow)
		copy(s.ExpAvg, st.exp)
		copy(s.LinAvg, st.lin)
		copy(s.PeakHold, st.peak)
		copy(s.MinHold, st.min)
		s.Bands = s.Bands[:0]
		if post.rta == nil {
			continue
		}
		binHz := p.geo.BinHz()
		for i, b := range post.rta.Bands {
			s.Bands = append(s.Bands, analysis.BandLevel{Band: b, LevelDB: dsp.MeanSquareDBFS(st.bandPow[i]),
				UnderResolved: dsp.UnderResolved(b, binHz)})
		}
	}
	p.frames += uint64(frames)
}

func (p *published) frameCount() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frames
}

// Latest copies output channel c's spectra (c < Channels for a channel,
// c = Channels for the mix) into dst as dBFS, reusing its slices, and
// finds the dominant peak. Any goroutine may call it; it allocates only
// when dst's slices are short.
func (l *Live) Latest(c int, dst *Spectrum) {
	p := &l.pub
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.spectra[c]
	dst.Current = dsp.AppendPowerDB(dst.Current[:0], s.Current)
	dst.ExpAvg = dsp.AppendPowerDB(dst.ExpAvg[:0], s.ExpAvg)
	dst.LinAvg = dsp.AppendPowerDB(dst.LinAvg[:0], s.LinAvg)
	dst.PeakHold = dsp.AppendPowerDB(dst.PeakHold[:0], s.PeakHold)
	dst.MinHold = dsp.AppendPowerDB(dst.MinHold[:0], s.MinHold)
	dst.BinHz, dst.Geometry = s.BinHz, s.Geometry
	dst.Peak = dsp.FindPeak(dst.Current, s.BinHz)
	dst.Bands = append(dst.Bands[:0], s.Bands...)
}

// Columns copies output channel c's spectrogram columns (c = Channels for
// the mix) after column number `after` (oldest first, at most len(dst))
// into dst's rows as dBFS, reusing them, and returns how many it copied,
// the number to pass as `after` next time, and the geometry the columns
// were computed with. Every analyzed frame is a column: columns are Hop
// samples apart. Only the newest History columns are kept: a reader that
// falls behind further skips to the oldest kept. New settings start the
// count again from 0 (an `after` beyond the newest column reads from the
// start).
func (l *Live) Columns(c int, dst [][]float32, after uint64) (int, uint64, Geometry) {
	p := &l.pub
	p.mu.Lock()
	defer p.mu.Unlock()
	if c >= len(p.hist) {
		return 0, p.histNext, p.geo
	}
	h := p.hist[c]
	if after > p.histNext {
		after = 0
	}
	first := max(after, p.histNext-min(p.histNext, uint64(len(h))))
	n := 0
	for col := first; col < p.histNext && n < len(dst); col++ {
		dst[n] = dsp.AppendPowerDB(dst[n][:0], h[col%uint64(len(h))])
		n++
	}
	return n, first + uint64(n), p.geo
}
