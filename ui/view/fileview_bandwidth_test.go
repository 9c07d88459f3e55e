package view

import (
	"math"
	"math/rand/v2"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfrview"
)

// bandFile is a file view's spectrogram of noise at −40 dBFS per bin up
// to edgeHz and −150 above (a lossy encoder's low-pass), 44.1 kHz,
// N = 4096, 200 columns.
func bandFile(edgeHz float64) *analysis.FileSpectrogram {
	r := rand.New(rand.NewPCG(9, 10))
	fs := &analysis.FileSpectrogram{Path: "x.wav", Rate: 44100, Channels: 1, FFT: 4096, Hop: 2048, Duration: 10, Frames: 200, FramesPerColumn: 1}
	for range 200 {
		col := make([]float32, 2049)
		for k := range col {
			l := -40.0
			if float64(k)*44100/4096 > edgeHz {
				l = -150
			}
			col[k] = float32(l + 5*r.NormFloat64())
		}
		fs.Columns = append(fs.Columns, col)
	}
	return fs
}

// TestBandwidthLine: over a file cut at 16 kHz the line reads 16 kHz
// within a band (86 Hz), as a lossy low-pass, and is drawn at that
// frequency's row of the view's axis; a full-band file draws none; off
// draws none.
func TestBandwidthLine(t *testing.T) {
	test.NewTempApp(t)
	fv := NewFileView(plot.Lin, plot.Colormaps[0], -120, 0)
	b := NewBandwidthLine(fv)
	win := test.NewTempWindow(t, container.NewStack(fv, b.Object()))
	win.SetPadded(false)
	win.Resize(fyne.NewSize(600, 300))
	fv.SetFile(bandFile(16000))
	capture(win)
	b.Sync()
	img := capture(win)
	v, ok := b.Verdict()
	if !ok || math.Abs(v.BandwidthHz-16000) > 86 || !v.LossyLowpass {
		t.Fatalf("verdict %+v", v)
	}
	y, drawn := b.LineY()
	a := fv.area
	if want := a.Max.Y - 1 - int(fv.axis.Pos(v.BandwidthHz)*float64(a.Dy()-1)+0.5); !drawn || y != want {
		t.Fatalf("line at row %d (%v), want %d", y, drawn, want)
	}
	if got := img.RGBAAt(a.Min.X+1, y); got != paletteFor(true).marker {
		t.Errorf("line pixel %v, want the marker colour", got)
	}
	fv.SetFile(bandFile(30000))
	b.Sync()
	if v, _ := b.Verdict(); !v.FullBand {
		t.Errorf("full band: %+v", v)
	}
	if _, drawn := b.LineY(); drawn {
		t.Error("a line over a full-band file")
	}
	fv.SetFile(bandFile(16000))
	b.Toggle()
	if _, drawn := b.LineY(); drawn || b.On() {
		t.Error("a line while off")
	}
	// the same columns shown as an analysis mode's: not judged, no line
	b.Toggle()
	fv.SetModeFile(&tfrview.Spectrogram{FileSpectrogram: *bandFile(16000)})
	b.Sync()
	if _, ok := b.Verdict(); ok {
		t.Error("a verdict on a mode's bins")
	}
	if _, drawn := b.LineY(); drawn {
		t.Error("a line over a mode's bins")
	}
}
