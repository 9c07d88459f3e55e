package cache

import (
	"fmt"
	"strings"

	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/out"
	"github.com/prismaudio/prism/internal/version"
)

// Meta is the description `prism ltsa` writes with an LTSA of files at
// cfg (winName as its --window flag names the window): the frequency
// axis, the unit and the parameters. The window's Export… writes the same,
// so its files equal the command's for the same span and parameters.
func Meta(files []archive.File, cfg archive.LTSAConfig, winName string) (out.Meta, error) {
	if len(files) == 0 {
		return out.Meta{}, fmt.Errorf("cache: no files")
	}
	cal, err := archive.CalibrationOf(files, cfg.Cal)
	if err != nil {
		return out.Meta{}, err
	}
	rate := files[0].Rate
	fft := cfg.FFTFor(rate)
	freqs := make([]float64, fft/2+1)
	for k := range freqs {
		freqs[k] = float64(k) * rate / float64(fft)
	}
	attrs := []out.Attr{
		{Name: "average_seconds", Value: cfg.Average.Seconds()},
		{Name: "fft", Value: int32(fft)},
		{Name: "resolution_hz", Value: rate / float64(fft)},
		{Name: "overlap_percent", Value: 50.0},
		{Name: "window", Value: winName},
		{Name: "channel", Value: int32(cfg.Channel)},
		{Name: "sample_rate_hz", Value: rate},
	}
	attrs = append(attrs, CalAttrs(cal)...)
	attrs = append(attrs, out.Attr{Name: "prism_version", Value: version.Version})
	return out.Meta{Kind: "ltsa", Title: "long-term spectral average", Unit: cal.Unit(), FreqHz: freqs, Attrs: attrs}, nil
}

// CalAttrs are a calibration's attributes, in the outputs.
func CalAttrs(c archive.Calibration) []out.Attr {
	t := map[archive.Transducer]string{archive.Uncalibrated: "none", archive.Hydrophone: "hydrophone", archive.Microphone: "microphone"}[c.Transducer]
	a := []out.Attr{{Name: "calibration_transducer", Value: t}}
	if c.Transducer == archive.Uncalibrated {
		return a
	}
	fs := c.FullScaleV
	if fs == 0 {
		fs = 1
	}
	a = append(a, out.Attr{Name: "calibration_gain_db", Value: c.GainDB}, out.Attr{Name: "calibration_full_scale_v", Value: fs})
	if len(c.Curve) > 0 {
		var s []string
		for _, p := range c.Curve {
			s = append(s, fmt.Sprintf("%g:%g", p.Hz, p.DB))
		}
		a = append(a, out.Attr{Name: "calibration_sensitivity_curve", Value: strings.Join(s, " ")})
	} else {
		a = append(a, out.Attr{Name: "calibration_sensitivity_db", Value: c.SensitivityDB})
	}
	return append(a, out.Attr{Name: "calibration_source", Value: c.Source})
}
