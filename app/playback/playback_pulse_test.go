//go:build cgo && linux

package playback

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/gpufft"
)

// TestPlaybackThroughPulse plays 3 s of stereo noise through the test's
// own PulseAudio daemon and records the null sink's monitor: the samples
// that reach the sink are the file's, in order, both channels; paused
// once the position passes 1 s, the position (the file view's cursor)
// is within 50 ms of the last sample the sink received.
func TestPlaybackThroughPulse(t *testing.T) {
	apptest.StartPulse(t)
	const rate = 48000
	n := 3 * rate
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 2*n)
	for i := range x {
		x[i] = float32(r.Float64() - 0.5)
	}
	size, finish := recordMonitor(t)

	p, err := New(x, rate, 2, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Play(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the position to pass 1 s", func() bool { return p.Position() >= 1 })
	p.Pause()
	pos := p.Position()
	if p.Playing() {
		t.Fatal("playing after Pause")
	}
	after := size()
	waitFor(t, "0.5 s more of the monitor", func() bool { return size() >= after+rate*8/2 })
	raw := finish()
	y := make([]float32, len(raw)/4)
	for i := range y {
		y[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	const tol = 2e-4 // the sink's 16-bit samples
	first := 0       // the first frame the sink received
	for first < len(y)/2 && y[2*first] == 0 && y[2*first+1] == 0 {
		first++
	}
	match := func(j, k int) bool { // recorded frame j is file frame k
		return math.Abs(float64(y[2*j]-x[2*k])) <= tol && math.Abs(float64(y[2*j+1]-x[2*k+1])) <= tol
	}
	// the file frame it is: the server may drop the first few
	// milliseconds of a new stream (its rewind), never more than 50 ms
	start := -1
	for k := 0; k < rate/20 && start < 0; k++ {
		ok := first+64 < len(y)/2
		for i := 0; i < 64 && ok; i++ {
			ok = match(first+i, k+i)
		}
		if ok {
			start = k
		}
	}
	if start < 0 {
		t.Fatalf("the first 64 frames the sink received (at %d of %d) are none of the file's first 50 ms", first, len(y)/2)
	}
	k := start
	for first+k-start < len(y)/2 && k < n && match(first+k-start, k) {
		k++
	}
	// after the last sample heard the sink plays silence: nothing else
	for j := first + k - start; j < len(y)/2; j++ {
		if y[2*j] != 0 || y[2*j+1] != 0 {
			t.Fatalf("recorded frame %d (file frame %d) is %g, %g: neither the file's %g, %g nor silence",
				j, k+j-(first+k-start), y[2*j], y[2*j+1], x[2*min(n-1, k)], x[2*min(n-1, k)+1])
		}
	}
	heard := float64(k) / rate
	t.Logf("the sink received file frames %d…%d (%.3f s); the position after the pause is %.3f s", start, k, heard, pos)
	if heard < 1-0.05 {
		t.Errorf("the sink received %.3f s of the file, want ≥ 0.95 s", heard)
	}
	if math.Abs(pos-heard) > 0.05 {
		t.Errorf("the position is %.3f s, the sink received %.3f s: want within 50 ms", pos, heard)
	}
}

// waitFor waits for cond (at most 15 s: a bound for a loaded machine,
// not a timing under test).
// recordMonitor records the null sink's monitor (48 kHz stereo float32)
// with parec, from before it returns: size is the bytes recorded so far,
// stop ends parec and returns the recording.
func recordMonitor(t *testing.T) (size func() int64, stop func() []byte) {
	t.Helper()
	rec := filepath.Join(t.TempDir(), "monitor.raw")
	f, err := os.Create(rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	parec := exec.Command("parec", "--device="+apptest.PulseSink+".monitor", "--format=float32le", "--rate=48000",
		"--channels=2", "--raw", "--latency-msec=20")
	parec.Stdout = f
	if err := parec.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	end := func() { once.Do(func() { parec.Process.Kill(); parec.Wait() }) }
	t.Cleanup(end)
	size = func() int64 { st, _ := f.Stat(); return st.Size() }
	waitFor(t, "parec to record", func() bool { return size() > 0 })
	return size, func() []byte {
		end()
		raw, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: 15 s passed", what)
		}
	}
}

// TestPlaybackBandThroughPulse plays 500 Hz and 5 kHz (−12 dBFS each)
// through the band filter lowpass:1000 on the CPU engine and records the
// sink: the 500-Hz tone arrives at its level (±0.1 dB), the 5-kHz one at
// least 60 dB down, as the live "Play it" output filters.
func TestPlaybackBandThroughPulse(t *testing.T) {
	apptest.StartPulse(t)
	const rate = 48000
	n := 3 * rate
	a := math.Pow(10, -12.0/20)
	x := make([]float32, 2*n)
	for i := range n {
		v := float32(a*math.Sin(2*math.Pi*500*float64(i)/rate) + a*math.Sin(2*math.Pi*5000*float64(i)/rate))
		x[2*i], x[2*i+1] = v, v
	}
	_, finish := recordMonitor(t)
	cpu := gpufft.NewCPU(1)
	defer cpu.Close()
	p, err := New(x, rate, 2, Config{Band: apptest.Band(t, "lowpass:1000"), Engines: engine.Pair{Preferred: cpu, CPU: cpu}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Play(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the position to pass 2 s", func() bool { return p.Position() >= 2 })
	p.Pause()
	raw := finish()
	// the left channel of the second half second after the first sound
	var y []float64
	for i := 0; i+8 <= len(raw); i += 8 {
		y = append(y, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))))
	}
	first := 0
	for first < len(y) && y[first] == 0 {
		first++
	}
	if first+rate > len(y) {
		t.Fatalf("recorded %d frames, sound from %d", len(y), first)
	}
	y = y[first+rate/2 : first+rate]
	pass, stop := toneDB(y, rate, 500), toneDB(y, rate, 5000)
	t.Logf("500 Hz %.3f dBFS, 5 kHz %.1f dBFS", pass, stop)
	if math.Abs(pass+12) > 0.1 {
		t.Errorf("500 Hz through lowpass:1000 at %.3f dBFS, want −12 ± 0.1", pass)
	}
	if stop > -72 {
		t.Errorf("5 kHz through lowpass:1000 at %.1f dBFS, want ≤ −72 (60 dB down)", stop)
	}
}

// toneDB is the level (dBFS, a sine's peak = 0 dB) of frequency f in x,
// by a Hann-windowed single-bin DFT in float64.
func toneDB(x []float64, rate, f float64) float64 {
	var re, im, wsum float64
	n := len(x)
	for i, v := range x {
		w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n))
		ph := 2 * math.Pi * f * float64(i) / rate
		re += v * w * math.Cos(ph)
		im -= v * w * math.Sin(ph)
		wsum += w
	}
	return 20 * math.Log10(2*math.Hypot(re, im)/wsum+1e-30)
}
