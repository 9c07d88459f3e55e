package plot

import (
	"image"
	"image/color"
	"testing"
)

// TestStack: images one above the other, left-aligned, each pixel where
// its image put it; the rest transparent.
func TestStack(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 3, 2))
	b := image.NewRGBA(image.Rect(5, 5, 10, 6)) // an offset rectangle
	red, blue := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}
	a.SetRGBA(2, 1, red)
	b.SetRGBA(9, 5, blue)
	out := Stack([]*image.RGBA{a, nil, b})
	if got := out.Rect; got != image.Rect(0, 0, 5, 3) {
		t.Fatalf("stacked bounds %v, want (0,0)-(5,3)", got)
	}
	if got := out.RGBAAt(2, 1); got != red {
		t.Errorf("first image's pixel (2,1) = %v, want %v", got, red)
	}
	if got := out.RGBAAt(4, 2); got != blue {
		t.Errorf("second image's last pixel at (4,2) = %v, want %v", got, blue)
	}
	if got := out.RGBAAt(4, 0); got.A != 0 {
		t.Errorf("(4,0) beside the narrower first image = %v, want transparent", got)
	}
	if got := Stack(nil).Rect; got != image.Rect(0, 0, 1, 1) {
		t.Errorf("no images: %v, want a 1×1 image", got)
	}
}
