package live

import (
	"math"

	"github.com/prismaudio/prism/app/dsp"
)

// postState turns each batch's power spectra into what the display shows:
// per output channel the latest spectrum, exponential and linear averages,
// peak and min holds, and the RTA's band levels. Engine goroutine only.
type postState struct {
	set     LiveSettings
	geo     Geometry
	gain2   []float32 // (c_k/Σw)²: |X|² → power relative to a full-scale sine
	chans   []chanState
	rta     *dsp.BandAccumulator // nil: no RTA
	rtaMS   []float64
	frameDB []float32 // one frame's dB rows, every channel (for onFrame)
	frames  uint64    // frames analyzed per channel

	// per-frame constants of the settings
	alpha      float32 // exponential average weight
	holdFrames int32
	decay      float32 // peak decay per frame once held long enough
}

type chanState struct {
	primed, primedBands      bool // the averages hold a frame
	pow, exp, lin, peak, min []float32
	linRing                  [][]float32
	linSum                   []float64
	linN, linNext            int
	peakAge                  []int32   // frames since the held peak was set
	bandPow                  []float64 // RTA: averaged mean square per band
}

// newRTA is the band accumulator of settings s (nil with Fraction 0).
func newRTA(s LiveSettings, rate int) (*dsp.BandAccumulator, error) {
	if s.Fraction == 0 {
		return nil, nil
	}
	nyq := float64(rate) / 2
	bands, err := dsp.Bands(s.Fraction, 20, 20000, nyq)
	if err != nil {
		return nil, err
	}
	return dsp.NewBandAccumulator(bands, s.FFT, rate, dsp.SumsOf(s.Window.Values(s.FFT)), s.Weighting), nil
}

func (p *postState) reset(s LiveSettings, geo Geometry, outCh int, rta *dsp.BandAccumulator) {
	bins := geo.Bins()
	p.set, p.geo, p.rta, p.frames = s, geo, rta, 0
	p.gain2 = make([]float32, bins)
	dsp.SumsOf(s.Window.Values(s.FFT)).SinePowerGains(p.gain2)
	frameSec := geo.HopSeconds()
	p.alpha = 1
	if s.AvgTau > 0 {
		p.alpha = float32(1 - math.Exp(-frameSec/s.AvgTau.Seconds()))
	}
	p.holdFrames = int32(s.PeakHold.Seconds() / frameSec)
	p.decay = float32(math.Pow(10, -s.PeakDecay*frameSec/10))
	p.chans = make([]chanState, outCh)
	for c := range p.chans {
		p.chans[c].init(bins, s.AvgFrames, rta)
	}
	p.frameDB = make([]float32, outCh*bins)
	if rta != nil {
		p.rtaMS = make([]float64, len(rta.Bands))
	}
}

func (st *chanState) init(bins, avgFrames int, rta *dsp.BandAccumulator) {
	st.pow, st.exp, st.lin, st.peak, st.min = make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins)
	st.linSum = make([]float64, bins)
	st.peakAge = make([]int32, bins)
	for range avgFrames {
		st.linRing = append(st.linRing, make([]float32, bins))
	}
	for k := range st.min {
		st.min[k] = float32(math.Inf(1))
	}
	if rta != nil {
		st.bandPow = make([]float64, len(rta.Bands))
	}
}

// batch takes a batch's |X|² (outCh×frames×bins) frame by frame: every
// channel's averages and holds, the RTA, the sink's hook and a history
// column per frame.
func (p *postState) batch(out []float32, frames int, onFrame func(uint64, []float32, int), pub *published) {
	bins := p.geo.Bins()
	for f := range frames {
		for c := range p.chans {
			row := out[(c*frames+f)*bins : (c*frames+f+1)*bins]
			p.chans[c].frame(row, p)
			if onFrame != nil {
				dsp.AppendPowerDB(p.frameDB[c*bins:c*bins], p.chans[c].pow)
			}
		}
		if onFrame != nil {
			onFrame(p.frames+uint64(f), p.frameDB, bins)
		}
		pub.pushColumn(p.chans)
	}
	p.frames += uint64(frames)
	for c := range p.chans {
		p.chans[c].finishLinear()
	}
}

// frame takes one frame's |X|² row (with any band gain applied).
func (st *chanState) frame(row []float32, p *postState) {
	slot := st.linRing[st.linNext]
	if !st.primed { // the average starts at the first frame, not at zero
		for k, v := range row {
			st.exp[k] = v * p.gain2[k]
		}
		st.primed = true
	}
	for k, v := range row {
		v *= p.gain2[k]
		st.pow[k] = v
		st.exp[k] += p.alpha * (v - st.exp[k])
		st.linSum[k] += float64(v) - float64(slot[k])
		slot[k] = v
		if v >= st.peak[k] {
			st.peak[k], st.peakAge[k] = v, 0
		} else if st.peakAge[k]++; st.peakAge[k] > p.holdFrames {
			st.peak[k] = max(v, st.peak[k]*p.decay)
		}
		st.min[k] = min(st.min[k], v)
	}
	st.linNext = (st.linNext + 1) % len(st.linRing)
	st.linN = min(st.linN+1, len(st.linRing))
	if p.rta != nil {
		st.bands(row, p)
	}
}

// bands averages the RTA's band levels of one |X|² row.
func (st *chanState) bands(row []float32, p *postState) {
	p.rta.Frame(row, p.rtaMS)
	for i, ms := range p.rtaMS {
		if st.primedBands {
			st.bandPow[i] += float64(p.alpha) * (ms - st.bandPow[i])
		} else {
			st.bandPow[i] = ms
		}
	}
	st.primedBands = true
}

// finishLinear turns the running sum into the linear average.
func (st *chanState) finishLinear() {
	for k := range st.lin {
		st.lin[k] = float32(st.linSum[k] / float64(st.linN))
	}
}
