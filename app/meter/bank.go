package meter

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/prismaudio/prism/app/dsp"
)

// MaxChannels is the most input channels the level meters measure;
// an input with more is metered on its first MaxChannels (and its
// loudness on those).
const MaxChannels = 8

// Meter ballistics. The bars move in steps of MeterStep: each shows the
// largest peak of its step, or falls at FallDB per second from what
// it showed (IEC 60268-10's peak meter return: 20 dB in 1.7 s); a hold
// marker keeps the largest peak for HoldSeconds, then falls at
// HoldFallDB per second. RMS is over the last RMSSeconds.
const (
	StepSeconds    = 0.02
	FallDB         = 20 / 1.7
	HoldSeconds    = 2.0
	HoldFallDB     = 20.0
	RMSSeconds     = 0.3
	stepsRMS       = 15 // RMSSeconds / StepSeconds
	calibratorSecs = 1  // seconds of input kept for MeasureCalibrator
)

// Channel is one input channel's levels. Peaks are dBFS (sample)
// and dBTP (true peak, ITU-R BS.1770-4 Annex 2, 4× oversampling); RMS is
// dBFS per AES17 (a full-scale sine reads 0.00). −Inf is silence.
type Channel struct {
	SamplePeak, TruePeak         float64 // the bars (see FallDB)
	SamplePeakHold, TruePeakHold float64 // the hold markers (see HoldSeconds)
	TruePeakMax                  float64 // the largest true peak since the reset
	RMS                          float64 // over the last RMSSeconds
}

// Meters are the live level meters: per input channel peaks and RMS, and
// for the programme (all channels, BS.1770 channel weights) the EBU R128
// loudness: momentary (400 ms) and short-term (3 s) loudness, their
// maxima and the gated integrated loudness since the reset, in LUFS (−Inf
// before the window is full or in silence), and the loudness range (LU,
// EBU Tech 3342). Seconds is the programme time measured since the reset.
type Meters struct {
	Channels                   int // in use in Ch (0: nothing measured yet)
	Rate                       int
	Ch                         [MaxChannels]Channel
	Momentary, ShortTerm       float64
	MomentaryMax, ShortTermMax float64
	Integrated, Range          float64
	Seconds                    float64
}

// chanBallistics is one channel's bar and hold state, linear amplitude.
type chanBallistics struct {
	sample, truePk       float64 // bars
	sampleHold, trueHold float64
	sampleAge, trueAge   int // steps since the hold was set
	trueMax              float64
	ms                   [stepsRMS]float64 // mean squares of the last steps, ring
}

// Bank is the level meters of a live input (package live feeds it every
// block it reads). Write runs on one goroutine (live's engine goroutine);
// Read and MeasureCalibrator copy out under mu from any goroutine; a
// reset is asked for with an atomic flag, so asking never waits for the
// writer. The zero Bank is ready to use.
type Bank struct {
	// the engine goroutine's own
	rate, ch, mch int    // input rate and channels, metered channels
	step          int    // samples per channel in a step
	pos           int    // samples of the current step so far
	next          uint64 // the stream position the next block should start at
	steps         int64
	peak          *PeakMeter
	loud          *Loudness
	iv            []PeakInterval
	bal           []chanBallistics
	sub           []float32 // the metered channels of a block with more than MaxChannels
	fall, hFall   float64   // per step, linear factors
	holdSteps     int
	// Integrated and Range, which scan the loudness histograms: they
	// change only with a new 100 ms loudness step, so they are read then
	integ, lra float64
	loudSecs   float64 // the programme time they were read at

	resetReq atomic.Bool

	mu             sync.Mutex
	pub            Meters
	recent         []float32 // the last calibratorSecs of input, interleaved ring
	recPos         int       // next write index in recent
	recN           int       // valid samples (all channels) in recent
	recCh, recRate int       // recent's channels and rate
}

// setup (re)makes the meters for rate and ch channels: on the first block
// and when the source changes. Everything measured so far is dropped.
func (m *Bank) setup(rate, ch int) {
	m.rate, m.ch, m.mch = rate, ch, min(ch, MaxChannels)
	m.step = max(1, int(math.Round(float64(rate)*StepSeconds)))
	m.peak, _ = NewPeakMeter(m.mch)
	loud, err := NewLoudness(float64(rate), m.mch, nil)
	if err != nil {
		loud = nil // a rate Loudness refuses (below 8 kHz): no loudness
	}
	m.loud = loud
	m.iv = make([]PeakInterval, m.mch)
	m.bal = make([]chanBallistics, m.mch)
	if ch > m.mch {
		m.sub = make([]float32, 0, 4096*m.mch)
	}
	dt := float64(m.step) / float64(rate)
	m.fall = math.Pow(10, -FallDB*dt/20)
	m.hFall = math.Pow(10, -HoldFallDB*dt/20)
	m.holdSteps = int(math.Round(HoldSeconds / dt))
	m.pos, m.steps = 0, 0
	// a live stream joined mid-way, not one starting from silence: no
	// interpolated points across its start
	m.peak.Gap()
	m.mu.Lock()
	m.recent = make([]float32, rate*calibratorSecs*ch)
	m.recPos, m.recN, m.recCh, m.recRate = 0, 0, ch, rate
	m.publishLocked()
	m.mu.Unlock()
}

// reset forgets the levels, holds, maxima and loudness (not the
// calibrator's recent input, nor the filters' state: the stream goes on,
// and must not read as starting abruptly).
func (m *Bank) reset() {
	m.peak.Restart()
	if m.loud != nil {
		m.loud.Restart()
	}
	clear(m.bal)
	m.pos, m.steps = 0, 0
	m.mu.Lock()
	m.publishLocked()
	m.mu.Unlock()
}

// Write measures a block of interleaved input (ch channels at rate Hz)
// whose first frame is at stream position pos: a block that does not
// continue the last (input lost, a new source) is a gap, across which the
// true peak is not interpolated and no loudness block or window reaches.
// The writer's goroutine only; in steady state it does not allocate.
func (m *Bank) Write(x []float32, ch, rate int, pos uint64) {
	if ch != m.ch || rate != m.rate || m.peak == nil {
		m.setup(rate, ch)
	}
	if m.resetReq.Swap(false) {
		m.reset()
	}
	if len(x) == 0 {
		return
	}
	if pos != m.next {
		m.peak.Gap()
		if m.loud != nil {
			m.loud.Gap()
		}
	}
	m.next = pos + uint64(len(x)/ch)
	m.keepRecent(x)
	for len(x) > 0 {
		n := min(len(x)/ch, m.step-m.pos) // frames to the end of the step
		blk := m.metered(x[:n*ch])
		m.peak.WriteInterleaved(blk)
		if m.loud != nil {
			m.loud.WriteInterleaved(blk)
		}
		x = x[n*ch:]
		if m.pos += n; m.pos == m.step {
			m.pos = 0
			m.endStep()
		}
	}
}

// metered is x with only the metered channels (x itself when all are).
func (m *Bank) metered(x []float32) []float32 {
	if m.mch == m.ch {
		return x
	}
	m.sub = m.sub[:0]
	for i := 0; i < len(x); i += m.ch {
		m.sub = append(m.sub, x[i:i+m.mch]...) // allocates only for a block larger than any before
	}
	return m.sub
}

// keepRecent copies x into the calibrator's ring of recent input.
func (m *Bank) keepRecent(x []float32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.recent
	if len(x) > len(r) {
		x = x[len(x)-len(r):]
	}
	n := copy(r[m.recPos:], x)
	copy(r, x[n:])
	m.recPos = (m.recPos + len(x)) % len(r)
	m.recN = min(len(r), m.recN+len(x))
}

// endStep moves the bars, holds and RMS on by one step and publishes.
func (m *Bank) endStep() {
	m.peak.TakeInterval(m.iv)
	slot := int(m.steps % stepsRMS)
	m.steps++
	for c := range m.bal {
		b, iv := &m.bal[c], &m.iv[c]
		b.sample = max(iv.SamplePeak, b.sample*m.fall)
		b.truePk = max(iv.TruePeak, b.truePk*m.fall)
		b.sampleHold, b.sampleAge = m.hold(b.sampleHold, b.sampleAge, iv.SamplePeak)
		b.trueHold, b.trueAge = m.hold(b.trueHold, b.trueAge, iv.TruePeak)
		b.trueMax = max(b.trueMax, iv.TruePeak)
		b.ms[slot] = iv.MeanSquare
	}
	m.mu.Lock()
	m.publishLocked()
	m.mu.Unlock()
}

// hold moves a hold marker at level h, set age steps ago, on by a step
// whose peak was pk.
func (m *Bank) hold(h float64, age int, pk float64) (float64, int) {
	if pk >= h {
		return pk, 0
	}
	if age++; age > m.holdSteps {
		h = max(pk, h*m.hFall)
	}
	return h, age
}

// publishLocked writes the meters into pub (mu held).
func (m *Bank) publishLocked() {
	p := &m.pub
	*p = Meters{Channels: m.mch, Rate: m.rate, Seconds: float64(m.steps*int64(m.step)) / float64(m.rate)}
	db := func(a float64) float64 { return 20 * math.Log10(a) }
	rmsSteps := min(m.steps, stepsRMS)
	for c := range m.bal {
		b := &m.bal[c]
		ms := 0.0
		for _, v := range b.ms[:rmsSteps] {
			ms += v
		}
		rms := math.Inf(-1)
		if rmsSteps > 0 {
			rms = dsp.RMSDBFS(ms / float64(rmsSteps))
		}
		p.Ch[c] = Channel{SamplePeak: db(b.sample), TruePeak: db(b.truePk), SamplePeakHold: db(b.sampleHold),
			TruePeakHold: db(b.trueHold), TruePeakMax: db(b.trueMax), RMS: rms}
	}
	inf := math.Inf(-1)
	p.Momentary, p.ShortTerm, p.MomentaryMax, p.ShortTermMax, p.Integrated = inf, inf, inf, inf, inf
	if l := m.loud; l != nil {
		p.Momentary, p.ShortTerm, p.MomentaryMax, p.ShortTermMax = l.Momentary(), l.ShortTerm(), l.MomentaryMax(), l.ShortTermMax()
		if s := math.Floor(p.Seconds * 10); s != m.loudSecs || m.steps == 0 {
			m.integ, m.lra, m.loudSecs = l.Integrated(), l.Range(), s
		}
		p.Integrated, p.Range = m.integ, m.lra
	}
}

// Read copies the latest meters into dst (updated every StepSeconds of
// input). Any goroutine may call it; it does not allocate.
func (m *Bank) Read(dst *Meters) {
	m.mu.Lock()
	*dst = m.pub
	m.mu.Unlock()
}

// Reset restarts the holds, maxima and loudness integration (at the next
// Write). Any goroutine may call it; it never waits.
func (m *Bank) Reset() { m.resetReq.Store(true) }

// ErrNoCalibratorInput is MeasureCalibrator's error before enough input.
var ErrNoCalibratorInput = errors.New("meter: calibrator: less than a second of input so far")

// MeasureCalibrator reads the last second of input channel c as a
// calibrator's tone of toneHz (e.g. 1000) known to be referenceDBSPL
// (e.g. 94 or 114), with dsp.CalFromCalibrator: the calibration that
// makes the input read that level. Any goroutine may call it; it
// allocates its copy of the input.
func (m *Bank) MeasureCalibrator(c int, toneHz, referenceDBSPL float64) (dsp.LevelCal, error) {
	m.mu.Lock()
	ch, rate, n := m.recCh, m.recRate, m.recN
	if ch == 0 || n < len(m.recent) {
		m.mu.Unlock()
		return dsp.LevelCal{}, ErrNoCalibratorInput
	}
	if c < 0 || c >= ch {
		m.mu.Unlock()
		return dsp.LevelCal{}, fmt.Errorf("meter: calibrator: channel %d of %d", c+1, ch)
	}
	x := make([]float32, 0, n/ch)
	for i := range n / ch { // oldest first
		x = append(x, m.recent[(m.recPos+i*ch+c)%len(m.recent)])
	}
	m.mu.Unlock()
	cal, err := dsp.CalFromCalibrator(x, float64(rate), toneHz, referenceDBSPL)
	if err != nil {
		return cal, fmt.Errorf("meter: %w", err)
	}
	return cal, nil
}
