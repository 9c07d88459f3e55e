package view

import (
	"image"
	"math"
	"strconv"

	"github.com/prismaudio/prism/app/scope"
)

// FileScope is the scope of a file's samples at the file view's cursor,
// drawn over the spectrogram as an inset in its lower right corner
// (through FileView.Overlay): the trace triggered at the first crossing
// of Set's trigger after the cursor (within four sweeps; else the samples
// from the cursor, untriggered), Set's time base and scale. Only the Fyne
// goroutine uses it.
type FileScope struct {
	Samples []float32 // the file's channel shown, or its mix
	Rate    int
	Set     ScopeSettings
	Dark    bool

	p     painter
	trace []float32
	label []byte
}

// Draw draws the inset into area of img for the cursor's time in seconds
// (NaN: no cursor, nothing drawn).
func (s *FileScope) Draw(img *image.RGBA, area image.Rectangle, cursor float64) {
	if math.IsNaN(cursor) || s.Rate <= 0 || len(s.Samples) == 0 || area.Dx() < 40 || area.Dy() < 30 {
		return
	}
	span := max(16, int(math.Round(s.Set.TimeDiv*scopeDivsX*float64(s.Rate))))
	pre := span / 2
	k0 := min(len(s.Samples)-1, max(0, int(cursor*float64(s.Rate))))
	at, triggered := scope.Find(s.Samples[k0:min(len(s.Samples), k0+4*span)], 1, s.Set.Trigger)
	if !triggered {
		at = 0
	}
	whole := int(at)
	start := k0 + whole - pre
	if cap(s.trace) < span {
		s.trace = make([]float32, span)
	}
	s.trace = s.trace[:span]
	for i := range s.trace {
		s.trace[i] = 0
		if j := start + i; j >= 0 && j < len(s.Samples) {
			s.trace[i] = s.Samples[j]
		}
	}
	s.p.img, s.p.scale = img, 1
	if s.p.face == nil {
		s.p.face = labelFace(11)
	}
	pal := paletteFor(s.Dark)
	w, h := area.Dx()*2/5, area.Dy()*2/5
	r := image.Rect(area.Max.X-w-6, area.Max.Y-h-6, area.Max.X-6, area.Max.Y-6)
	s.p.fill(r.Inset(-1), pal.gridMajor)
	s.p.fill(r, pal.plotBg)
	drawDivisions(&s.p, r, pal)
	s.p.dashedV((r.Min.X+r.Max.X)/2, r.Min.Y, r.Max.Y, pal.marker)
	drawWave(&s.p, r, s.trace, float64(pre)+at-float64(whole), s.Set.FullScale, pal.traces[0])
	b := append(s.label[:0], "scope at "...)
	b = strconv.AppendFloat(b, cursor, 'f', 3, 64)
	b = append(b, " s   "...)
	b = appendSeconds(b, s.Set.TimeDiv)
	b = append(b, "/div   ±"...)
	b = strconv.AppendFloat(b, s.Set.FullScale, 'g', 3, 64)
	if !triggered {
		b = append(b, "   no trigger"...)
	}
	s.label = b
	s.p.textBytes(b, r.Min.X+4, r.Min.Y+2, 0, 0, pal.text)
}
