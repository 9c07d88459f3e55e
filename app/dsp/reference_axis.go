// A reference drawn on a spectrum axis of another unit: converted where
// the conversion is exact, refused with the reason where it is not.

package dsp

import (
	"fmt"
	"math"
)

// Axis is what a spectrum axis shows: its unit (UnitDBFS, UnitDBFSPerHz or
// UnitDBSPL) and the level calibration and microphone correction of the
// spectra drawn on it.
type Axis struct {
	Unit        string
	Calibrated  bool    // a level calibration is set
	CalOffsetDB float64 // with it: dB SPL − dBFS
	Mic         string  // the microphone response corrected for; "" none
}

// AxisError says why a trace cannot be drawn on an axis; Reason is one
// sentence a user can act on.
type AxisError struct {
	Name, Reason string
}

func (e *AxisError) Error() string { return "dsp: trace " + e.Name + ": " + e.Reason }

// OffsetTo is what to add to t's levels to draw them on axis a:
//
//   - 0 for a trace of the axis's unit, or of a unit not known (a file
//     that does not say: drawn as it is);
//   - between dBFS and dB SPL, the axis's calibration (dB SPL = dBFS +
//     CalOffsetDB: the window's calibration relates the input's level to
//     sound pressure); none set is an *AxisError;
//   - between dBFS and dBFS/Hz, the trace's own noise bandwidth
//     (TraceInfo.NoiseBandwidthHz: dBFS/Hz = dBFS − 10·log10(2·ENBW·rate/FFT),
//     the rule the analyzer scales densities by); a trace that does not
//     record it is an *AxisError.
//
// A transfer function, or a trace corrected for another microphone than
// the axis's (when its file says), is an *AxisError too.
func (t *Trace) OffsetTo(a Axis) (float64, error) {
	if t.IsTransfer() {
		return 0, t.axisErr("It is a transfer function: it is drawn with the transfer function, not over spectra.")
	}
	if t.Unit == "" {
		return 0, nil
	}
	if err := t.sameMic(a); err != nil {
		return 0, err
	}
	if t.Unit == a.Unit {
		return 0, nil
	}
	toFS, err := t.offsetToDBFS(t.Unit, a, 1)
	if err != nil {
		return 0, err
	}
	fromFS, err := t.offsetToDBFS(a.Unit, a, -1)
	if err != nil {
		return 0, err
	}
	return toFS + fromFS, nil
}

// offsetToDBFS is sign × (dBFS − level in unit u) for t's levels.
func (t *Trace) offsetToDBFS(u string, a Axis, sign float64) (float64, error) {
	switch u {
	case UnitDBFS:
		return 0, nil
	case UnitDBFSPerHz:
		nbw, ok := t.Info.NoiseBandwidthHz()
		if !ok {
			return 0, t.axisErr(fmt.Sprintf("Its window and FFT size are not recorded, so its %s levels cannot be shown in %s — switch the unit to %s.", t.Unit, a.Unit, t.Unit))
		}
		return sign * 10 * math.Log10(2*nbw), nil
	case UnitDBSPL:
		if !a.Calibrated {
			cal := ""
			if t.Info != nil && t.Info.CalNote != "" {
				cal = " (calibration: " + t.Info.CalNote + ")"
			}
			return 0, t.axisErr(fmt.Sprintf("It is in %s%s; the axis is %s and no calibration is set — use Calibrate… or switch the unit to %s.", t.Unit, cal, a.Unit, t.Unit))
		}
		return -sign * a.CalOffsetDB, nil
	}
	unknown := t.Unit
	if u != t.Unit {
		unknown = u
	}
	return 0, t.axisErr(fmt.Sprintf("Prism does not convert %q levels — switch the unit to %s.", unknown, t.Unit))
}

// sameMic checks that t carries the axis's microphone correction, when
// its file says which it carries.
func (t *Trace) sameMic(a Axis) error {
	if t.Info == nil || t.Info.Mic == a.Mic {
		return nil
	}
	switch {
	case a.Mic == "":
		return t.axisErr(fmt.Sprintf("It is corrected for the microphone %s and the axis is not — load that microphone file to show it.", t.Info.Mic))
	case t.Info.Mic == "":
		return t.axisErr(fmt.Sprintf("It has no microphone correction and the axis is corrected for %s — remove the microphone file to show it.", a.Mic))
	}
	return t.axisErr(fmt.Sprintf("It is corrected for the microphone %s and the axis for %s — load %s to show it.", t.Info.Mic, a.Mic, t.Info.Mic))
}

func (t *Trace) axisErr(reason string) *AxisError { return &AxisError{Name: t.Name, Reason: reason} }
