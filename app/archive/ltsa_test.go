package archive

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// welch64 is the reference: the one-sided power spectral density (per Hz)
// of x by Welch's method in float64, frames of n samples n/2 apart with
// window w, no padding; nil when x holds no whole frame.
func welch64(x []float64, n int, rate float64, w window.Func) []float64 {
	win := w.Values(n)
	sumSq := 0.0
	for _, v := range win {
		sumSq += v * v
	}
	psd := make([]float64, n/2+1)
	frames := 0
	for s := 0; s+n <= len(x); s += n / 2 {
		fr := make([]complex128, n)
		for i := range n {
			fr[i] = complex(x[s+i]*win[i], 0)
		}
		X := apptest.FFT64(fr)
		for k := range psd {
			c := 2.0
			if k == 0 || k == n/2 {
				c = 1
			}
			re, im := real(X[k]), imag(X[k])
			psd[k] += c * (re*re + im*im) / (rate * sumSq)
		}
		frames++
	}
	if frames == 0 {
		return nil
	}
	for k := range psd {
		psd[k] /= float64(frames)
	}
	return psd
}

// firstAtOrAfter is the index of the first sample, of a stream starting
// at t0 at an integer rate, at or after instant t (integer arithmetic).
func firstAtOrAfter(t0, t time.Time, rate int64) int64 {
	ns := t.Sub(t0).Nanoseconds()
	return max(0, (ns*rate+int64(time.Second)-1)/int64(time.Second))
}

// TestLTSAEqualsWelch64 checks every LTSA bin against a float64 Welch of
// the samples whose instants fall in the bin, across a seamless file
// boundary (frames run across it) and across a gap (no row for the bin
// the gap empties), on the second channel of stereo files.
func TestLTSAEqualsWelch64(t *testing.T) {
	dir := t.TempDir()
	const rate, fft = 8000, 1024
	type span struct {
		start, secs float64
	}
	// A 12:00:00.3–01.8, B follows (the boundary inside bin 12:00:01), a
	// gap 12:00:03.3–05.0 (bin 12:00:04 empty), C 12:00:05–06.2
	spans := []span{{0.3, 1.5}, {1.8, 1.5}, {5, 1.2}}
	var files []File
	var streams [][]float64
	for i, s := range spans {
		n := int(s.secs * rate)
		left := noise(uint64(10+i), n, rate, 0.5, 0, 0)
		right := noise(uint64(20+i), n, rate, 0.01, 0.3, 1000+100*float64(i))
		path := filepath.Join(dir, "f"+string(rune('a'+i))+".wav")
		writeWAV(t, path, rate, [][]float32{left, right}, nil)
		f, err := describe(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Start = at(s.start)
		files = append(files, f)
		x := make([]float64, n)
		for j, v := range right {
			x[j] = float64(v)
		}
		if i == 1 {
			streams[0] = append(streams[0], x...) // B continues A's stream
		} else {
			streams = append(streams, x)
		}
	}
	starts := []time.Time{at(0.3), at(5)}
	// the CPU engine and, where OpenCL works, the GPU engine; with the
	// read-ahead's blocks too, and cut shorter than a frame and at odd
	// lengths (frames run across blocks: the samples left are moved into
	// the next block's headroom)
	for _, e := range apptest.Engines(t, func(p, _ gpufft.Engine) gpufft.Engine { return p }) {
		for _, block := range []int{prefetchSamples, 700, 3001} {
			t.Run(fmt.Sprintf("%s/block=%d", e.Name(), block), func(t *testing.T) {
				defer func(was int) { prefetchSamples = was }(prefetchSamples)
				prefetchSamples = block
				checkLTSAWelch64(t, e, files, streams, starts, 1)
			})
		}
	}
}

func checkLTSAWelch64(t *testing.T, e gpufft.Engine, files []File, streams [][]float64, starts []time.Time, channel int) []Row {
	const rate, fft = 8000, 1024
	var rows []Row
	cfg := LTSAConfig{Average: time.Second, FFT: fft, Channel: channel, Window: window.Func{Kind: window.Hann}}
	freqs, err := LTSA(context.Background(), e, files, cfg, func(r Row) error { rows = append(rows, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(freqs) != fft/2+1 || freqs[1] != float64(rate)/fft {
		t.Fatalf("freqs: %d, df %v", len(freqs), freqs[1])
	}
	var want []time.Time
	for s := range 7 {
		if s != 4 {
			want = append(want, at(float64(s)))
		}
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d (bins 0–6 s less the gap's 4 s)", len(rows), len(want))
	}
	for i, r := range rows {
		if !r.Start.Equal(want[i]) {
			t.Fatalf("row %d starts %v, want %v", i, r.Start, want[i])
		}
		// the bin's samples in their stream
		si := 0
		if r.Start.After(at(4)) {
			si = 1
		}
		x := streams[si]
		lo := min(firstAtOrAfter(starts[si], r.Start, rate), int64(len(x)))
		hi := min(firstAtOrAfter(starts[si], r.Start.Add(time.Second), rate), int64(len(x)))
		if got, w := r.Seconds, float64(hi-lo)/rate; math.Abs(got-w) > 1e-9 {
			t.Errorf("row %v: %v s of audio, want %v", r.Start, got, w)
		}
		ref := welch64(x[lo:hi], fft, rate, cfg.Window)
		worst := 0.0
		for k, p := range ref {
			worst = max(worst, math.Abs(float64(r.Level[k])-10*math.Log10(p)))
		}
		if worst > 0.01 {
			t.Errorf("row %v: worst bin %.4f dB from the float64 Welch, want ≤ 0.01", r.Start, worst)
		}
	}
	// a span (a zoomed view): only its bins, the same values
	cfg.From, cfg.To = at(1.5), at(3)
	var part []Row
	if _, err := LTSA(context.Background(), e, files, cfg, func(r Row) error { part = append(part, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(part) != 2 || !part[0].Start.Equal(rows[1].Start) || !part[1].Start.Equal(rows[2].Start) {
		t.Fatalf("From 12:00:01.5 To 12:00:03: %d rows, want the bins of 12:00:01 and 12:00:02", len(part))
	}
	for i, r := range part {
		for k := range r.Level {
			if r.Level[k] != rows[i+1].Level[k] || r.Seconds != rows[i+1].Seconds {
				t.Fatalf("span row %d bin %d: %v, the whole run's %v", i, k, r.Level[k], rows[i+1].Level[k])
			}
		}
	}
	return rows
}

// TestLTSAInt16 checks 16-bit files of one channel, read as int16 and
// converted by the engine (gpufft.Int16Executor: in the CPU engine's
// first FFT stage, on the OpenCL device):
// against the float64 Welch as TestLTSAEqualsWelch64 does (a seamless
// boundary, a gap, read-ahead blocks shorter than a frame and of odd
// lengths), and bit for bit against the same files decoded to float32
// first (File.Int16 off); the int16 path must have run.
func TestLTSAInt16(t *testing.T) {
	dir := t.TempDir()
	const rate = 8000
	spans := []struct{ start, secs float64 }{{0.3, 1.5}, {1.8, 1.5}, {5, 1.2}}
	var files []File
	var streams [][]float64
	for i, s := range spans {
		x := noise(uint64(30+i), int(s.secs*rate), rate, 0.3, 0.4, 700+50*float64(i))
		pcm := make([]int16, len(x))
		ref := make([]float64, len(x))
		for j, v := range x {
			pcm[j] = int16(math.Round(float64(v) * 32767))
			ref[j] = float64(pcm[j]) / (1 << 15)
		}
		path := filepath.Join(dir, "m"+string(rune('a'+i))+".wav")
		writeWAV16(t, path, rate, pcm)
		f, err := describe(path)
		if err != nil {
			t.Fatal(err)
		}
		if !f.Int16 || f.Channels != 1 {
			t.Fatalf("%s: Int16 %v, %d channels; want 16-bit, one channel", path, f.Int16, f.Channels)
		}
		f.Start = at(s.start)
		files = append(files, f)
		if i == 1 {
			streams[0] = append(streams[0], ref...)
		} else {
			streams = append(streams, ref)
		}
	}
	decoded := slices.Clone(files)
	for i := range decoded {
		decoded[i].Int16 = false
	}
	starts := []time.Time{at(0.3), at(5)}
	// the CPU engine and, where OpenCL works, the GPU engine
	for _, eng := range apptest.Engines(t, func(p, _ gpufft.Engine) gpufft.Engine { return p }) {
		for _, block := range []int{prefetchSamples, 700, 3001} {
			t.Run(fmt.Sprintf("%s/block=%d", eng.Name(), block), func(t *testing.T) {
				defer func(was int) { prefetchSamples = was }(prefetchSamples)
				prefetchSamples = block
				e := int16Counter{Engine: eng}
				rows := checkLTSAWelch64(t, &e, files, streams, starts, 0)
				if e.calls == 0 {
					t.Fatal("the 16-bit files were not read as int16")
				}
				f := int16Counter{Engine: eng}
				want := checkLTSAWelch64(t, &f, decoded, streams, starts, 0)
				if f.calls != 0 {
					t.Fatalf("decoded files: %d ExecuteInt16 calls", f.calls)
				}
				for i, r := range rows {
					for k, v := range r.Level {
						if math.Float32bits(v) != math.Float32bits(want[i].Level[k]) {
							t.Fatalf("row %v bin %d: %v as int16, %v decoded", r.Start, k, v, want[i].Level[k])
						}
					}
				}
			})
		}
	}
}

// int16Counter is an engine whose spectrogram plans count their
// ExecuteInt16 calls (and read from the OpenCL plans' pinned memory).
type int16Counter struct {
	gpufft.Engine
	calls int
}

func (c *int16Counter) NewSpectrogram(cfg gpufft.SpectrogramConfig) (gpufft.SpectrogramPlan, error) {
	p, err := c.Engine.NewSpectrogram(cfg)
	if err != nil {
		return nil, err
	}
	return countedPlan{p, &c.calls}, nil
}

type countedPlan struct {
	gpufft.SpectrogramPlan
	calls *int
}

func (p countedPlan) ExecuteInt16(dst []float32, src []int16) (int, error) {
	*p.calls++
	return p.SpectrogramPlan.(gpufft.Int16Executor).ExecuteInt16(dst, src)
}

// Int16Buffer passes the plan's pinned memory on where it has some (the
// OpenCL engine's), else fails, as a plan whose pinned memory ran out.
func (p countedPlan) Int16Buffer(n int) ([]int16, error) {
	if st, ok := p.SpectrogramPlan.(gpufft.Int16Stager); ok {
		return st.Int16Buffer(n)
	}
	return nil, errors.New("no pinned memory")
}

// writeWAV16 writes 16-bit PCM WAV of one channel.
func writeWAV16(t testing.TB, path string, rate int, x []int16) {
	t.Helper()
	b := pcm16Header(rate, len(x))
	for _, v := range x {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCalibrationRoundTrip checks that a sine of known pressure reads its
// level: the LTSA's density integrated over the tone's bins, and the HMD
// bands around it summed, give 20·log10(p_rms) in the calibrated unit.
func TestCalibrationRoundTrip(t *testing.T) {
	dir := t.TempDir()
	const rate, hz = 16000, 1000
	cases := []struct {
		name    string
		cal     Calibration
		pRMS    float64 // in the unit's pressure: µPa, or Pa for a microphone
		wantDB  float64
		unit    string
		curveAt float64
	}{
		{"hydrophone", Calibration{Transducer: Hydrophone, SensitivityDB: -165, GainDB: 20, FullScaleV: 2.5}, 1e6, 120, "dB re 1 µPa²/Hz", 0},
		{"curve", Calibration{Transducer: Hydrophone, GainDB: 20, FullScaleV: 2.5,
			Curve: []CurvePoint{{100, -170}, {10000, -160}}}, 1e6, 120, "dB re 1 µPa²/Hz", -165}, // log-linear: −165 at 1 kHz
		{"microphone", Calibration{Transducer: Microphone, SensitivityDB: -26, FullScaleV: 1}, 1, 93.9794, "dB re (20 µPa)²/Hz", 0},
		{"uncalibrated", Calibration{}, 0, -3.0103 - 20*math.Log10(1/0.25), "dBFS/Hz", 0},
	}
	e := gpufft.NewCPU(1)
	defer e.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sens := c.cal.SensitivityDB
			if c.curveAt != 0 {
				sens = c.curveAt
			}
			amp := 0.25 // full-scale units; a calibrated case derives it from the pressure
			if c.cal.Transducer != Uncalibrated {
				amp = c.pRMS * math.Sqrt2 * math.Pow(10, (sens+c.cal.GainDB)/20) / c.cal.FullScaleV
			}
			path := filepath.Join(dir, c.name+".wav")
			writeWAV(t, path, rate, [][]float32{noise(1, 2*rate, rate, 0, amp, hz)}, nil)
			f, err := describe(path)
			if err != nil {
				t.Fatal(err)
			}
			f.Start = at(0)
			if got := c.cal.Unit(); got != c.unit {
				t.Errorf("Unit = %q, want %q", got, c.unit)
			}
			var rows []Row
			freqs, err := LTSA(context.Background(), e, []File{f}, LTSAConfig{Average: 2 * time.Second, FFT: 1024,
				Window: window.Func{Kind: window.Hann}, Cal: c.cal}, func(r Row) error { rows = append(rows, r); return nil })
			if err != nil || len(rows) != 1 {
				t.Fatalf("rows %d, err %v", len(rows), err)
			}
			df := freqs[1]
			total := 0.0
			for k, l := range rows[0].Level {
				if math.Abs(freqs[k]-hz) < 10*df {
					total += math.Pow(10, float64(l)/10) * df
				}
			}
			if got := 10 * math.Log10(total); math.Abs(got-c.wantDB) > 0.01 {
				t.Errorf("LTSA: tone reads %.4f, want %.4f", got, c.wantDB)
			}
			var hmd []Row
			if err := HMD(context.Background(), e, []File{f}, HMDConfig{Cal: c.cal}, func(r Row) error { hmd = append(hmd, r); return nil }); err != nil || len(hmd) != 1 {
				t.Fatalf("HMD rows %d, err %v", len(hmd), err)
			}
			total = 0
			for b, band := range HMDBands(rate) {
				if band.Centre > 900 && band.Centre < 1100 {
					total += math.Pow(10, float64(hmd[0].Level[b])/10)
				}
			}
			if got := 10 * math.Log10(total); math.Abs(got-c.wantDB) > 0.01 {
				t.Errorf("HMD: tone reads %.4f, want %.4f", got, c.wantDB)
			}
		})
	}
}

// TestLTSAInt16Changed: a file catalogued as 16-bit PCM and rewritten as
// float before the analysis reads it is an error, not misread bytes.
func TestLTSAInt16Changed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.wav")
	writeWAV16(t, path, 8000, make([]int16, 8000))
	f, err := describe(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Start = at(0)
	writeWAV(t, path, 8000, [][]float32{make([]float32, 8000)}, nil)
	e := gpufft.NewCPU(0)
	defer e.Close()
	_, err = LTSA(context.Background(), e, []File{f}, LTSAConfig{Average: time.Second, FFT: 1024}, func(Row) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "no longer 16-bit PCM") {
		t.Fatalf("err %v, want the file's change reported", err)
	}
}
