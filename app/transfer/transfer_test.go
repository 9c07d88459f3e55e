package transfer

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"testing"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// ---- an independent float64 model of the system under test

func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// system is a measurement of white noise x through a +6 dB Q 2 peaking
// EQ at 1 kHz, a 2nd-order high-pass at 80 Hz, polarity pol and a delay
// of d samples, with uncorrelated noise 40 dB down in every band (an
// independent noise through the same filters, 1/100 of the RMS); and its
// response.
func system(x []float64, fs, d, pol float64, seed uint64) ([]float64, func(f float64) complex128) {
	peq, hp := apptest.PeakingEQ(1000, 6, 2, fs), apptest.HighPass(80, math.Sqrt(0.5), fs)
	y := apptest.Delayed(hp.Filter(peq.Filter(x)), d)
	n := hp.Filter(peq.Filter(apptest.WhiteNoise(len(x), seed, 0.001)))
	for i := range y {
		y[i] = pol*y[i] + n[i]
	}
	return y, func(f float64) complex128 {
		return complex(pol, 0) * peq.Response(f, fs) * hp.Response(f, fs) * apptest.DelayResponse(d, f, fs)
	}
}

func engineSets(t *testing.T) []engine.Pair {
	return apptest.Engines(t, func(p, cpu gpufft.Engine) engine.Pair {
		return engine.Pair{Preferred: p, CPU: cpu, Strict: true}
	})
}

// A known system measured through the pipeline on each engine: the delay
// of each channel found (2.5 ms = 40 samples at 16 kHz, 40.37, and the
// measurement 25 samples early, inverted: polarity −1) to ±0.1 sample;
// magnitude within ±0.1 dB and phase, with the found delay taken out,
// within ±1° of the analytic response wherever γ² ≥ 0.95 from 50 Hz up
// (below, the frame's resolution blurs the high-pass's f² slope: see
// dsp's TestTransferKnownSystem); the engines agree within 0.01 dB and
// 0.1°.
func TestTransferKnownSystem(t *testing.T) {
	const fs, n = 16000, 16384
	frames := 40
	if testing.Short() {
		frames = 28
	}
	x := apptest.WhiteNoise(n/2*(frames+1), 7, 0.1)
	cases := []struct{ d, pol float64 }{{40, 1}, {40.37, 1}, {-25, -1}}
	var meas []Signal
	var want []func(float64) complex128
	for i, c := range cases {
		y, h := system(x, fs, c.d, c.pol, uint64(20+i))
		meas = append(meas, Signal{Index: i + 1, Samples: f32(y)})
		want = append(want, h)
	}
	o := Options{FFT: n, OverlapPct: 50, Window: window.Func{Kind: window.Hann}, Average: dual.AverageComplex, DelayAuto: true}
	var results []Result
	for _, eng := range engineSets(t) {
		res, err := AnalyzeSignals(context.Background(), f32(x), meas, fs, o, eng)
		if err != nil {
			t.Fatal(err)
		}
		name := eng.Preferred.Name()
		if res.Frames != frames || len(res.FreqHz) != n/2+1 || res.FreqHz[1] != float64(fs)/n {
			t.Fatalf("%s: %d frames, %d bins", name, res.Frames, len(res.FreqHz))
		}
		for i, ch := range res.Channels {
			c := cases[i]
			if !ch.Delay.Found || math.Abs(ch.Delay.Samples-c.d) > 0.1 || ch.Delay.Polarity != int(c.pol) || ch.Index != i+1 {
				t.Errorf("%s channel %d: delay %+v, want %v samples, polarity %v", name, i+1, ch.Delay, c.d, c.pol)
			}
			if ms := ch.DelayMs(fs); math.Abs(ms-c.d/fs*1000) > 0.1/fs*1000 {
				t.Errorf("%s channel %d: %v ms", name, i+1, ms)
			}
			checked, worstDB, worstDeg := 0, 0.0, 0.0
			for k, f := range res.FreqHz {
				if ch.Coherence[k] < 0.95 || f < 50 || k == n/2 {
					continue
				}
				h := want[i](f) * cmplx.Exp(complex(0, 2*math.Pi*f/fs*ch.Delay.Samples))
				worstDB = max(worstDB, math.Abs(ch.MagnitudeDB[k]-20*math.Log10(cmplx.Abs(h))))
				d := math.Mod(ch.PhaseDeg[k]-cmplx.Phase(h)*180/math.Pi+540, 360) - 180
				worstDeg = max(worstDeg, math.Abs(d))
				checked++
			}
			if checked < n/2*8/10 || worstDB > 0.1 || worstDeg > 1 {
				t.Errorf("%s channel %d: %d bins checked, worst %.3f dB, %.3f°", name, i+1, checked, worstDB, worstDeg)
			}
			t.Logf("%s channel %d: delay %.4f, %d bins, worst %.4f dB, %.4f°, mean γ² %.5f", name, i+1, ch.Delay.Samples, checked, worstDB, worstDeg, ch.MeanCoherence)
		}
		results = append(results, res)
	}
	if len(results) == 2 {
		worstDB, worstDeg := 0.0, 0.0
		for i := range cases {
			a, b := results[0].Channels[i], results[1].Channels[i]
			for k := range a.MagnitudeDB {
				if a.Coherence[k] < 0.5 {
					continue
				}
				worstDB = max(worstDB, math.Abs(a.MagnitudeDB[k]-b.MagnitudeDB[k]))
				worstDeg = max(worstDeg, math.Abs(math.Mod(a.PhaseDeg[k]-b.PhaseDeg[k]+540, 360)-180))
			}
		}
		if worstDB > 0.01 || worstDeg > 0.1 {
			t.Errorf("engines differ by up to %.4f dB, %.4f°", worstDB, worstDeg)
		}
		t.Logf("engines within %.2g dB, %.2g°", worstDB, worstDeg)
	}
}

// The pipeline's coherence (no delay taken out) matches scipy's
// definition within ±0.01 at every bin from 2 up (the mean removal
// changes bins 0 and 1 only), and with a known SNR of 3 (4.8 dB) its
// mean reads SNR/(1+SNR) = 0.75 within ±0.01; two independent noises
// report no delay.
func TestTransferCoherence(t *testing.T) {
	const fs, n = 8000, 1024
	frames := 256
	if testing.Short() {
		frames = 128 // the estimate's bias (1−γ²)²/frames is still 5e-4
	}
	x := apptest.WhiteNoise(n/2*(frames+1), 3, 1)
	const snr = 3.0
	yd := apptest.Delayed(x, 3)
	nz := apptest.WhiteNoise(len(x), 4, 1/math.Sqrt(snr))
	for i := range yd {
		yd[i] += nz[i]
	}
	unrelated := apptest.WhiteNoise(len(x), 5, 1)
	o := Options{FFT: n, OverlapPct: 50, Window: window.Func{Kind: window.Hann}, Average: dual.AverageComplex}
	for _, eng := range engineSets(t) {
		res, err := AnalyzeSignals(context.Background(), f32(x), []Signal{{1, f32(yd)}, {2, f32(unrelated)}}, fs, o, eng)
		if err != nil {
			t.Fatal(err)
		}
		ref := apptest.ScipyCoherence(x, yd, n)
		worst := 0.0
		for k := 2; k <= n/2; k++ {
			worst = max(worst, math.Abs(res.Channels[0].Coherence[k]-ref[k]))
		}
		if worst > 0.01 {
			t.Errorf("%s: coherence differs from scipy's by up to %.4f", eng.Preferred.Name(), worst)
		}
		if m := res.Channels[0].MeanCoherence; math.Abs(m-snr/(1+snr)) > 0.01 {
			t.Errorf("%s: mean coherence %.4f, want %.4f", eng.Preferred.Name(), m, snr/(1+snr))
		}
		t.Logf("%s: worst |γ² − scipy| %.2g, mean γ² %.4f", eng.Preferred.Name(), worst, res.Channels[0].MeanCoherence)

		o.DelayAuto = true
		res, err = AnalyzeSignals(context.Background(), f32(x), []Signal{{2, f32(unrelated)}}, fs, o, eng)
		o.DelayAuto = false
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Channels[0].Delay; d.Found || d.Samples != 0 {
			t.Errorf("%s: uncorrelated noise: delay %+v, want none found", eng.Preferred.Name(), d)
		}
	}
}

// Two files (reference, measurement) and one file with both give the
// same result; a given delay is taken out of the phase; bad channels and
// mismatched rates are input errors.
func TestTransferFiles(t *testing.T) {
	const fs, n = 8000, 1024
	x := apptest.WhiteNoise(n*10, 9, 0.2)
	y := apptest.Delayed(x, 8)
	dir := t.TempDir()
	both, refPath, measPath, other := dir+"/both.wav", dir+"/ref.wav", dir+"/meas.wav", dir+"/other.wav"
	apptest.WriteWAV(t, both, fs, [][]float32{f32(y), f32(x)})
	apptest.WriteWAV(t, refPath, fs, [][]float32{f32(x)})
	apptest.WriteWAV(t, measPath, fs, [][]float32{f32(y)})
	apptest.WriteWAV(t, other, 2*fs, [][]float32{f32(y)})
	eng := engine.Pair{Preferred: gpufft.NewCPU(0)}
	eng.CPU = eng.Preferred
	defer eng.Preferred.Close()
	o := Options{FFT: n, OverlapPct: 50, Window: window.Func{Kind: window.Hann}, DelayMs: 1}
	one, err := AnalyzeFiles(context.Background(), Inputs{Ref: both, RefChannel: 1}, o, eng)
	if err != nil {
		t.Fatal(err)
	}
	two, err := AnalyzeFiles(context.Background(), Inputs{Ref: refPath, Measurement: measPath}, o, eng)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Channels) != 1 || one.Channels[0].Index != 0 || !one.Channels[0].Given || one.Channels[0].Delay.Samples != 8 {
		t.Fatalf("one file: %+v", one.Channels[0].Delay)
	}
	for k := range one.FreqHz {
		a, b := one.Channels[0], two.Channels[0]
		if a.MagnitudeDB[k] != b.MagnitudeDB[k] || a.PhaseDeg[k] != b.PhaseDeg[k] {
			t.Fatalf("bin %d: one file %v dB %v°, two files %v dB %v°", k, a.MagnitudeDB[k], a.PhaseDeg[k], b.MagnitudeDB[k], b.PhaseDeg[k])
		}
		if f := one.FreqHz[k]; f > 100 && f < 3500 && (math.Abs(a.MagnitudeDB[k]) > 0.05 || math.Abs(a.PhaseDeg[k]) > 0.5) {
			t.Fatalf("bin %d: %v dB %v° for a pure delay taken out", k, a.MagnitudeDB[k], a.PhaseDeg[k])
		}
	}
	for name, in := range map[string]Inputs{
		"no channel 5":  {Ref: both, RefChannel: 1, Channels: []int{5}},
		"no reference":  {Ref: both, RefChannel: 2},
		"rates differ":  {Ref: refPath, Measurement: other},
		"missing file":  {Ref: dir + "/none.wav"},
		"only the ref":  {Ref: refPath},
		"fft too large": {Ref: both, RefChannel: 1},
	} {
		oo := o
		if name == "fft too large" {
			oo.FFT = 1 << 16
		}
		if _, err := AnalyzeFiles(context.Background(), in, oo, eng); !errors.As(err, new(*analysis.InputError)) {
			t.Errorf("%s: %v, want an input error", name, err)
		}
	}
}
