package live

import (
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// startCPULive starts a live analysis on the CPU engine of a 48 kHz
// stereo generator (spec) with settings s; the caller closes it, the
// engine and the recorder go when the test ends.
func startCPULive(t testing.TB, spec string, s Settings) *Live {
	t.Helper()
	rec := apptest.StartGenerator(t, spec, 48000, 2)
	cpu := gpufft.NewCPU(0)
	t.Cleanup(func() { cpu.Close() })
	l, err := New(rec, engine.Pair{Preferred: cpu, CPU: cpu}, s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// runLive steps the analyzer for d of real time.
func runLive(l *Live, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if n, _ := l.Step(); n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// runFrames steps the analyzer until it has analyzed want frames in all,
// for at most 10 s: a loaded machine (CI's race-enabled run on 2 cores)
// may take longer than the signal does to give a check the frames it
// looks at.
func runFrames(l *Live, want uint64) {
	deadline := time.Now().Add(10 * time.Second)
	for l.Stats().Frames < want && time.Now().Before(deadline) {
		runLive(l, 10*time.Millisecond)
	}
}

// TestLiveGenerator: the live path finds the generator's tone at its
// frequency and level, on each channel and the mix, with averages and
// holds consistent, on every engine.
func TestLiveGenerator(t *testing.T) {
	for _, engs := range testEngines(t) {
		rec := apptest.StartGenerator(t, "sine:1000:-6", 48000, 2)
		l, err := New(rec, engs, DefaultSettings()) // Hann: the parabola fits its main lobe
		if err != nil {
			t.Fatal(err)
		}
		runLive(l, 1200*time.Millisecond)
		runFrames(l, 30)
		var sp Spectrum
		for c := range 3 {
			l.Latest(c, &sp)
			// 1000 Hz is bin 85.33: quadratic interpolation on dB with Hann
			// is good to ~0.05 bin and a few tenths of a dB of scalloping
			if math.Abs(sp.Peak.Freq-1000) > 0.1*sp.BinHz || math.Abs(sp.Peak.LevelDB+6.02) > 0.3 || sp.Peak.Note != "B5" {
				t.Errorf("%s channel %d: peak %+v, want 1000 Hz at −6.02 dBFS (B5)", engs.Preferred.Name(), c, sp.Peak)
			}
			k := int(math.Round(1000 / sp.BinHz))
			if math.Abs(float64(sp.ExpAvg[k]-sp.Current[k])) > 0.2 || sp.PeakHold[k] < sp.Current[k]-0.01 || sp.MinHold[k] > sp.Current[k]+0.01 ||
				math.Abs(float64(sp.LinAvg[k]-sp.Current[k])) > 0.2 {
				t.Errorf("channel %d bin %d: current %.2f exp %.2f lin %.2f peak %.2f min %.2f", c, k, sp.Current[k], sp.ExpAvg[k], sp.LinAvg[k], sp.PeakHold[k], sp.MinHold[k])
			}
		}
		st := l.Stats()
		if st.Frames < 30 || st.LatencyP50Ms <= 0 || st.LatencyP99Ms < st.LatencyP50Ms || st.Engine != engs.Preferred.Name() || st.DroppedFrames != 0 {
			t.Errorf("stats %+v", st)
		}
		cols := make([][]float32, 4)
		for c := range 3 {
			n, next, _ := l.Columns(c, cols, st.Frames-4)
			k := int(math.Round(1000 / sp.BinHz))
			if n != 4 || next != st.Frames || len(cols[0]) != 2049 || math.Abs(float64(cols[3][k]-sp.Current[k])) > 0.5 {
				t.Errorf("Columns(%d): %d, next %d", c, n, next)
			}
		}
		l.Close()
		t.Logf("%s: %d frames, latency p50 %.2f ms p99 %.2f ms, %.3f ms/batch", st.Engine, st.Frames, st.LatencyP50Ms, st.LatencyP99Ms, st.MsPerBatch)
	}
}

// TestLiveSettingsAndEngineSwitch: settings and engine changes apply
// between batches without losing the stream.
func TestLiveSettingsAndEngineSwitch(t *testing.T) {
	engs := testEngines(t)
	e := engs[len(engs)-1] // GPU where there is one
	rec := apptest.StartGenerator(t, "sine:3000:-12", 48000, 1)
	l, err := New(rec, e, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runLive(l, 300*time.Millisecond)
	s := DefaultSettings()
	s.FFT, s.Hop = 1024, 256
	l.Apply(s)
	l.UseEngine("cpu")
	runFrames(l, l.Stats().Frames+20) // the changes apply before the next batch
	var sp Spectrum
	l.Latest(1, &sp)
	st := l.Stats()
	if len(sp.Current) != 513 || st.Engine != "cpu" || st.FFT != 1024 || math.Abs(sp.Peak.Freq-3000) > 2 {
		t.Errorf("after changes: %d bins, engine %s, fft %d, peak %+v", len(sp.Current), st.Engine, st.FFT, sp.Peak)
	}
	// the changes lose no input: the analysis never fell so far behind
	// that the ring overwrote what it had not read (a loaded machine may
	// starve the paced generator itself, which the recorder writes as
	// gaps, as a device's overflow: the machine's, not the changes')
	if ow := rec.Ring().Overwritten(); ow != 0 {
		t.Errorf("%d input frames overwritten unread across the changes (%d dropped in all, %d of them the source's gaps)", ow, st.DroppedFrames, rec.Ring().Gaps())
	}
	// another source: 44.1 kHz stereo instead of 48 kHz mono
	rec2 := apptest.StartGenerator(t, "sine:5000:-12", 44100, 2)
	l.SwitchSource(rec2, nil)
	runFrames(l, l.Stats().Frames+20)
	l.Latest(2, &sp)
	if st := l.Stats(); st.SampleRate != 44100 || st.Channels != 2 || math.Abs(sp.Peak.Freq-5000) > 5 {
		t.Errorf("after SwitchSource: %d Hz × %d, mix peak %+v", st.SampleRate, st.Channels, sp.Peak)
	}
	if len(engs) > 1 {
		if _, ok := st.EngineMs["opencl"]; !ok {
			t.Errorf("no GPU time kept: %v", st.EngineMs)
		}
	}
}

// TestLiveNoAllocs pins the steady-state analysis loop.
func TestLiveNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	rec := apptest.StartGenerator(t, "pink:-20", 48000, 2)
	// two engines, so the inactive one is timed in the background, and a
	// monitor output's ring fed: the desktop's steady state
	cpu, other := gpufft.NewCPU(0), gpufft.NewCPU(1)
	defer cpu.Close()
	defer other.Close()
	l, err := New(rec, engine.Pair{Preferred: other, CPU: cpu}, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.MeasureOther()
	l.SetTee(audio.NewRing(48000, 2))
	runLive(l, 600*time.Millisecond)
	var frames int
	allocs := testing.AllocsPerRun(200, func() {
		n, _ := l.Step()
		frames += n
		time.Sleep(time.Millisecond)
	})
	if allocs != 0 || frames == 0 {
		t.Errorf("%v allocs per Step (%d frames analyzed)", allocs, frames)
	}
	// the window's read of the spectra, with the peak readout (its table
	// built once at the first publish)
	var sp Spectrum
	l.Latest(0, &sp)
	if sp.Peak.Freq == 0 {
		t.Errorf("no peak read out: %+v", sp.Peak)
	}
	if a := testing.AllocsPerRun(50, func() { l.Latest(0, &sp) }); a != 0 {
		t.Errorf("Latest: %v allocs, want 0", a)
	}
}

// TestWatchdog: a source that stops delivering is detected as stalled,
// closed and reopened, and the stream goes on.
func TestWatchdog(t *testing.T) {
	var opens atomic.Int32
	rec, err := audio.StartRecorder(func() (audio.Source, error) {
		opens.Add(1)
		return apptest.NewStallingSource(10), nil
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	start := time.Now()
	deadline := start.Add(15 * time.Second) // a bound for a loaded machine, not a timing under test
	for done := func() bool { st := rec.Stats(); return st.Reopens >= 2 && st.RingFrames >= 2*10*240 }; !done() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	st := rec.Stats()
	t.Logf("two reopenings and the stream going on after %v", time.Since(start))
	if st.Stalls < 2 || st.Reopens < 2 || opens.Load() < 3 || st.RingFrames < 2*10*240 {
		t.Errorf("stats %+v, opens %d", st, opens.Load())
	}
}

// TestFileSourceLive: a file played through the live pipeline is analyzed
// like a device's input, and loops at its end.
func TestFileSourceLive(t *testing.T) {
	in := apptest.TempPath(t, "in.wav")
	apptest.WriteWAV(t, in, 16000, [][]float32{apptest.Tone(4000, 16000, 2500, 0.5)}) // 0.25 s
	rec, err := audio.StartRecorder(func() (audio.Source, error) { return audio.OpenFileSource(in, true) }, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	s := DefaultSettings()
	s.FFT, s.Hop = 1024, 256
	l, err := New(rec, engine.Pair{Preferred: cpu, CPU: cpu}, s)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	runLive(l, 700*time.Millisecond)
	runFrames(l, 20)
	var sp Spectrum
	l.Latest(0, &sp)
	if math.Abs(sp.Peak.Freq-2500) > 0.2*sp.BinHz {
		t.Errorf("peak %+v, want 2500 Hz", sp.Peak)
	}
	if st := rec.Stats(); st.Reopens < 1 || st.RingFrames < 8000 {
		t.Errorf("the file did not loop: %+v", st)
	}
}

// TestLiveGPUFailure: a GPU that fails mid-stream hands over to the CPU
// and says so; the analysis goes on.
func TestLiveGPUFailure(t *testing.T) {
	rec := apptest.StartGenerator(t, "sine:2000:-6", 48000, 1)
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	l, err := New(rec, engine.Pair{Preferred: &apptest.FailingEngine{Engine: cpu, After: 5}, CPU: cpu}, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// until the CPU has published a spectrum (or 10 s on a loaded machine)
	var sp Spectrum
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runLive(l, 100*time.Millisecond)
		if l.Latest(1, &sp); l.Stats().Engine == "cpu" && math.Abs(sp.Peak.Freq-2000) <= 2 {
			break
		}
	}
	st := l.Stats()
	if st.Engine != "cpu" || !strings.Contains(st.Status, "GPU failed") || !strings.Contains(st.Status, "CL_OUT_OF_RESOURCES") || math.Abs(sp.Peak.Freq-2000) > 2 {
		t.Errorf("engine %s, status %q, peak %+v", st.Engine, st.Status, sp.Peak)
	}
}

// TestLiveBandAndRTA: the displayed spectrum shows the band filter's effect
// (applied on the engine after the FFT), and the RTA reads a −20 dBFS tone
// at −20.0 ± 0.1 dB in its third-octave band, A-weighted, on every engine.
func TestLiveBandAndRTA(t *testing.T) {
	for _, engs := range testEngines(t) {
		rec := apptest.StartGenerator(t, "tones:1000,5000:-20", 48000, 1)
		s := DefaultSettings()
		s.Band, s.Fraction, s.Weighting = apptest.Band(t, "lowpass:2000"), 3, dsp.WeightA
		l, err := New(rec, engs, s)
		if err != nil {
			t.Fatal(err)
		}
		runLive(l, 800*time.Millisecond)
		runFrames(l, 20)
		var sp Spectrum
		l.Latest(1, &sp)
		k1, k5 := int(math.Round(1000/sp.BinHz)), int(math.Round(5000/sp.BinHz))
		if sp.Current[k1] < -30 || sp.Current[k5] > sp.Current[k1]-60 {
			t.Errorf("%s: 1 kHz at %.1f dB, 5 kHz at %.1f dB behind lowpass:2000", engs.Preferred.Name(), sp.Current[k1], sp.Current[k5])
		}
		found := false
		for _, b := range sp.Bands {
			if b.Nominal == 1000 {
				found = true
				if math.Abs(b.LevelDB+20) > 0.1 {
					t.Errorf("%s: 1 kHz third-octave band %.2f dB, want −20.0 ± 0.1", engs.Preferred.Name(), b.LevelDB)
				}
			}
			if b.Nominal == 5000 && b.LevelDB > -80 {
				t.Errorf("%s: 5 kHz band %.1f dB behind the filter", engs.Preferred.Name(), b.LevelDB)
			}
		}
		if !found || len(sp.Bands) != 31 {
			t.Errorf("%d bands", len(sp.Bands))
		}
		l.Close()
	}
}

// testEngines is every engine pair to test on (apptest.Engines).
func testEngines(t *testing.T) []engine.Pair {
	return apptest.Engines(t, func(p, c gpufft.Engine) engine.Pair { return engine.Pair{Preferred: p, CPU: c} })
}

// TestLivePause: a paused analysis analyzes nothing but keeps feeding a
// monitor output, and resumes at the live input (no backlog).
func TestLivePause(t *testing.T) {
	l := startCPULive(t, "sine:1000:-6", DefaultSettings())
	defer l.Close()
	tee := audio.NewRing(48000, 2)
	l.SetTee(tee)
	runLive(l, 200*time.Millisecond)
	l.SetPaused(true)
	before, teed := l.Frames(), tee.Written()
	runLive(l, 400*time.Millisecond)
	if l.Frames() != before || tee.Written() <= teed {
		t.Fatalf("paused: frames %d → %d, tee %d → %d", before, l.Frames(), teed, tee.Written())
	}
	l.SetPaused(false)
	resumed := time.Now()
	runLive(l, 400*time.Millisecond)
	runFrames(l, before+10)
	// no backlog: no more frames than the input since the resume makes
	// (the generator runs in real time; a backlog would add the ~0.4 s
	// paused, ~19 frames), however slow the machine
	st := l.Stats()
	made := uint64(time.Since(resumed).Seconds()*float64(st.SampleRate))/uint64(st.Hop) + 2
	if got := l.Frames() - before; got == 0 || got > made {
		t.Errorf("resumed: %d frames analyzed, the input since made at most %d", got, made)
	}
}
