package plot

import "math"

// Range is the axis limited to lo…hi Hz (a zoom), clamped to the full
// axis a: lo at least a.Low, hi at most a.High; lo ≥ hi, or either 0,
// leaves that end as it is.
func (a FreqAxis) Range(lo, hi float64) FreqAxis {
	if lo > a.Low && lo < a.High {
		a.Low = lo
	}
	if hi > a.Low && hi < a.High {
		a.High = hi
	}
	if !(a.High > a.Low) || math.IsNaN(a.Low) || math.IsNaN(a.High) {
		return a
	}
	a.lowM = a.warp(a.Low)
	a.span = a.warp(a.High) - a.lowM
	return a
}
