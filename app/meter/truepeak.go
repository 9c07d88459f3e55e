// Sample peak, true peak (ITU-R BS.1770-4 Annex 2, 4× oversampling) and
// RMS (AES17) per channel.

package meter

import (
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/internal/kaiser"
)

const (
	tpPhases = 4  // oversampling factor
	tpTaps   = 24 // taps per phase: 96 in all
	tpBeta   = 6  // Kaiser β of the interpolator (≈ 63 dB stop band)
)

// truePeakFilter is the 4× interpolator: phase p estimates the signal
// p/4 sample after x[n−tpTaps/2], from x[n−tpTaps+1 … n]. Each phase is a
// Kaiser-windowed sinc (the ideal band-limited interpolator, windowed over
// ±12 input samples) normalised to unit gain at DC; phase 0 is exactly the
// sample itself, so the true peak is never below the sample peak. Its
// passband is flat to within 0.01 dB up to 0.25·fs and its gain stays
// within 0.1 dB up to 0.4·fs (pinned by tests).
var truePeakFilter = func() (h [tpPhases][tpTaps]float64) {
	const half = tpTaps / 2
	for p := range tpPhases {
		sum := 0.0
		for j := range tpTaps {
			// x[n−j] sits at time −j; we want time −half + p/4.
			u := float64(half-j) - float64(p)/tpPhases
			v := sinc(u) * kaiser.I0(tpBeta*math.Sqrt(max(0, 1-(u/half)*(u/half)))) / kaiser.I0(tpBeta)
			h[p][j] = v
			sum += v
		}
		for j := range tpTaps {
			h[p][j] /= sum
		}
	}
	return h
}()

// truePeakRev is phases 1…3 of truePeakFilter with their taps reversed,
// so that each is a forward dot product with the samples oldest first
// (phase 0, the sample itself, is the sample peak's).
var truePeakRev = func() (r [tpPhases - 1][tpTaps]float64) {
	for p := range r {
		for j := range tpTaps {
			r[p][j] = truePeakFilter[p+1][tpTaps-1-j]
		}
	}
	return r
}()

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// PeakMeter measures per channel the sample peak, the true peak and the
// RMS of everything written, and of each interval of the stream a live
// meter takes (TakeInterval). Samples are floats with full scale ±1.
// Writes do not allocate. One goroutine at a time may use a PeakMeter.
type PeakMeter struct {
	channels int
	hist     [][2 * tpTaps]float64 // per channel: the last tpTaps samples, stored twice
	pos      int                   // next write index in hist, 0 … tpTaps−1
	fill     int                   // samples of hist that continue the stream (tpTaps: all; less after a Gap)
	// the current interval (since the last TakeInterval or Reset)
	sample []float64 // max |x|
	truePk []float64 // max |interpolated x|
	sumSq  []float64
	n      int64
	// the intervals taken before it, since Reset
	done peakTotals
}

// peakTotals are a PeakMeter's linear measures of its closed intervals.
type peakTotals struct {
	sample, truePk, sumSq []float64
	n                     int64
}

// PeakInterval is what a PeakMeter measured of one channel over one
// interval of its stream, linear: full scale is 1.
type PeakInterval struct {
	SamplePeak float64 // max |x|
	TruePeak   float64 // max |x interpolated 4×|, never below SamplePeak
	MeanSquare float64 // mean of x² over the interval (0 if it had no samples)
	Samples    int64   // samples per channel in the interval
}

// NewPeakMeter makes a meter for channels channels.
func NewPeakMeter(channels int) (*PeakMeter, error) {
	if channels < 1 {
		return nil, fmt.Errorf("dsp: peak meter: %d channels", channels)
	}
	f := func() []float64 { return make([]float64, channels) }
	return &PeakMeter{
		channels: channels,
		fill:     tpTaps, // the stream starts from silence
		hist:     make([][2 * tpTaps]float64, channels),
		sample:   f(), truePk: f(), sumSq: f(),
		done: peakTotals{sample: f(), truePk: f(), sumSq: f()},
	}, nil
}

// Reset forgets everything measured.
func (m *PeakMeter) Reset() {
	clear(m.hist)
	m.pos, m.fill = 0, tpTaps
	m.clearInterval()
	clear(m.done.sample)
	clear(m.done.truePk)
	clear(m.done.sumSq)
	m.done.n = 0
}

func (m *PeakMeter) clearInterval() {
	clear(m.sample)
	clear(m.truePk)
	clear(m.sumSq)
	m.n = 0
}

// TakeInterval writes into dst (one per channel) what was measured since
// the last TakeInterval (or Reset) and starts a new interval; the totals
// since Reset (SamplePeak, TruePeak, RMS) go on. The interpolator keeps
// its history across intervals, so an interval's true peak is the largest
// of the interpolated points its samples complete, and the largest of the
// intervals' peaks is the whole stream's. It does not allocate; it panics
// if len(dst) is not the channel count.
func (m *PeakMeter) TakeInterval(dst []PeakInterval) {
	if len(dst) != m.channels {
		panic(fmt.Sprintf("dsp: PeakMeter.TakeInterval: %d channels, want %d", len(dst), m.channels))
	}
	d := &m.done
	for c := range dst {
		iv := PeakInterval{SamplePeak: m.sample[c], TruePeak: max(m.truePk[c], m.sample[c]), Samples: m.n}
		if m.n > 0 {
			iv.MeanSquare = m.sumSq[c] / float64(m.n)
		}
		dst[c] = iv
		d.sample[c] = max(d.sample[c], m.sample[c])
		d.truePk[c] = max(d.truePk[c], m.truePk[c])
		d.sumSq[c] += m.sumSq[c]
	}
	d.n += m.n
	m.clearInterval()
}

// WriteInterleaved measures frames of interleaved samples. It panics if
// len(samples) is not a multiple of the channel count.
func (m *PeakMeter) WriteInterleaved(samples []float32) {
	if len(samples)%m.channels != 0 {
		panic(fmt.Sprintf("dsp: PeakMeter.WriteInterleaved: %d samples for %d channels", len(samples), m.channels))
	}
	frames := len(samples) / m.channels
	for c := range m.channels {
		m.run(c, samples[c:], m.channels, frames)
	}
	m.advance(frames)
}

// WritePlanar measures one block per channel, all of the same length. It
// panics if len(block) differs from the channel count or the lengths differ.
func (m *PeakMeter) WritePlanar(block [][]float32) {
	if len(block) != m.channels {
		panic(fmt.Sprintf("dsp: PeakMeter.WritePlanar: %d channels, want %d", len(block), m.channels))
	}
	for _, b := range block {
		if len(b) != len(block[0]) {
			panic("dsp: PeakMeter.WritePlanar: channel blocks differ in length")
		}
	}
	for c, b := range block {
		m.run(c, b, 1, len(b))
	}
	m.advance(len(block[0]))
}

// run measures channel c's next `frames` samples x[0], x[stride], …: the
// sample peak, the sum of squares and the three interpolated phases
// between samples. The channel's history, the filter and the running
// values are local copies for the loop (fewer memory operations, and none
// the race detector instruments), stored back at the end.
func (m *PeakMeter) run(c int, x []float32, stride, frames int) {
	if frames == 0 {
		return
	}
	_ = x[(frames-1)*stride]
	h := m.hist[c]
	f := truePeakRev
	pos, fill := m.pos, m.fill
	sp, tp, ss := m.sample[c], m.truePk[c], m.sumSq[c]
	for i := range frames {
		v := float64(x[i*stride])
		sp = max(sp, math.Abs(v))
		ss += v * v
		h[pos], h[pos+tpTaps] = v, v
		if fill < tpTaps { // after a gap: not yet a whole window of the stream
			if fill++; fill < tpTaps {
				if pos++; pos == tpTaps {
					pos = 0
				}
				continue
			}
		}
		// win[i] is x[n−tpTaps+1+i]: the last tpTaps samples, oldest first.
		win := (*[tpTaps]float64)(h[pos+1 : pos+tpTaps+1])
		for p := range f {
			fp := &f[p]
			var y0, y1, y2, y3 float64
			for j := 0; j < tpTaps; j += 4 {
				y0 += fp[j] * win[j]
				y1 += fp[j+1] * win[j+1]
				y2 += fp[j+2] * win[j+2]
				y3 += fp[j+3] * win[j+3]
			}
			tp = max(tp, math.Abs((y0+y1)+(y2+y3)))
		}
		if pos++; pos == tpTaps {
			pos = 0
		}
	}
	m.hist[c] = h
	m.sample[c], m.truePk[c], m.sumSq[c] = sp, tp, ss
}

// advance moves the stream position on by frames samples per channel.
func (m *PeakMeter) advance(frames int) {
	m.n += int64(frames)
	m.pos = (m.pos + frames) % tpTaps
	m.fill = min(tpTaps, m.fill+frames)
}

// Gap says that the stream jumped (input was lost): the samples before
// are no longer the past of those that follow. The interpolated points
// whose window would span the jump are not measured (a jump is no signal
// and would read as an over), so the next tpTaps−1 samples count at their
// sample points only; the measurements so far stay.
func (m *PeakMeter) Gap() { m.fill = 0 }

// SamplePeak is channel c's largest |sample| since Reset in dBFS (−Inf for
// silence).
func (m *PeakMeter) SamplePeak(c int) float64 {
	return 20 * math.Log10(max(m.sample[c], m.done.sample[c]))
}

// TruePeak is channel c's true peak in dBTP: the largest |value| of the
// signal interpolated 4× (BS.1770-4 Annex 2), never below SamplePeak.
// The interpolator's delay of 12 samples means the last 12 samples of a
// stream are seen at sample points only; the stream starts from silence,
// so an abrupt start reads the overshoot a DAC would make of it.
func (m *PeakMeter) TruePeak(c int) float64 {
	return 20 * math.Log10(max(m.truePk[c], m.sample[c], m.done.truePk[c], m.done.sample[c]))
}

// RMS is channel c's RMS level per AES17 in dBFS: 20·log10(rms) + 3.01, so
// a full-scale sine reads 0.00 dBFS. −Inf before any sample.
func (m *PeakMeter) RMS(c int) float64 {
	n := m.n + m.done.n
	if n == 0 {
		return math.Inf(-1)
	}
	return dsp.RMSDBFS((m.sumSq[c] + m.done.sumSq[c]) / float64(n))
}
