package plot

import (
	"fmt"
	"math"
)

// Colormap names a perceptual colour table.
type Colormap uint8

// The colormaps.
const (
	Viridis Colormap = iota // the default
	Magma
	Inferno
	Gray
)

// Colormaps lists the colormaps in the order a picker shows them.
var Colormaps = []Colormap{Viridis, Magma, Inferno, Gray}

var colormapNames = [...]string{Viridis: "viridis", Magma: "magma", Inferno: "inferno", Gray: "gray"}

func (c Colormap) String() string {
	if int(c) < len(colormapNames) {
		return colormapNames[c]
	}
	return fmt.Sprintf("Colormap(%d)", int(c))
}

// ParseColormap reads a colormap's name.
func ParseColormap(s string) (Colormap, error) {
	for i, n := range colormapNames {
		if n == s {
			return Colormap(i), nil
		}
	}
	return Viridis, fmt.Errorf("unknown colormap %q (want viridis, magma, inferno or gray)", s)
}

// ColormapNames lists the colormaps' names.
func ColormapNames() []string { return colormapNames[:] }

// LUT is the colormap's 256-entry table, low levels first.
func (c Colormap) LUT() *[256][3]uint8 {
	switch c {
	case Magma:
		return &magmaLUT
	case Inferno:
		return &infernoLUT
	case Gray:
		return &grayLUT
	}
	return &viridisLUT
}

var grayLUT = func() (t [256][3]uint8) {
	for i := range t {
		t[i] = [3]uint8{uint8(i), uint8(i), uint8(i)}
	}
	return
}()

// Shader turns levels into colours: the one rule every raster of Prism
// uses (PNG exports, the waterfall, the file view). A level maps linearly
// from [DBMin, DBMax] onto the table's 256 entries, rounded to the nearest
// entry and clamped at both ends.
type Shader struct {
	lut          *[256][3]uint8
	DBMin, DBMax float64
	scale        float64
}

// NewShader returns the shader for colormap c over [dbMin, dbMax].
func NewShader(c Colormap, dbMin, dbMax float64) Shader { return NewShaderLUT(c.LUT(), dbMin, dbMax) }

// NewShaderLUT is NewShader for a colormap's table (Colormap.LUT).
func NewShaderLUT(lut *[256][3]uint8, dbMin, dbMax float64) Shader {
	return Shader{lut: lut, DBMin: dbMin, DBMax: dbMax, scale: 255 / (dbMax - dbMin)}
}

// RGB is the colour of level db.
func (s Shader) RGB(db float32) [3]uint8 {
	return s.lut[lutIndex((float64(db)-s.DBMin)*s.scale)]
}

// lutIndex is x rounded to the nearest entry (halves up) and clamped to
// 0…255, as math.Round and a clamp give it: x−Floor(x) is exact, so the
// comparison rounds exactly (x+0.5 would not: 0.49999999999999994+0.5 is
// 1), and Floor is one instruction where Round is a dozen (a fifth of
// colouring a PNG's pixels). Below 0 both clamp to 0; ±Inf and NaN take
// Round's path.
func lutIndex(x float64) int {
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	return min(255, max(0, int(r)))
}

// Put writes level db's colour, opaque, at pix[0:4] (RGBA).
func (s Shader) Put(pix []uint8, db float32) {
	c := s.RGB(db)
	pix[0], pix[1], pix[2], pix[3] = c[0], c[1], c[2], 255
}
