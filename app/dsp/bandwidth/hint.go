package bandwidth

import (
	"fmt"
	"math"
)

// lameCutoffs are LAME's default low-pass frequencies of its CBR bit
// rates at 44.1 and 48 kHz (lame.c's optimum_bandwidth table), kb/s and Hz.
var lameCutoffs = []struct{ kbps, hz float64 }{
	{32, 5500}, {40, 7000}, {48, 7500}, {56, 10000}, {64, 11000}, {80, 13500},
	{96, 15100}, {112, 15600}, {128, 17000}, {160, 17500}, {192, 18600},
	{224, 19400}, {256, 19700}, {320, 20500},
}

// hintHz is how near a LAME cut-off a bandwidth must lie for Hint to name it.
const hintHz = 400

// Hint names the LAME bit rates whose default low-pass lies within
// hintHz of a lossy-looking cut-off ("" if none, or if v does not look
// lossy): a hint, not a claim (other encoders and settings cut
// elsewhere; AAC encoders at 96–128 kb/s cut near 14–17 kHz too).
func (v Verdict) Hint() string {
	if !v.LossyLowpass {
		return ""
	}
	best := -1
	for i, c := range lameCutoffs {
		if d := math.Abs(c.hz - v.BandwidthHz); d <= hintHz && (best < 0 || d < math.Abs(lameCutoffs[best].hz-v.BandwidthHz)) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	c := lameCutoffs[best]
	return fmt.Sprintf("LAME at %.0f kb/s cuts at %.1f kHz", c.kbps, c.hz/1000)
}

// String is the verdict in words, as `prism bandwidth` prints it.
func (v Verdict) String() string {
	switch {
	case v.Silent:
		return "silent: no content"
	case v.FullBand:
		return fmt.Sprintf("full band: content up to Nyquist (%.2f kHz)", v.NyquistHz/1000)
	}
	s := fmt.Sprintf("content up to %.2f kHz of %.2f (%.0f dB above the floor, %.0f dB lost across the edge)",
		v.BandwidthHz/1000, v.NyquistHz/1000, v.GapDB, v.DropDB)
	if v.UpsampledFromHz > 0 {
		return s + fmt.Sprintf(": a steep cut-off at the Nyquist frequency of %g kHz, likely upsampled from that rate", v.UpsampledFromHz/1000)
	}
	if !v.LossyLowpass {
		return s + ": a gradual roll-off"
	}
	s += ": a steep cut-off into an empty band, like a lossy encoder's low-pass"
	if h := v.Hint(); h != "" {
		s += " (" + h + ")"
	}
	return s
}
