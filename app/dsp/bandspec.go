package dsp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// BandKind is the shape of a band filter.
type BandKind uint8

// Band filter kinds.
const (
	NoBand BandKind = iota
	Lowpass
	Highpass
	Bandpass
	Bandstop
)

var bandKindNames = [...]string{NoBand: "none", Lowpass: "lowpass", Highpass: "highpass", Bandpass: "bandpass", Bandstop: "bandstop"}

func (k BandKind) String() string {
	if int(k) < len(bandKindNames) {
		return bandKindNames[k]
	}
	return fmt.Sprintf("BandKind(%d)", int(k))
}

// BandSpec is a band filter as the command line and the window name it:
// lowpass:F, highpass:F, bandpass:F1-F2, bandstop:F1-F2, octave:FC and
// third:FC (the IEC 61260-1 base-10 band centred on FC), or speech
// (bandpass 300–3400 Hz). The zero value is no band.
type BandSpec struct {
	Kind   BandKind
	Lo, Hi float64 // edges in Hz (Lo unused by lowpass, Hi by highpass)
	Text   string  // as given
}

// String is the spec as it was given ("" for no band).
func (b BandSpec) String() string { return b.Text }

// IsZero says whether b is no band.
func (b BandSpec) IsZero() bool { return b.Kind == NoBand }

// ParseBand reads a band spec's syntax ("" is no band); Check then says
// whether it fits a sample rate.
func ParseBand(s string) (BandSpec, error) {
	b := BandSpec{Text: s}
	if strings.TrimSpace(s) == "" {
		return BandSpec{}, nil
	}
	kind, arg, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	var err error
	switch kind {
	case "lowpass":
		b.Kind = Lowpass
		b.Hi, err = bandFreq(s, arg)
	case "highpass":
		b.Kind = Highpass
		b.Lo, err = bandFreq(s, arg)
	case "bandpass", "bandstop":
		b.Kind = Bandpass
		if kind == "bandstop" {
			b.Kind = Bandstop
		}
		b.Lo, b.Hi, err = bandPair(s, arg)
	case "octave", "third":
		var fc float64
		if fc, err = bandFreq(s, arg); err == nil {
			frac := 1.0
			if kind == "third" {
				frac = 3
			}
			b.Kind = Bandpass
			b.Lo, b.Hi = fc*math.Pow(octaveRatio, -1/(2*frac)), fc*math.Pow(octaveRatio, 1/(2*frac))
		}
	case "speech":
		b.Kind, b.Lo, b.Hi = Bandpass, 300, 3400
	default:
		return BandSpec{}, fmt.Errorf("band %q: want lowpass:F, highpass:F, bandpass:F1-F2, bandstop:F1-F2, octave:FC, third:FC or speech", s)
	}
	if err != nil {
		return BandSpec{}, err
	}
	return b, nil
}

// Check says whether the band's edges lie below Nyquist at rate Hz.
func (b BandSpec) Check(rate int) error {
	if nyq := float64(rate) / 2; b.Hi >= nyq || b.Lo >= nyq {
		return fmt.Errorf("band %q: edges must be below Nyquist (%g Hz at %d Hz sampling)", b.Text, nyq, rate)
	}
	return nil
}

func bandFreq(spec, v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("band %q: %q is not a positive frequency", spec, v)
	}
	return f, nil
}

func bandPair(spec, arg string) (lo, hi float64, err error) {
	a, c, ok := strings.Cut(arg, "-")
	if !ok {
		return 0, 0, fmt.Errorf("band %q: want F1-F2", spec)
	}
	if lo, err = bandFreq(spec, a); err != nil {
		return 0, 0, err
	}
	if hi, err = bandFreq(spec, c); err != nil {
		return 0, 0, err
	}
	if lo >= hi {
		return 0, 0, fmt.Errorf("band %q: %g Hz is not below %g Hz", spec, lo, hi)
	}
	return lo, hi, nil
}
