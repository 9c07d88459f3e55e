package live

import (
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/live/levelhist"
	"github.com/prismaudio/prism/app/meter"
)

// ReadMeters copies the latest level meters of the input into dst
// (meter.Bank.Read: updated every meter.StepSeconds of input). Any
// goroutine may call it; it does not allocate.
func (l *Live) ReadMeters(dst *meter.Meters) { l.meters.Read(dst) }

// ResetMeters restarts the holds, maxima and loudness integration (at the
// engine's next block). Any goroutine may call it; it never waits.
func (l *Live) ResetMeters() { l.meters.Reset() }

// LevelHistory is the input's level history, fed every block read.
func (l *Live) LevelHistory() *levelhist.History { return l.levels }

// MeasureCalibrator reads the last second of input channel c as a
// calibrator's tone (meter.Bank.MeasureCalibrator). Any goroutine may
// call it.
func (l *Live) MeasureCalibrator(c int, toneHz, referenceDBSPL float64) (dsp.LevelCal, error) {
	return l.meters.MeasureCalibrator(c, toneHz, referenceDBSPL)
}

// OnBlock sets a hook (package scopetap's Tap.Write) called on the engine
// goroutine with every block the meters get (valid during the call). Call it before the first Step.
func (l *Live) OnBlock(fn func(block []float32, channels, rate int, pos uint64)) { l.onBlock = fn }
