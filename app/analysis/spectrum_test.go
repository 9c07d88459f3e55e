package analysis

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestAnalyzeSpectrumEngines: on every engine the Welch spectrum of a
// stereo file's mix (sine + noise) equals a float64 reference, the mean of
// apptest.STFT64's frame powers (dBFS, independent of dsp.Welch), within
// 0.01 dB on every interior bin above −150 dBFS, across batch boundaries;
// the peak estimate finds the sine within 0.02 bin and 0.02 dB.
func TestAnalyzeSpectrumEngines(t *testing.T) {
	const fs, n, f0 = 48000, 2048, 1234.5
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 5000 // many batches
	r := rand.New(rand.NewPCG(4, 4))
	l, rt := make([]float32, 3*fs), make([]float32, 3*fs)
	mix := make([]float64, len(l))
	for i := range l {
		s := 0.25 * math.Sin(2*math.Pi*f0*float64(i)/fs)
		l[i] = float32(s + 1e-3*r.NormFloat64())
		rt[i] = float32(s + 1e-3*r.NormFloat64())
		mix[i] = float64((l[i] + rt[i]) * 0.5)
	}
	in := filepath.Join(t.TempDir(), "st.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{l, rt})
	win := window.Func{Kind: window.BlackmanHarris}
	const hop = n / 4 // 75 % overlap
	frames := apptest.STFT64(mix, n, hop, win)
	ref := make([]float64, n/2+1)
	for _, row := range frames {
		for k, db := range row {
			ref[k] += math.Pow(10, db/10) / float64(len(frames))
		}
	}
	for _, eng := range apptest.Engines(t, func(preferred, _ gpufft.Engine) gpufft.Engine { return preferred }) {
		o := SpectrumOptions{FFT: n, OverlapPct: 75, Window: win, Channel: -1, Unit: dsp.DBFS}
		res, err := analyzeSpectrum(context.Background(), in, o, eng)
		if err != nil {
			t.Fatalf("%s: %v", eng.Name(), err)
		}
		if res.Frames != len(frames) || res.Hop != hop {
			t.Fatalf("%s: %d frames hop %d, want %d, %d", eng.Name(), res.Frames, res.Hop, len(frames), hop)
		}
		worst := 0.0
		for k := 1; k < n/2; k++ {
			want := 10 * math.Log10(ref[k])
			if want > -150 {
				worst = max(worst, math.Abs(res.Levels[0][k]-want))
			}
		}
		t.Logf("%s: worst difference %.2g dB", eng.Name(), worst)
		if worst > 0.01 {
			t.Errorf("%s: Welch spectrum off the float64 reference by %.4f dB", eng.Name(), worst)
		}
		if d := math.Abs(res.Peak.FreqHz-f0) / (fs / n); d > 0.02 || math.Abs(res.PeakDB-20*math.Log10(0.25)) > 0.02 {
			t.Errorf("%s: peak %.3f Hz %.3f dBFS, want %v Hz %.3f", eng.Name(), res.Peak.FreqHz, res.PeakDB, f0, 20*math.Log10(0.25))
		}
	}
}

// TestAnalyzeSpectrumProgress: the progress callback counts the frames
// averaged up to the total the file's length gives, in order.
func TestAnalyzeSpectrumProgress(t *testing.T) {
	const fs, n = 48000, 2048
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 5000 // many batches
	x := make([]float32, 2*fs+123)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*1000*float64(i)/fs))
	}
	in := filepath.Join(t.TempDir(), "p.wav")
	apptest.WriteWAV(t, in, fs, [][]float32{x})
	var calls, last, total int
	o := SpectrumOptions{FFT: n, OverlapPct: 50, Window: window.Func{Kind: window.Hann}, Channel: -1, Unit: dsp.DBFS,
		Progress: func(done, tot int) {
			if done < last {
				t.Errorf("progress went back from %d to %d", last, done)
			}
			calls, last, total = calls+1, done, tot
		}}
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	res, err := analyzeSpectrum(context.Background(), in, o, cpu)
	if err != nil {
		t.Fatal(err)
	}
	want := dsp.FrameCount(int64(len(x)), n, n/2)
	if calls < 2 || last != res.Frames || total != want || res.Frames != want {
		t.Errorf("%d calls, last %d of %d; %d frames analysed, %d expected", calls, last, total, res.Frames, want)
	}
}
