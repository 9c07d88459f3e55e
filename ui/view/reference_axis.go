// A reference drawn on a spectrum axis of another unit: converted where
// the conversion is exact, refused with the reason where it is not.

package view

import (
	"cmp"
	"fmt"
	"math"

	"github.com/prismaudio/prism/app/dsp"
)

// RefAxis is what a spectrum axis shows: its unit (dsp.UnitDBFS,
// UnitDBFSPerHz or UnitDBSPL, as UnitLabels) and the level calibration and
// microphone correction of the spectra drawn on it.
type RefAxis struct {
	Unit        string
	Calibrated  bool    // a level calibration is set
	CalOffsetDB float64 // with it: dB SPL − dBFS
	Mic         string  // the microphone response corrected for; "" none
}

// RefOffset is what to add to t's levels to draw them on axis a, or why
// they cannot be (notDrawn: one sentence a user can act on; "" they can):
//
//   - 0 for a trace of the axis's unit, or of a unit not known (a file
//     that does not say: drawn as it is);
//   - between dBFS and dB SPL, the axis's calibration (dB SPL = dBFS +
//     CalOffsetDB: the window's calibration relates the input's level to
//     sound pressure); none set: not drawn;
//   - between dBFS and dBFS/Hz, the trace's own noise bandwidth
//     (dsp.TraceInfo.NoiseBandwidthHz: dBFS/Hz = dBFS −
//     10·log10(2·ENBW·rate/FFT), the rule the analyzer scales densities
//     by); a trace that does not record it: not drawn.
//
// A transfer function, or a trace corrected for another microphone than
// the axis's (when its file says), is not drawn either.
func RefOffset(t *dsp.Trace, a RefAxis) (offsetDB float64, notDrawn string) {
	switch {
	case t.IsTransfer():
		return 0, "It is a transfer function: it is drawn with the transfer function, not over spectra."
	case t.Unit == "":
		return 0, ""
	case t.Info != nil && t.Info.Mic != a.Mic:
		with := func(mic string) string {
			return cmp.Or(map[bool]string{true: "the microphone file " + mic}[mic != ""], "no microphone file")
		}
		do := cmp.Or(map[bool]string{true: "load " + with(t.Info.Mic)}[t.Info.Mic != ""], "remove the microphone file")
		return 0, fmt.Sprintf("It was made with %s and the axis with %s — %s to show it.", with(t.Info.Mic), with(a.Mic), do)
	case t.Unit == a.Unit:
		return 0, ""
	}
	toFS, why := offsetToDBFS(t, t.Unit, a, 1)
	if why != "" {
		return 0, why
	}
	fromFS, why := offsetToDBFS(t, a.Unit, a, -1)
	return toFS + fromFS, why
}

// offsetToDBFS is sign × (dBFS − level in unit u) for t's levels, or why
// there is none.
func offsetToDBFS(t *dsp.Trace, u string, a RefAxis, sign float64) (float64, string) {
	switch u {
	case dsp.UnitDBFS:
		return 0, ""
	case dsp.UnitDBFSPerHz:
		nbw, ok := t.Info.NoiseBandwidthHz()
		if !ok {
			return 0, fmt.Sprintf("Its window and FFT size are not recorded, so its %s levels cannot be shown in %s — switch the unit to %s.", t.Unit, a.Unit, t.Unit)
		}
		return sign * 10 * math.Log10(2*nbw), ""
	case dsp.UnitDBSPL:
		if !a.Calibrated {
			cal := ""
			if t.Info != nil && t.Info.CalNote != "" {
				cal = " (calibration: " + t.Info.CalNote + ")"
			}
			return 0, fmt.Sprintf("It is in %s%s; the axis is %s and no calibration is set — use Calibrate… or switch the unit to %s.", t.Unit, cal, a.Unit, t.Unit)
		}
		return -sign * a.CalOffsetDB, ""
	}
	return 0, fmt.Sprintf("Prism does not convert %q levels — switch the unit to %s.", cmp.Or(map[bool]string{true: u}[u != t.Unit], t.Unit), t.Unit)
}
