package dsp

import (
	"fmt"
	"math"
)

// Peak is a spectrum's dominant peak, interpolated between bins.
type Peak struct {
	Freq    float64 // Hz, quadratic interpolation of the dB values around the peak bin
	LevelDB float64 // dBFS at the interpolated peak
	Note    string  // nearest equal-tempered note, A4 = 440 Hz, e.g. "A4"
	Cents   float64 // deviation from that note
}

// FindPeak returns the dominant peak of a dB spectrum (bins 0…N/2, DC
// excluded), its frequency and level refined by a parabola through the
// three bins around the maximum, and its note name. It does not allocate.
func FindPeak(db []float32, binHz float64) Peak {
	if len(db) < 3 {
		return Peak{}
	}
	k := 1
	for i := 2; i < len(db)-1; i++ {
		if db[i] > db[k] {
			k = i
		}
	}
	a, b, c := float64(db[k-1]), float64(db[k]), float64(db[k+1])
	d := 0.0
	if den := a - 2*b + c; den < 0 {
		d = 0.5 * (a - c) / den
	}
	p := Peak{Freq: (float64(k) + d) * binHz, LevelDB: b - 0.25*(a-c)*d}
	p.Note, p.Cents = NoteName(p.Freq)
	return p
}

var noteNames = [12]string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}

// noteTable holds the names of MIDI notes 0…127, so naming a peak at
// display rate does not allocate.
var noteTable = func() (t [128]string) {
	for i := range t {
		t[i] = fmt.Sprintf("%s%d", noteNames[i%12], i/12-1)
	}
	return t
}()

// NoteName returns the nearest equal-tempered note (A4 = 440 Hz) and the
// deviation in cents.
func NoteName(f float64) (string, float64) {
	if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return "", 0
	}
	m := 69 + 12*math.Log2(f/440)
	n := math.Round(m)
	i := int(n)
	if i >= 0 && i < len(noteTable) {
		return noteTable[i], (m - n) * 100
	}
	return fmt.Sprintf("%s%d", noteNames[((i%12)+12)%12], i/12-1), (m - n) * 100
}
