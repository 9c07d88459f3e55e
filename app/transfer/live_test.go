package transfer

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// systemSource is a 2-channel test source at 48 kHz, paced by a mono
// generator: channel 0 the stimulus x, channel 1 the "system"
// gain·x[n − delay] plus independent white noise of RMS noise; with
// uncorrelated set, channel 1 is independent white noise alone.
type systemSource struct {
	gen          *audio.Generator
	gain, noise  float64
	delay        int
	hist         []float32 // the stimulus, the last delay samples
	mono         []float32
	rng          *rand.Rand
	uncorrelated atomic.Bool
}

func newSystemSource(t testing.TB, spec string, gain float64, delay int, noise float64) *systemSource {
	gs, err := audio.ParseGenerator(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := audio.NewGenerator(gs, 48000, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	return &systemSource{gen: g, gain: gain, delay: delay, noise: noise, hist: make([]float32, delay),
		mono: make([]float32, 48000), rng: rand.New(rand.NewPCG(3, 4))}
}

func (s *systemSource) Name() string    { return "system" }
func (s *systemSource) SampleRate() int { return 48000 }
func (s *systemSource) Channels() int   { return 2 }
func (s *systemSource) Close() error    { return s.gen.Close() }
func (s *systemSource) Read(dst []float32) (int, time.Time, error) {
	n, at, err := s.gen.Read(s.mono[:min(len(s.mono), len(dst)/2)])
	for i, x := range s.mono[:n] {
		var y float64
		if s.delay > 0 {
			y = float64(s.hist[0])
			copy(s.hist, s.hist[1:])
			s.hist[s.delay-1] = x
		} else {
			y = float64(x)
		}
		v := s.gain*y + s.noise*s.rng.NormFloat64()
		if s.uncorrelated.Load() {
			v = 0.05 * s.rng.NormFloat64()
		}
		dst[2*i], dst[2*i+1] = x, float32(v)
	}
	return n, at, err
}

func startSystem(t testing.TB, src *systemSource) *audio.Recorder {
	rec, err := audio.StartRecorder(func() (audio.Source, error) { return src, nil }, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Stop)
	return rec
}

// runTransfer steps tr until cond holds of its latest result, for at most
// 20 s (a loaded 2-core machine), and returns that result.
func runTransfer(t *testing.T, tr *Live, cond func(*LiveResult) bool) *LiveResult {
	t.Helper()
	var res LiveResult
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if n, err := tr.Step(); err != nil {
			t.Fatal(err)
		} else if n == 0 {
			time.Sleep(time.Millisecond)
			continue
		}
		if tr.Latest(&res) && cond(&res) {
			return &res
		}
	}
	t.Fatalf("condition not reached in 20 s: frames %d, delays %+v", res.Frames, res.Delays)
	return nil
}

// TestLiveTransferKnownSystem: periodic pink noise through a gain of
// −6.02 dB (0.5) and a delay of 120 samples (2.5 ms) with a rectangular
// window (every frame is one period, so the exact response is the
// analytic one): the tracker finds the delay to a sample and applies it,
// and then the magnitude reads 20·log10(0.5) within 0.1 dB, the phase 0
// within 1° and the coherence 1 within 0.01 at every bin with stimulus
// power, on every engine, CPU and OpenCL agreeing within 0.01 dB and
// 0.1°. Without tracking the phase is the delay's, −360°·f·D/rate wrapped.
func TestLiveTransferKnownSystem(t *testing.T) {
	const n, delay, gain = 4096, 120, 0.5
	wantDB := 20 * math.Log10(gain)
	var results []*LiveResult
	for _, engs := range apptest.Engines(t, func(p, c gpufft.Engine) engine.Pair { return engine.Pair{Preferred: p, CPU: c} }) {
		rec := startSystem(t, newSystemSource(t, "pinkperiodic:4096:-20", gain, delay, 0))
		tr, err := NewLive(rec, engs, LiveSettings{FFT: n, Hop: 1024, Window: window.Func{Kind: window.Rect}, RefChannel: 0,
			Average: dual.AverageComplex, Frames: 8, Track: true})
		if err != nil {
			t.Fatal(err)
		}
		res := runTransfer(t, tr, func(r *LiveResult) bool {
			return r.Delays[0].Delay.Found && r.Averaged == 8
		})
		tr.Close()
		name := engs.Preferred.Name()
		if d := res.Delays[0]; math.Abs(d.Delay.Samples-delay) > 1 || d.NoPeak || d.Delay.Polarity != 1 {
			t.Errorf("%s: delay %+v, want %d samples, polarity 1", name, d, delay)
		}
		checked := 0
		for k := 1; k < n/2; k++ {
			if res.Coherence[0][k] < 0.95 {
				t.Errorf("%s: bin %d: coherence %.4f", name, k, res.Coherence[0][k])
				continue
			}
			checked++
			if m, p := res.MagnitudeDB[0][k], res.PhaseDeg[0][k]; math.Abs(m-wantDB) > 0.1 || math.Abs(p) > 1 || res.Coherence[0][k] < 0.99 {
				t.Fatalf("%s: bin %d: %.3f dB, %.3f°, γ² %.4f; want %.3f dB, 0°, 1", name, k, m, p, res.Coherence[0][k], wantDB)
			}
		}
		if checked < n/2-1 {
			t.Errorf("%s: %d bins coherent", name, checked)
		}
		results = append(results, res)
	}
	if len(results) == 2 {
		a, b := results[0], results[1]
		for k := 1; k < n/2; k++ {
			if dm, dp := math.Abs(a.MagnitudeDB[0][k]-b.MagnitudeDB[0][k]), math.Abs(a.PhaseDeg[0][k]-b.PhaseDeg[0][k]); dm > 0.01 || dp > 0.1 {
				t.Fatalf("bin %d: CPU %.4f dB %.3f°, OpenCL %.4f dB %.3f°", k, a.MagnitudeDB[0][k], a.PhaseDeg[0][k], b.MagnitudeDB[0][k], b.PhaseDeg[0][k])
			}
		}
	}
}

// TestLiveTransferUntracked: without tracking the phase is the pure
// delay's, −360°·f·D/rate wrapped (within 1°), the magnitude the gain's.
func TestLiveTransferUntracked(t *testing.T) {
	const n, delay, gain = 4096, 120, 0.5
	rec := startSystem(t, newSystemSource(t, "pinkperiodic:4096:-20", gain, delay, 0))
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	tr, err := NewLive(rec, engine.Pair{Preferred: cpu, CPU: cpu}, LiveSettings{FFT: n, Hop: 2048,
		Window: window.Func{Kind: window.Rect}, RefChannel: 0, Channels: []int{1}, Frames: 4, Average: dual.AveragePolar})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	// the FIFO of 4 frames past the first 4: the delayed channel's first
	// 120 samples are the system's silence before the stimulus reached it,
	// not its periodic steady state (which machine and timing decide
	// whether the first frames hold)
	res := runTransfer(t, tr, func(r *LiveResult) bool { return r.Averaged == 4 && r.Frames >= 8 })
	for k := 1; k < n/2; k++ {
		want := math.Remainder(-360*float64(k)*delay/n, 360)
		d := math.Remainder(res.PhaseDeg[0][k]-want, 360)
		if math.Abs(d) > 1 || math.Abs(res.MagnitudeDB[0][k]-20*math.Log10(gain)) > 0.1 {
			t.Fatalf("bin %d: %.3f dB, %.3f°; want %.3f dB, %.3f°", k, res.MagnitudeDB[0][k], res.PhaseDeg[0][k], 20*math.Log10(gain), want)
		}
	}
	if res.Delays[0].Delay.Found || res.Tracked {
		t.Errorf("untracked, yet delays %+v", res.Delays)
	}
	ir := make([]float64, n)
	if d := tr.ImpulseResponse(0, ir, nil); !d.Found || math.Abs(d.Samples-delay) > 0.01 || math.Abs(ir[n/2+delay]-gain) > 1e-3 {
		t.Errorf("impulse response: %+v, at the delay %.4f; want %d samples, %g", d, ir[n/2+delay], delay, gain)
	}
}

// TestLiveTransferNoisy: white noise through a gain of 0.5, delayed 120
// samples, with independent noise 40 dB below the output on the
// measurement (SNR 10^4): the coherence reads SNR/(1+SNR) within 0.01,
// the magnitude the gain within 0.1 dB at every bin (Hann window, the
// delay tracked), and once the measurement turns into uncorrelated noise
// the tracker says "no clear peak" and keeps its last good delay.
func TestLiveTransferNoisy(t *testing.T) {
	const n, delay, gain = 4096, 120, 0.5
	src := newSystemSource(t, "white:-20", gain, delay, gain*0.1/math.Sqrt2*0.01)
	rec := startSystem(t, src)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	tr, err := NewLive(rec, engine.Pair{Preferred: cpu, CPU: cpu}, LiveSettings{FFT: n, Hop: 1024,
		Window: window.Func{Kind: window.Hann}, RefChannel: 0, Frames: 32, Track: true, TrackEvery: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res := runTransfer(t, tr, func(r *LiveResult) bool { return r.Delays[0].Delay.Found && r.Averaged == 32 })
	snr := 1e4
	var mean float64
	for k := 8; k < n/2-8; k++ {
		mean += res.Coherence[0][k]
		if math.Abs(res.MagnitudeDB[0][k]-20*math.Log10(gain)) > 0.1 {
			t.Fatalf("bin %d: %.3f dB, want %.3f", k, res.MagnitudeDB[0][k], 20*math.Log10(gain))
		}
	}
	mean /= float64(n/2 - 16)
	if want := snr / (1 + snr); math.Abs(mean-want) > 0.01 {
		t.Errorf("mean coherence %.5f, want %.5f", mean, want)
	}
	if d := res.Delays[0].Delay; math.Abs(d.Samples-delay) > 1 {
		t.Fatalf("delay %+v, want %d", d, delay)
	}
	src.uncorrelated.Store(true)
	finds := res.Delays[0].Finds
	res = runTransfer(t, tr, func(r *LiveResult) bool { return r.Delays[0].Finds > finds+4 })
	if d := res.Delays[0]; !d.NoPeak || !d.Delay.Found || math.Abs(d.Delay.Samples-delay) > 1 {
		t.Errorf("uncorrelated input: %+v; want no clear peak and the last good delay %d kept", d, delay)
	}
}

// TestLiveTransferUncorrelated: two independent noises: no delay is ever
// reported, only "no clear peak".
func TestLiveTransferUncorrelated(t *testing.T) {
	rec := apptest.StartGenerator(t, "white:-20", 48000, 2)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	tr, err := NewLive(rec, engine.Pair{Preferred: cpu, CPU: cpu}, LiveSettings{FFT: 4096, Hop: 1024,
		Window: window.Func{Kind: window.Hann}, Frames: 0, ExpAlpha: 0.2, Track: true, TrackEvery: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res := runTransfer(t, tr, func(r *LiveResult) bool { return r.Delays[0].Finds >= 5 })
	if d := res.Delays[0]; d.Delay.Found || !d.NoPeak {
		t.Errorf("uncorrelated: %+v; want no delay found, no clear peak", d)
	}
}

// TestLiveTransferNoAllocs: in steady state Step and Latest (with the
// same dst) do not allocate on the CPU engine, tracking included.
func TestLiveTransferNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	rec := startSystem(t, newSystemSource(t, "pinkperiodic:4096:-20", 0.5, 120, 0))
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	tr, err := NewLive(rec, engine.Pair{Preferred: cpu, CPU: cpu}, LiveSettings{FFT: 4096, Hop: 512,
		Window: window.Func{Kind: window.Rect}, Frames: 16, Track: true, TrackEvery: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res := runTransfer(t, tr, func(r *LiveResult) bool { return r.Delays[0].Delay.Found })
	var frames int
	if a := testing.AllocsPerRun(100, func() {
		n, _ := tr.Step()
		frames += n
		time.Sleep(time.Millisecond)
	}); a != 0 || frames == 0 {
		t.Errorf("Step: %v allocs (%d frames)", a, frames)
	}
	if a := testing.AllocsPerRun(20, func() { tr.Latest(res) }); a != 0 {
		t.Errorf("Latest: %v allocs", a)
	}
	if st := tr.Stats(); st.Frames == 0 || st.LatencyP99Ms <= 0 {
		t.Errorf("stats: %+v", st)
	}
}

// TestLiveTransferFeed: an analyzer fed in uneven pieces (NewLiveFeed)
// measures the periodic system exactly as the recorder-fed one does, on
// every engine, and Feed does not allocate.
func TestLiveTransferFeed(t *testing.T) {
	const n, delay, gain = 2048, 40, 0.25
	x := audio.PinkPeriodic(n)
	in := make([]float32, 3*24*n)
	for i := range 24 * n {
		v := x[i%n]
		in[3*i], in[3*i+1], in[3*i+2] = v, gain*x[(i-delay+n)%n], -v
	}
	for _, engs := range apptest.Engines(t, func(p, c gpufft.Engine) engine.Pair { return engine.Pair{Preferred: p, CPU: c} }) {
		tr, err := NewLiveFeed(48000, 3, engs, LiveSettings{FFT: n, Hop: 512, Window: window.Func{Kind: window.Rect},
			Frames: 16, Track: true, TrackEvery: 4})
		if err != nil {
			t.Fatal(err)
		}
		frames := 0
		for rest := in; len(rest) > 0; {
			k := min(len(rest), 3*777)
			f, err := tr.Feed(rest[:k])
			if err != nil {
				t.Fatal(err)
			}
			frames, rest = frames+f, rest[k:]
		}
		var res LiveResult
		tr.Latest(&res)
		name := engs.Preferred.Name()
		if want := (24*n-n)/512 + 1 - delay/512; frames < want-1 {
			t.Errorf("%s: %d frames, want about %d", name, frames, want)
		}
		d0, d1 := res.Delays[0], res.Delays[1]
		if math.Abs(d0.Delay.Samples-delay) > 1 || d1.Delay.Polarity != -1 || math.Abs(d1.Delay.Samples) > 1 {
			t.Errorf("%s: delays %+v", name, res.Delays)
		}
		for k := 1; k < n/2; k++ {
			if math.Abs(res.MagnitudeDB[0][k]-20*math.Log10(gain)) > 0.1 || math.Abs(res.PhaseDeg[0][k]) > 1 ||
				math.Abs(res.MagnitudeDB[1][k]) > 0.1 || math.Abs(math.Abs(res.PhaseDeg[1][k])-180) > 1 {
				t.Fatalf("%s: bin %d: %.3f dB %.2f°, %.3f dB %.2f°", name, k, res.MagnitudeDB[0][k], res.PhaseDeg[0][k], res.MagnitudeDB[1][k], res.PhaseDeg[1][k])
			}
		}
		if engs.Preferred == engs.CPU && !raceEnabled {
			if a := testing.AllocsPerRun(10, func() { tr.Feed(in[:3*1024]) }); a != 0 {
				t.Errorf("Feed: %v allocs", a)
			}
		}
		tr.Close()
	}
}

// TestLiveTransferFallback: a preferred engine that cannot make transfer
// plans (here, one without them) leaves the measurement on the CPU
// engine, and the status says so by engine's fallback notice.
func TestLiveTransferFallback(t *testing.T) {
	rec := startSystem(t, newSystemSource(t, "pinkperiodic:4096:-20", 0.5, 0, 0))
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	tr, err := NewLive(rec, engine.Pair{Preferred: &apptest.FailingEngine{Engine: cpu, After: 0}, CPU: cpu},
		LiveSettings{FFT: 4096, Hop: 1024, Window: window.Func{Kind: window.Rect}, Frames: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res := runTransfer(t, tr, func(r *LiveResult) bool { return r.Averaged == 4 })
	st := tr.Stats()
	if st.Engine != "cpu" || !strings.Contains(st.Status, "GPU failed") || math.Abs(res.MagnitudeDB[0][100]-20*math.Log10(0.5)) > 0.1 {
		t.Errorf("engine %s, status %q, %.3f dB at bin 100", st.Engine, st.Status, res.MagnitudeDB[0][100])
	}
	if _, err := NewLive(rec, engine.Pair{Preferred: &apptest.FailingEngine{Engine: cpu}, CPU: cpu, Strict: true},
		LiveSettings{FFT: 4096, Hop: 1024, Frames: 4}); err == nil {
		t.Error("Strict engines fell back")
	}
}

// failingTransfer is an engine named "opencl" whose transfer plans (the
// CPU engine's) fail from their after-th Execute on, as a GPU that dies
// mid-run.
type failingTransfer struct {
	gpufft.Engine
	after int
}

func (f *failingTransfer) Name() string { return "opencl" }

func (f *failingTransfer) NewTransfer(cfg gpufft.TransferConfig) (gpufft.TransferPlan, error) {
	p, err := f.Engine.(gpufft.TransferEngine).NewTransfer(cfg)
	return &failingTransferPlan{TransferPlan: p, left: f.after}, err
}

type failingTransferPlan struct {
	gpufft.TransferPlan
	left int
}

func (p *failingTransferPlan) Execute(src []float32) (int, error) {
	if p.left--; p.left < 0 {
		return 0, errors.New("gpufft: CL_OUT_OF_RESOURCES")
	}
	return p.TransferPlan.Execute(src)
}

// TestLiveTransferGPUFailure: a GPU plan that fails mid-run hands the
// measurement to the CPU engine, which carries on to a full average of
// the right response; the status says the GPU failed, and why.
func TestLiveTransferGPUFailure(t *testing.T) {
	rec := startSystem(t, newSystemSource(t, "pinkperiodic:4096:-20", 0.5, 0, 0))
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	tr, err := NewLive(rec, engine.Pair{Preferred: &failingTransfer{Engine: cpu, after: 3}, CPU: cpu},
		LiveSettings{FFT: 4096, Hop: 1024, Window: window.Func{Kind: window.Rect}, Frames: 8, BatchFrames: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var res LiveResult
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		tr.Step() // the failing batch returns its error; the next runs on the CPU
		if tr.Latest(&res) && res.Averaged == 8 && tr.Stats().Engine == "cpu" {
			break
		}
		time.Sleep(time.Millisecond)
	}
	st := tr.Stats()
	if st.Engine != "cpu" || !strings.Contains(st.Status, "GPU failed") || !strings.Contains(st.Status, "CL_OUT_OF_RESOURCES") ||
		res.Averaged != 8 || math.Abs(res.MagnitudeDB[0][100]-20*math.Log10(0.5)) > 0.1 {
		t.Errorf("engine %s, status %q, averaged %d, %.3f dB at bin 100", st.Engine, st.Status, res.Averaged, res.MagnitudeDB[0][100])
	}
}
