package view

import (
	"math"
	"math/cmplx"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/transfer"
)

// fakeTransfer is a known measurement of two channels at 48 kHz, N=8192:
// channel 2 a +6 dB, Q 2 peak at 1 kHz over a 2nd-order 80 Hz high-pass
// (the RBJ cookbook's, evaluated here in float64), channel 3 the same
// 6 dB lower, inverted and 0.25 ms later; coherence 1 from 60 Hz to
// 16 kHz, 0.2 outside. Channel 2's delay is tracked at 120 samples;
// channel 3 has no clear peak.
type fakeTransfer struct {
	frames uint64
	irN    int // TransferImpulse calls
}

const fakeTrRate, fakeTrFFT = 48000, 8192

// fakeResponse is the cookbook peaking EQ times the high-pass at f.
func fakeResponse(f float64) complex128 {
	biquad := func(b0, b1, b2, a1, a2 float64) complex128 {
		z1 := cmplx.Exp(complex(0, -2*math.Pi*f/fakeTrRate))
		z2 := z1 * z1
		return (complex(b0, 0) + complex(b1, 0)*z1 + complex(b2, 0)*z2) / (1 + complex(a1, 0)*z1 + complex(a2, 0)*z2)
	}
	A, w := math.Pow(10, 6.0/40), 2*math.Pi*1000/fakeTrRate
	al := math.Sin(w) / 4
	a0 := 1 + al/A
	eq := biquad((1+al*A)/a0, -2*math.Cos(w)/a0, (1-al*A)/a0, -2*math.Cos(w)/a0, (1-al/A)/a0)
	w = 2 * math.Pi * 80 / fakeTrRate
	al, c := math.Sin(w)/(2*math.Sqrt2/2), math.Cos(w)
	a0 = 1 + al
	hp := biquad((1+c)/2/a0, -(1+c)/a0, (1+c)/2/a0, -2*c/a0, (1-al)/a0)
	return eq * hp
}

func (f *fakeTransfer) LatestTransfer(dst *transfer.LiveResult) bool {
	bins := fakeTrFFT/2 + 1
	shape := func(s [][]float64) [][]float64 {
		if len(s) != 2 {
			s = make([][]float64, 2)
		}
		for c := range s {
			if len(s[c]) != bins {
				s[c] = make([]float64, bins)
			}
		}
		return s
	}
	dst.MagnitudeDB, dst.PhaseDeg, dst.Coherence = shape(dst.MagnitudeDB), shape(dst.PhaseDeg), shape(dst.Coherence)
	if len(dst.Channels) != 2 {
		dst.Channels, dst.Delays = make([]int, 2), make([]transfer.TrackedDelay, 2)
	}
	dst.Channels[0], dst.Channels[1] = 1, 2
	dst.Geometry = live.Geometry{Rate: fakeTrRate, FFT: fakeTrFFT, Hop: 1024}
	dst.Tracked, dst.Frames, dst.Averaged = true, f.frames, 16
	dst.Delays[0] = transfer.TrackedDelay{Delay: dual.Delay{Found: true, Samples: 120, Polarity: 1, PeakRatio: 40}, Finds: 3}
	dst.Delays[1] = transfer.TrackedDelay{NoPeak: true, Finds: 3}
	binHz := float64(fakeTrRate) / fakeTrFFT
	for k := range bins {
		fr := float64(k) * binHz
		h := fakeResponse(fr)
		h2 := -h / 2 * cmplx.Exp(complex(0, -2*math.Pi*fr*0.00025))
		for c, v := range []complex128{h, h2} {
			dst.MagnitudeDB[c][k] = dual.MagnitudeDB(v)
			dst.PhaseDeg[c][k] = dual.PhaseDeg(v)
			dst.Coherence[c][k] = 0.2
			if fr >= 60 && fr <= 16000 {
				dst.Coherence[c][k] = 1
			}
		}
	}
	return true
}

// TransferImpulse is a decaying oscillation starting at lag +3 samples.
func (f *fakeTransfer) TransferImpulse(ch int, ir, etc []float64) (dual.Delay, bool) {
	f.irN++
	n := fakeTrFFT
	for i := range n {
		lag := i - n/2 - 3
		v := 0.0
		if lag >= 0 {
			v = math.Exp(-float64(lag)/40) * math.Cos(float64(lag)*0.3)
		}
		ir[i] = v
		etc[i] = max(-100, 20*math.Log10(math.Exp(-float64(max(lag, 0))/40)+1e-9))
		if lag < 0 {
			etc[i] = -100
		}
	}
	return dual.Delay{Found: true, Samples: 3, Polarity: 1, PeakRatio: 30}, true
}

// transferFrame makes a transfer view at 900×640 on the fake, pulled
// and drawn once, and returns it with its source and a clock that moves
// 200 ms a call (so every pull also pulls the impulse response).
func transferFrame(t testing.TB, opts TransferOptions) (*TransferView, *fakeTransfer) {
	test.NewTempApp(t)
	src := &fakeTransfer{frames: 1}
	v := NewTransferView()
	clock := time.Unix(1e9, 0)
	v.now = func() time.Time { clock = clock.Add(200 * time.Millisecond); return clock }
	v.SetOptions(opts)
	win := showIn(t.(*testing.T), v, 900, 640)
	v.Pull(src)
	capture(win)
	return v, src
}

// TestTransferView: the golden image of a known measurement (magnitude
// over coherence, faded where γ² < 0.5, phase, group delay, impulse
// response and ETC, both channels, the spatial averages and a reference),
// the readout in words, and the magnitude columns against the float64
// response.
func TestTransferView(t *testing.T) {
	opts := DefaultTransferOptions()
	opts.GroupDelay, opts.Smoothing = true, 24
	test.NewTempApp(t)
	src := &fakeTransfer{frames: 1}
	v := NewTransferView()
	v.now = func() time.Time { return time.Unix(1e9, 0) }
	v.SetOptions(opts)
	ref := &dsp.Trace{Name: "stored", Unit: "dB", FreqHz: []float64{20, 1000, 24000}, Level: []float64{-6, 0, -6},
		PhaseDeg: []float64{0, 45, 0}, Coherence: []float64{1, 1, 1}}
	v.SetReferences([]*dsp.Trace{ref})
	win := showIn(t, v, 900, 640)
	v.Pull(src)
	test.AssertImageMatches(t, "transfer.png", capture(win))
	if got := v.Readout(); !strings.Contains(got, "ch 2: delay 2.500 ms · 120.0 samples · 0.858 m · polarity + · tracking") {
		t.Errorf("readout %q", got)
	}
	if n := len(v.Legend()); n != 5 {
		t.Errorf("legend of %d items, want 2 channels, 2 spatial averages and the reference", n)
	}
	// the column at 1 kHz: the smoothed response there, within the
	// smoothing's spread of the exact +6 dB peak (1/24 octave of a Q 2
	// peak: about 0.1 dB)
	x := int(v.axis.Pos(1000) * float64(v.cols))
	want := dual.MagnitudeDB(fakeResponse(1000))
	if got := float64(v.cMag[0][x]); math.Abs(got-want) > 0.15 {
		t.Errorf("1 kHz: %.3f dB, want %.3f", got, want)
	}
	// channel 3 is 6 dB under channel 2 everywhere
	if d := float64(v.cMag[0][x] - v.cMag[1][x]); math.Abs(d-20*math.Log10(2)) > 0.01 {
		t.Errorf("channel 3 %.3f dB under channel 2, want 6.021", d)
	}

	// the difference to the reference: at 1 kHz, the response less 0 dB,
	// its phase less 45°
	v.SetDiffTo(0)
	src.frames++
	v.Pull(src)
	if got := float64(v.cMag[0][x]); math.Abs(got-want) > 0.15 {
		t.Errorf("difference at 1 kHz: %.3f dB, want %.3f", got, want)
	}
	wantPh := dsp.WrapDeg(dual.PhaseDeg(fakeResponse(1000)) - 45)
	if got := float64(v.cPh[0][x]); math.Abs(dsp.WrapDeg(got-wantPh)) > 3 {
		t.Errorf("phase difference at 1 kHz: %.1f°, want %.1f°", got, wantPh)
	}

	// channel 3: tracking with no clear peak is said in words
	opts.IRChannel = 1
	v.SetOptions(opts)
	src.frames++
	v.Pull(src)
	if got := v.Readout(); !strings.HasPrefix(got, "ch 3: no clear peak") {
		t.Errorf("readout %q", got)
	}
}

// TestTransferUnwrap: unwrapped, with a delay found (not tracking) taken
// out, a pure delay reads a flat phase; Find that saw no peak says so.
func TestTransferUnwrap(t *testing.T) {
	opts := DefaultTransferOptions()
	opts.Unwrap, opts.Impulse, opts.Smoothing = true, false, 0
	v, src := transferFrame(t, opts)
	_ = src
	delay := &delaySource{samples: 37.5}
	v.SetFound([]dual.Delay{{Found: true, Samples: 37.5, Polarity: 1}})
	v.Pull(delay)
	for x, p := range v.cPh[0] {
		if math.Abs(float64(p)) > 0.5 {
			t.Fatalf("column %d: %.2f° after the delay was taken out, want 0", x, p)
		}
	}
	if !strings.Contains(v.Readout(), "delay 0.781 ms · 37.5 samples") {
		t.Errorf("readout %q", v.Readout())
	}
	v.SetFound([]dual.Delay{{}})
	delay.frames++
	v.Pull(delay)
	if !strings.Contains(v.Readout(), "no clear peak: no delay found") {
		t.Errorf("readout %q", v.Readout())
	}
}

// delaySource is one channel delayed by samples (not tracked).
type delaySource struct {
	samples float64
	frames  uint64
}

func (d *delaySource) LatestTransfer(dst *transfer.LiveResult) bool {
	bins := fakeTrFFT/2 + 1
	if len(dst.MagnitudeDB) != 1 {
		dst.MagnitudeDB, dst.PhaseDeg, dst.Coherence = [][]float64{make([]float64, bins)}, [][]float64{make([]float64, bins)}, [][]float64{make([]float64, bins)}
		dst.Channels, dst.Delays = []int{1}, make([]transfer.TrackedDelay, 1)
	}
	dst.Geometry = live.Geometry{Rate: fakeTrRate, FFT: fakeTrFFT, Hop: 1024}
	dst.Frames, dst.Tracked = d.frames+1, false
	for k := range bins {
		dst.PhaseDeg[0][k] = dual.PhaseDeg(cmplx.Exp(complex(0, -2*math.Pi*float64(k)*d.samples/fakeTrFFT)))
		dst.Coherence[0][k] = 1
	}
	return true
}

func (d *delaySource) TransferImpulse(int, []float64, []float64) (dual.Delay, bool) {
	return dual.Delay{}, false
}

// TestTransferPullDoesNotAllocate: a steady-state frame (a new result
// pulled, the impulse response with it, smoothing, two channels and
// their spatial averages, unwrapped phase and group delay, and the
// draw) allocates nothing.
func TestTransferPullDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	opts := DefaultTransferOptions()
	opts.GroupDelay, opts.Unwrap = true, true
	v, src := transferFrame(t, opts)
	w, h := v.img.Rect.Dx(), v.img.Rect.Dy()
	step := func() {
		src.frames++
		v.Pull(src)
		v.draw(w, h)
	}
	step()
	irBefore := src.irN
	if n := testing.AllocsPerRun(20, step); n != 0 {
		t.Errorf("a frame allocates %v times", n)
	}
	if src.irN <= irBefore {
		t.Error("the impulse response was not pulled")
	}
}

// TestAnchorTurns: an unwrapped phase is shifted by whole turns only,
// so that it reads within ±180° at 1 kHz.
func TestAnchorTurns(t *testing.T) {
	const binHz = 10.0
	unw := make([]float64, 201)
	for k := range unw {
		unw[k] = -700 - 0.1*float64(k) // −710° at 1 kHz (bin 100): two turns off
	}
	anchorTurns(unw, binHz)
	if got := unw[100]; got != -710+720 {
		t.Errorf("1 kHz: %v°, want 10°", got)
	}
	if got := unw[0]; got != -700+720 {
		t.Errorf("DC: %v°, want 20° (the same two turns)", got)
	}
}

// BenchmarkTransferFrame is a frame of the Transfer tab at 1400×900:
// a new result of 2 channels at N=8192 pulled (1/12-octave smoothing,
// spatial averages, unwrapped phase, group delay, the impulse response
// every frame) and drawn.
func BenchmarkTransferFrame(b *testing.B) {
	test.NewTempApp(b)
	src := &fakeTransfer{frames: 1}
	v := NewTransferView()
	clock := time.Unix(1e9, 0)
	v.now = func() time.Time { clock = clock.Add(200 * time.Millisecond); return clock }
	o := DefaultTransferOptions()
	o.Unwrap, o.GroupDelay = true, true
	v.SetOptions(o)
	win := test.NewTempWindow(b, v)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(1400, 900))
	v.Pull(src)
	capture(win)
	w, h := v.img.Rect.Dx(), v.img.Rect.Dy()
	b.ReportAllocs()
	for b.Loop() {
		src.frames++
		v.Pull(src)
		v.draw(w, h)
	}
}
