package transfer

import (
	"fmt"
	"math"
	"testing"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestLiveTransferDelayRange: the live tracker (Feed, the delay re-found
// after every batch of 2 frames and applied) finds delays from −1 s (the
// measurement leading the reference) to +1 s at 8 kHz (N = 32768: lags
// ±2.05 s), exact to ±1 sample when whole and to ±0.1 sample when
// fractional, with the polarity, against y = ±x delayed by the float64
// windowed sinc (apptest.Delayed) plus noise 40 dB down; the phase then
// reads flat where the band is coherent, the delay taken out.
func TestLiveTransferDelayRange(t *testing.T) {
	const fs, n, hop = 8000, 32768, 8192
	delays := []float64{-8000, -4321.75, -0.4, 120.37, 2345.5, 8000}
	if testing.Short() {
		delays = []float64{-8000, -4321.75, 120.37, 8000}
	}
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	for i, d := range delays {
		pol := 1.0
		if i%2 == 1 {
			pol = -1
		}
		t.Run(fmt.Sprintf("delay=%v", d), func(t *testing.T) {
			const frames, margin = 14, 8400
			length := n + (frames-1)*hop + 2*margin
			x := apptest.WhiteNoise(length, uint64(40+i), 0.1)
			y := apptest.Delayed(x, d)
			noise := apptest.WhiteNoise(length, uint64(80+i), 0.001)
			in := make([]float32, 2*(length-2*margin))
			for j := range length - 2*margin {
				in[2*j], in[2*j+1] = float32(x[margin+j]), float32(pol*y[margin+j]+noise[margin+j])
			}
			tr, err := NewLiveFeed(fs, 2, engine.Pair{Preferred: cpu, CPU: cpu}, LiveSettings{FFT: n, Hop: hop,
				Window: window.Func{Kind: window.Hann}, Average: dual.AverageComplex, Frames: 4, Track: true, TrackEvery: 1, BatchFrames: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if _, err := tr.Feed(in); err != nil {
				t.Fatal(err)
			}
			var res LiveResult
			tr.Latest(&res)
			got := res.Delays[0]
			tol := 0.1
			if d == math.Trunc(d) {
				tol = 1
			}
			if !got.Delay.Found || got.NoPeak || math.Abs(got.Delay.Samples-d) > tol || got.Delay.Polarity != int(pol) {
				t.Fatalf("tracked %+v, want %v samples (±%v), polarity %v", got, d, tol, pol)
			}
			if res.Averaged < 4 {
				t.Fatalf("%d frames averaged since the delay was applied, want 4", res.Averaged)
			}
			// flat phase from 5 % to 80 % of the band (the windowed sinc's
			// own response strays above that): the least-squares line
			// through the coherent bins' (γ² ≥ 0.99) phase has the polarity's offset
			// (±0.2°) and no slope left (a residual delay under 0.01
			// sample); each bin lies within 5° of it (4 overlapping
			// averages of white noise: bins where the stimulus is weak
			// stray a degree or two)
			want := 0.0
			if pol < 0 {
				want = 180
			}
			var sk, sp, skk, skp, cnt float64
			for k := n / 40; k < n/2*8/10; k++ {
				if res.Coherence[0][k] < 0.99 {
					continue
				}
				e := math.Remainder(res.PhaseDeg[0][k]-want, 360)
				if math.Abs(e) > 5 {
					t.Fatalf("bin %d: phase %.3f°, want %v (γ² %.4f)", k, res.PhaseDeg[0][k], want, res.Coherence[0][k])
				}
				kf := float64(k)
				sk, sp, skk, skp, cnt = sk+kf, sp+e, skk+kf*kf, skp+kf*e, cnt+1
			}
			if cnt < n/4 {
				t.Fatalf("%v coherent bins", cnt)
			}
			slope := (cnt*skp - sk*sp) / (cnt*skk - sk*sk)
			offset := (sp - slope*sk) / cnt
			if rest := -slope * n / 360; math.Abs(offset) > 0.2 || math.Abs(rest) > 0.01 {
				t.Errorf("phase line: %.3f° off %v, a delay of %.4f samples left", offset, want, rest)
			}
			t.Logf("error %.4f samples, %d finds; phase line %.3f° off, %.4f samples left", got.Delay.Samples-d, got.Finds, offset, -slope*n/360)
		})
	}
}

// TestLiveTransferExponentialWeight: the exponential average's weights
// are the analytic ones. One period of periodic pink noise per frame
// (rectangular window, hop N: every frame's X is the same), the system's
// gain g1 for 4 frames, then g2: after j frames of g2 the complex
// average reads H = g2 + (g1 − g2)·(1 − α)^j and the polar one
// |H|² = g2² + (g1² − g2²)·(1 − α)^j (within 0.01 dB at every bin), on
// every engine, with α = dual.ExpAlpha(τ, hop, rate), whose weight falls
// to 1/e after τ seconds of frames.
func TestLiveTransferExponentialWeight(t *testing.T) {
	const n, rate, tau, g1, g2 = 1024, 48000, 0.1, 1.0, 0.25
	alpha := dual.ExpAlpha(tau, n, rate)
	if w := math.Pow(1-alpha, tau*rate/n); math.Abs(w-1/math.E) > 1e-12 {
		t.Fatalf("α %v: weight %v after τ, want 1/e", alpha, w)
	}
	x := audio.PinkPeriodic(n)
	frame := func(g float64) []float32 {
		in := make([]float32, 2*n)
		for i, v := range x {
			in[2*i], in[2*i+1] = v, float32(g*float64(v))
		}
		return in
	}
	for _, engs := range apptest.Engines(t, func(p, c gpufft.Engine) engine.Pair { return engine.Pair{Preferred: p, CPU: c} }) {
		for _, avg := range []dual.TransferAverage{dual.AverageComplex, dual.AveragePolar} {
			tr, err := NewLiveFeed(rate, 2, engs, LiveSettings{FFT: n, Hop: n, Window: window.Func{Kind: window.Rect},
				Average: avg, Frames: 0, ExpAlpha: alpha})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s/%s", engs.Preferred.Name(), avg)
			for range 4 {
				if _, err := tr.Feed(frame(g1)); err != nil {
					t.Fatal(err)
				}
			}
			var res LiveResult
			for j := 1; j <= 12; j++ {
				if f, err := tr.Feed(frame(g2)); err != nil || f != 1 {
					t.Fatalf("%s: Feed: %d frames, %v", name, f, err)
				}
				if j != 1 && j != 3 && j != 12 {
					continue
				}
				tr.Latest(&res)
				w := math.Pow(1-alpha, float64(j))
				want := 20 * math.Log10(g2+(g1-g2)*w)
				if avg == dual.AveragePolar {
					want = 10 * math.Log10(g2*g2+(g1*g1-g2*g2)*w)
				}
				for k := 1; k < n/2; k++ {
					if m := res.MagnitudeDB[0][k]; math.Abs(m-want) > 0.01 || math.Abs(res.PhaseDeg[0][k]) > 0.1 {
						t.Fatalf("%s: after %d frames of g2, bin %d: %.4f dB %.3f°, want %.4f dB 0°", name, j, k, m, res.PhaseDeg[0][k], want)
					}
				}
			}
			tr.Close()
		}
	}
}
