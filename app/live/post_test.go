package live

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/gpufft"
)

// TestPostMatchesReference: the batch-ordered, multi-worker averages and
// holds equal a float64 reference that takes the same frames one at a
// time, whatever the batch sizes (exponential and linear averages, peak
// hold with its hold time and decay, min hold, the latest spectrum).
func TestPostMatchesReference(t *testing.T) {
	const fft, outCh, frames = 8192, 3, 300
	s := LiveSettings{FFT: fft, Hop: 512, Window: gpufft.Window{Kind: gpufft.Hann}, AvgTau: 50 * time.Millisecond,
		AvgFrames: 7, PeakHold: 40 * time.Millisecond, PeakDecay: 30}.withDefaults()
	geo := Geometry{Rate: 48000, FFT: fft, Hop: s.Hop}
	var p postState
	p.reset(s, geo, outCh, nil)
	defer p.close()
	bins := geo.Bins()
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float32, frames*outCh) // [f*outCh+c]
	for i := range rows {
		rows[i] = make([]float32, bins)
		for k := range rows[i] {
			rows[i][k] = float32(rng.ExpFloat64() * math.Pow(10, rng.Float64()*6-3))
		}
	}
	// float64 reference, frame by frame
	type ref struct{ exp, peak, min, lin []float64 }
	refs := make([]ref, outCh)
	ring := make([][][]float64, outCh)
	ages := make([][]int, outCh)
	g2 := p.gain2
	for c := range refs {
		refs[c] = ref{make([]float64, bins), make([]float64, bins), make([]float64, bins), make([]float64, bins)}
		ages[c] = make([]int, bins)
		for k := range refs[c].min {
			refs[c].min[k] = math.Inf(1)
		}
	}
	alpha, decay := float64(p.alpha), float64(p.decay)
	for f := range frames {
		for c := range outCh {
			r := &refs[c]
			v := make([]float64, bins)
			for k := range v {
				v[k] = float64(rows[f*outCh+c][k]) * float64(g2[k])
				if f == 0 {
					r.exp[k] = v[k]
				}
				r.exp[k] += alpha * (v[k] - r.exp[k])
				if v[k] >= r.peak[k] {
					r.peak[k], ages[c][k] = v[k], 0
				} else if ages[c][k]++; ages[c][k] > int(p.holdFrames) {
					r.peak[k] = max(v[k], r.peak[k]*decay)
				}
				r.min[k] = min(r.min[k], v[k])
			}
			ring[c] = append(ring[c], v)
			if len(ring[c]) > s.AvgFrames {
				ring[c] = ring[c][1:]
			}
		}
	}
	// the same frames in batches of varying size
	for f := 0; f < frames; {
		n := min(frames-f, 1+rng.IntN(37))
		out := make([]float32, outCh*n*bins)
		for c := range outCh {
			for i := range n {
				copy(out[(c*n+i)*bins:], rows[(f+i)*outCh+c])
			}
		}
		p.batch(out, n)
		f += n
	}
	for c := range outCh {
		st := &p.chans[c]
		for k := 0; k < bins; k += 7 {
			lin := 0.0
			for _, v := range ring[c] {
				lin += v[k]
			}
			lin /= float64(len(ring[c]))
			last := float64(rows[(frames-1)*outCh+c][k]) * float64(g2[k])
			for _, q := range []struct {
				name      string
				got, want float64
			}{{"exp", float64(st.exp[k]), refs[c].exp[k]}, {"peak", float64(st.peak[k]), refs[c].peak[k]},
				{"min", float64(st.min[k]), refs[c].min[k]}, {"lin", float64(st.lin[k]), lin}, {"current", float64(st.pow[k]), last}} {
				// float32 state over 300 frames: relative 1e-4 (the linear
				// sum is float64, its ring float32)
				if math.Abs(q.got-q.want) > 1e-4*math.Abs(q.want)+1e-30 {
					t.Fatalf("channel %d bin %d %s: %g, want %g", c, k, q.name, q.got, q.want)
				}
			}
		}
	}
}

// TestFloorsAgree: the host's dB floor for bands and meters is the
// engines'.
func TestFloorsAgree(t *testing.T) {
	if dsp.FloorDB != gpufft.FloorDB {
		t.Fatalf("dsp.FloorDB %v, gpufft.FloorDB %v", dsp.FloorDB, gpufft.FloorDB)
	}
}

func BenchmarkPost(b *testing.B) {
	for _, fft := range []int{4096, 65536} {
		s := DefaultLiveSettings()
		s.FFT, s.Hop = fft, 64
		s = s.withDefaults()
		geo := Geometry{Rate: 48000, FFT: fft, Hop: 64}
		var p postState
		p.reset(s, geo, 3, nil)
		const n = 16
		out := make([]float32, 3*n*geo.Bins())
		for i := range out {
			out[i] = float32(i%97) * 1e-3
		}
		b.Run(fmt.Sprintf("fft=%d", fft), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(4 * len(out)))
			for b.Loop() {
				p.batch(out, n)
			}
		})
		p.close()
	}
}
