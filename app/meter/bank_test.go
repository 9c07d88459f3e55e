package meter

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

// interleavedSine is `seconds` of a sine of peak level dBFS at freq Hz on
// every one of ch channels, phase at t = 0, faded in over the first
// 100 samples (raised cosine: an abrupt start overshoots in a true-peak
// meter, rightly, but these tests want the steady sine).
func interleavedSine(rate, ch int, seconds, freq, dBFS, phase float64) []float32 {
	n := int(seconds * float64(rate))
	a := math.Pow(10, dBFS/20)
	x := make([]float32, n*ch)
	for i := range n {
		v := a * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)+phase)
		if i < 100 {
			v *= 0.5 - 0.5*math.Cos(math.Pi*float64(i)/100)
		}
		for c := range ch {
			x[i*ch+c] = float32(v)
		}
	}
	return x
}

// feed writes x to m in blocks of `frames` frames, as the engine does.
func feed(m *Bank, x []float32, ch, rate, frames int) {
	for len(x) > 0 {
		n := min(len(x), frames*ch)
		m.Write(x[:n], ch, rate, m.next)
		x = x[n:]
	}
}

func nearDB(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.4f, want %.4f ± %g", what, got, want, tol)
	}
}

// TestMetersLoudnessAndRMS: a stereo 1 kHz sine at −23 dBFS (EBU Tech
// 3341 case 1) reads −23.0 ± 0.1 LUFS momentary and short-term after 3 s,
// and so do their maxima and the integrated loudness; each channel's RMS
// is the sine's AES17 level, −23.00 dBFS, and its sample peak −23 dBFS.
func TestMetersLoudnessAndRMS(t *testing.T) {
	for _, frames := range []int{1024, 333, 4800} { // block sizes that do and do not divide a step
		var m Bank
		feed(&m, interleavedSine(48000, 2, 3.2, 1000, -23, 0), 2, 48000, frames)
		var got Meters
		m.Read(&got)
		if got.Channels != 2 || got.Rate != 48000 || math.Abs(got.Seconds-3.2) > 0.021 {
			t.Fatalf("frames %d: meters %+v", frames, got)
		}
		for _, v := range []struct {
			name string
			got  float64
		}{{"momentary", got.Momentary}, {"short-term", got.ShortTerm}, {"momentary max", got.MomentaryMax},
			{"short-term max", got.ShortTermMax}, {"integrated", got.Integrated}} {
			nearDB(t, v.name, v.got, -23, 0.1)
		}
		for c := range 2 {
			ch := got.Ch[c]
			nearDB(t, "rms", ch.RMS, -23, 0.01)
			nearDB(t, "sample peak", ch.SamplePeak, -23, 0.01)
			nearDB(t, "true peak", ch.TruePeak, -23, 0.01)
			nearDB(t, "true peak max", ch.TruePeakMax, -23, 0.01)
		}
	}
}

// TestMetersTruePeak: a sine at fs/4 with a 45° phase has every sample at
// ±A/√2 and its peaks midway between samples: the sample peak reads
// A − 3.01 dB, the true peak A (within 0.1 dB), in the bars, the holds
// and the maximum.
func TestMetersTruePeak(t *testing.T) {
	const a = -6.0
	var m Bank
	feed(&m, interleavedSine(48000, 1, 1, 12000, a, math.Pi/4), 1, 48000, 1000)
	var got Meters
	m.Read(&got)
	c := got.Ch[0]
	sp := a - 10*math.Log10(2)
	nearDB(t, "sample peak", c.SamplePeak, sp, 0.01)
	nearDB(t, "sample peak hold", c.SamplePeakHold, sp, 0.01)
	nearDB(t, "true peak", c.TruePeak, a, 0.1)
	nearDB(t, "true peak hold", c.TruePeakHold, a, 0.1)
	nearDB(t, "true peak max", c.TruePeakMax, a, 0.1)
	nearDB(t, "true − sample peak", c.TruePeak-c.SamplePeak, 10*math.Log10(2), 0.1)
	t.Logf("fs/4 at 45°, −6 dBFS: sample peak %.3f dBFS, true peak %.3f dBTP", c.SamplePeak, c.TruePeak)
}

// TestMetersBallistics: after a burst, silence: the bars fall at
// FallDB per second, the holds stay HoldSeconds and then fall at
// HoldFallDB per second, the maximum stays, RMS goes to silence
// after RMSSeconds; Reset forgets it all.
func TestMetersBallistics(t *testing.T) {
	const rate = 48000
	m := &Bank{}
	burst := interleavedSine(rate, 1, 0.2, 1000, -10, 0)
	feed(m, burst, 1, rate, 960) // 0.2 s: whole steps
	var at0 Meters
	m.Read(&at0)
	silence := make([]float32, rate/2)
	var got, prev Meters
	for s := 1; s <= 6; s++ { // 3 s of silence, read every 0.5 s
		feed(m, silence, 1, rate, 480)
		m.Read(&got)
		sec := 0.5 * float64(s)
		c, c0 := got.Ch[0], at0.Ch[0]
		nearDB(t, "bar", c.SamplePeak, c0.SamplePeak-FallDB*sec, 1e-6)
		if s > 1 { // (the first step of silence still completes interpolated points of the burst)
			nearDB(t, "true-peak bar's fall", prev.Ch[0].TruePeak-c.TruePeak, FallDB*0.5, 1e-6)
		}
		prev = got
		wantHold := c0.SamplePeakHold
		if sec > HoldSeconds { // held 2 s (100 steps) after the last step that set it
			wantHold -= HoldFallDB * (sec - HoldSeconds)
		}
		nearDB(t, "hold", c.SamplePeakHold, wantHold, 1e-6)
		nearDB(t, "max", c.TruePeakMax, c0.TruePeakMax, 0)
		if !math.IsInf(c.RMS, -1) {
			t.Errorf("%.1f s of silence: RMS %v, want −Inf", sec, c.RMS)
		}
	}
	// 0.2 s of a −10 dBFS sine in a 400 ms window: −13 − 3 dB, K-weighting
	// and −0.691 cancelling at 1 kHz
	if math.Abs(got.MomentaryMax+16.0) > 0.1 || !math.IsInf(got.Momentary, -1) {
		t.Errorf("momentary %v (want −Inf in silence), max %v", got.Momentary, got.MomentaryMax)
	}
	m.Reset()
	m.Write(silence[:10], 1, rate, m.next)
	m.Read(&got)
	c := got.Ch[0]
	for _, v := range []float64{c.SamplePeak, c.TruePeakHold, c.TruePeakMax, got.MomentaryMax, got.Integrated} {
		if !math.IsInf(v, -1) {
			t.Errorf("after Reset: %+v", got)
			break
		}
	}
	if got.Seconds != 0 {
		t.Errorf("after Reset: %v s measured", got.Seconds)
	}
}

// TestMetersChannelsAndAllocs: a 10-channel input is metered on its
// first MaxChannels, each channel its own level; a source change
// (rate, channels) starts the meters again; steady-state writes and reads
// do not allocate.
func TestMetersChannelsAndAllocs(t *testing.T) {
	const ch = 10
	x := make([]float32, 4800*ch)
	for i := range 4800 {
		for c := range ch {
			x[i*ch+c] = float32(0.05 * float64(c+1) * math.Sin(2*math.Pi*float64(i)/48))
		}
	}
	m := &Bank{}
	feed(m, x, ch, 48000, 480)
	var got Meters
	m.Read(&got)
	if got.Channels != MaxChannels {
		t.Fatalf("%d channels metered, want %d", got.Channels, MaxChannels)
	}
	for c := range MaxChannels {
		nearDB(t, "sample peak", got.Ch[c].SamplePeak, 20*math.Log10(0.05*float64(c+1)), 0.01)
	}
	mono := interleavedSine(44100, 1, 0.5, 1000, -20, 0)
	feed(m, mono, 1, 44100, 441)
	m.Read(&got)
	if got.Channels != 1 || got.Rate != 44100 || math.Abs(got.Seconds-0.5) > 1e-9 {
		t.Errorf("after a source change: %d channels at %d Hz, %v s", got.Channels, got.Rate, got.Seconds)
	}
	if raceEnabled {
		return // allocation counts are not meaningful under -race
	}
	blk := mono[:441]
	if n := testing.AllocsPerRun(100, func() { m.Write(blk, 1, 44100, m.next); m.Read(&got) }); n != 0 {
		t.Errorf("write + ReadMeters: %v allocs, want 0", n)
	}
	blk = x[:480*ch]
	feed(m, x, ch, 48000, 480)
	if n := testing.AllocsPerRun(100, func() { m.Write(blk, ch, 48000, m.next) }); n != 0 {
		t.Errorf("write of 10 channels: %v allocs, want 0", n)
	}
}

// TestMeasureCalibrator: a 1 kHz tone at −20.00 dBFS sine level (on the
// second channel, with other content on the first) measured as a 94 dB
// SPL calibrator gives an offset of 114 dB; before a second of input, or
// for a channel the input lacks, a clear error.
func TestMeasureCalibrator(t *testing.T) {
	var m Bank
	if _, err := m.MeasureCalibrator(0, 1000, 94); !errors.Is(err, ErrNoCalibratorInput) {
		t.Errorf("no input: %v", err)
	}
	tone := interleavedSine(48000, 1, 1.5, 1000, -20, 0.3)
	other := interleavedSine(48000, 1, 1.5, 250, -6, 0)
	x := make([]float32, 2*len(tone))
	for i := range tone {
		x[2*i], x[2*i+1] = other[i], tone[i]
	}
	feed(&m, x[:2*24000], 2, 48000, 1024)
	if _, err := m.MeasureCalibrator(1, 1000, 94); !errors.Is(err, ErrNoCalibratorInput) {
		t.Errorf("half a second of input: %v", err)
	}
	feed(&m, x[2*24000:], 2, 48000, 1024)
	cal, err := m.MeasureCalibrator(1, 1000, 94)
	if err != nil {
		t.Fatal(err)
	}
	nearDB(t, "offset", cal.OffsetDB, 114, 0.02)
	if _, err := m.MeasureCalibrator(0, 1000, 94); err == nil {
		t.Error("a 250 Hz tone measured as a 1 kHz calibrator: no error")
	}
	if _, err := m.MeasureCalibrator(2, 1000, 94); err == nil {
		t.Error("channel 3 of 2: no error")
	}
}

// BenchmarkMeters is the meters' cost on the engine goroutine per 100 ms
// block of input: a share of real time is ns/op ÷ 1e8.
func BenchmarkMeters(b *testing.B) {
	for _, c := range []struct{ rate, ch int }{{48000, 2}, {192000, 8}} {
		b.Run("rate="+itoa(c.rate)+"/ch="+itoa(c.ch), func(b *testing.B) {
			x := interleavedSine(c.rate, c.ch, 0.1, 997, -10, 0)
			var m Bank
			m.Write(x, c.ch, c.rate, m.next)
			b.SetBytes(int64(4 * len(x)))
			b.ReportAllocs()
			for b.Loop() {
				m.Write(x, c.ch, c.rate, m.next)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMetersGap: input lost between two blocks (their stream positions
// do not follow) is a gap: the jump it leaves in the signal reads no
// inter-sample over, and no 400 ms loudness block spans it (the momentary
// loudness is unmeasured for the 100 ms after it); the same jump in
// contiguous input reads both.
func TestMetersGap(t *testing.T) {
	a := interleavedSine(48000, 1, 0.5, 11000, -6, 0) // ends at phase 0, as b's jump needs
	b := interleavedSine(48000, 1, 0.1, 11000, -6, math.Pi)
	for i := range 100 { // undo the fade-in: b starts abruptly, as after a loss
		b[i] = float32(0.5 * math.Sin(2*math.Pi*11000*float64(i)/48000+math.Pi))
	}
	for _, lost := range []uint64{1000, 0} {
		var m Bank
		feed(&m, a, 1, 48000, 480)
		m.Write(b, 1, 48000, m.next+lost)
		var got Meters
		m.Read(&got)
		over := got.Ch[0].TruePeakMax - (-6)
		if lost > 0 && math.Abs(over) > 0.05 || lost == 0 && over < 0.3 {
			t.Errorf("%d frames lost: true peak %.3f dB over the sine's", lost, over)
		}
		if measured := !math.IsInf(got.Momentary, -1); measured != (lost == 0) {
			t.Errorf("%d frames lost: momentary loudness %v 100 ms after", lost, got.Momentary)
		}
	}
}
