package encode

import (
	"image"
	"io"
	"math/rand/v2"
	"testing"
)

// BenchmarkPNGSpectrogram encodes a spectrogram-sized image of smooth colour
// with noise in its low bits (a real spectrogram compresses better).
func BenchmarkPNGSpectrogram(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 2102, 1172))
	rng := rand.New(rand.NewPCG(1, 2))
	// a spectrogram-like image: smooth colour with noise in the low bits
	for y := 0; y < 1172; y++ {
		for x := 0; x < 2102; x++ {
			i := img.PixOffset(x, y)
			v := uint8((x*y)>>10) + uint8(rng.IntN(24))
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = v, v/2, 255-v, 255
		}
	}
	for b.Loop() {
		PNG(io.Discard, img)
	}
}
