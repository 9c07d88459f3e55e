package gpufft_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// A transfer plan on the CPU engine (any engine that is a
// gpufft.TransferEngine): a reference and two measurement channels, one
// the reference halved, one inverted; the averages read back give each
// channel's H1 transfer function Gxy/Gxx at a bin.
func ExampleTransferEngine() {
	e := gpufft.NewCPU(0)
	defer e.Close()
	cfg := gpufft.TransferConfig{Size: 1024, Hop: 512, Window: window.Func{Kind: window.Hann},
		Channels: 2, MaxSamples: 8192, Frames: 8}
	p, err := e.NewTransfer(cfg)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	const l = 8192
	src := make([]float32, 3*l) // planar: reference, then the measurements
	r := rand.New(rand.NewPCG(1, 1))
	for i := range l {
		x := float32(r.NormFloat64())
		src[i], src[l+i], src[2*l+i] = x, 0.5*x, -x
	}
	frames, err := p.Execute(src)
	if err != nil {
		panic(err)
	}
	avg := make([]float32, cfg.DstLen())
	if err := p.Read(avg); err != nil {
		panic(err)
	}
	const k = 100
	for c := range cfg.Channels {
		v := avg[(c*cfg.Bins()+k)*gpufft.TransferValues:]
		h := complex(float64(v[gpufft.TransferGxyRe]), float64(v[gpufft.TransferGxyIm])) / complex(float64(v[gpufft.TransferGxx]), 0)
		fmt.Printf("channel %d: %d frames, H = %.3f dB at %.0f°\n", c, frames,
			20*math.Log10(math.Hypot(real(h), imag(h))), math.Atan2(imag(h), real(h))*180/math.Pi)
	}
	// Output:
	// channel 0: 15 frames, H = -6.021 dB at 0°
	// channel 1: 15 frames, H = 0.000 dB at 180°
}
