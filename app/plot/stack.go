package plot

import (
	"image"
	"image/draw"
)

// Stack puts images one above the other, left-aligned, in one image as
// wide as the widest (nil images are skipped; none gives a 1×1 image).
func Stack(imgs []*image.RGBA) *image.RGBA {
	wd, ht := 1, 0
	for _, m := range imgs {
		if m != nil {
			wd, ht = max(wd, m.Rect.Dx()), ht+m.Rect.Dy()
		}
	}
	out := image.NewRGBA(image.Rect(0, 0, wd, max(1, ht)))
	y := 0
	for _, m := range imgs {
		if m == nil {
			continue
		}
		draw.Draw(out, image.Rect(0, y, m.Rect.Dx(), y+m.Rect.Dy()), m, m.Rect.Min, draw.Src)
		y += m.Rect.Dy()
	}
	return out
}
