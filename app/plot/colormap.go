package plot

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
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
	rgba         *[256]uint32 // lut's entries as opaque little-endian RGBA words
	DBMin, DBMax float64
	scale        float64
}

// rgbaTables holds each colour table's RGBA words, made on first use.
var rgbaTables sync.Map // *[256][3]uint8 → *[256]uint32

func rgbaOf(lut *[256][3]uint8) *[256]uint32 {
	if t, ok := rgbaTables.Load(lut); ok {
		return t.(*[256]uint32)
	}
	t := new([256]uint32)
	for i, c := range lut {
		t[i] = uint32(c[0]) | uint32(c[1])<<8 | uint32(c[2])<<16 | 0xff<<24
	}
	v, _ := rgbaTables.LoadOrStore(lut, t)
	return v.(*[256]uint32)
}

// NewShader returns the shader for colormap c over [dbMin, dbMax].
func NewShader(c Colormap, dbMin, dbMax float64) Shader { return NewShaderLUT(c.LUT(), dbMin, dbMax) }

// NewShaderLUT is NewShader for a colormap's table (Colormap.LUT).
func NewShaderLUT(lut *[256][3]uint8, dbMin, dbMax float64) Shader {
	return Shader{lut: lut, rgba: rgbaOf(lut), DBMin: dbMin, DBMax: dbMax, scale: 255 / (dbMax - dbMin)}
}

// RGB is the colour of level db.
func (s Shader) RGB(db float32) [3]uint8 {
	return s.lut[levelIndex(db, s.DBMin, s.scale)]
}

// levelIndex is level db's table entry on a shader from dbMin with scale:
// the one mapping of levels to colours. (A method on Shader doing the same
// made colouring 3× slower: the inlined copy of the receiver went through
// memory.)
func levelIndex(db float32, dbMin, scale float64) int {
	return lutIndex((float64(db) - dbMin) * scale)
}

// lutIndex is x rounded to the nearest entry (halves up) and clamped to
// 0…255: below 0 (−Inf included) and NaN give 0, from 255.5 up (+Inf
// included) 255. In range, truncation is the floor (x ≥ 0), and x−floor(x)
// is exact, so the comparison rounds exactly (x+0.5 would not:
// 0.49999999999999994+0.5 is 1); math.Floor and math.Round are calls on
// amd64's baseline, a third of colouring a PNG's pixels. (The former rule,
// int(math.Round(x)) clamped, made 1e300 and +Inf 0 on amd64 and 255 on
// arm64: Go leaves an out-of-range conversion to the platform.)
func lutIndex(x float64) int {
	if !(x >= 0) { // below 0, or NaN
		return 0
	}
	if x >= 255.5 {
		return 255
	}
	// without a branch on the fraction (noisy levels mispredicted it half
	// the time): x−i−0.5 is exact, and non-negative exactly when x−i ≥ 0.5
	i := int(x)
	return i + 1 - int(math.Float64bits(x-float64(i)-0.5)>>63)
}

// Put writes level db's colour, opaque, at pix[0:4] (RGBA).
func (s Shader) Put(pix []uint8, db float32) {
	binary.LittleEndian.PutUint32(pix, s.rgba[levelIndex(db, s.DBMin, s.scale)]) // one store
}
