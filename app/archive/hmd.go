package archive

import (
	"context"
	"math"
	"time"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// Band is one frequency band, Hz: [Lo, Hi) around Centre.
type Band struct {
	Lo, Centre, Hi float64
}

// mdecCentre is the centre of millidecade band n ≥ 1 counted from 10 Hz as
// the standard's reference implementations count them (pbp, PyPAM, after
// MANTA): 10·G^((2(n−1)+1)/(2b)) with G = 10^(3/10) and b = 300
// bands per G-division, i.e. 10^(1+(n−½)/1000). Its edges are ×10^(∓1/2000),
// so the millidecade edges fall on 10^(j/1000) Hz.
func mdecCentre(n int) float64 { return math.Pow(10, 1+(float64(n)-0.5)/1000) }

// HMDBands returns the hybrid millidecade bands for a sample rate (Martin
// et al. 2021, "Hybrid millidecade spectra: A practical format for
// exchange of long-term ambient sound data", JASA Express Letters 1,
// 011203), exactly as the reference implementations (MANTA, pbp, PyPAM's
// get_hybrid_millidecade_limits with 1-Hz bins) compute them: 1-Hz bands
// centred on 0, 1, 2, … Hz ([i−½, i+½), the first reaching down to −½ Hz)
// up to the crossover, where the millidecade bands grow wider than 1 Hz
// (the millidecade centre nearest a whole hertz, about 435 Hz); above it
// millidecade bands up to the Nyquist frequency, the last cut there. Each
// band's Hi is the next one's Lo.
func HMDBands(rate float64) []Band {
	nyq := rate / 2
	loMul, hiMul := math.Pow(10, -1.0/2000), math.Pow(10, 1.0/2000)
	n := 0
	for bw := 0.0; bw < 1; {
		n++
		bw = mdecCentre(n) * (hiMul - loMul)
	}
	// walk on until the linear and millidecade centres are closest
	c := mdecCentre(n)
	lin := math.Round(c)
	for dc := math.Abs(lin-c) + 0.1; math.Abs(lin-c) < dc; {
		dc = math.Abs(lin - c)
		n++
		lin++
		c = mdecCentre(n)
	}
	lin--
	n--
	var bands []Band
	if lin > nyq {
		lin = math.Floor(nyq + 1) // a rate too low for millidecade bands
	}
	for i := 0.0; i < lin; i++ {
		bands = append(bands, Band{Lo: i - 0.5, Centre: i})
	}
	for ; lin <= nyq; n++ {
		fc := mdecCentre(n)
		if fc*loMul >= nyq {
			break
		}
		bands = append(bands, Band{Lo: fc * loMul, Centre: fc})
		if fc*hiMul >= nyq {
			break
		}
	}
	for i := range bands {
		if i+1 < len(bands) {
			bands[i].Hi = bands[i+1].Lo
		} else {
			bands[i].Hi = nyq
			bands[i].Centre = min(bands[i].Centre, nyq)
		}
	}
	return bands
}

// HMDConfig sets a hybrid millidecade analysis.
type HMDConfig struct {
	// FFT is the frame length (a power of two); 0 picks the smallest at
	// least the sample rate, so bins are at most 1 Hz apart. Frames are
	// Hann-windowed and half a frame apart, as the standard asks.
	FFT     int
	Channel int // 0-based
	// Cal calibrates the levels; uncalibrated, the files' own is used.
	Cal Calibration
	// Density gives each band's mean power spectral density (band power ÷
	// bandwidth, Calibration.Unit: the NCEI products' values) instead of
	// its band level (Calibration.BandUnit).
	Density bool
}

// HMDMinute is the averaging time of a hybrid millidecade spectrum.
const HMDMinute = time.Minute

// HMD computes hybrid millidecade spectra of files (sorted by start): one
// row per UTC minute (as LTSA, with Average one minute and a Hann window),
// one level per band of HMDBands(rate). A band's power integrates the
// one-sided power spectral density over [Lo, Hi): bin k's power is spread
// evenly over [(k−½)·df, (k+½)·df] cut to [0, rate/2], and a bin that a
// band edge splits is shared in proportion (MANTA's rule). So power is
// conserved: the bands sum to the minute's broadband power, the mean
// square of the windowed frames divided by the window's mean square.
// Rows belong to the caller.
func HMD(ctx context.Context, e gpufft.Engine, files []File, cfg HMDConfig, emit func(Row) error) error {
	if err := checkFiles(files, cfg.Channel); err != nil {
		return err
	}
	cal, err := CalibrationOf(files, cfg.Cal)
	if err != nil {
		return err
	}
	rate := files[0].Rate
	fft := cfg.FFT
	if fft == 0 {
		fft = pow2AtLeast(rate)
	}
	bands := HMDBands(rate)
	shares := bandShares(bands, fft/2+1, rate/float64(fft), rate/2)
	wc := welchConfig{average: HMDMinute, fft: fft, window: window.Func{Kind: window.Hann}, channel: cfg.Channel, cal: cal}
	power := make([]float64, len(bands))
	df := rate / float64(fft)
	return welchBins(ctx, e, files, wc, func(bin int64, secs float64, psd []float64) error {
		clear(power)
		for _, s := range shares {
			power[s.band] += s.frac * psd[s.bin] * df
		}
		level := make([]float32, len(bands))
		for b, p := range power {
			if cfg.Density {
				p /= bands[b].Hi - bands[b].Lo
			}
			level[b] = float32(10 * math.Log10(max(p, floorPower)))
		}
		return emit(Row{Start: time.Unix(0, bin*int64(HMDMinute)).UTC(), Seconds: secs, Level: level})
	})
}

// share is the fraction of FFT bin bin's power that falls in band band.
type share struct {
	band, bin int
	frac      float64
}

// bandShares spreads each bin's power over the bands its interval
// [(k−½)·df, (k+½)·df] ∩ [0, nyq] meets, in proportion to the overlap.
func bandShares(bands []Band, bins int, df, nyq float64) []share {
	var out []share
	b := 0
	for k := range bins {
		lo, hi := max(0, (float64(k)-0.5)*df), min(nyq, (float64(k)+0.5)*df)
		if hi <= lo {
			continue
		}
		for b > 0 && bands[b].Lo > lo {
			b--
		}
		for ; b < len(bands); b++ {
			ov := min(hi, bands[b].Hi) - max(lo, bands[b].Lo)
			if ov > 0 {
				out = append(out, share{band: b, bin: k, frac: ov / (hi - lo)})
			}
			if bands[b].Hi >= hi {
				break
			}
		}
		b = min(b, len(bands)-1)
	}
	return out
}
