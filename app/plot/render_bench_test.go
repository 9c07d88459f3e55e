package plot

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRender colours a 1920×1080 spectrogram and draws its axes and
// colorbar (the host's share of a PNG in `prism analyze`); BenchmarkAxes
// the axes and colorbar alone.
func BenchmarkRender(b *testing.B) {
	o := ImageOptions{Width: 1920, Height: 1080, Scale: Log, DBMin: -120, DBMax: 0, Colormap: Magma, Title: "in.wav   N=4096  hop=1024"}
	l := NewSpectrogram(o, Geometry{Rate: 48000, FFT: 4096, Hop: 1024, Frames: 28122})
	pix := make([]float32, 1920*1080)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range pix {
		pix[i] = float32(-130 + 140*rng.Float64())
	}
	b.Run("render", func(b *testing.B) {
		for b.Loop() {
			l.Render(pix)
		}
	})
	b.Run("axes", func(b *testing.B) {
		img := l.Render(pix)
		for b.Loop() {
			l.drawAxes(img)
		}
	})
}
