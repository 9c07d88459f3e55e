package dsp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/internal/kaiser"
)

// peakTestWindows are testWindow's windows and Kaiser windows across the
// β range Prism accepts (0 … 100; 0 is the rectangle).
func peakTestWindows(n int) map[string][]float64 {
	ws := map[string][]float64{}
	for _, name := range testWindowNames {
		ws[name] = testWindow(name, n)
	}
	for _, beta := range []float64{0, 2, 20, 50, 100} {
		w := make([]float64, n)
		kaiser.Window(w, beta)
		ws[fmt.Sprintf("kaiser:%g", beta)] = w
	}
	return ws
}

// TestPeakTable: the moment series equals the window's DTFT summed
// directly (WindowKernel.Power, whose rotation recurrence drifts by
// ~N·1e-16) to 1e-10 for |ν| ≤ 1; and for every window
// and size, the table's offset and level for the three bins of an ideal
// sine (bin powers K(k − δ) from the direct sum) are those of the truth δ
// to 1e-6 bin and 1e-6 dB, for 200 seeded random δ in [−½, ½] (10 at
// the largest size, where each exact kernel value costs 65536 terms).
func TestPeakTable(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	for _, n := range []int{64, 4096, 65536} {
		for name, w := range peakTestWindows(n) {
			k, err := NewWindowKernel(w)
			if err != nil {
				t.Fatalf("%s/%d: %v", name, n, err)
			}
			m := newKernelMoments(w)
			for _, nu := range []float64{0, 0.1, 0.37, 0.5, 0.73, 1, -0.4} {
				if d := math.Abs(m.power(nu) - k.Power(nu)); d > 1e-10 {
					t.Errorf("%s/%d: K(%g) by moments %.15g, directly %.15g", name, n, nu, m.power(nu), k.Power(nu))
				}
			}
			worstD, worstL := 0.0, 0.0
			for range max(10, min(200, 1<<20/n)) {
				d := r.Float64() - 0.5
				tone := k.refine(k.Power(-1-d), k.Power(-d), k.Power(1-d), 10, 1)
				worstD = max(worstD, math.Abs(tone.Bin-10-d))
				worstL = max(worstL, math.Abs(tone.LevelDB))
			}
			if worstD > 1e-6 || worstL > 1e-6 {
				t.Errorf("%s/%d: table off by %.2g bin, %.2g dB", name, n, worstD, worstL)
			}
		}
	}
}

// TestPeakDB: the peak readout on float32 dBFS spectra of 100 seeded
// random sines (frequency 20 bins from DC to 20 from Nyquist, amplitude 0
// to −60 dBFS, phase) per window, each spectrum a float64 FFT of the
// frame: frequency within 0.02 bin, level within 0.02 dB, the note of the
// true frequency; PeakDB does not allocate.
func TestPeakDB(t *testing.T) {
	const n, binHz = 2048, 48000.0 / 2048
	for name, w := range peakTestWindows(n) {
		k, err := NewWindowKernel(w)
		if err != nil {
			t.Fatal(err)
		}
		worstF, worstL := 0.0, 0.0
		db := make([]float32, n/2+1)
		for _, c := range peakCases(uint64(len(name)), n, 20, n/2-20) {
			for i, v := range powerDBFS(c.frame(n), w) {
				db[i] = float32(10 * math.Log10(v))
			}
			p := k.PeakDB(db, binHz)
			worstF = max(worstF, math.Abs(p.Freq/binHz-c.bin))
			worstL = max(worstL, math.Abs(p.LevelDB-20*math.Log10(c.amp)))
			if note, _ := NoteName(c.bin * binHz); p.Note != note && math.Abs(p.Freq/binHz-c.bin) < 1e-3 {
				t.Errorf("%s: note %s, want %s", name, p.Note, note)
			}
		}
		t.Logf("%s: worst %.2g bin, %.2g dB", name, worstF, worstL)
		if worstF > 0.02 || worstL > 0.02 {
			t.Errorf("%s: worst error %.4f bin, %.4f dB; want ≤ 0.02, 0.02", name, worstF, worstL)
		}
		if a := testing.AllocsPerRun(10, func() { k.PeakDB(db, binHz) }); a != 0 {
			t.Errorf("%s: PeakDB %v allocs, want 0", name, a)
		}
	}
	k, _ := NewWindowKernel(testWindow("hann", 8))
	if p := k.PeakDB([]float32{-10, -3}, 1); p != (Peak{}) {
		t.Errorf("two bins: %+v", p)
	}
}

// TestWindowKernelNarrowLobe: a window whose response does not fall from
// its centre to ±1 bin has no peak table: 1 + 2·cos(2πn/N) reads the same
// at ν = 0 and ν = ±1, so the neighbour ratio is 1 at both ends of [0, ½].
func TestWindowKernelNarrowLobe(t *testing.T) {
	w := make([]float64, 64)
	for i := range w {
		w[i] = 1 + 2*math.Cos(2*math.Pi*float64(i)/64)
	}
	if _, err := NewWindowKernel(w); err == nil {
		t.Error("1 + 2·cos window: no error")
	}
}

func BenchmarkPeakDB(b *testing.B) {
	const n = 65536
	w := testWindow("blackman-harris", n)
	k, _ := NewWindowKernel(w)
	db := make([]float32, n/2+1)
	for i, v := range powerDBFS(peakCase{1000.3, 0.5, 0}.frame(n), w) {
		db[i] = float32(10 * math.Log10(v))
	}
	b.ReportAllocs()
	for b.Loop() {
		k.PeakDB(db, 1)
	}
}

func BenchmarkNewWindowKernel(b *testing.B) {
	w := testWindow("hann", 65536)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewWindowKernel(w); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefine: the table step alone, the same time at every size.
func BenchmarkRefine(b *testing.B) {
	for _, n := range []int{1024, 65536} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			k, _ := NewWindowKernel(testWindow("flattop", n))
			for b.Loop() {
				k.refine(0.7, 0.9, 0.8, 100, 1)
			}
		})
	}
}
