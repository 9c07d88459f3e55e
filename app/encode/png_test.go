package encode

import (
	"bytes"
	"image"
	"image/png"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestEncodePNG: the parallel encoder's output decodes (with image/png, an
// independent decoder) to exactly the pixels written, for sizes with one
// strip and many; then all sizes again at once, twice over, so pooled
// deflate writers are reused across strips, images and goroutines.
func TestEncodePNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var imgs []*image.RGBA
	for _, size := range []image.Point{{1, 1}, {7, 33}, {300, 200}, {1937, 1171}} {
		img := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		for i := range img.Pix {
			if i%4 == 3 {
				img.Pix[i] = 255
			} else if rng.IntN(4) == 0 {
				img.Pix[i] = byte(rng.IntN(256))
			} else if i >= 4 {
				img.Pix[i] = img.Pix[i-4] // runs, like real images
			}
		}
		imgs = append(imgs, img)
		checkPNG(t, img)
	}
	var wg sync.WaitGroup
	for range 2 {
		for _, img := range imgs {
			wg.Go(func() { checkPNG(t, img) })
		}
	}
	wg.Wait()
}

// checkPNG encodes img and compares the decoded pixels with it.
func checkPNG(t *testing.T, img *image.RGBA) {
	size := img.Bounds().Size()
	var b bytes.Buffer
	if err := PNG(&b, img); err != nil {
		t.Error(err)
		return
	}
	got, err := png.Decode(&b)
	if err != nil {
		t.Errorf("%v: %v", size, err)
		return
	}
	if got.Bounds() != img.Bounds() {
		t.Errorf("%v: bounds %v", size, got.Bounds())
		return
	}
	for y := range size.Y {
		for x := range size.X {
			r0, g0, b0, _ := img.At(x, y).RGBA()
			r1, g1, b1, a1 := got.At(x, y).RGBA()
			if r0 != r1 || g0 != g1 || b0 != b1 || a1 != 0xffff {
				t.Errorf("%v: pixel (%d, %d) = %x %x %x %x, want %x %x %x", size, x, y, r1, g1, b1, a1, r0, g0, b0)
				return
			}
		}
	}
}
