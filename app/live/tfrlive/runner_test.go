package tfrlive

import (
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/gpufft"
)

// newFakeRunner is a Runner on a fake transform (span 512, hop 128, 24
// bins from 300 Hz, 6 per octave) for a 48 kHz stereo recorder whose
// stream the test writes into In() itself.
func newFakeRunner(t testing.TB, s Settings) (*Runner, *fakeDFT) {
	t.Helper()
	rec := apptest.StartGenerator(t, "sine:1000:-20", 48000, 2)
	const span, hop = 512, 128
	fake := newFakeDFT(48000, 3, hop, span, span+15*hop, 300, 24)
	cpu := gpufft.NewCPU(1)
	t.Cleanup(func() { cpu.Close() })
	r, err := NewWith(rec, fake, cpu, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	r.pub.every = 0 // every batch's traces, so a test reads the last frame's
	return r, fake
}

// sine writes n interleaved stereo frames of amplitude a at f Hz (left)
// and a/2 (right), from sample `from`, into dst.
func sine(dst []float32, from, n int, a, f float64) []float32 {
	for i := range n {
		v := a * math.Sin(2*math.Pi*f*float64(from+i)/48000)
		dst = append(dst, float32(v), float32(v/2))
	}
	return dst
}

// feed writes `total` frames of the sine in blocks of 480 and steps the
// Runner after each; it returns the samples written (left channel).
func feed(r *Runner, total int, a, f float64) {
	var buf []float32
	for from := 0; from < total; from += 480 {
		buf = sine(buf[:0], from, 480, a, f)
		r.In().(interface {
			Write([]float32, time.Time)
		}).Write(buf, time.Now())
		for {
			n, err := r.Step()
			if err != nil {
				panic(err)
			}
			if n == 0 {
				break
			}
		}
	}
}

// TestSineLevelThroughRunner: a sine at a bin's centre reads, through the
// Runner's live path, the level the transform itself gives the same
// samples, which is the sine's analytic level (20·log10 A) in every
// trace, on each channel and the mix, with the peak readout at its
// frequency; before the first frame there is no spectrum (and no peak).
func TestSineLevelThroughRunner(t *testing.T) {
	r, fake := newFakeRunner(t, Settings{AvgTau: time.Second, AvgFrames: 8, PeakHold: 2 * time.Second, PeakDecay: 20})
	f := fake.freqs[10] // 300·2^(10/6) ≈ 952 Hz
	var before live.Spectrum
	r.Latest(0, &before)
	if len(before.Current) != 0 || before.Peak.Freq != 0 {
		t.Fatalf("before any frame: %d bins, peak %v; want none", len(before.Current), before.Peak)
	}
	const a, total = 0.5, 24000
	feed(r, total, a, f)
	// the transform's own level for the last frame the Runner analyzed
	frames := (total-512)/128 + 1
	last := make([]float32, 512)
	for i := range last {
		last[i] = float32(a * math.Sin(2*math.Pi*f*float64((frames-1)*128+i)/48000))
	}
	want := fake.levelDB(last, f)
	wantAnalytic := 20 * math.Log10(a)
	if math.Abs(want-wantAnalytic) > 0.01 {
		t.Fatalf("fake transform reads %.4f dB, want %.4f (the test's reference is off)", want, wantAnalytic)
	}
	var sp live.Spectrum
	for c, amp := range []float64{a, a / 2, 0.75 * a} { // left, right, the mix (mean)
		r.Latest(c, &sp)
		if len(sp.Current) != 24 || len(sp.Freqs) != 24 || sp.Freqs[10] != f {
			t.Fatalf("channel %d: %d bins, %d freqs", c, len(sp.Current), len(sp.Freqs))
		}
		lvl := 20 * math.Log10(amp)
		if c == 0 {
			if got := float64(sp.Current[10]); math.Abs(got-want) > 1e-4 {
				t.Errorf("current: %.5f dB, the transform's %.5f", got, want)
			}
		}
		for name, tr := range map[string][]float32{"current": sp.Current, "exp": sp.ExpAvg, "lin": sp.LinAvg,
			"long": sp.LongAvg, "peak hold": sp.PeakHold, "min hold": sp.MinHold} {
			if got := float64(tr[10]); math.Abs(got-lvl) > 0.01 {
				t.Errorf("channel %d %s: %.4f dB, want %.4f", c, name, got, lvl)
			}
		}
		if math.Abs(sp.Peak.LevelDB-lvl) > 0.01 || math.Abs(sp.Peak.Freq/f-1) > 0.01 {
			t.Errorf("channel %d peak: %.2f Hz %.3f dB, want %.2f Hz %.3f dB", c, sp.Peak.Freq, sp.Peak.LevelDB, f, lvl)
		}
	}
	if got := r.Frames(); got != uint64(frames) {
		t.Errorf("frames %d, want %d", got, frames)
	}
	var st live.Stats
	r.ReadStats(&st)
	if st.Frames != uint64(frames) || st.DroppedFrames != 0 {
		t.Errorf("stats: %d frames, %d dropped; want %d, 0", st.Frames, st.DroppedFrames, frames)
	}
}

// TestHoldsAndColumns: a tone that stops leaves its level in the peak
// hold (within the hold time) while the current spectrum falls; the
// history holds one column per frame (hop 128 at 48 kHz is 375 frames/s,
// under the fold threshold), each of the bins' length.
func TestHoldsAndColumns(t *testing.T) {
	r, fake := newFakeRunner(t, Settings{AvgTau: time.Second, AvgFrames: 8, PeakHold: 10 * time.Second, PeakDecay: 20, History: 64})
	f := fake.freqs[5]
	feed(r, 9600, 0.25, f)
	feed(r, 4800, 0, f)
	var sp live.Spectrum
	r.Latest(0, &sp)
	if got := float64(sp.PeakHold[5]); math.Abs(got-20*math.Log10(0.25)) > 0.01 {
		t.Errorf("peak hold %.3f dB, want %.3f", got, 20*math.Log10(0.25))
	}
	if !(sp.Current[5] < -100) || !(sp.MinHold[5] < -100) {
		t.Errorf("after silence: current %.1f dB, min hold %.1f dB, want < -100", sp.Current[5], sp.MinHold[5])
	}
	dst := make([][]float32, 100)
	n, next, g := r.Columns(0, dst, 0)
	frames := int(r.Frames())
	if n != 64 || next != uint64(frames) || g.Hop != 128 || len(dst[0]) != 24 {
		t.Errorf("columns: %d (next %d, hop %d, %d bins), want 64 (next %d, hop 128, 24 bins)", n, next, g.Hop, len(dst[0]), frames)
	}
}

// TestStepDoesNotAllocate pins the live path: reading a block, the
// transform, the averages, holds, columns and the publication allocate
// nothing per batch.
func TestStepDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	r, _ := newFakeRunner(t, Settings{AvgTau: time.Second, AvgFrames: 8, PeakHold: time.Second, PeakDecay: 20})
	stepAllocs(t, r)
}

// stepAllocs fails t if a Runner's steady-state Step allocates.
func stepAllocs(t *testing.T, r *Runner) {
	t.Helper()
	buf := sine(nil, 0, 480, 0.5, 1000)
	w := r.In().(interface {
		Write([]float32, time.Time)
	})
	for r.Frames() < 2 { // past the first frames
		w.Write(buf, time.Now())
		r.Step()
	}
	before := r.Frames()
	if n := testing.AllocsPerRun(20, func() {
		w.Write(buf, time.Now())
		r.Step()
	}); n != 0 {
		t.Fatalf("Step: %v allocs per batch, want 0", n)
	}
	if r.Frames() < before+10 {
		t.Fatalf("only %d frames analyzed while measuring", r.Frames()-before)
	}
}

// TestPow10dB: the fast power matches math.Pow within 2e-5 relative over
// the levels a spectrum holds.
func TestPow10dB(t *testing.T) {
	for db := -370.0; db <= 30; db += 0.37 {
		want := math.Pow(10, db/10)
		got := float64(pow10dB(float32(db)))
		if math.Abs(got/want-1) > 2e-5 {
			t.Fatalf("pow10dB(%g) = %g, want %g", db, got, want)
		}
	}
	if pow10dB(float32(math.Inf(-1))) != 0 || pow10dB(-400) != 0 {
		t.Error("pow10dB of −∞ or −400 dB is not 0")
	}
}

// TestPeakOf: a parabola in dB over frequency on log-spaced bins is
// found at its vertex's frequency, at the highest bin's level; at a join
// of resolutions the highest bin's centre is taken.
func TestPeakOf(t *testing.T) {
	freqs := make([]float64, 12)
	for k := range freqs {
		freqs[k] = 100 * math.Pow(2, float64(k)/12)
	}
	vertex := 100 * math.Pow(2, 6.3/12)
	db := make([]float32, 12)
	for k := range db {
		d := (freqs[k] - vertex) / 5
		db[k] = float32(-3 - d*d)
	}
	pk := PeakOf(db, freqs)
	if math.Abs(pk.LevelDB-float64(db[6])) > 1e-6 || math.Abs(pk.Freq/vertex-1) > 1e-6 || pk.Note != "D3" {
		t.Errorf("peak %.4f Hz %.5f dB %s, want %.4f Hz %.5f dB D3 (143.9 Hz is 19.35 semitones under A4)", pk.Freq, pk.LevelDB, pk.Note, vertex, db[6])
	}
	// a join: the neighbour above twice as far as the one below
	join := []float64{100, 110, 120, 140, 160}
	if pk := PeakOf([]float32{-50, -30, -10, -30, -50}, join); pk.Freq != 120 || pk.LevelDB != -10 {
		t.Errorf("at a join: peak %.3f Hz %.2f dB, want the bin's 120 Hz -10 dB", pk.Freq, pk.LevelDB)
	}
	if PeakOf(db[:2], freqs[:2]) != (PeakOf(nil, nil)) {
		t.Error("fewer than 3 bins: want the zero Peak")
	}
}
