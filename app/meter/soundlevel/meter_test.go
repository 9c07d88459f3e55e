package soundlevel

import (
	"math"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
)

const rate = 48000

// tone is seconds of sines (freq Hz, amplitude) summed, then zeros for
// silence seconds; interleaved on ch channels, the measured channel
// (1 when ch > 1) carrying it and the others a loud distractor.
func tone(freqs, amps []float64, seconds, silence float64, ch int) []float32 {
	n, m := int(seconds*rate), int((seconds+silence)*rate)
	x := make([]float32, m*ch)
	for i := range n {
		v := 0.0
		for k, f := range freqs {
			v += amps[k] * math.Sin(2*math.Pi*f*float64(i)/rate)
		}
		for c := range ch {
			x[i*ch+c] = 0.9
		}
		x[i*ch+min(1, ch-1)] = float32(v)
	}
	return x
}

// measure runs x through a meter of interval seconds and returns its rows.
func measure(t *testing.T, x []float32, ch int, interval float64) []Row {
	t.Helper()
	m, err := NewMeter(Config{SampleRate: rate, Channels: ch, Channel: min(1, ch-1), IntervalSamples: int64(interval * rate)})
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	for len(x) > 0 {
		n, done := m.Write(x[:min(len(x), 999*ch)]) // blocks that straddle intervals
		x = x[n:]
		if done {
			r, _ := m.Take()
			rows = append(rows, r)
		}
	}
	if r, ok := m.Take(); ok {
		rows = append(rows, r)
	}
	return rows
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s: %.3f, want %.3f ± %.3f", what, got, want, tol)
	}
}

// TestLeqPowerAverage: LAeq and LCeq of a sum of sines equal its
// weighted power average computed here in float64 from the analog
// weightings, Σ aₖ²/2 · 10^(Gₖ/10) in dB re a full-scale sine's ½ (the
// tones lie below 2 kHz, where the digital weightings are within
// 0.05 dB of the analog ones); the first interval is left out (the
// 20-Hz high-pass's start-up).
func TestLeqPowerAverage(t *testing.T) {
	freqs, amps := []float64{50, 200, 1000, 1800}, []float64{0.3, 0.2, 0.1, 0.25}
	rows := measure(t, tone(freqs, amps, 3, 0, 2), 2, 1)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for _, w := range []dsp.Weighting{dsp.WeightA, dsp.WeightC} {
		ms := 0.0
		for k, f := range freqs {
			ms += amps[k] * amps[k] / 2 * math.Pow(10, w.GainDB(f)/10)
		}
		want := 10 * math.Log10(ms/0.5)
		for _, r := range rows[1:] {
			got := r.LAeq
			if w == dsp.WeightC {
				got = r.LCeq
			}
			near(t, "L"+w.String()+"eq", got, want, 0.06)
		}
	}
	peak := 0.0 // of the second interval, in float64
	for i := range rate {
		v := 0.0
		for k, f := range freqs {
			v += amps[k] * math.Sin(2*math.Pi*f*float64(i+rate)/rate)
		}
		peak = max(peak, math.Abs(v))
	}
	near(t, "sample peak", rows[1].SamplePeakDBFS, 20*math.Log10(peak), 1e-5)
	if rows[1].TruePeakDBTP < rows[1].SamplePeakDBFS {
		t.Errorf("true peak %.3f below sample peak %.3f", rows[1].TruePeakDBTP, rows[1].SamplePeakDBFS)
	}
}

// TestTimeWeightingBursts: the largest Fast and Slow levels of 4-kHz
// tone bursts (whole cycles, from a zero crossing) against the steady
// tone's level follow IEC 61672-1:2013 Table 4's reference,
// δref = 10·log10(1 − e^(−Tb/τ)): within the class 1 limits as we read
// them (±0.5 dB; +1/−1.5 dB at 2 ms), and within 0.05 dB of δref.
func TestTimeWeightingBursts(t *testing.T) {
	steady := measure(t, tone([]float64{4000}, []float64{0.5}, 1, 0, 1), 1, 0.5)[1].LAeq // after the filters' start
	cases := []struct {
		tau, tb, up, down float64
	}{
		{FastSeconds, 1, 0.5, 0.5}, {FastSeconds, 0.2, 0.5, 0.5}, {FastSeconds, 0.1, 0.5, 0.5},
		{FastSeconds, 0.01, 0.5, 0.5}, {FastSeconds, 0.002, 1, 1.5},
		{SlowSeconds, 1, 0.5, 0.5}, {SlowSeconds, 0.2, 0.5, 0.5}, {SlowSeconds, 0.05, 0.5, 0.5},
		{SlowSeconds, 0.002, 1, 1.5},
	}
	for _, c := range cases {
		r := measure(t, tone([]float64{4000}, []float64{0.5}, c.tb, 0.05, 1), 1, 10)[0] // the maxima come at the burst's end
		got := r.LAFmax
		if c.tau == SlowSeconds {
			got = r.LASmax
		}
		d, want := got-steady, 10*math.Log10(1-math.Exp(-c.tb/c.tau))
		if d > want+c.up || d < want-c.down {
			t.Errorf("τ %v s, burst %v s: %.3f dB re steady, want %.3f (+%v/−%v)", c.tau, c.tb, d, want, c.up, c.down)
		}
		// the exponential is exact: only the tone's ripple through the
		// averager (at 8 kHz, α = 1/(τ·fs)) parts it from δref
		near(t, "burst response re δref", d, want, 0.05)
	}
}

// TestTimeWeightingDecay: after a steady tone stops, the Fast and Slow
// levels fall at 10·log10(e)/τ dB per second (IEC 61672-1 5.8.2: 34.7
// and 4.3 dB/s): each 0.1-s interval's maximum is its start's level.
func TestTimeWeightingDecay(t *testing.T) {
	rows := measure(t, tone([]float64{1000}, []float64{0.5}, 2, 1, 1), 1, 0.1)
	for _, r := range rows[21:30] {
		prev := rows[int(math.Round(r.StartSeconds*10))-1]
		near(t, "Fast decay per 0.1 s", prev.LAFmax-r.LAFmax, 10*math.Log10(math.E)/FastSeconds*0.1, 0.01)
		near(t, "Slow decay per 0.1 s", prev.LASmax-r.LASmax, 10*math.Log10(math.E)/SlowSeconds*0.1, 0.01)
	}
}

// TestLCpeak: the C-weighted peak of IEC 61672-1:2013 Table 5's signals
// re the steady tone's C level (one cycle of 8 kHz: 3.4 dB, class 1
// ±2 dB; a positive or negative half cycle of 500 Hz: 2.4 dB, ±1 dB), and
// of a long 1-kHz burst of amplitude 0.5: a sine's peak, 20·log10 0.5 plus
// the 3.01 dB of peak over RMS.
func TestLCpeak(t *testing.T) {
	burst := func(f, cycles, sign float64) []float32 {
		x := make([]float32, rate)
		for i := range int(cycles * rate / f) {
			x[i+1000] = float32(sign * 0.5 * math.Sin(2*math.Pi*f*float64(i)/rate))
		}
		return x
	}
	for _, c := range []struct {
		name            string
		f, cycles, sign float64
		want, tol       float64
	}{
		{"8 kHz one cycle", 8000, 1, 1, 3.4, 2},
		{"500 Hz positive half", 500, 0.5, 1, 2.4, 1},
		{"500 Hz negative half", 500, 0.5, -1, 2.4, 1},
	} {
		steady := measure(t, tone([]float64{c.f}, []float64{0.5}, 1, 0, 1), 1, 0.5)[1].LCeq // after the filters' start
		r := measure(t, burst(c.f, c.cycles, c.sign), 1, 1)[0]
		near(t, c.name, r.LCpeak-steady, c.want, c.tol)
	}
	x := tone([]float64{1000}, []float64{0.5}, 0.5, 0, 1)
	for i := range 480 { // faded in over 10 ms: an abrupt start overshoots
		x[i] *= float32(0.5 - 0.5*math.Cos(math.Pi*float64(i)/480))
	}
	r := measure(t, x, 1, 1)[0]
	near(t, "1 kHz burst", r.LCpeak, 20*math.Log10(0.5)+10*math.Log10(2), 0.05)
}

// TestRowsAndCSV: 2.5 s in 1-s intervals is rows starting at 0, 1 and
// 2 s, the last 0.5 s long; silence reads -inf; the CSV line has the
// header's columns; a calibration moves the sound levels only.
func TestRowsAndCSV(t *testing.T) {
	rows := measure(t, tone([]float64{1000}, []float64{0.5}, 2, 0.5, 1), 1, 1)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for i, want := range []float64{0, 1, 2} {
		if rows[i].StartSeconds != want {
			t.Errorf("row %d starts at %v s, want %v", i, rows[i].StartSeconds, want)
		}
	}
	if rows[2].Samples != rate/2 {
		t.Errorf("last row %d samples, want %d", rows[2].Samples, rate/2)
	}
	silent := Row{StartSeconds: 2, LAeq: math.Inf(-1), LCeq: math.Inf(-1), LAFmax: -3, LASmax: -4, LCpeak: math.Inf(-1),
		SamplePeakDBFS: math.Inf(-1), TruePeakDBTP: math.Inf(-1)}
	if got := string(AppendCSV(nil, silent)); got != "2.000,-inf,-inf,-3.00,-4.00,-inf,-inf,-inf\n" {
		t.Errorf("CSV row %q", got)
	}
	line := string(AppendCSV(nil, rows[0]))
	if n, want := strings.Count(line, ","), strings.Count(CSVHeader, ","); n != want {
		t.Errorf("%d commas in %q, header has %d", n, line, want)
	}
	c := rows[0].Calibrated(94)
	near(t, "calibrated LAeq", c.LAeq, rows[0].LAeq+94, 1e-9)
	near(t, "calibrated LCpeak", c.LCpeak, rows[0].LCpeak+94, 1e-9)
	if c.SamplePeakDBFS != rows[0].SamplePeakDBFS || c.TruePeakDBTP != rows[0].TruePeakDBTP {
		t.Error("calibration moved the peaks in dBFS")
	}
}

func TestNewMeterErrors(t *testing.T) {
	for _, c := range []Config{
		{SampleRate: 0, Channels: 1, IntervalSamples: 1},
		{SampleRate: rate, Channels: 2, Channel: 2, IntervalSamples: 1},
		{SampleRate: rate, Channels: 1, IntervalSamples: 0},
	} {
		if _, err := NewMeter(c); err == nil || !strings.HasPrefix(err.Error(), "soundlevel: ") {
			t.Errorf("%+v: error %v", c, err)
		}
	}
}

func TestWriteAllocs(t *testing.T) {
	m, _ := NewMeter(Config{SampleRate: rate, Channels: 2, IntervalSamples: 4800})
	x := tone([]float64{1000}, []float64{0.5}, 0.05, 0, 2)
	if n := testing.AllocsPerRun(20, func() {
		for b := x; len(b) > 0; {
			k, done := m.Write(b)
			b = b[k:]
			if done {
				m.Take()
			}
		}
	}); n != 0 {
		t.Fatalf("Write/Take: %v allocs per block, want 0", n)
	}
}

// BenchmarkMeterWrite: one channel of a stereo 48-kHz stream measured in
// blocks of 1024 frames (the weightings, the time weightings and the
// true-peak interpolator); bytes are the block's samples.
func BenchmarkMeterWrite(b *testing.B) {
	m, _ := NewMeter(Config{SampleRate: rate, Channels: 2, IntervalSamples: rate})
	x := tone([]float64{1000}, []float64{0.5}, 1024.0/rate, 0, 2)
	b.SetBytes(int64(4 * len(x)))
	b.ReportAllocs()
	for b.Loop() {
		for blk := x; len(blk) > 0; {
			k, done := m.Write(blk)
			blk = blk[k:]
			if done {
				m.Take()
			}
		}
	}
}
