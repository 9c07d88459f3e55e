package tfr

import (
	"fmt"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

func init() { builders[STFT] = newSTFT }

// stft is the plain STFT: one engine spectrogram plan with DBFS output,
// so its levels are exactly the engines' (and `prism analyze`'s).
type stft struct {
	cfg   Config
	plan  gpufft.SpectrogramPlan
	freqs []float64
	enbw  []float64
}

func newSTFT(e gpufft.Engine, cfg Config) (Transform, error) {
	if err := checkSize(cfg.Size, cfg); err != nil {
		return nil, err
	}
	plan, err := e.NewSpectrogram(gpufft.SpectrogramConfig{Size: cfg.Size, Hop: cfg.Hop, Window: cfg.Window,
		Channels: cfg.Channels, MaxSamples: cfg.MaxSamples, Output: gpufft.DBFS})
	if err != nil {
		return nil, fmt.Errorf("tfr: stft: %w", err)
	}
	t := &stft{cfg: cfg, plan: plan}
	t.freqs, t.enbw = gridOf(cfg.Window, cfg.Rate, cfg.Size, 0, cfg.Size/2+1, nil, nil)
	return t, nil
}

func (t *stft) Config() Config   { return t.cfg }
func (t *stft) Freqs() []float64 { return t.freqs }
func (t *stft) ENBW() []float64  { return t.enbw }
func (t *stft) Span() int        { return t.cfg.Size }
func (t *stft) Close() error     { return t.plan.Close() }
func (t *stft) Execute(dst, src []float32) (int, error) {
	return t.plan.Execute(dst, src)
}

// checkSize says whether size suits cfg: a size the engines accept, at
// least Hop, at most MaxSamples.
func checkSize(size int, cfg Config) error {
	if err := gpufft.CheckSize(size); err != nil {
		return fmt.Errorf("tfr: %v: %w", cfg.Mode, err)
	}
	if cfg.Hop > size {
		return fmt.Errorf("tfr: %v: hop %d is longer than size %d: %w", cfg.Mode, cfg.Hop, size, gpufft.ErrInvalid)
	}
	if !cfg.Window.Valid() {
		return fmt.Errorf("tfr: %v: window %v: %w", cfg.Mode, cfg.Window, gpufft.ErrInvalid)
	}
	return nil
}

// gridOf appends the centre frequencies and equivalent noise bandwidths
// (Hz) of bins lo…hi−1 of an FFT of size points with window w.
func gridOf(w window.Func, rate float64, size, lo, hi int, freqs, enbw []float64) ([]float64, []float64) {
	binHz := rate / float64(size)
	e := enbwBins(w, size) * binHz
	for k := lo; k < hi; k++ {
		freqs = append(freqs, float64(k)*binHz)
		enbw = append(enbw, e)
	}
	return freqs, enbw
}

// enbwBins is the window's equivalent noise bandwidth in bins, N·Σw²/(Σw)².
func enbwBins(w window.Func, n int) float64 {
	s, s2 := 0.0, 0.0
	for _, v := range w.Values(n) {
		s += v
		s2 += v * v
	}
	return float64(n) * s2 / (s * s)
}
