package tfrlive

import (
	"math"
	"sync"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
)

// published holds the copies other goroutines read: the traces (the
// averages as power, converted to dB by the reader) and the history's
// columns in dB.
type published struct {
	mu       sync.Mutex
	geo      live.Geometry
	colGeo   live.Geometry // Hop: the samples between columns
	fold     int           // frames per column
	freqs    []float64     // the bins' centre frequencies, Hz (immutable)
	enbw     []float64     // the bins' noise bandwidths, Hz (immutable)
	bins     int
	cur      [][]float32 // dB
	exp      [][]float32 // power
	lin      [][]float32 // power
	long     [][]float32 // power
	hold     [][]float32 // dB
	minHold  [][]float32 // dB
	longN    uint64
	hist     [][][]float32 // [channel][column % len][bin], dB
	histNext uint64
	frames   uint64
	traceAt  time.Time
	every    time.Duration // how often the traces are copied (traceEvery; tests: 0)
}

// reset sizes the copies: outCh channels of bins bins, history columns
// of fold frames each.
func (p *published) reset(outCh, bins, history, fold int, geo, colGeo live.Geometry, freqs, enbw []float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.geo, p.colGeo, p.fold, p.freqs, p.enbw, p.bins = geo, colGeo, fold, freqs, enbw, bins
	mk := func() [][]float32 {
		v := make([][]float32, outCh)
		for c := range v {
			v[c] = make([]float32, bins)
		}
		return v
	}
	p.cur, p.exp, p.lin, p.long, p.hold, p.minHold = mk(), mk(), mk(), mk(), mk(), mk()
	p.hist = make([][][]float32, outCh)
	for c := range p.hist {
		p.hist[c] = make([][]float32, history)
		for i := range p.hist[c] {
			p.hist[c][i] = make([]float32, bins)
		}
	}
	p.histNext, p.frames, p.longN, p.every = 0, 0, 0, traceEvery
}

// pushColumn appends one column per channel (dB) to the history.
func (p *published) pushColumn(col [][]float32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.hist {
		h := p.hist[c]
		copy(h[p.histNext%uint64(len(h))], col[c])
	}
	p.histNext++
}

// publish counts a batch's frames and copies the traces when a display's
// frame time has passed since they last were.
func (p *published) publish(st *post, frames int) {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frames += uint64(frames)
	if now.Sub(p.traceAt) < p.every && p.frames > uint64(frames) {
		return
	}
	p.traceAt = now
	invLin := 1 / float64(min(st.linN, int(max(1, st.frames))))
	invLong := 1 / float64(max(1, st.longFrames))
	p.longN = st.longFrames
	for c := range p.cur {
		copy(p.cur[c], st.cur[c])
		copy(p.exp[c], st.exp[c])
		copy(p.hold[c], st.hold[c])
		copy(p.minHold[c], st.minHold[c])
		for k := range p.bins {
			p.lin[c][k] = float32(st.linSum[c][k] * invLin)
			p.long[c][k] = float32(st.long[c][k] * invLong)
		}
	}
}

func (p *published) frameCount() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frames
}

// Latest copies output channel c's spectra (c = Channels for the mix)
// into dst as dB, reusing its slices: the traces dst.Want names (0: all),
// the bins' centre frequencies and noise bandwidths in dst.Freqs and
// dst.ENBW (shared, never to be written), and the dominant peak of the
// current spectrum (PeakOf). A channel the Runner lacks, or a Runner that
// has analyzed no frame yet, leaves dst's traces empty. Any goroutine may
// call it; it allocates only when dst's slices are short.
func (r *Runner) Latest(c int, dst *live.Spectrum) {
	want := dst.Want
	if want == 0 {
		want = live.WantAll
	}
	p := &r.pub
	p.mu.Lock()
	dst.Geometry, dst.BinHz, dst.Freqs, dst.ENBW, dst.LongFrames = p.geo, p.geo.BinHz(), p.freqs, p.enbw, p.longN
	dst.Bands, dst.Peak = dst.Bands[:0], dsp.Peak{}
	traces := [...]*[]float32{&dst.Current, &dst.ExpAvg, &dst.LinAvg, &dst.LongAvg, &dst.PeakHold, &dst.MinHold}
	if c < 0 || c >= len(p.cur) || p.frames == 0 { // no such channel, or no frame yet
		p.mu.Unlock()
		for _, t := range traces {
			*t = (*t)[:0]
		}
		return
	}
	src := [...][]float32{p.cur[c], p.exp[c], p.lin[c], p.long[c], p.hold[c], p.minHold[c]}
	for i, t := range traces {
		*t = (*t)[:0]
		if want&(1<<i) != 0 {
			*t = append(*t, src[i]...)
		}
	}
	p.mu.Unlock()
	for _, t := range [...][]float32{dst.ExpAvg, dst.LinAvg, dst.LongAvg} {
		for k, v := range t {
			t[k] = float32(10 * math.Log10(float64(v)))
		}
	}
	if want&live.WantCurrent != 0 {
		dst.Peak = PeakOf(dst.Current, p.freqs)
	}
}

// Columns copies output channel c's spectrogram columns after column
// number `after` into dst as Live.Columns does; their bins are Freqs()'s.
func (r *Runner) Columns(c int, dst [][]float32, after uint64) (int, uint64, live.Geometry) {
	p := &r.pub
	p.mu.Lock()
	defer p.mu.Unlock()
	if c < 0 || c >= len(p.hist) || len(p.hist[c]) == 0 {
		return 0, p.histNext, p.colGeo
	}
	n, next := live.CopyColumns(dst, p.hist[c], p.histNext, after)
	return n, next, p.colGeo
}

// Freqs is every output bin's centre frequency in Hz (shared: never to
// be written).
func (r *Runner) Freqs() []float64 { return r.pub.freqs }

// PeakOf is the dominant peak of db (levels at the centre frequencies
// freqs, ascending; the first and last bins excluded): the highest bin's
// level (every mode is level-correct at its bins' centres; a sine between
// them reads the mode's scalloping low), its frequency refined by the
// vertex of the parabola through it and its neighbours in dB over
// frequency (exact for a Gaussian main lobe; bins need not be uniform;
// not where the neighbours' spacings differ by more than 1.5×, a join of
// two resolutions, where the bin's centre is taken), and the nearest
// note. The zero Peak for fewer than 3 bins or lengths
// that differ. It does not allocate.
func PeakOf(db []float32, freqs []float64) dsp.Peak {
	n := len(db)
	if n < 3 || len(freqs) != n {
		return dsp.Peak{}
	}
	best := 1
	for k := 2; k < n-1; k++ {
		if db[k] > db[best] {
			best = k
		}
	}
	y1, y2, y3 := float64(db[best-1]), float64(db[best]), float64(db[best+1])
	if math.IsInf(y2, 0) || math.IsNaN(y2) {
		return dsp.Peak{}
	}
	f := freqs[best]
	u1, u3 := freqs[best-1]-f, freqs[best+1]-f
	// at a join of two resolutions (neighbours spaced unlike) the main
	// lobe is not one shape either side: the bin's centre is the answer
	even := u1 < 0 && u3 > 0 && max(-u1, u3) <= 1.5*min(-u1, u3)
	if !math.IsInf(y1, 0) && !math.IsInf(y3, 0) && even {
		s1, s3 := (y1-y2)/u1, (y3-y2)/u3
		a := (s3 - s1) / (u3 - u1)
		if b := s3 - a*u3; a < 0 {
			f += max(u1/2, min(u3/2, -b/(2*a)))
		}
	}
	pk := dsp.Peak{Freq: f, LevelDB: y2}
	pk.Note, pk.Cents = dsp.NoteName(f)
	return pk
}
