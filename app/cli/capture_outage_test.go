//go:build cgo && linux

package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// sweepTimes reads a capture of a linear sweep (f0 + slope·s Hz at signal
// time s) as each row's signal time less its time in the capture's
// timeline (the frame's centre), NaN for gap and silent rows, and the
// index of the first gap row (-1: none).
func sweepTimes(vals []float32, rows, cols, fft, hop, rate int, f0, slope float64) (offsets []float64, firstGap int) {
	firstGap = -1
	offsets = make([]float64, rows)
	for f := range rows {
		row := vals[f*cols : (f+1)*cols]
		offsets[f] = math.NaN()
		if math.IsNaN(float64(row[0])) {
			if firstGap < 0 {
				firstGap = f
			}
			continue
		}
		if k, lv := apptest.PeakIn(row, 1, cols); lv > -30 {
			s := (float64(k)*float64(rate)/float64(fft) - f0) / slope
			offsets[f] = s - (float64(f*hop)+float64(fft)/2)/float64(rate)
		}
	}
	return offsets, firstGap
}

// medianOf is the median of the values of v that are not NaN.
func medianOf(v []float64) float64 {
	var s []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return math.NaN()
	}
	slices.Sort(s)
	return s[len(s)/2]
}

// TestCaptureServerRestart: the PulseAudio daemon the capture reads from
// (the test's own) is killed 2 s into a 10-s capture (after its start-up)
// and started again 2 s later (the capture's reopening backs off up to
// 1 s, and the first buffer after a restart takes about 1.2 s: up to 7.5 s
// are gone). The capture reopens its input, ends on time with exit 0, and
// keeps real time: a linear sweep tied to the wall clock played into the
// sink (by a player restarted with the daemon) says when each row was
// played, and the rows after the gap sit where real time puts them, as
// the rows before it do (within one hop plus 20 ms); the gap starts where
// the daemon died and is counted in --stats as one outage as long as its
// gap rows.
func TestCaptureServerRestart(t *testing.T) {
	pa := apptest.StartPulse(t)
	captureOutage(t, pa, pa.Kill, func(t0 time.Time) {
		pa.Start()
		pa.PlayClockSweep(t0, sweepF0, sweepSlope)
	}, 2, 5, 1)
}

// TestCaptureServerPaused: the same with the daemon stopped (SIGSTOP) for
// 2 s and continued: the capture's stream stalls, the watchdog abandons
// it and reopens, and the gap is as long as the pause (up to what the
// reopening adds), at its place; the player, stalled with the daemon,
// plays on, tied to the wall clock.
func TestCaptureServerPaused(t *testing.T) {
	pa := apptest.StartPulse(t)
	captureOutage(t, pa, pa.Pause, func(time.Time) { pa.Continue() }, 1.9, 5, 0)
}

const sweepF0, sweepSlope = 300.0, 500.0

// captureOutage runs a 10-s capture from pa (N=4096, hop 1024) of a sweep
// tied to the wall clock, calls stop 2 s after the capture started and
// resume 2 s after that, and checks the output and --stats: exit 0, the
// rows after the gap at their real time, the gap starting where the input
// stopped, an outage of minS…maxS seconds as long as the gap rows, at
// least minReopens reopenings.
func captureOutage(t *testing.T, pa *apptest.Pulse, stop func(), resume func(t0 time.Time), minS, maxS, minReopens float64) {
	const rate, fft, hop = 48000, 4096, 1024
	t0 := time.Now()
	pa.PlayClockSweep(t0, sweepF0, sweepSlope)
	time.Sleep(300 * time.Millisecond)
	out := filepath.Join(t.TempDir(), "cap.npy")
	var stdout bytes.Buffer
	var stderr lockedBuffer
	done := make(chan int)
	go func() {
		done <- Run([]string{"capture", "-o", out, "--seconds", "10", "--rate", "48000", "--channels", "2", "--channel", "0",
			"--engine", "cpu", "--fft", "4096", "--hop", "1024", "--window", "hann", "--stats"}, &stdout, &stderr)
	}()
	stderr.waitFor(t, "prism: capturing")
	time.Sleep(2 * time.Second) // the first buffer takes up to ~1.2 s
	stopped := time.Now()
	stop()
	time.Sleep(2 * time.Second)
	resume(t0)
	code := <-done
	t.Logf("exit %d; stderr:\n%s", code, stderr.String())
	if code != 0 || !strings.Contains(stderr.String(), "outage") {
		t.Fatalf("exit %d, want 0 and the outage said", code)
	}
	st := statsOf(t, stdout.Bytes())
	rows, cols, vals := apptest.ReadNPY(t, out)
	if want := (10*rate-fft)/hop + 1; rows != want || cols != fft/2+1 {
		t.Fatalf("shape (%d, %d), want (%d, %d)", rows, cols, want, fft/2+1)
	}
	offsets, g0 := sweepTimes(vals, rows, cols, fft, hop, rate, sweepF0, sweepSlope)
	g1 := g0
	for g1 >= 0 && g1 < rows && math.IsNaN(float64(vals[g1*cols])) {
		g1++
	}
	if g0 < 0 || g1 >= rows-5 {
		t.Fatalf("gap rows %d…%d of %d: want a gap with rows after it", g0, g1, rows)
	}
	before, after := medianOf(offsets[:g0]), medianOf(offsets[g1:])
	// the stop in the capture's timeline: signal time less the offset
	stopAt := stopped.Sub(t0).Seconds() - before
	gapAt := float64(g0*hop+fft) / rate // the end of the first frame that would have needed input after it
	outage := st["dropped_outage_frames"]
	t.Logf("gap rows %d…%d (%.3f s from %.3f s), outage %.0f frames (%.3f s); signal − timeline %.4f s before, %.4f s after; stop at %.3f s",
		g0, g1-1, float64((g1-g0)*hop)/rate, gapAt, outage, outage/rate, before, after, stopAt)
	const hopS, jitter, maxLatency = float64(hop) / rate, 0.020, 0.150
	if math.Abs(after-before) > hopS+jitter {
		t.Errorf("after the gap the rows are %.1f ms off real time (before it: reference), want within one hop %.1f ms + %.0f ms",
			(after-before)*1e3, hopS*1e3, jitter*1e3)
	}
	// The first gap frame ends after the last sample that came, by less
	// than a hop; that sample left the player up to its latency before
	// the stop (measured: 90 ms) and the capture loses what was in flight.
	if gapAt < stopAt-hopS-maxLatency || gapAt > stopAt+hopS {
		t.Errorf("the gap starts at %.3f s, the input stopped at %.3f s of the timeline (less up to %.0f ms of latency)", gapAt, stopAt, maxLatency*1e3)
	}
	if st["outages"] < 1 || st["reopens"] < minReopens || outage < minS*rate || outage > maxS*rate ||
		math.Abs(float64((g1-g0)*hop)-outage) > fft+hop || st["dropped_input_frames"] != outage+st["dropped_overflow_frames"] {
		t.Errorf("stats %v: want an outage of %g…%g s, as long as the %d gap rows", st, minS, maxS, g1-g0)
	}
}

// statsOf reads --stats' numbers.
func statsOf(t *testing.T, js []byte) map[string]float64 {
	t.Helper()
	var stats map[string]any
	if err := json.Unmarshal(js, &stats); err != nil {
		t.Fatalf("--stats: %v: %s", err, js)
	}
	st := map[string]float64{}
	for k, v := range stats {
		if f, ok := v.(float64); ok {
			st[k] = f
		}
	}
	return st
}

// TestCaptureServerGone: the capture's PulseAudio daemon (the test's own)
// is killed 2 s into a 5-s capture (after its start-up: the capture then
// has input) and never comes back. The capture
// ends by its deadline (--seconds plus the 5-s grace, after start-up) with
// exit 1 and the outage stated; the output is written with the rows
// captured and the rest of the 4 s as gap rows, counted as outage.
func TestCaptureServerGone(t *testing.T) {
	pa := apptest.StartPulse(t)
	pa.PlayClockSweep(time.Now(), 300, 500)
	time.Sleep(300 * time.Millisecond)
	out := filepath.Join(t.TempDir(), "cap.npy")
	var stdout bytes.Buffer
	var stderr lockedBuffer
	done := make(chan int)
	start := time.Now()
	go func() {
		done <- Run([]string{"capture", "-o", out, "--seconds", "5", "--rate", "48000", "--channels", "2",
			"--engine", "cpu", "--fft", "2048", "--hop", "1024", "--stats"}, &stdout, &stderr)
	}()
	stderr.waitFor(t, "prism: capturing")
	time.Sleep(2 * time.Second)
	pa.Kill()
	code := <-done
	took := time.Since(start)
	t.Logf("exit %d after %v; stderr:\n%s", code, took, stderr.String())
	msg := stderr.String()
	if code != 1 || !strings.Contains(msg, "prism: capture: incomplete") || !strings.Contains(msg, "the source stopped delivering") || !strings.Contains(msg, "outage: no input since") {
		t.Fatalf("exit %d, want 1 with the outage stated", code)
	}
	if took > 5*time.Second+5*time.Second+4*time.Second { // start-up (PortAudio, first buffer) takes up to ~2 s here
		t.Errorf("took %v: want --seconds plus the grace plus start-up", took)
	}
	rows, cols, vals := apptest.ReadNPY(t, out)
	real := 0
	for real < rows && !math.IsNaN(float64(vals[real*cols])) {
		real++
	}
	if want := (5*48000-2048)/1024 + 1; rows != want || real < 1 || real > 92 { // 2 s: 92 frames at most
		t.Fatalf("%d rows, %d real: want %d rows, the first (≤ 2 s) real", rows, real, want)
	}
	for i, v := range vals[real*cols:] {
		if !math.IsNaN(float64(v)) {
			t.Fatalf("row %d after the outage began is not a gap", real+i/cols)
		}
	}
	var st struct {
		Dropped uint64 `json:"dropped_input_frames"`
		Outage  uint64 `json:"dropped_outage_frames"`
		Outages uint64 `json:"outages"`
		Gaps    uint64 `json:"gap_frames"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
		t.Fatalf("--stats: %v: %s", err, stdout.String())
	}
	// the outage is the 5 s less what was analyzed: real frames cover
	// (real−1)·hop + fft samples, and less than a hop more was held
	if lo, hi := uint64(5*48000-(real-1)*1024-2048-1024), uint64(5*48000-(real-1)*1024-2048); st.Outage < lo || st.Outage > hi ||
		st.Outages != 1 || st.Gaps != uint64(rows-real) || st.Dropped < st.Outage {
		t.Errorf("stats %+v: want one outage of %d…%d frames and %d gap frames", st, lo, hi, rows-real)
	}
}

// lockedBuffer is a stderr the test reads while the command writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor waits (up to 20 s) until the command has written s.
func (l *lockedBuffer) waitFor(t *testing.T, s string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(l.String(), s); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stderr in 20 s: %s", s, l.String())
		}
	}
}
