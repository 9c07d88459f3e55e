package view

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/live"
)

// TestRTAFineFractions: at 1/24 and 1/48 octave, for several FFT sizes,
// exactly the bands narrower than four bins are marked under-resolved
// (edges computed here from IEC 61260-1's base-10 definition, not taken
// from the bands), which at N=4096 covers every band around a 50 Hz tone;
// the title names the fraction and the weighting in use, which starts as
// prism bands' default.
func TestRTAFineFractions(t *testing.T) {
	test.NewTempApp(t)
	for _, frac := range []int{24, 48} {
		for _, fft := range []int{4096, 65536} {
			bands, err := dsp.Bands(frac, 20, 20000, 24000)
			if err != nil {
				t.Fatal(err)
			}
			e := newFakeSource()
			e.fft, e.bands = fft, bands
			v := NewRTAView(48000, -120, 0)
			v.SetBands(frac, dsp.WeightA)
			win := showIn(t, v, 900, 300)
			v.Pull(e, 0)
			capture(win)
			binHz := 48000 / float64(fft)
			ur := v.UnderResolved()
			g := math.Pow(10, 0.3) // the octave ratio, base 10
			marked := 0
			for i, b := range v.Levels() {
				// the band's index from its exact mid-band frequency, then its edges
				x := math.Log(b.Exact/1000) / math.Log(g) * float64(frac)
				width := 1000 * math.Pow(g, x/float64(frac)) * (math.Pow(g, 1/(2*float64(frac))) - math.Pow(g, -1/(2*float64(frac))))
				want := width < 4*binHz
				if ur[i] != want {
					t.Errorf("1/%d, N=%d: band %g Hz (%.2f Hz wide): under-resolved %v, want %v", frac, fft, b.Nominal, width, ur[i], want)
				}
				if want {
					marked++
				}
				if fft == 4096 && b.Lower < 73 && b.Upper > 27 && !ur[i] { // a 50 Hz tone's Hann main lobe: ±2 bins
					t.Errorf("1/%d at N=4096: band %g Hz next to a 50 Hz tone is not marked", frac, b.Nominal)
				}
			}
			t.Logf("1/%d octave, N=%d: %d of %d bands under-resolved", frac, fft, marked, len(bands))
			// the note names the FFT size that resolves every band, or
			// the lowest band the largest size resolves (independently:
			// the narrowest band is the first)
			note := v.ResolutionNote()
			wantNote := "under-resolved (< 4 FFT bins)"
			if marked > 0 {
				w0 := bands[0].Upper - bands[0].Lower
				n := fft
				for n < engine.MaxFFT && w0 < 4*48000/float64(n) {
					n *= 2
				}
				if w0 >= 4*48000/float64(n) {
					wantNote += ": N=" + strconv.Itoa(n) + " resolves every band"
				} else {
					i := 0
					for bands[i].Upper-bands[i].Lower < 4*48000/float64(engine.MaxFFT) {
						i++
					}
					wantNote += ": N=" + strconv.Itoa(engine.MaxFFT) + " resolves from " + string(v.label(i, bands[i].Nominal)) + " Hz"
				}
			}
			if note != wantNote {
				t.Errorf("1/%d, N=%d: note %q, want %q", frac, fft, note, wantNote)
			}
			want := "1/" + strconv.Itoa(frac) + " octave, A-weighted"
			if !strings.HasPrefix(v.Title(), want) {
				t.Errorf("title %q, want %q…", v.Title(), want)
			}
		}
	}
}

// TestRTAGolden renders the fake third-octave levels.
func TestRTAGolden(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	v := NewRTAView(48000, -120, 0)
	win := showIn(t, v, 800, 250)
	v.Pull(e, 2)
	if len(v.Levels()) != 31 {
		t.Errorf("%d bands, want 31 (20 Hz … 20 kHz)", len(v.Levels()))
	}
	test.AssertImageMatches(t, "rta.png", capture(win))
}

// TestRTAResolutionCapsReadout: bands narrower than four FFT bins are
// hatched and say so; the caps hold the highest level and then fall;
// hovering a band reads it out; the default weighting is Z.
func TestRTAResolutionCapsReadout(t *testing.T) {
	test.NewTempApp(t)
	e := newFakeSource()
	v := NewRTAView(48000, -120, 0)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v.now = func() time.Time { return clock }
	win := showIn(t, v, 900, 300)
	v.Pull(e, 0)
	img := capture(win)
	binHz := 48000.0 / 4096
	ur := v.UnderResolved()
	pal := paletteFor(true)
	for i, b := range v.Levels() {
		want := b.Upper-b.Lower < 4*binHz
		if ur[i] != want {
			t.Errorf("band %g Hz (%.1f Hz wide): under-resolved %v, want %v", b.Nominal, b.Upper-b.Lower, ur[i], want)
		}
		// an under-resolved bar shows the plot background between stripes
		x0 := v.area.Min.X + int(v.axis.Pos(b.Lower)*float64(v.area.Dx()))
		x1 := v.area.Min.X + int(v.axis.Pos(b.Upper)*float64(v.area.Dx()))
		if x1-x0 < 8 || b.Nominal < 25 {
			continue
		}
		y := v.area.Max.Y - 3
		bg := 0
		for x := x0 + (x1-x0)/4; x < x1-(x1-x0)/4; x++ {
			if near(img.RGBAAt(x, y), pal.plotBg, 1) {
				bg++
			}
		}
		if hatched := bg > 0; hatched != want {
			t.Errorf("band %g Hz: hatched %v, under-resolved %v", b.Nominal, hatched, want)
		}
	}
	// caps: the levels drop 20 dB; the caps stay for capHold, then fall
	// at capFall dB/s
	first := append([]float64(nil), v.Caps()...)
	drop := &droppedLevels{e, -20}
	clock = clock.Add(time.Second)
	v.Pull(drop, 0)
	for i, c := range v.Caps() {
		if c != first[i] {
			t.Fatalf("band %d: cap %g moved within the hold (was %g)", i, c, first[i])
		}
	}
	clock = clock.Add(capHold - 500*time.Millisecond) // 2 s after the peak: 0.5 s past the hold, 10 dB down
	v.Pull(drop, 0)
	for i, c := range v.Caps() {
		want := max(first[i]-capFall*0.5, v.Levels()[i].LevelDB)
		if math.Abs(c-want) > 1e-9 {
			t.Fatalf("band %d: cap %g, want %g", i, c, want)
		}
	}
	// hover over 1 kHz
	x := float32(v.area.Min.X+int(v.axis.Pos(1000)*float64(v.area.Dx()))) / win.Canvas().Scale()
	v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, 100)}})
	capture(win)
	if r := v.Readout(); !strings.HasPrefix(r, "1 kHz band (891–1122 Hz)") || !strings.Contains(r, "dBFS") {
		t.Errorf("readout %q", r)
	}
}

// droppedLevels is a SpectrumSource whose band levels are the fake's
// shifted by d dB.
type droppedLevels struct {
	e *fakeSource
	d float64
}

func (s *droppedLevels) Latest(c int, dst *live.Spectrum) {
	s.e.Latest(c, dst)
	for i := range dst.Bands {
		dst.Bands[i].LevelDB += s.d
	}
}
