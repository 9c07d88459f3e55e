//go:build clfft && cgo

package gpufft

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestCompareClFFT measures Prism's R2C kernels and clFFT's on the same
// OpenCL device in one run, both device-resident, and logs the ratio:
//
//	go test -tags clfft -run CompareClFFT -v ./gpufft
func TestCompareClFFT(t *testing.T) {
	g := requireGPU(t)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{256, 1024, 4096, 16384} {
		batch := (1 << 22) / n
		ref, err := clfftR2C(g.Info().Name, n, batch, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		p, err := g.NewReal(n, batch)
		if err != nil {
			t.Fatal(err)
		}
		gp := p.(*gpuReal)
		src := randReal(rng, n*batch)
		dst := make([]complex64, (n/2+1)*batch)
		if err := gp.Forward(dst, src); err != nil {
			t.Fatal(err)
		}
		sec, _, err := timeLoop(time.Second, func() error {
			if err := gp.resident(gp.fwd, batch); err != nil {
				return err
			}
			return g.lib.Finish(&gp.args, g.queue)
		})
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		ours := time.Duration(sec * float64(time.Second))
		t.Log(fmt.Sprintf("%s r2c n=%d batch=%d: prism %v, clFFT %v per call: prism %.2f× clFFT's speed", g.Info().Name, n, batch, ours, ref, float64(ref)/float64(ours)))
	}
}
