package gpufft

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/prismaudio/prism/window"
)

// TestTransferPeaks: Peaks finds each channel's GCC-PHAT impulse-response
// peak as a float64 reference does from the averages Read returns (the
// weighting, the inverse transform of the whole Hermitian spectrum by
// fft64, the largest |value|): the same index, the value and the sum of
// squares within 1e-4 of the peak's; on transferSignal that index is the
// channel's delay (3·(c−1) samples) with its sign (odd c inverted); on
// both engines, single-pass and four-step sizes, FIFO and exponential;
// and Peaks does not allocate after its first call.
func TestTransferPeaks(t *testing.T) {
	cases := []TransferConfig{
		{Size: 256, Hop: 128, Channels: 3, Frames: 4},
		{Size: 1024, Hop: 512, Channels: 17, ExpAlpha: 0.25},
	}
	if !testing.Short() {
		cases = append(cases, TransferConfig{Size: 65536, Hop: 32768, Channels: 2, Frames: 2})
	}
	for i, cfg := range cases {
		for _, e := range engines(t) {
			cfg.Window = window.Func{Kind: window.Hann}
			cfg.MaxSamples = 3 * cfg.Size
			name := fmt.Sprintf("%s/N=%d/M=%d", e.Name(), cfg.Size, cfg.Channels)
			p, err := e.(TransferEngine).NewTransfer(cfg)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			if _, err := p.Execute(transferSignal(rng, cfg.Channels, cfg.MaxSamples)); err != nil {
				t.Fatal(err)
			}
			avg := make([]float32, cfg.DstLen())
			if err := p.Read(avg); err != nil {
				t.Fatal(err)
			}
			got := make([]TransferPeak, cfg.Channels)
			if err := p.Peaks(got); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for c, pk := range got {
				want := peaksRef(avg, cfg, c)
				tol := 1e-4 * math.Abs(float64(want.Value))
				if pk.Index != want.Index || math.Abs(float64(pk.Value-want.Value)) > tol ||
					math.Abs(float64(pk.SumSquares-want.SumSquares)) > 1e-4*float64(want.SumSquares) {
					t.Fatalf("%s: channel %d: %+v, want %+v", name, c, pk, want)
				}
				if lag := 3 * c; pk.Index != lag || (pk.Value < 0) != (c%2 == 1) {
					t.Errorf("%s: channel %d: peak %+v, want lag %d, inverted %v", name, c, pk, lag, c%2 == 1)
				}
			}
			if !raceEnabled {
				if a := testing.AllocsPerRun(5, func() { p.Peaks(got) }); a != 0 {
					t.Errorf("%s: Peaks: %v allocs", name, a)
				}
			}
			p.Close()
			if err := p.Peaks(got); err != ErrClosed {
				t.Errorf("%s: Peaks after Close: %v, want ErrClosed", name, err)
			}
		}
	}
}

// peaksRef is channel c's peak in float64 from the averages avg.
func peaksRef(avg []float32, cfg TransferConfig, c int) TransferPeak {
	n, bins := cfg.Size, cfg.Bins()
	full := make([]complex128, n)
	for k := range bins {
		v := avg[(c*bins+k)*TransferValues:]
		g := complex(float64(v[TransferGxyRe]), float64(v[TransferGxyIm]))
		if k == 0 || k == bins-1 {
			g = complex(real(g), 0)
		}
		if a := cmplx.Abs(g); a > 0 {
			g /= complex(a, 0)
		}
		full[k] = g
		if k > 0 && k < bins-1 {
			full[n-k] = cmplx.Conj(g)
		}
	}
	// the inverse transform as the conjugate of the forward one of the
	// conjugate, over n
	for i := range full {
		full[i] = cmplx.Conj(full[i])
	}
	ir := fft64(full)
	best, at, ss := -1.0, 0, 0.0
	for i, z := range ir {
		v := real(z) / float64(n)
		ss += v * v
		if math.Abs(v) > best {
			best, at = math.Abs(v), i
		}
	}
	return TransferPeak{Index: at, Value: float32(real(ir[at]) / float64(n)), SumSquares: float32(ss)}
}
