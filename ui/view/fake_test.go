package view

import (
	"math"
	"sync"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/meter"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/window"
)

// fakeSource is a deterministic analysis as the views see it (the
// window's tests have the whole fake engine): every channel shows a 1 kHz
// tone at −6 dBFS over a floor falling 3 dB per octave from −70 dBFS at
// 100 Hz, and Columns hands out the frames the test queues.
type fakeSource struct {
	mu         sync.Mutex
	rate, ch   int
	fft, hop   int
	frames     [][]float32 // queued columns (dB)
	next       uint64
	bands      []dsp.Band
	onLatest   func()    // if set, called by every Latest first
	latestN    int       // Latest calls
	spectrum   []float32 // if set, every trace of Latest is this (dB, bins 0…N/2) plus its offset
	offset     float32   // added to every level of Latest
	longFrames uint64    // the frames the long-term average holds
	longStep   uint64    // added to longFrames by every Latest
}

func newFakeSource() *fakeSource {
	bands, _ := dsp.Bands(3, 20, 20000, 24000)
	return &fakeSource{rate: 48000, ch: 2, fft: 4096, hop: 1024, bands: bands}
}

// fakeLongOffset is the fake's long-term average less its current
// spectrum (dB): far from the other traces, so a plot shows which is drawn.
const fakeLongOffset = -20

// level is the fake spectrum's level at f.
func fakeLevel(f float64) float32 {
	floor := -70 - 10*math.Log10(math.Max(f, 1)/100)
	d := (f - 1000) / (48000.0 / 4096)
	tone := -6 - 6*d*d // a parabola in dB around the peak Latest reports
	return float32(math.Max(floor, math.Max(tone, -140)))
}

func (e *fakeSource) Latest(c int, dst *live.Spectrum) {
	if e.onLatest != nil {
		e.onLatest()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.latestN++
	bins := e.fft/2 + 1
	if e.spectrum != nil {
		bins = len(e.spectrum)
	}
	binHz := float64(e.rate) / float64(2*(bins-1))
	fill := func(s []float32, off float32) []float32 {
		s = s[:0]
		for k := range bins {
			v := fakeLevel(float64(k) * binHz)
			if e.spectrum != nil {
				v = e.spectrum[k]
			}
			s = append(s, v+off+e.offset)
		}
		return s
	}
	dst.Current = fill(dst.Current, 0)
	dst.ExpAvg = fill(dst.ExpAvg, -3)
	dst.LinAvg = fill(dst.LinAvg, -4)
	dst.PeakHold = fill(dst.PeakHold, 3)
	dst.MinHold = fill(dst.MinHold, -10)
	dst.LongAvg = fill(dst.LongAvg, fakeLongOffset)
	e.longFrames += e.longStep
	dst.LongFrames = e.longFrames
	dst.BinHz = binHz
	dst.Geometry = live.Geometry{Rate: e.rate, FFT: 2 * (bins - 1), Hop: e.hop}
	note, cents := dsp.NoteName(1000) // the tone fakeLevel draws, read exactly
	dst.Peak = dsp.Peak{Freq: 1000, LevelDB: -6, Note: note, Cents: cents}
	dst.Bands = dst.Bands[:0]
	for _, b := range e.bands {
		dst.Bands = append(dst.Bands, dsp.BandLevel{Band: b, LevelDB: float64(fakeLevel(b.Exact))})
	}
	// only the traces asked for, as Live.Latest does
	want := dst.Want
	if want == 0 {
		want = live.WantAll
	}
	for i, t := range []*[]float32{&dst.Current, &dst.ExpAvg, &dst.LinAvg, &dst.LongAvg, &dst.PeakHold, &dst.MinHold} {
		if want&(1<<i) == 0 {
			*t = (*t)[:0]
		}
	}
	if want&live.WantCurrent == 0 {
		dst.Peak = dsp.Peak{}
	}
}

// fakeMeters are the fake's level meters: fixed values, different per
// channel, so a view that mixes them up shows it.
func fakeMeters(ch int) meter.Meters {
	m := meter.Meters{Channels: ch, Rate: 48000, Momentary: -18.24, ShortTerm: -19.43, MomentaryMax: -16.02,
		ShortTermMax: -18.31, Integrated: -20.07, Range: 4.52, Seconds: 65.4}
	for c := range ch {
		d := -3 * float64(c)
		m.Ch[c] = meter.Channel{SamplePeak: -12.5 + d, TruePeak: -11.9 + d, SamplePeakHold: -6.0 + d,
			TruePeakHold: -0.5 + d, TruePeakMax: -0.44 + d, RMS: -24.26 + d}
	}
	return m
}

func (e *fakeSource) ReadMeters(dst *meter.Meters) {
	e.mu.Lock()
	defer e.mu.Unlock()
	*dst = fakeMeters(e.ch)
}

func (e *fakeSource) Columns(c int, dst [][]float32, after uint64) (int, uint64, live.Geometry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	total := e.next + uint64(len(e.frames))
	if after > total {
		after = 0
	}
	n := 0
	for col := max(after, e.next); col < total && n < len(dst); col++ {
		dst[n] = append(dst[n][:0], e.frames[col-e.next]...)
		n++
	}
	var geo live.Geometry // of the newest column: the fake's columns may change size
	if len(e.frames) > 0 {
		geo = live.Geometry{Rate: 48000, FFT: 2 * (len(e.frames[len(e.frames)-1]) - 1), Hop: 1024}
	}
	return n, max(after, e.next) + uint64(n), geo
}

// queue adds frames for Columns.
func (e *fakeSource) queue(frames ...[]float32) {
	e.mu.Lock()
	e.frames = append(e.frames, frames...)
	e.mu.Unlock()
}

// syntheticFile is a 4 s file spectrogram: a tone rising from 500 Hz to
// 4 kHz over a −90 dBFS floor, with a 10 ms click (broadband) at 2 s.
func syntheticFile() *analysis.FileSpectrogram {
	const rate, n, hop = 48000, 1024, 256
	frames := (4*rate-n)/hop + 1
	fs := &analysis.FileSpectrogram{Path: "synthetic.wav", Rate: rate, Channels: 1, Samples: 4 * rate, Duration: 4,
		FFT: n, Hop: hop, Channel: -1, Frames: frames, FramesPerColumn: 1, Engine: "fake"}
	bins := n/2 + 1
	binHz := float64(rate) / n
	for i := range frames {
		t := (float64(i*hop) + n/2) / rate
		f := 500 * math.Pow(8, t/4)
		col := make([]float32, bins)
		for k := range col {
			d := math.Abs(float64(k)*binHz-f) / binHz
			col[k] = float32(math.Max(-90, -10-20*d))
		}
		if math.Abs(t-2) < 0.005 {
			for k := range col {
				col[k] = -30
			}
		}
		fs.Columns = append(fs.Columns, col)
	}
	return fs
}

// column is an N-point FFT's column of levels: −120 dBFS with one bin at
// 0 dBFS nearest f.
func column(n int, f float64) []float32 {
	col := make([]float32, n/2+1)
	for k := range col {
		col[k] = -120
	}
	col[int(math.Round(f*float64(n)/48000))] = 0
	return col
}

// scaleOf is the frequency scale named s ("log", "lin", "mel").
func scaleOf(s string) plot.Scale {
	sc, err := plot.ParseScale(s)
	if err != nil {
		panic(err)
	}
	return sc
}

// windowOf is the window function named s.
func windowOf(s string) window.Func {
	w, err := window.Parse(s)
	if err != nil {
		panic(err)
	}
	return w
}
