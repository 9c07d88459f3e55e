package transfer

import (
	"math"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/gpufft"
)

// Latest writes the latest result into dst, (re)making dst's slices only
// when their shape is wrong: a consumer polling with the same dst does not
// allocate. It reports false before the first frame. The transfer
// function is H1 or polar per Average (dual.CrossSpectra.Response), the
// phase with each channel's applied delay's fractional rest taken out.
// Any goroutine may call it.
func (t *Live) Latest(dst *LiveResult) bool {
	m, bins := len(t.set.Channels), t.set.FFT/2+1
	shape := func(s [][]float64) [][]float64 {
		if len(s) != m {
			s = make([][]float64, m)
		}
		for c := range s {
			if len(s[c]) != bins {
				s[c] = make([]float64, bins)
			}
		}
		return s
	}
	dst.MagnitudeDB, dst.PhaseDeg, dst.Coherence = shape(dst.MagnitudeDB), shape(dst.PhaseDeg), shape(dst.Coherence)
	if len(dst.Delays) != m {
		dst.Delays = make([]TrackedDelay, m)
	}
	if len(dst.Channels) != m {
		dst.Channels = make([]int, m)
	}
	copy(dst.Channels, t.set.Channels)
	dst.Geometry, dst.Tracked = t.geo, t.set.Track
	t.mu.Lock()
	defer t.mu.Unlock()
	dst.Frames, dst.Averaged = t.pubFr, t.pubAvg
	copy(dst.Delays, t.pubDel)
	binHz := t.geo.BinHz()
	for c := range m {
		t.channelSpectra(c)
		t.spectra.Response(t.h, t.set.Average)
		t.spectra.Coherence(dst.Coherence[c])
		if d := dst.Delays[c].Delay; d.Found && t.set.Track {
			rest := d.Samples - math.Round(d.Samples)
			dual.RemoveDelay(t.h, t.h, binHz, rest/float64(t.geo.Rate))
		}
		for k, v := range t.h {
			dst.MagnitudeDB[c][k] = dual.MagnitudeDB(v)
			dst.PhaseDeg[c][k] = dual.PhaseDeg(v)
		}
	}
	return dst.Frames > 0
}

// channelSpectra fills t.spectra with channel c's published averages.
// Called with t.mu held.
func (t *Live) channelSpectra(c int) {
	bins := t.set.FFT/2 + 1
	for k := range bins {
		v := t.pub[(c*bins+k)*gpufft.TransferValues:]
		t.spectra.Gxy[k] = complex(float64(v[gpufft.TransferGxyRe]), float64(v[gpufft.TransferGxyIm]))
		t.spectra.Gxx[k], t.spectra.Gyy[k] = float64(v[gpufft.TransferGxx]), float64(v[gpufft.TransferGyy])
	}
}

// ImpulseResponse writes channel ch's (an index into Channels) live
// impulse response, the inverse transform of its averaged transfer
// function (as Latest forms it, before the delay is taken out, so the
// peak sits at the delay the alignment left, near lag 0 while tracking),
// into ir and its energy–time curve (dB re its peak) into etc, N values
// each in lag order (index i is lag i − N/2); either may be nil. It
// returns the response's own peak (dual.DelayFinder without PHAT). The
// first call makes its finder; later ones do not allocate. It panics if
// ch is out of range or a slice is short. Any goroutine may call it.
func (t *Live) ImpulseResponse(ch int, ir, etc []float64) dual.Delay {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.irFind == nil {
		t.irFind = dual.NewDelayFinder(t.set.FFT/2 + 1)
	}
	t.channelSpectra(ch)
	t.spectra.Response(t.h, t.set.Average)
	d := t.irFind.Find(t.h, false)
	if ir != nil {
		copy(ir[:t.set.FFT], t.irFind.IR())
	}
	if etc != nil {
		copy(etc[:t.set.FFT], t.irFind.ETC())
	}
	return d
}
