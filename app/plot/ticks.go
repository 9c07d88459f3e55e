package plot

import (
	"fmt"
	"math"
	"strings"
)

// lowestTickHz is the lowest frequency labelled on a log or mel axis.
const lowestTickHz = 20

// FreqTicks returns tick frequencies for an axis about `pixels` long: the
// 1-2-5 series on log and mel axes, a nice linear step on linear ones.
func FreqTicks(a FreqAxis, pixels int) []float64 {
	var ticks []float64
	if a.Scale == Note {
		return noteTicks(a, pixels)
	}
	if a.Scale == Lin {
		step := niceStep((a.High-a.Low)/max(2, float64(pixels)/90), []float64{1, 2, 2.5, 5, 10})
		for f := math.Ceil(a.Low/step) * step; f <= a.High+1e-9; f += step {
			ticks = append(ticks, f)
		}
		return ticks
	}
	lastY := math.Inf(-1)
	for dec := 10.0; dec <= 1e6; dec *= 10 {
		for _, m := range []float64{1, 2, 5} {
			f := m * dec
			// audio axes start at 20 Hz: a mel axis, which starts at
			// 0 Hz, would otherwise crowd 10 Hz against the next label
			if f < max(a.Low, lowestTickHz) || f > a.High {
				continue
			}
			y := a.Pos(f) * float64(pixels)
			if y-lastY < 18 { // labels 13 px tall: keep them apart
				continue
			}
			ticks, lastY = append(ticks, f), y
		}
	}
	return ticks
}

// TimeTicks returns tick times for a time axis of `seconds` about `pixels`
// wide.
func TimeTicks(seconds float64, pixels int) []float64 {
	raw := seconds / max(2, float64(pixels)/110)
	step := niceStep(raw, []float64{1, 2, 5, 10})
	if raw > 10 { // clock-friendly steps: 15 s, 30 s, 1, 2, 5, 10, 15, 30 min, hours
		for _, s := range []float64{15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 18000, 36000} {
			if s >= raw {
				step = s
				break
			}
		}
	}
	var ticks []float64
	for t := 0.0; t <= seconds+1e-9; t += step {
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep returns the smallest m·10^k (m from mults, for the right k) at
// least raw.
func niceStep(raw float64, mults []float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range mults {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// FormatHz writes 50, 500, 1k, 2.5k, 10k.
func FormatHz(f float64) string {
	if f >= 1000 {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", f/1000), ".0") + "k"
	}
	return fmt.Sprintf("%g", math.Round(f*10)/10)
}

// FormatSeconds writes t as m:ss for long spans, else seconds.
func FormatSeconds(t, span float64) string {
	if span >= 120 {
		s := int(math.Round(t))
		if s >= 3600 {
			return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
		}
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	}
	return fmt.Sprintf("%gs", math.Round(t*1000)/1000)
}

// DBTicks returns about n dB ticks in a 1-2-5 step from dbMin to dbMax.
func DBTicks(dbMin, dbMax float64, n int) []float64 {
	step := niceStep((dbMax-dbMin)/float64(max(1, n)), []float64{1, 2, 5, 10})
	var ticks []float64
	for v := math.Ceil(dbMin/step) * step; v <= dbMax+1e-9; v += step {
		ticks = append(ticks, v)
	}
	return ticks
}

// noteTicks are a note axis's ticks: every C (C0 = 16.35 Hz … C10, A4 =
// 440 Hz) within the axis, and the F# between two Cs where an octave
// spans 120 pixels or more.
func noteTicks(a FreqAxis, pixels int) []float64 {
	var ticks []float64
	for oct := 0; oct <= 10; oct++ {
		c := NoteHz(oct, 0)
		octPx := (a.Pos(2*c) - a.Pos(c)) * float64(pixels)
		for _, f := range []float64{c, NoteHz(oct, 6)} {
			if f < max(a.Low, lowestTickHz/2) || f > a.High || (f != c && octPx < 120) {
				continue
			}
			ticks = append(ticks, f)
		}
	}
	return ticks
}

// NoteHz is the equal-tempered frequency of the note `semitone` (0 = C)
// semitones above C of octave oct (scientific pitch: C4 is middle C),
// A4 = 440 Hz.
func NoteHz(oct, semitone int) float64 {
	return 440 * math.Pow(2, float64(12*(oct-4)+semitone-9)/12)
}

// NoteLabel names a note axis's tick f: "C4", "F#4" (as dsp.NoteName).
func NoteLabel(f float64) string {
	n := int(math.Round(12*math.Log2(f/440))) + 9 + 48 // semitones above C0
	oct, s := n/12, n%12
	name := [12]string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}[s]
	return fmt.Sprintf("%s%d", name, oct)
}

// Label is tick f's label on axis a: the note's name on a note axis
// ("C4"), else the frequency (FormatHz).
func (a FreqAxis) Label(f float64) string {
	if a.Scale == Note {
		return NoteLabel(f)
	}
	return FormatHz(f)
}
