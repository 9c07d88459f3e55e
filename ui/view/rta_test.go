package view

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
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
				for n < analysis.MaxFFT && w0 < 4*48000/float64(n) {
					n *= 2
				}
				if w0 >= 4*48000/float64(n) {
					wantNote += ": N=" + strconv.Itoa(n) + " resolves every band"
				} else {
					i := 0
					for bands[i].Upper-bands[i].Lower < 4*48000/float64(analysis.MaxFFT) {
						i++
					}
					wantNote += ": N=" + strconv.Itoa(analysis.MaxFFT) + " resolves from " + string(v.label(i, bands[i].Nominal)) + " Hz"
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
