// Package bandwidth is the bandwidth verdict on a long-term spectrum: the
// frequency above which a file carries no content, and whether the
// cut-off's shape looks like a lossy encoder's low-pass (an MP3 or AAC
// encoder drops everything above a cut-off set by its bit rate, so a
// "lossless" file made from one shows a cliff to an empty band). It is a
// rule on one spectrum in dB, beside package dsp's (it imports nothing
// else of Prism's), keeps no state and allocates only its result's hint.
//
// How it detects the cut-off: the spectrum is power-averaged into bands
// of about BandHz; its floor is the median of the bands in the top
// TopFraction below Nyquist. The content ends at the highest band more
// than ContentDB above that floor; the bandwidth is where the level
// falls EdgeDB below the passband (the median level from 1.5 to 0.5 kHz
// below that band), or Nyquist when content reaches the top. A lossy
// low-pass is a cliff: at least CliffDB lost from 0.2–0.8 kHz below the
// edge to 0.2–0.8 kHz above it, and nothing above the edge coming back
// ContentDB over the floor. A cliff from 6 % below to 1 % above the
// Nyquist frequency of 44.1 or 48 kHz in a file at a higher rate is that
// rate upsampled (a resampler's pass band ends a few per cent below it:
// sox's at 96.5 %), not an encoder's low-pass (UpsampledFromHz).
package bandwidth

import (
	"fmt"
	"math"
	"slices"

	"github.com/prismaudio/prism/app/dsp"
)

// The rule's constants (see the package comment).
const (
	BandHz      = 86.0  // band width of the smoothed spectrum, Hz
	TopFraction = 0.02  // the floor's part of the band, below Nyquist
	ContentDB   = 20.0  // content lies this far above the floor
	EdgeDB      = 24.0  // the edge: this far below the passband
	CliffDB     = 30.0  // a lossy low-pass's drop across its edge
	fullBandTop = 0.955 // content reaching this fraction of Nyquist is full band
)

// Verdict is the bandwidth of one spectrum.
type Verdict struct {
	// BandwidthHz is the frequency above which the spectrum lies at its
	// floor: NyquistHz for a full-band spectrum, 0 for silence.
	BandwidthHz float64
	NyquistHz   float64
	FullBand    bool
	Silent      bool
	// LossyLowpass says the cut-off is a cliff into an empty band, the
	// shape of a lossy encoder's low-pass (or of a brick-wall filter:
	// the shape cannot tell them apart).
	LossyLowpass bool
	// UpsampledFromHz is the lower standard rate whose Nyquist frequency
	// the cliff sits at (0: none): the file was likely made at that rate.
	UpsampledFromHz float64
	DropDB          float64 // the level lost across the edge (0.2–0.8 kHz each side)
	GapDB           float64 // the passband's level above the floor
}

// Detect judges a one-sided spectrum levelDB (bin k at k·binHz, dB of
// any reference: only differences count; silent bins at dsp.FloorDB or
// −Inf). It panics if binHz ≤ 0.
func Detect(levelDB []float64, binHz float64) Verdict {
	if binHz <= 0 {
		panic(fmt.Sprintf("bandwidth: Detect: bin spacing %v Hz", binHz))
	}
	v := Verdict{NyquistHz: float64(len(levelDB)-1) * binHz}
	group := max(1, int(math.Round(BandHz/binHz)))
	bands := smooth(levelDB, group)
	bandHz := float64(group) * binHz
	n := len(bands)
	if n < 16 || slices.Max(bands) <= dsp.FloorDB+1 {
		v.Silent = n >= 16
		v.FullBand = n < 16
		if v.FullBand {
			v.BandwidthHz = v.NyquistHz
		}
		return v
	}
	top := max(1, int(TopFraction*float64(n)))
	floor := median(bands[n-top:])
	hi := n - 1
	for hi >= 0 && bands[hi] <= floor+ContentDB {
		hi--
	}
	at := func(hz float64) int { return min(n-1, max(0, int(hz/bandHz))) }
	if hi < 0 || float64(hi)*bandHz >= fullBandTop*v.NyquistHz {
		v.BandwidthHz, v.FullBand = v.NyquistHz, true
		return v
	}
	hiHz := float64(hi) * bandHz
	pass := median(bands[at(hiHz-1500) : at(hiHz-500)+1])
	v.GapDB = pass - floor
	edge := hi
	for edge > 0 && bands[edge] < pass-EdgeDB {
		edge--
	}
	v.BandwidthHz = crossing(bands, edge, pass-EdgeDB) * bandHz
	below := median(bands[at(v.BandwidthHz-800) : at(v.BandwidthHz-200)+1])
	above := median(bands[at(v.BandwidthHz+200) : at(v.BandwidthHz+800)+1])
	v.DropDB = below - above
	back := slices.Max(bands[at(v.BandwidthHz+800):])
	v.LossyLowpass = v.DropDB >= CliffDB && back <= floor+ContentDB
	for _, r := range [...]float64{44100, 48000} {
		if v.LossyLowpass && r/2 < 0.9*v.NyquistHz && v.BandwidthHz >= 0.94*r/2 && v.BandwidthHz <= 1.01*r/2 {
			v.UpsampledFromHz, v.LossyLowpass = r, false
		}
	}
	return v
}

// smooth power-averages groups of bins into bands, in dB: band b is bins
// b·group … (b+1)·group−1 (the last band may be shorter).
func smooth(levelDB []float64, group int) []float64 {
	out := make([]float64, 0, len(levelDB)/group+1)
	for k := 0; k < len(levelDB); k += group {
		p := 0.0
		end := min(len(levelDB), k+group)
		for _, l := range levelDB[k:end] {
			if l > dsp.FloorDB {
				p += math.Pow(10, l/10)
			}
		}
		out = append(out, max(dsp.FloorDB, 10*math.Log10(p/float64(end-k))))
	}
	return out
}

// crossing is where, in bands, the level falls through th after band
// edge (bands[edge] ≥ th > bands[edge+1]), linear in dB between band
// centres.
func crossing(bands []float64, edge int, th float64) float64 {
	if edge+1 >= len(bands) {
		return float64(edge) + 0.5
	}
	a, b := bands[edge], bands[edge+1]
	f := 0.0
	if a > b {
		f = min(1, max(0, (a-th)/(a-b)))
	}
	return float64(edge) + 0.5 + f
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
