package plot

import (
	"bytes"
	"fmt"
	"math"
	"sync"
	"testing"
)

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		seconds float64
		pixels  int
		step    float64
	}{{600, 1920, 60}, {20, 800, 5}, {3 * 3600, 1920, 900}, {0.5, 300, 0.2}} {
		ticks := TimeTicks(c.seconds, c.pixels)
		if len(ticks) < 2 || math.Abs(ticks[1]-ticks[0]-c.step) > 1e-9 || ticks[0] != 0 {
			t.Errorf("TimeTicks(%g, %d) = %v, want steps of %g", c.seconds, c.pixels, ticks, c.step)
		}
	}
	log := NewFreqAxis(Log, 48000, 4096)
	got := FreqTicks(log, 1080)
	want := []float64{20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("log ticks %v, want %v", got, want)
	}
	lin := NewFreqAxis(Lin, 48000, 4096)
	if got := FreqTicks(lin, 1080); got[0] != 0 || got[1] != 2000 || got[len(got)-1] != 24000 {
		t.Errorf("lin ticks %v", got)
	}
	for f, s := range map[float64]string{50: "50", 1000: "1k", 2500: "2.5k", 20000: "20k", 12.5: "12.5"} {
		if FormatHz(f) != s {
			t.Errorf("FormatHz(%g) = %q, want %q", f, FormatHz(f), s)
		}
	}
	// axis round trip and the mel definition
	mel := NewFreqAxis(Mel, 48000, 4096)
	for _, f := range []float64{100, 1000, 10000} {
		if math.Abs(mel.Freq(mel.Pos(f))-f) > 1e-6 || math.Abs(log.Freq(log.Pos(f))-f) > 1e-6 {
			t.Errorf("round trip at %g Hz", f)
		}
	}
	if p := mel.Pos(1000) * (2595 * math.Log10(1+24000.0/700)); math.Abs(p-2595*math.Log10(1+1000.0/700)) > 1e-9 {
		t.Errorf("mel position of 1 kHz: %g", p)
	}
}

// TestRenderConcurrently: images rendered on several goroutines at once
// (files analyzed in parallel) come out whole and alike (the shared font
// face is used by one at a time; -race checks the rest).
func TestRenderConcurrently(t *testing.T) {
	o := ImageOptions{Width: 300, Height: 120, Scale: Log, DBMin: -120, DBMax: 0, Colormap: Viridis, Title: "x"}
	g := Geometry{Rate: 48000, FFT: 4096, Hop: 1024, Frames: 500}
	pix := make([]float32, o.Width*o.Height)
	for i := range pix {
		pix[i] = float32(-120 + i%120)
	}
	want := NewSpectrogram(o, g).Render(pix)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				if got := NewSpectrogram(o, g).Render(pix); !bytes.Equal(got.Pix, want.Pix) {
					t.Error("a concurrent render differs")
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestRenderPixels: every pixel of the plot area is the shader's colour of
// its level (pix column-major, row 0 at the bottom), whatever the size
// (tiles and bands with remainders), and the margin's corner is the
// background.
func TestRenderPixels(t *testing.T) {
	g := Geometry{Rate: 48000, FFT: 4096, Hop: 1024, Frames: 500}
	for _, wh := range [][2]int{{300, 120}, {131, 67}, {1920, 1080}, {16, 16}} {
		o := ImageOptions{Width: wh[0], Height: wh[1], Scale: Log, DBMin: -100, DBMax: -10, Colormap: Magma}
		pix := make([]float32, o.Width*o.Height)
		for i := range pix {
			pix[i] = float32(-110 + (i*7919)%105)
		}
		l := NewSpectrogram(o, g)
		img := l.Render(pix)
		sh := NewShader(Magma, o.DBMin, o.DBMax)
		a := l.Area()
		for c := range o.Width {
			for r := range o.Height {
				want := sh.RGB(pix[c*o.Height+r])
				p := img.Pix[img.PixOffset(a.Min.X+c, a.Max.Y-1-r):]
				if p[0] != want[0] || p[1] != want[1] || p[2] != want[2] || p[3] != 255 {
					t.Fatalf("%dx%d: pixel of column %d, row %d: %v, want %v", o.Width, o.Height, c, r, p[:4], want)
				}
			}
		}
		if p := img.Pix[img.PixOffset(img.Bounds().Max.X-1, img.Bounds().Max.Y-1):]; p[0] != 18 || p[1] != 18 || p[2] != 24 || p[3] != 255 {
			t.Errorf("%dx%d: bottom-right corner %v, want the background", o.Width, o.Height, p[:4])
		}
	}
}

// TestLUTIndex: lutIndex gives what rounding with math.Round and clamping
// gives, at every half step and around it, far out (beyond 255.5: 255,
// below 0: 0), and at ±Inf (255, 0) and NaN (0).
func TestLUTIndex(t *testing.T) {
	ref := func(x float64) int {
		switch {
		case math.IsNaN(x) || x < 0:
			return 0
		case x >= 255.5:
			return 255
		}
		return int(math.Round(x))
	}
	xs := []float64{math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e300, 1 << 53, -(1 << 53), 0, math.Copysign(0, -1)}
	for k := -600; k <= 600; k++ {
		h := float64(k) / 2
		xs = append(xs, h, math.Nextafter(h, math.Inf(1)), math.Nextafter(h, math.Inf(-1)), h+0.123456789)
	}
	for _, x := range xs {
		if got, want := lutIndex(x), ref(x); got != want {
			t.Errorf("lutIndex(%v) = %d, want %d", x, got, want)
		}
	}
}
