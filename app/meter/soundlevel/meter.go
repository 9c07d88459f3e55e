package soundlevel

import (
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/meter"
)

// The time weightings' time constants (IEC 61672-1 5.8), seconds.
const (
	FastSeconds = 0.125
	SlowSeconds = 1.0
)

// Config says what a Meter measures.
type Config struct {
	SampleRate int // Hz
	Channels   int // of the interleaved stream written
	Channel    int // the one measured, 0 … Channels−1
	// IntervalSamples is each Row's length in samples per channel (> 0).
	IntervalSamples int64
}

// Row is one interval's levels. The sound levels are dB re a full-scale
// sine's RMS (plus a calibration's offset: see Calibrated); −Inf is
// silence. StartSeconds is the interval's start in the stream.
type Row struct {
	StartSeconds   float64
	Samples        int64 // per channel in the interval
	LAeq, LCeq     float64
	LAFmax, LASmax float64 // the largest A-weighted Fast and Slow levels
	LCpeak         float64 // the largest |C-weighted sample|
	SamplePeakDBFS float64
	TruePeakDBTP   float64 // ITU-R BS.1770-4 Annex 2, 4× oversampled
}

// Calibrated is r with offsetDB (a dsp.LevelCal's) added to the sound
// levels (the peaks in dBFS and dBTP stay).
func (r Row) Calibrated(offsetDB float64) Row {
	r.LAeq += offsetDB
	r.LCeq += offsetDB
	r.LAFmax += offsetDB
	r.LASmax += offsetDB
	r.LCpeak += offsetDB
	return r
}

// chunk is the frames of the measured channel copied out at a time (for
// the weighting filters, run section by section over it, and the
// true-peak meter).
const chunk = 1024

// Meter measures one channel of an interleaved stream in intervals.
type Meter struct {
	cfg              Config
	a, c             filter
	fastK, slowK     float64 // the exponentials' per-sample weights
	fast, slow       float64 // their running mean squares (A-weighted)
	sumA, sumC       float64 // of the interval
	maxF, maxS, maxC float64
	n                int64 // samples of the interval so far
	done             int64 // samples before the interval
	peaks            *meter.PeakMeter
	pk               [1]meter.PeakInterval
	scratch          [chunk]float32
	wa, wc           [chunk]float64 // the chunk A- and C-weighted
}

// NewMeter makes a meter; it returns an error for a bad Config.
func NewMeter(cfg Config) (*Meter, error) {
	switch {
	case cfg.SampleRate <= 0:
		return nil, fmt.Errorf("soundlevel: sample rate %d", cfg.SampleRate)
	case cfg.Channels < 1 || cfg.Channel < 0 || cfg.Channel >= cfg.Channels:
		return nil, fmt.Errorf("soundlevel: channel %d of %d", cfg.Channel, cfg.Channels)
	case cfg.IntervalSamples <= 0:
		return nil, fmt.Errorf("soundlevel: interval of %d samples", cfg.IntervalSamples)
	}
	peaks, err := meter.NewPeakMeter(1)
	if err != nil {
		return nil, err
	}
	rate := float64(cfg.SampleRate)
	return &Meter{cfg: cfg, a: newFilter(dsp.WeightA, rate), c: newFilter(dsp.WeightC, rate),
		fastK: 1 - math.Exp(-1/(FastSeconds*rate)), slowK: 1 - math.Exp(-1/(SlowSeconds*rate)),
		peaks: peaks}, nil
}

// Config is the meter's configuration.
func (m *Meter) Config() Config { return m.cfg }

// Reset forgets everything: the filters and time weightings start from
// silence and the next interval starts the stream at 0 s.
func (m *Meter) Reset() {
	m.a.reset()
	m.c.reset()
	m.fast, m.slow = 0, 0
	m.clearInterval()
	m.done = 0
	m.peaks.Reset()
}

func (m *Meter) clearInterval() {
	m.sumA, m.sumC, m.maxF, m.maxS, m.maxC, m.n = 0, 0, 0, 0, 0, 0
}

// Write measures interleaved frames of x up to the end of the current
// interval and returns how many samples (all channels) it consumed and
// whether the interval is now complete (then Take returns it). Callers
// loop until x is consumed. It does not allocate; it panics if len(x) is
// not a multiple of the channel count.
func (m *Meter) Write(x []float32) (consumed int, complete bool) {
	ch := m.cfg.Channels
	if len(x)%ch != 0 {
		panic(fmt.Sprintf("soundlevel: Meter.Write: %d samples for %d channels", len(x), ch))
	}
	frames := min(int64(len(x)/ch), m.cfg.IntervalSamples-m.n)
	for done := int64(0); done < frames; {
		k := int(min(frames-done, chunk))
		m.measure(x[int(done)*ch+m.cfg.Channel:], k)
		done += int64(k)
	}
	m.n += frames
	return int(frames) * ch, m.n == m.cfg.IntervalSamples
}

// measure runs k frames of the measured channel (x[0], x[ch], …).
func (m *Meter) measure(x []float32, k int) {
	ch := m.cfg.Channels
	xa, xc := m.wa[:k], m.wc[:k]
	for i := range k {
		v := x[i*ch]
		m.scratch[i] = v
		xa[i], xc[i] = float64(v), float64(v)
	}
	m.a.run(xa)
	m.c.run(xc)
	fast, slow, fk, sk := m.fast, m.slow, m.fastK, m.slowK
	sumA, sumC, maxF, maxS, maxC := m.sumA, m.sumC, m.maxF, m.maxS, m.maxC
	for i, ya := range xa {
		yc := xc[i]
		ya *= ya
		sumA += ya
		sumC += yc * yc
		maxC = max(maxC, math.Abs(yc))
		fast += fk * (ya - fast)
		slow += sk * (ya - slow)
		maxF, maxS = max(maxF, fast), max(maxS, slow)
	}
	m.fast, m.slow = fast, slow
	m.sumA, m.sumC, m.maxF, m.maxS, m.maxC = sumA, sumC, maxF, maxS, maxC
	m.peaks.WriteInterleaved(m.scratch[:k])
}

// Take closes the current interval and returns its levels; ok is false
// (and nothing changes) when it holds no samples. The next interval
// starts where it ended. It does not allocate.
func (m *Meter) Take() (r Row, ok bool) {
	if m.n == 0 {
		return Row{}, false
	}
	m.peaks.TakeInterval(m.pk[:])
	n := float64(m.n)
	r = Row{
		StartSeconds:   float64(m.done) / float64(m.cfg.SampleRate),
		Samples:        m.n,
		LAeq:           dsp.RMSDBFS(m.sumA / n),
		LCeq:           dsp.RMSDBFS(m.sumC / n),
		LAFmax:         dsp.RMSDBFS(m.maxF),
		LASmax:         dsp.RMSDBFS(m.maxS),
		LCpeak:         dsp.RMSDBFS(m.maxC * m.maxC), // a peak p reads as a sine's RMS of amplitude p, + 3.01
		SamplePeakDBFS: 20 * math.Log10(m.pk[0].SamplePeak),
		TruePeakDBTP:   20 * math.Log10(m.pk[0].TruePeak),
	}
	m.done += m.n
	m.clearInterval()
	return r, true
}
