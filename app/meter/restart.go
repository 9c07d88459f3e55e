// Restarting live meters mid-stream: the measurements are forgotten, the
// filters' state is kept, so the signal does not seem to start abruptly.
// A gap in the stream is the other way round: the measurements stay, the
// state that joined the samples across it goes.

package meter

// Restart forgets everything measured (as Reset) but keeps the
// interpolator's history: a stream that goes on reads as it is, without
// the overshoot an abrupt start from silence would give the true peak.
func (m *PeakMeter) Restart() {
	m.clearInterval()
	clear(m.done.sample)
	clear(m.done.truePk)
	clear(m.done.sumSq)
	m.done.n = 0
}

// Restart forgets everything measured (as Reset) but keeps the
// K-weighting filters' state and the samples of the current 100 ms step,
// so a stream that goes on is measured without the filters' start-up
// transient. The next momentary value comes 400 ms after the restart.
func (l *Loudness) Restart() {
	l.nsteps = 0
	l.steps = [30]float64{}
	l.mom, l.st, l.momMax, l.stMax = 0, 0, 0, 0
	l.blocks.reset()
	l.short.reset()
}

// Gap says that the stream jumped (input was lost): the samples before are
// no longer the past of those that follow. No 400 ms block or 3 s window
// spans the jump: the partial 100 ms step and the windows' steps are
// dropped, and the K-weighting filters start afresh, as at the start of a
// programme, so the momentary value comes again 400 ms after the gap and
// the short-term one 3 s after. The gating blocks and short-term values
// measured so far, and the maxima, stay: integrated loudness and range go
// on over both sides.
func (l *Loudness) Gap() {
	clear(l.filters)
	l.pos, l.acc, l.nsteps = 0, 0, 0
	l.steps = [30]float64{}
	l.mom, l.st = 0, 0
}
