// Restarting live meters mid-stream: the measurements are forgotten, the
// filters' state is kept, so the signal does not seem to start abruptly.

package dsp

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
