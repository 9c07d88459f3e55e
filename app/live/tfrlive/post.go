package tfrlive

import (
	"math"
	"time"
)

// post is the Runner goroutine's state on the transform's bins, per
// output channel: the averages in power (so noise averages as power, as
// Live's do), the holds in dB and the spectrogram column being folded.
type post struct {
	outCh, bins int
	hopSec      float64
	expA        float32 // the exponential average's weight of a new frame (0: none)
	holdSec     float64
	decayPerHop float32
	cur         [][]float32 // dB
	exp         [][]float32 // power
	linRing     [][]float32 // [c][slot*bins+k] power, AvgFrames slots
	linSum      [][]float64 // power sums of the slots
	linN, linAt int
	long        [][]float64 // power sums
	longFrames  uint64
	hold        [][]float32 // dB
	holdAge     [][]float32 // seconds since each bin's hold was set
	minHold     [][]float32 // dB
	col         [][]float32 // the column being folded (dB, max)
	colFrames   int
	frames      uint64
}

// reset sizes the state for settings s on outCh channels of bins bins,
// frames hopSec apart.
func (p *post) reset(s Settings, outCh, bins int, hopSec float64) {
	*p = post{outCh: outCh, bins: bins, hopSec: hopSec, holdSec: s.PeakHold.Seconds(),
		decayPerHop: float32(s.PeakDecay * hopSec)}
	if s.AvgTau > 0 {
		p.expA = float32(1 - math.Exp(-hopSec/s.AvgTau.Seconds()))
	} else {
		p.expA = 1
	}
	p.linN = max(1, s.AvgFrames)
	mk := func() [][]float32 {
		v := make([][]float32, outCh)
		for c := range v {
			v[c] = make([]float32, bins)
		}
		return v
	}
	p.cur, p.exp, p.hold, p.holdAge, p.minHold, p.col = mk(), mk(), mk(), mk(), mk(), mk()
	p.linRing, p.linSum, p.long = make([][]float32, outCh), make([][]float64, outCh), make([][]float64, outCh)
	for c := range outCh {
		p.linRing[c] = make([]float32, p.linN*bins)
		p.linSum[c], p.long[c] = make([]float64, bins), make([]float64, bins)
		fill(p.hold[c], float32(math.Inf(-1)))
		fill(p.minHold[c], float32(math.Inf(1)))
		fill(p.col[c], float32(math.Inf(-1)))
	}
}

func fill(v []float32, x float32) {
	for i := range v {
		v[i] = x
	}
}

// frame takes frame i of a batch of `frames` frames in out (Execute's
// layout) into the averages, holds and column; a completed column goes
// to pub. It does not allocate.
func (p *post) frame(out []float32, frames, i int, pub *published) {
	bins, slot := p.bins, p.linAt
	for c := range p.outCh {
		row := out[(c*frames+i)*bins : (c*frames+i+1)*bins]
		copy(p.cur[c], row)
		p.powerTraces(c, row, slot)
		p.holds(c, row)
		col := p.col[c]
		for k, v := range row {
			col[k] = max(col[k], v)
		}
	}
	p.linAt = (p.linAt + 1) % p.linN
	p.frames++
	p.longFrames++
	p.colFrames++
	if p.colFrames == pub.fold {
		pub.pushColumn(p.col)
		for c := range p.col {
			fill(p.col[c], float32(math.Inf(-1)))
		}
		p.colFrames = 0
	}
}

// powerTraces updates channel c's exponential, linear and long-term
// averages with row (dB), the linear average's oldest frame in slot.
func (p *post) powerTraces(c int, row []float32, slot int) {
	exp, sum, long := p.exp[c], p.linSum[c], p.long[c]
	ring := p.linRing[c][slot*p.bins : (slot+1)*p.bins]
	a := p.expA
	for k, v := range row {
		pw := pow10dB(v)
		if p.frames == 0 {
			exp[k] = pw
		} else {
			exp[k] += a * (pw - exp[k])
		}
		sum[k] += float64(pw) - float64(ring[k])
		ring[k] = pw
		long[k] += float64(pw)
	}
}

// holds updates channel c's peak hold (held holdSec, then falling at the
// decay rate, never below the current level) and min hold with row (dB).
func (p *post) holds(c int, row []float32) {
	hold, age, mn := p.hold[c], p.holdAge[c], p.minHold[c]
	hop := float32(p.hopSec)
	for k, v := range row {
		switch {
		case v >= hold[k]:
			hold[k], age[k] = v, 0
		case float64(age[k]) >= p.holdSec:
			hold[k] = max(v, hold[k]-p.decayPerHop)
		default:
			age[k] += hop
		}
		mn[k] = min(mn[k], v)
	}
}

// pow10dB is 10^(db/10), the power of a level in dB, within 2e-5
// relative (under 1e-4 dB: the Taylor series of 2^f to f⁶ on [0, 1), the
// exponent set directly; several times as fast as math.Pow, and it runs
// for every bin of every frame). Levels below −379 dB are 0.
func pow10dB(db float32) float32 {
	y := db * 0.33219280948873623 // log2(10)/10
	if !(y > -126) {              // NaN too
		return 0
	}
	if y > 127 {
		return float32(math.Inf(1))
	}
	fl := float32(math.Floor(float64(y)))
	f := y - fl
	// 2^f = e^(f·ln2), Taylor to the 6th power: the 7th term is < 1.6e-5
	q := 1 + f*(0.69314718+f*(0.24022652+f*(0.055504109+f*(0.0096181291+f*(0.0013333558+f*0.00015403530)))))
	return q * math.Float32frombits(uint32(int32(fl)+127)<<23)
}

// traceEvery is how often the traces are copied for readers: a display's
// frame rate.
const traceEvery = 15 * time.Millisecond
