package meter

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refIntervalPeaks computes, by the definition and in float64, each
// interval's sample peak, true peak and mean square of stream x (mono),
// split at the ends `ends`: the true peak at sample n is the largest of
// |x[n]| and the three interpolated phases Σ_j h_p[j]·x[n−j] (x = 0
// before the stream), each written out without PeakMeter's ring.
func refIntervalPeaks(x []float32, ends []int) []PeakInterval {
	var out []PeakInterval
	start := 0
	for _, end := range ends {
		iv := PeakInterval{Samples: int64(end - start)}
		sum := 0.0
		for n := start; n < end; n++ {
			v := float64(x[n])
			iv.SamplePeak = max(iv.SamplePeak, math.Abs(v))
			iv.TruePeak = max(iv.TruePeak, math.Abs(v))
			sum += v * v
			for p := 1; p < tpPhases; p++ {
				y := 0.0
				for j := range tpTaps {
					if n-j >= 0 {
						y += truePeakFilter[p][j] * float64(x[n-j])
					}
				}
				iv.TruePeak = max(iv.TruePeak, math.Abs(y))
			}
		}
		if end > start {
			iv.MeanSquare = sum / float64(end-start)
		}
		out = append(out, iv)
		start = end
	}
	return out
}

// TestPeakMeterIntervals: a stream written in random chunks and taken in
// random intervals (some empty, some shorter than the interpolator) reads,
// per interval, the reference's peaks and mean square; the totals since
// Reset stay those of a meter that never took an interval.
func TestPeakMeterIntervals(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	x := make([]float32, 20000)
	for i := range x { // band-limited-ish content with inter-sample peaks
		ti := float64(i)
		x[i] = float32(0.4*math.Sin(2*math.Pi*0.23*ti+1) + 0.3*math.Sin(2*math.Pi*0.11*ti) + 0.05*(r.Float64()-0.5))
	}
	var ends []int
	for e := 0; e < len(x); {
		e = min(len(x), e+[]int{0, 1, 7, 30, 480, 1000, 2500}[r.IntN(7)])
		ends = append(ends, e)
	}
	want := refIntervalPeaks(x, ends)
	m, _ := NewPeakMeter(1)
	whole, _ := NewPeakMeter(1)
	whole.WritePlanar([][]float32{x})
	got := make([]PeakInterval, 1)
	pos := 0
	for i, end := range ends {
		for pos < end { // chunks that do not follow the intervals
			n := min(end-pos, 1+r.IntN(300))
			m.WritePlanar([][]float32{x[pos : pos+n]})
			pos += n
		}
		m.TakeInterval(got)
		g, w := got[0], want[i]
		if g.Samples != w.Samples || math.Abs(g.SamplePeak-w.SamplePeak) > 1e-15 ||
			math.Abs(g.TruePeak-w.TruePeak) > 1e-12 || math.Abs(g.MeanSquare-w.MeanSquare) > 1e-12*max(w.MeanSquare, 1e-3) {
			t.Fatalf("interval %d (to %d): got %+v, want %+v", i, end, g, w)
		}
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{{"sample peak", m.SamplePeak(0), whole.SamplePeak(0)}, {"true peak", m.TruePeak(0), whole.TruePeak(0)}, {"rms", m.RMS(0), whole.RMS(0)}} {
		if math.Abs(f.got-f.want) > 1e-9 {
			t.Errorf("total %s after intervals %v, without %v", f.name, f.got, f.want)
		}
	}
	if n := testing.AllocsPerRun(10, func() { m.TakeInterval(got) }); n != 0 {
		t.Errorf("TakeInterval: %v allocs, want 0", n)
	}
	m.Reset()
	m.TakeInterval(got)
	if got[0] != (PeakInterval{}) || !math.IsInf(m.TruePeak(0), -1) {
		t.Errorf("after Reset: interval %+v, true peak %v", got[0], m.TruePeak(0))
	}
	defer func() {
		if recover() == nil {
			t.Error("TakeInterval with 2 channels on a mono meter: no panic")
		}
	}()
	m.TakeInterval(make([]PeakInterval, 2))
}

// TestRestart: a meter restarted mid-stream measures what follows as a
// meter that has seen the stream from the start and only the part after
// the restart would, i.e. exactly as the reference over that part
// (interpolation history kept: no start-up overshoot), while Reset reads
// the part as a stream starting from silence.
func TestRestart(t *testing.T) {
	x := sineBlock(9600, 0.23, 1, 0.5)
	const cut = 4801
	m, _ := NewPeakMeter(1)
	m.WritePlanar([][]float32{x[:cut]})
	m.Restart()
	m.WritePlanar([][]float32{x[cut:]})
	got := make([]PeakInterval, 1)
	m.TakeInterval(got)
	want := refIntervalPeaks(x, []int{cut, len(x)})[1]
	if math.Abs(got[0].TruePeak-want.TruePeak) > 1e-12 || got[0].Samples != want.Samples || math.Abs(m.TruePeak(0)-20*math.Log10(want.TruePeak)) > 1e-9 {
		t.Errorf("after Restart: %+v, want %+v", got[0], want)
	}
	l, _ := NewLoudness(48000, 1, nil)
	ref, _ := NewLoudness(48000, 1, nil)
	y := sineBlock(48000*2, 1000.0/48000, 0, 0.1)
	l.WritePlanar([][]float32{y[:48000]})
	ref.WritePlanar([][]float32{y[:48000]})
	l.Restart()
	if !math.IsInf(l.Momentary(), -1) || !math.IsInf(l.Integrated(), -1) || !math.IsInf(l.MomentaryMax(), -1) {
		t.Errorf("after Restart: momentary %v, integrated %v", l.Momentary(), l.Integrated())
	}
	l.WritePlanar([][]float32{y[48000:]})
	ref.WritePlanar([][]float32{y[48000:]})
	// the same filters, the same last 400 ms: the same momentary loudness
	if l.Momentary() != ref.Momentary() || math.Abs(l.Integrated()-ref.Integrated()) > 0.01 {
		t.Errorf("momentary %v vs %v, integrated %v vs %v", l.Momentary(), ref.Momentary(), l.Integrated(), ref.Integrated())
	}
}

// TestPeakMeterGap: after a Gap, the samples that follow are measured as
// a stream of their own, but without the interpolated points whose
// window reaches back across the jump: the true peak is the largest of
// the samples and of the points from the 24th sample on (computed here by
// the definition), not the over a jump would read; without Gap the jump
// does read as one.
func TestPeakMeterGap(t *testing.T) {
	a := sineBlock(4800, 0.23, 0, 0.5)
	b := sineBlock(4800, 0.23, math.Pi, 0.5) // the phase jumps by half a turn
	for _, gap := range []bool{true, false} {
		m, _ := NewPeakMeter(1)
		m.WritePlanar([][]float32{a})
		got := make([]PeakInterval, 1)
		m.TakeInterval(got)
		if gap {
			m.Gap()
		}
		m.WritePlanar([][]float32{b[:7]}) // the window refills across writes
		m.WritePlanar([][]float32{b[7:]})
		m.TakeInterval(got)
		want := 0.0
		for n := range b {
			want = max(want, math.Abs(float64(b[n])))
			for p := 1; p < tpPhases && n >= tpTaps-1; p++ {
				y := 0.0
				for j := range tpTaps {
					y += truePeakFilter[p][j] * float64(b[n-j])
				}
				want = max(want, math.Abs(y))
			}
		}
		switch {
		case gap && math.Abs(got[0].TruePeak-want) > 1e-12:
			t.Errorf("after Gap: true peak %v, want %v", got[0].TruePeak, want)
		case !gap && !(got[0].TruePeak > want*1.05):
			t.Errorf("without Gap: true peak %v, want the jump's over (> %v)", got[0].TruePeak, want*1.05)
		}
		t.Logf("gap %v: true peak %.3f dBTP (the sine's %.3f)", gap, 20*math.Log10(got[0].TruePeak), 20*math.Log10(want))
	}
}

// TestLoudnessGap: across a Gap no block or window mixes the two sides. A
// −20 dBFS tone, a gap, a −32 dBFS tone: every momentary value after the
// gap is a fresh meter's on the second tone alone (bit for bit), −Inf for
// the first 400 ms; the gating blocks are those of the two sides measured
// apart, so the integrated loudness is their union's; the maximum of the
// loud side stays. Without the gap the blocks spanning the jump read
// between the two.
func TestLoudnessGap(t *testing.T) {
	const rate = 48000
	a := sineBlock(3*rate, 997.0/rate, 0, 0.1)          // −20 dBFS peak
	b := sineBlock(2*rate+2345, 997.0/rate, 0.3, 0.025) // −32 dBFS peak, an odd length
	gap, _ := NewLoudness(rate, 1, nil)
	onlyA, _ := NewLoudness(rate, 1, nil)
	onlyB, _ := NewLoudness(rate, 1, nil)
	gap.WritePlanar([][]float32{a[:rate+777]}) // a partial 100-ms step before the gap
	onlyA.WritePlanar([][]float32{a[:rate+777]})
	maxA := gap.MomentaryMax()
	gap.Gap()
	if !math.IsInf(gap.Momentary(), -1) || gap.MomentaryMax() != maxA {
		t.Fatalf("after Gap: momentary %v (want −Inf), max %v (want %v)", gap.Momentary(), gap.MomentaryMax(), maxA)
	}
	for i := 0; i < len(b); i += 4800 {
		blk := b[i:min(len(b), i+4800)]
		gap.WritePlanar([][]float32{blk})
		onlyB.WritePlanar([][]float32{blk})
		if gap.Momentary() != onlyB.Momentary() {
			t.Fatalf("%d samples after the gap: momentary %v, a fresh meter's %v", i+len(blk), gap.Momentary(), onlyB.Momentary())
		}
	}
	union := onlyA.blocks
	for i := range union.count {
		union.count[i] += onlyB.blocks.count[i]
		union.sum[i] += onlyB.blocks.sum[i]
	}
	union.n += onlyB.blocks.n
	union.total += onlyB.blocks.total
	want := (&Loudness{blocks: union}).Integrated()
	if got := gap.Integrated(); math.Abs(got-want) > 1e-12 || gap.MomentaryMax() != maxA {
		t.Errorf("integrated %v, want %v (the two sides' blocks); max %v, want %v", got, want, gap.MomentaryMax(), maxA)
	}
	joined, _ := NewLoudness(rate, 1, nil)
	joined.WritePlanar([][]float32{append(append([]float32(nil), a[:rate+777]...), b...)})
	if math.Abs(joined.Integrated()-want) < 0.01 {
		t.Errorf("without a gap the integrated loudness is also %v: the test does not tell", joined.Integrated())
	}
}
