package dsp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// testWindow is scipy.signal.get_window(name, n, fftbins=True) written from
// scipy's definitions (the symmetric window of n+1 points without its
// last), independent of gpufft's copy.
func testWindow(name string, n int) []float64 {
	w := make([]float64, n)
	cos := func(a ...float64) {
		for i := range w {
			x := 2 * math.Pi * float64(i) / float64(n)
			for k, ak := range a {
				w[i] += ak * math.Cos(float64(k)*x) * math.Pow(-1, float64(k))
			}
		}
	}
	switch name {
	case "rect":
		for i := range w {
			w[i] = 1
		}
	case "hann":
		cos(0.5, 0.5)
	case "hamming":
		cos(0.54, 0.46)
	case "blackman":
		cos(0.42, 0.5, 0.08)
	case "blackman-harris":
		cos(0.35875, 0.48829, 0.14128, 0.01168)
	case "flattop":
		cos(0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368)
	case "kaiser":
		const beta = 8.6
		i0 := func(x float64) float64 { // Σ ((x/2)^k/k!)²
			s, t := 1.0, 1.0
			for k := 1; k < 300; k++ {
				t *= (x / 2) / float64(k)
				s += t * t
			}
			return s
		}
		for i := range w {
			r := 2*float64(i)/float64(n) - 1
			w[i] = i0(beta*math.Sqrt(1-r*r)) / i0(beta)
		}
	default:
		panic(name)
	}
	return w
}

var testWindowNames = []string{"rect", "hann", "hamming", "blackman", "blackman-harris", "flattop", "kaiser"}

// welchOf averages the power spectra of frames of x (size n, hop n/2)
// windowed by win, computed by gonum's float64 FFT.
func welchOf(t testing.TB, x, win []float64, fs float64) *Welch {
	n := len(win)
	w, err := NewWelch(win, fs)
	if err != nil {
		t.Fatal(err)
	}
	fft := fourier.NewFFT(n)
	frame := make([]float64, n)
	coef := make([]complex128, n/2+1)
	pow := make([]float64, n/2+1)
	for start := 0; start+n <= len(x); start += n / 2 {
		for i := range frame {
			frame[i] = x[start+i] * win[i]
		}
		fft.Coefficients(coef, frame)
		for k, c := range coef {
			pow[k] = real(c)*real(c) + imag(c)*imag(c)
		}
		w.Add64(pow)
	}
	return w
}

// TestWelchSineLevel: a sine of amplitude A centred on a bin reads
// 20·log10(A) dBFS there for every window and size: ±0.05 dB asked, 1e-3
// checked (what remains is the mirror image's side-lobe leakage, 1e-4 dB
// for Kaiser β=8.6 at bin 17 of 256, zero for the cosine sums).
func TestWelchSineLevel(t *testing.T) {
	const fs = 48000
	for _, name := range testWindowNames {
		for _, n := range []int{256, 1024, 4096, 8192} {
			if testing.Short() && n > 1024 {
				continue
			}
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				win := testWindow(name, n)
				for _, c := range []struct{ bin, amp float64 }{{float64(n) / 8, 1}, {float64(n)/4 + 3, 0.1}, {17, 0.5}} {
					x := make([]float64, 4*n)
					for i := range x {
						x[i] = c.amp * math.Sin(2*math.Pi*c.bin*float64(i)/float64(n)+0.3)
					}
					w := welchOf(t, x, win, fs)
					lv := make([]float64, w.Bins())
					w.Levels(lv, DBFS)
					want := 20 * math.Log10(c.amp)
					if got := lv[int(c.bin)]; math.Abs(got-want) > 1e-3 {
						t.Errorf("bin %v amplitude %v: %.6f dBFS, want %.6f", c.bin, c.amp, got, want)
					}
				}
			})
		}
	}
}

// TestWelchEdgeBins: DC and Nyquist read twice their mean square (AES17
// convention), like every other bin.
func TestWelchEdgeBins(t *testing.T) {
	const n = 64
	win := testWindow("hann", n)
	x := make([]float64, 4*n)
	for i := range x {
		x[i] = 0.25 + 0.125*math.Cos(math.Pi*float64(i))
	}
	w := welchOf(t, x, win, 1000)
	p := make([]float64, w.Bins())
	w.Power(p, DBFS)
	if math.Abs(p[0]-2*0.25*0.25) > 1e-12 || math.Abs(p[n/2]-2*0.125*0.125) > 1e-12 {
		t.Errorf("DC %v (want %v), Nyquist %v (want %v)", p[0], 2*0.25*0.25, p[n/2], 2*0.125*0.125)
	}
}

// TestWelchNoiseDensity: white Gaussian noise reads 10·log10(σ²/(fs/2))
// dBFS/Hz for every window and size, where σ² is the record's own mean
// square (so only the estimator's spread counts). The mean over all
// interior bins of K frames has relative standard deviation about
// √(ENBW/(K·M)) (M bins, neighbours correlated over ENBW bins, 50 %
// overlap ignored: it only lowers the spread); the tolerance is 5 of those
// plus 0.005 dB, and the record is long enough that it stays under 0.05 dB.
func TestWelchNoiseDensity(t *testing.T) {
	const fs = 44100
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 1<<20)
	ms := 0.0
	for i := range x {
		x[i] = 0.1 * r.NormFloat64()
		ms += x[i] * x[i]
	}
	ms /= float64(len(x))
	want := 10 * math.Log10(ms/(fs/2))
	for _, name := range testWindowNames {
		for _, n := range []int{512, 4096, 32768} {
			if testing.Short() && n > 4096 {
				continue
			}
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				win := testWindow(name, n)
				w := welchOf(t, x, win, fs)
				p := make([]float64, w.Bins())
				w.Power(p, DBFSPerHz)
				mean := 0.0
				for _, v := range p[1 : len(p)-1] {
					mean += v
				}
				m := float64(len(p) - 2)
				mean /= m
				rel := math.Sqrt(w.Sums().ENBW() / (float64(w.Frames()) * m))
				tol := 5*10*math.Log10(1+rel) + 0.005
				if tol > 0.05 {
					t.Fatalf("tolerance %.3f dB > 0.05: record too short", tol)
				}
				got := 10 * math.Log10(mean)
				t.Logf("%+.4f dB (tolerance %.3f)", got-want, tol)
				if math.Abs(got-want) > tol {
					t.Errorf("%.4f dBFS/Hz, want %.4f ± %.4f", got, want, tol)
				}
			})
		}
	}
}

// TestWelchWindowFigures checks ENBW and coherent gain against their textbook
// closed forms for cosine-sum windows: CG = a0, ENBW = (a0² + Σ_{k≥1} a_k²/2)/a0².
func TestWelchWindowFigures(t *testing.T) {
	for _, c := range []struct {
		name string
		a    []float64
	}{
		{"rect", []float64{1}}, {"hann", []float64{0.5, 0.5}}, {"hamming", []float64{0.54, 0.46}},
		{"blackman-harris", []float64{0.35875, 0.48829, 0.14128, 0.01168}},
	} {
		w, _ := NewWelch(testWindow(c.name, 1024), 1000)
		s := w.Sums()
		e := c.a[0] * c.a[0]
		for _, ak := range c.a[1:] {
			e += ak * ak / 2
		}
		e /= c.a[0] * c.a[0]
		if math.Abs(s.CoherentGain()-c.a[0]) > 1e-12 || math.Abs(s.ENBW()-e) > 1e-12 {
			t.Errorf("%s: CG %v ENBW %v, want %v %v", c.name, s.CoherentGain(), s.ENBW(), c.a[0], e)
		}
	}
}

func TestWelchErrorsAndAllocs(t *testing.T) {
	if _, err := NewWelch([]float64{1}, 48000); err == nil {
		t.Error("1-sample window: no error")
	}
	if _, err := NewWelch([]float64{1, 1}, 0); err == nil {
		t.Error("zero sample rate: no error")
	}
	if _, err := NewWelch([]float64{0, 0}, 48000); err == nil {
		t.Error("zero window: no error")
	}
	if _, err := ParseUnit("dB"); err == nil {
		t.Error("ParseUnit(dB): no error")
	}
	for _, s := range []string{"dbfs", "dbfs-hz", "dbspl"} {
		if u, err := ParseUnit(s); err != nil || u.String() != s {
			t.Errorf("ParseUnit(%q) = %v, %v", s, u, err)
		}
	}
	w, _ := NewWelch(testWindow("hann", 1024), 48000)
	p32 := make([]float32, w.Bins())
	dst := make([]float64, w.Bins())
	if n := testing.AllocsPerRun(20, func() { w.Add(p32); w.Levels(dst, DBFSPerHz) }); n != 0 {
		t.Errorf("Add+Levels: %v allocs, want 0", n)
	}
}

// TestUnitOffsetDB: the offset that turns a sine-level (dBFS) spectrum
// into noise density is Welch's own rule for every window (Levels in
// dBFS/Hz minus Levels in dBFS, at every bin, DC and Nyquist included),
// and for Hann, whose ENBW is exactly 1.5 bins, it is −10·log10(2·1.5·fs/N).
func TestUnitOffsetDB(t *testing.T) {
	const fs, n = 48000.0, 1024
	r := rand.New(rand.NewPCG(6, 6))
	spec := make([]float32, n/2+1)
	for k := range spec {
		spec[k] = float32(r.Float64() + 0.1)
	}
	for _, name := range testWindowNames {
		win := testWindow(name, n)
		w, err := NewWelch(win, fs)
		if err != nil {
			t.Fatal(err)
		}
		w.Add(spec)
		a, b := make([]float64, w.Bins()), make([]float64, w.Bins())
		w.Levels(a, DBFS)
		w.Levels(b, DBFSPerHz)
		off := SumsOf(win).UnitOffsetDB(DBFSPerHz, fs)
		for k := range a {
			if math.Abs(b[k]-(a[k]+off)) > 1e-9 {
				t.Fatalf("%s bin %d: dBFS/Hz %v, dBFS %v + offset %v", name, k, b[k], a[k], off)
			}
		}
		if o := SumsOf(win).UnitOffsetDB(DBSPL, fs); o != 0 {
			t.Errorf("%s: dB SPL offset %v, want 0 (LevelCal's)", name, o)
		}
	}
	near(t, "hann dBFS/Hz offset", SumsOf(testWindow("hann", n)).UnitOffsetDB(DBFSPerHz, fs), -10*math.Log10(2*1.5*fs/n), 1e-9)
}
