package tfrlive

import (
	"math"

	"github.com/prismaudio/prism/app/tfr"
)

// fakeDFT is a small tfr.Transform for the Runner's tests: each bin is a
// Hann-windowed DFT of Span samples at its own centre frequency (log-
// spaced bins), computed directly in float64 and levelled by tfr's rule
// (a sine of amplitude A at a bin's centre reads 20·log10(A)).
type fakeDFT struct {
	cfg   tfr.Config
	span  int
	freqs []float64
	enbw  []float64
	win   []float64
	gain  float64 // 2/Σw: a sine's amplitude from |X|
}

func newFakeDFT(rate float64, channels, hop, span, maxSamples int, fmin float64, bins int) *fakeDFT {
	f := &fakeDFT{cfg: tfr.Config{Mode: tfr.VQT, Rate: rate, Channels: channels, Hop: hop, MaxSamples: maxSamples},
		span: span}
	sum := 0.0
	for n := range span {
		w := 0.5 - 0.5*math.Cos(2*math.Pi*(float64(n)+0.5)/float64(span))
		f.win = append(f.win, w)
		sum += w
	}
	f.gain = 2 / sum
	for k := range bins {
		f.freqs = append(f.freqs, fmin*math.Pow(2, float64(k)/6))
		f.enbw = append(f.enbw, 1.5*rate/float64(span))
	}
	return f
}

func (f *fakeDFT) Config() tfr.Config { return f.cfg }
func (f *fakeDFT) Freqs() []float64   { return f.freqs }
func (f *fakeDFT) ENBW() []float64    { return f.enbw }
func (f *fakeDFT) Span() int          { return f.span }
func (f *fakeDFT) Close() error       { return nil }

// Execute follows tfr.Transform's layout: dst[(c·frames+i)·bins+k].
func (f *fakeDFT) Execute(dst, src []float32) (int, error) {
	ch := f.cfg.Channels
	l := len(src) / ch
	if l < f.span {
		return 0, nil
	}
	frames := (l-f.span)/f.cfg.Hop + 1
	bins := len(f.freqs)
	for c := range ch {
		for i := range frames {
			x := src[c*l+i*f.cfg.Hop : c*l+i*f.cfg.Hop+f.span]
			for k, fk := range f.freqs {
				dst[(c*frames+i)*bins+k] = float32(f.levelDB(x, fk))
			}
		}
	}
	return frames, nil
}

// levelDB is the dBFS of frame x at frequency fk.
func (f *fakeDFT) levelDB(x []float32, fk float64) float64 {
	var re, im float64
	w := 2 * math.Pi * fk / f.cfg.Rate
	for n, v := range x {
		s, c := math.Sincos(w * float64(n))
		re += float64(v) * f.win[n] * c
		im -= float64(v) * f.win[n] * s
	}
	a := math.Hypot(re, im) * f.gain
	return 20 * math.Log10(a)
}
