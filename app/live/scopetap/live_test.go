package scopetap

import (
	"math"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/gpufft"
)

// A live analysis of a stereo 1 kHz generator at −6 dBFS hands its
// blocks to the tap (live.Live.OnBlock): 0.2 s of channel 0 read back
// by position is that sine without a gap (a least-squares fit of a 1 kHz
// sine leaves residuals under 1e-4 and an amplitude of 10^(−6/20)).
func TestTapFedByLive(t *testing.T) {
	const rate = 48000
	rec := apptest.StartGenerator(t, "sine:1000:-6", rate, 2)
	cpu := gpufft.NewCPU(0)
	t.Cleanup(func() { cpu.Close() })
	l, err := live.New(rec, engine.Pair{Preferred: cpu, CPU: cpu}, live.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tap := New(1)
	l.OnBlock(tap.Write)
	deadline := time.Now().Add(10 * time.Second)
	for {
		from, end, ch, r := tap.Span()
		if end-from >= rate/4 && ch == 2 && r == rate {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tap holds %d…%d (%d channels, %d Hz) after 10 s", from, end, ch, r)
		}
		if n, _ := l.Step(); n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	_, end, _, _ := tap.Span()
	x := make([]float32, rate/5)
	if !tap.ReadAt(x, 0, end-uint64(len(x))) {
		t.Fatal("ReadAt failed")
	}
	// fit a·sin + b·cos of 1 kHz (they are orthogonal over whole periods)
	var a, b float64
	for i, v := range x {
		w := 2 * math.Pi * 1000 * float64(i) / rate
		a += float64(v) * math.Sin(w)
		b += float64(v) * math.Cos(w)
	}
	a, b = 2*a/float64(len(x)), 2*b/float64(len(x))
	worst := 0.0
	for i, v := range x {
		w := 2 * math.Pi * 1000 * float64(i) / rate
		worst = max(worst, math.Abs(float64(v)-a*math.Sin(w)-b*math.Cos(w)))
	}
	if amp := math.Hypot(a, b); math.Abs(amp-math.Pow(10, -6.0/20)) > 1e-3 || worst > 1e-4 {
		t.Errorf("channel 0: a 1 kHz sine of amplitude %.5f, residual %.2g; want %.5f, < 1e-4", amp, worst, math.Pow(10, -6.0/20))
	}
}
