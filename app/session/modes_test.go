package session

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/live/tfrlive"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/window"
)

// TestSessionModes: SetMode shows a mode's spectra (non-uniform bins,
// their table in Freqs and ModeFreqs) with the generator's tone at its
// level on the mix, its columns and statistics; a source switch restarts
// it for the new source; a mode that cannot start says why in the
// status and the STFT is shown; the STFT comes back with tfr.STFT.
func TestSessionModes(t *testing.T) {
	e := testEngines(t)[0] // the CPU
	m, _, err := New(SourceSpec{Kind: SourceGenerator, Generator: "sine:1000:-10", Rate: 48000, Channels: 2}, live.DefaultSettings(), e)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cfg := tfr.Config{Mode: tfr.MultiRes, Sizes: []int{8192, 2048}, Hop: 512, Window: window.Func{Kind: window.FlatTop}}
	if err := m.SetModeWait(tfrlive.SettingsFrom(live.DefaultSettings(), cfg)); err != nil {
		t.Fatal(err)
	}
	var sp live.Spectrum
	tone := func(f float64) func() bool {
		return func() bool {
			m.Latest(2, &sp)
			return len(sp.Freqs) > 0 && len(sp.Current) == len(sp.Freqs) && math.Abs(sp.Peak.Freq-f) < f/100
		}
	}
	waitUntil(t, "the mode's 1 kHz tone", tone(1000))
	if got := m.ModeFreqs(); len(got) != len(sp.Freqs) || &got[0] != &sp.Freqs[0] {
		t.Errorf("ModeFreqs is not the spectra's table")
	}
	// flat-top: within its 0.01 dB scalloping of −10 dBFS (the mix of two equal channels)
	if math.Abs(sp.Peak.LevelDB+10) > 0.05 {
		t.Errorf("the mode reads the −10 dBFS tone at %.3f dB", sp.Peak.LevelDB)
	}
	cols := make([][]float32, 8)
	waitUntil(t, "the mode's columns", func() bool {
		n, _, g := m.Columns(2, cols, 0)
		return n > 0 && len(cols[0]) == len(sp.Freqs) && g.Hop == 512
	})
	var st live.Stats
	m.ReadStats(&st)
	if st.FFT != 8192 || st.Hop != 512 {
		t.Errorf("stats: FFT %d, hop %d; want the mode's 8192, 512", st.FFT, st.Hop)
	}
	if _, err := m.SetSource(SourceSpec{Kind: SourceGenerator, Generator: "sine:3000:-10", Rate: 44100, Channels: 1}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the mode on the new source", func() bool {
		m.Latest(1, &sp)
		return len(sp.Freqs) > 0 && sp.Geometry.Rate == 44100 && math.Abs(sp.Peak.Freq-3000) < 30
	})
	m.SetMode(tfrlive.SettingsFrom(live.DefaultSettings(), tfr.Config{Mode: tfr.MultiRes, Sizes: []int{8192, 2048}, Hop: 4096}))
	waitUntil(t, "the refused mode's status and the STFT", func() bool {
		m.ReadStats(&st)
		m.Latest(1, &sp)
		return st.Status != "" && sp.Freqs == nil && len(sp.Current) > 0
	})
	m.SetMode(tfrlive.SettingsFrom(live.DefaultSettings(), tfr.Config{Mode: tfr.STFT}))
	waitUntil(t, "the STFT's status", func() bool {
		m.ReadStats(&st)
		return st.Status == "" && m.ModeFreqs() == nil
	})
}
