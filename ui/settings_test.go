package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/window"
)

// TestDefaultWeighting: the RTA starts Z-weighted, as prism bands.
func TestDefaultWeighting(t *testing.T) {
	if got := DefaultSettings().Weighting; got != dsp.DefaultWeighting {
		t.Errorf("window's default weighting %s, prism bands' %s", got, dsp.DefaultWeighting)
	}
	if d := DefaultSettings(); d.Weighting.String() != "Z" {
		t.Errorf("default weighting %s, want Z (as prism bands)", d.Weighting)
	}
}

// TestSettingsFileCompatible: preferences saved while the settings were
// names load the same, each name read into its type, and are saved back
// as the same names; a name that no longer reads falls back to the
// default as it did (a bad window takes the FFT size with it, a band
// beyond 24 kHz only itself).
func TestSettingsFileCompatible(t *testing.T) {
	a := test.NewTempApp(t)
	p := a.Preferences()
	saved := map[string]string{"window": "blackman-harris", "freqscale": "mel", "colormap": "magma",
		"rta.weighting": "A", "band": "bandpass:500-2000", "lower": "rta"}
	for k, v := range saved {
		p.SetString(prefPrefix+k, v)
	}
	p.SetInt(prefPrefix+"fft", 8192)
	s := LoadSettings(p)
	if s.Window != (window.Func{Kind: window.BlackmanHarris}) || s.FreqScale != plot.Mel || s.Colormap != plot.Magma ||
		s.Weighting != dsp.WeightA || s.Band.Kind != dsp.Bandpass || s.Band.Lo != 500 || s.Band.Hi != 2000 || s.FFT != 8192 {
		t.Fatalf("loaded %+v", s)
	}
	s.Save(p)
	for k, v := range saved {
		if got := p.String(prefPrefix + k); got != v {
			t.Errorf("%s saved as %q, was %q", k, got, v)
		}
	}
	d := DefaultSettings()
	p.SetString(prefPrefix+"band", "lowpass:30000")
	if s := LoadSettings(p); !s.Band.IsZero() || s.FFT != 8192 || s.Window != (window.Func{Kind: window.BlackmanHarris}) {
		t.Errorf("a band beyond 24 kHz: band %q, N=%d, window %s", s.Band, s.FFT, s.Window)
	}
	for k, v := range map[string]string{"window": "triangle", "freqscale": "bark", "colormap": "jet"} {
		p.SetString(prefPrefix+k, v)
	}
	s = LoadSettings(p)
	if s.Window != d.Window || s.FFT != d.FFT || s.FreqScale != d.FreqScale || s.Colormap != d.Colormap {
		t.Errorf("unknown names: window %s, N=%d, scale %s, colormap %s; want the defaults %s, %d, %s, %s",
			s.Window, s.FFT, s.FreqScale, s.Colormap, d.Window, d.FFT, d.FreqScale, d.Colormap)
	}
}
