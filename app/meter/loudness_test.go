package meter

import (
	"fmt"
	"math"
	"testing"
)

// segment is a stretch of 1 kHz sine (or silence: dBFS = −Inf) in every
// channel, as EBU Tech 3341/3342 define their test signals.
type segment struct {
	seconds float64
	dBFS    []float64 // per channel peak level
}

// stereo is a segment at one level in both channels.
func stereo(seconds, dBFS float64) segment { return segment{seconds, []float64{dBFS, dBFS}} }

// render makes interleaved float32 samples of the segments (phase
// continuous, 1 kHz).
func render(fs float64, segs ...segment) []float32 {
	ch := len(segs[0].dBFS)
	var out []float32
	n := 0
	gain := make([]float64, ch)
	for _, s := range segs {
		for c := range gain {
			gain[c] = math.Pow(10, s.dBFS[c]/20)
		}
		for range int(math.Round(s.seconds * fs)) {
			v := math.Sin(2 * math.Pi * 1000 * float64(n) / fs)
			for _, g := range gain {
				out = append(out, float32(g*v))
			}
			n++
		}
	}
	return out
}

func measure(t *testing.T, fs float64, ch int, x []float32) *Loudness {
	t.Helper()
	l, err := NewLoudness(fs, ch, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Uneven block sizes: the result must not depend on them.
	for len(x) > 0 {
		k := min(len(x), ch*1237)
		l.WriteInterleaved(x[:k])
		x = x[k:]
	}
	return l
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	t.Logf("%s = %.4f (want %.3f ± %.3g)", what, got, want, tol)
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s = %.3f, want %.3f ± %.3g", what, got, want, tol)
	}
}

// TestKWeightingCoefficients: at 48 kHz the derived sections equal the
// coefficients printed in BS.1770-4 Annex 1 (Tables 1 and 2, 14 digits).
func TestKWeightingCoefficients(t *testing.T) {
	q := kWeighting(48000)
	want := [2]biquad{
		{1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585},
		{1, -2, 1, -1.99004745483398, 0.99007225036621},
	}
	for i := range q {
		g, w := q[i], want[i]
		for j, pair := range [][2]float64{{g.b0, w.b0}, {g.b1, w.b1}, {g.b2, w.b2}, {g.a1, w.a1}, {g.a2, w.a2}} {
			if math.Abs(pair[0]-pair[1]) > 1e-8 {
				t.Errorf("section %d coefficient %d = %.14f, BS.1770 %.14f", i, j, pair[0], pair[1])
			}
		}
	}
}

// TestTech3341 builds EBU Tech 3341's test signals 1–6 and 9 from their
// definitions (stereo 1 kHz sines) and checks the readings it requires
// (±0.1 LU), at several sample rates for case 1 (the K-weighting is
// derived per rate). Cases 7 and 8 (authentic programme) have synthetic
// stand-ins in TestTech3341Programmes.
func TestTech3341(t *testing.T) {
	for _, fs := range []float64{32000, 44100, 48000, 96000} {
		if testing.Short() && fs != 44100 {
			continue
		}
		t.Run(fmt.Sprintf("case1/fs=%v", fs), func(t *testing.T) {
			l := measure(t, fs, 2, render(fs, stereo(20, -23)))
			near(t, "integrated", l.Integrated(), -23, 0.1)
			near(t, "momentary", l.Momentary(), -23, 0.1)
			near(t, "short-term", l.ShortTerm(), -23, 0.1)
			near(t, "momentary max", l.MomentaryMax(), -23, 0.1)
			near(t, "short-term max", l.ShortTermMax(), -23, 0.1)
		})
	}
	const fs = 48000
	for _, c := range []struct {
		name string
		segs []segment
	}{
		{"case2", []segment{stereo(20, -33)}},
		{"case3", []segment{stereo(10, -36), stereo(60, -23), stereo(10, -36)}},
		{"case4", []segment{stereo(10, -72), stereo(10, -36), stereo(60, -23), stereo(10, -36), stereo(10, -72)}},
		{"case5", []segment{stereo(20, -26), stereo(20.1, -20), stereo(20, -26)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := -23.0
			if c.name == "case2" {
				want = -33
			}
			near(t, "integrated", measure(t, fs, 2, render(fs, c.segs...)).Integrated(), want, 0.1)
		})
	}
	t.Run("case6", func(t *testing.T) {
		// 5.0: L, R −28 dBFS, C −24 dBFS, Ls, Rs −30 dBFS.
		x := render(fs, segment{20, []float64{-28, -28, -24, -30, -30}})
		near(t, "integrated", measure(t, fs, 5, x).Integrated(), -23, 0.1)
	})
	t.Run("case9", func(t *testing.T) {
		// 1.34 s at −20 dBFS and 1.66 s at −30 dBFS, five times: every
		// short-term value once 3 s have passed reads −23.0 ± 0.1.
		var segs []segment
		for range 5 {
			segs = append(segs, stereo(1.34, -20), stereo(1.66, -30))
		}
		x := render(fs, segs...)
		l, _ := NewLoudness(fs, 2, nil)
		for i := 0; i+2*4800 <= len(x); i += 2 * 4800 {
			l.WriteInterleaved(x[i : i+2*4800])
			if i/(2*4800)+1 >= 30 {
				near(t, fmt.Sprintf("short-term at %.1f s", float64(i/2+4800)/fs), l.ShortTerm(), -23, 0.1)
			}
		}
	})
}

// TestLoudnessMaxima: bursts aligned to the 100 ms grid, 0.4 s (momentary)
// and 3 s (short-term) long, at rising levels between silences: the maxima
// read the loudest burst, whatever came before.
func TestLoudnessMaxima(t *testing.T) {
	const fs = 48000
	var mseg, sseg []segment
	for lv := -38.0; lv <= -19; lv++ {
		mseg = append(mseg, stereo(1, math.Inf(-1)), stereo(0.4, lv))
		sseg = append(sseg, stereo(2, math.Inf(-1)), stereo(3, lv))
	}
	m := measure(t, fs, 2, render(fs, mseg...))
	near(t, "momentary max", m.MomentaryMax(), -19, 0.1)
	s := measure(t, fs, 2, render(fs, sseg...))
	near(t, "short-term max", s.ShortTermMax(), -19, 0.1)
}

// TestTech3342 builds EBU Tech 3342's loudness-range signals 1–4 (stereo
// 1 kHz sines) and checks LRA ± 1 LU as it requires; cases 5 and 6
// (authentic programme) are in TestTech3341Programmes.
func TestTech3342(t *testing.T) {
	const fs = 48000
	for _, c := range []struct {
		segs []segment
		lra  float64
	}{
		{[]segment{stereo(20, -20), stereo(20, -30)}, 10},
		{[]segment{stereo(20, -20), stereo(20, -15)}, 5},
		{[]segment{stereo(20, -40), stereo(20, -20)}, 20},
		{[]segment{stereo(20, -50), stereo(20, -35), stereo(20, -20), stereo(20, -35), stereo(20, -50)}, 15},
	} {
		l := measure(t, fs, 2, render(fs, c.segs...))
		near(t, fmt.Sprintf("LRA of %v", c.segs), l.Range(), c.lra, 1)
	}
}

// TestIntegratedGateExact: integrated loudness equals a direct float64
// computation over stored block powers (the histogram's only rounding is
// the gate's 0.01 LU position).
func TestIntegratedGateExact(t *testing.T) {
	const fs = 48000
	x := render(fs, stereo(7, -50), stereo(5, -25), stereo(3, -31), stereo(4, -80), stereo(6, -22.5))
	l := measure(t, fs, 2, x)
	// Reference: filter with the same sections but gate over a plain list.
	q := kWeighting(fs)
	var f [2]kFilter
	var steps []float64
	acc := 0.0
	for i := 0; i+1 < len(x); i += 2 {
		for c := range 2 {
			y := f[c].step(&q, float64(x[i+c]))
			acc += y * y
		}
		if (i/2+1)%4800 == 0 {
			steps = append(steps, acc)
			acc = 0
		}
	}
	var blocks []float64
	for j := 3; j < len(steps); j++ {
		blocks = append(blocks, (steps[j]+steps[j-1]+steps[j-2]+steps[j-3])/(4*4800))
	}
	mean := func(gate float64) float64 {
		s, n := 0.0, 0
		for _, b := range blocks {
			if lufs(b) > gate {
				s += b
				n++
			}
		}
		return s / float64(n)
	}
	want := lufs(mean(lufs(mean(-70)) - 10))
	near(t, "integrated", l.Integrated(), want, 0.005)
}

func TestLoudnessErrorsSilenceAllocs(t *testing.T) {
	for _, c := range []struct {
		fs float64
		ch int
		g  []float64
	}{{0, 2, nil}, {48000, 0, nil}, {48000, 2, []float64{1}}, {48000, 1, []float64{-1}}} {
		if _, err := NewLoudness(c.fs, c.ch, c.g); err == nil {
			t.Errorf("NewLoudness(%v, %v, %v): no error", c.fs, c.ch, c.g)
		}
	}
	l, _ := NewLoudness(48000, 2, nil)
	silence := make([]float32, 2*48000*4)
	l.WriteInterleaved(silence)
	if !math.IsInf(l.Integrated(), -1) || l.Range() != 0 || !math.IsInf(l.MomentaryMax(), -1) {
		t.Errorf("silence: I %v LRA %v Mmax %v", l.Integrated(), l.Range(), l.MomentaryMax())
	}
	planar := [][]float32{make([]float32, 4800), make([]float32, 4800)}
	if n := testing.AllocsPerRun(10, func() { l.WriteInterleaved(silence[:9600]); l.WritePlanar(planar) }); n != 0 {
		t.Errorf("writes: %v allocs, want 0", n)
	}
	// Planar and interleaved agree.
	x := render(48000, stereo(4, -20))
	a := measure(t, 48000, 2, x)
	pl, _ := NewLoudness(48000, 2, nil)
	left, right := make([]float32, len(x)/2), make([]float32, len(x)/2)
	for i := range left {
		left[i], right[i] = x[2*i], x[2*i+1]
	}
	pl.WritePlanar([][]float32{left, right})
	if pl.Integrated() != a.Integrated() || pl.ShortTermMax() != a.ShortTermMax() {
		t.Errorf("planar %v/%v, interleaved %v/%v", pl.Integrated(), pl.ShortTermMax(), a.Integrated(), a.ShortTermMax())
	}
}

func BenchmarkLoudness(b *testing.B) {
	x := render(48000, stereo(0.1, -20))
	l, _ := NewLoudness(48000, 2, nil)
	b.SetBytes(int64(4 * len(x)))
	b.ReportAllocs()
	for b.Loop() {
		l.WriteInterleaved(x)
	}
}
