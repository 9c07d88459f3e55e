//go:build cgo

package session

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/cmplx"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/audio"
)

// testSink makes a PulseAudio null sink of its own for the duration of the
// test and makes it the default sink (new playback streams go there), so
// the playthrough neither feeds back into the default input nor
// disturbs the capture tests' sink. It returns the sink's name.
func testSink(t *testing.T) string {
	t.Helper()
	apptest.RequireAudio(t)
	for _, tool := range []string{"pactl", "parec"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed with a sound server: %v", tool, err)
		}
	}
	const name = "prism_monitor_test"
	out, err := exec.Command("pactl", "load-module", "module-null-sink", "sink_name="+name, "rate=48000", "channels=2").Output()
	if err != nil {
		t.Fatalf("pactl load-module: %v", err)
	}
	module := strings.TrimSpace(string(out))
	prev, _ := exec.Command("pactl", "get-default-sink").Output()
	if err := exec.Command("pactl", "set-default-sink", name).Run(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p := strings.TrimSpace(string(prev)); p != "" {
			exec.Command("pactl", "set-default-sink", p).Run()
		}
		exec.Command("pactl", "unload-module", module).Run()
	})
	return name
}

// recordSink records seconds of sink's monitor as 48 kHz stereo float32
// and returns the left channel.
func recordSink(t *testing.T, sink string, seconds float64) []float64 {
	t.Helper()
	cmd := exec.Command("parec", "--device="+sink+".monitor", "--format=float32le", "--rate=48000", "--channels=2", "--raw", "--latency-msec=20")
	var buf bytes.Buffer
	cmd.Stdout = &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(seconds * float64(time.Second)))
	cmd.Process.Kill()
	cmd.Wait()
	raw := buf.Bytes()
	x := make([]float64, len(raw)/8)
	for i := range x {
		x[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[8*i:])))
	}
	return x
}

// toneDB is the level (dBFS, sine peak = 0 dB) of frequency f in x, by a
// Hann-windowed single-bin DFT.
func toneDB(x []float64, rate, f float64) float64 {
	var sum complex128
	var wsum float64
	n := len(x)
	for i, v := range x {
		w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n))
		sum += complex(v*w, 0) * cmplx.Exp(complex(0, -2*math.Pi*f*float64(i)/rate))
		wsum += w
	}
	return 20 * math.Log10(2*cmplx.Abs(sum)/wsum+1e-30)
}

// TestPlaythrough plays the generator (500 Hz and 5 kHz, −12 dBFS each)
// through the playthrough into a null sink of its own and records it:
// unfiltered both tones arrive at their level; with lowpass:1000 the 500 Hz
// tone passes within 0.1 dB and the 5 kHz one is ≥ 60 dB down; bandpass
// the other way round. Both engines.
func TestPlaythrough(t *testing.T) {
	sink := testSink(t)
	for _, e := range testEngines(t) {
		m, _, err := New(SourceSpec{Kind: SourceGenerator, Generator: "tones:500,5000:-12", Rate: 48000, Channels: 2}, live.DefaultSettings(), e)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			band         string
			pass, stop   float64
			passDB       float64
			minAttenDB   float64
			wantInStatus string
		}{
			{"", 500, 0, -12, 0, "monitor → "},
			{"lowpass:1000", 500, 5000, -12, 60, "lowpass:1000 on"},
			{"bandpass:4000-6000", 5000, 500, -12, 60, "bandpass:4000-6000 on"},
		} {
			if err := m.SetPlaythrough(true, apptest.Band(t, tc.band)); err != nil {
				t.Fatal(err)
			}
			st := m.PlaythroughStatus()
			if !strings.Contains(st, tc.wantInStatus) {
				t.Errorf("%s: status %q", tc.band, st)
			}
			// let the output fill (latency: a block plus the filter's
			// delay; on PoCL the convolver's first call compiles, which on
			// a loaded machine can take seconds: record again while the
			// sink is still silent, up to 15 s)
			time.Sleep(700 * time.Millisecond)
			piece := recordSettled(t, sink, tc.band, tc.pass)
			pass := piece(tc.pass)
			if math.Abs(pass-tc.passDB) > 0.1 {
				t.Errorf("%s on %s: %g Hz at %.2f dBFS, want %.1f ± 0.1", tc.band, e.Preferred.Name(), tc.pass, pass, tc.passDB)
			}
			if tc.stop > 0 {
				stop := piece(tc.stop)
				if pass-stop < tc.minAttenDB {
					t.Errorf("%s on %s: %g Hz only %.1f dB below the pass band", tc.band, e.Preferred.Name(), tc.stop, pass-stop)
				}
				t.Logf("%s on %s: pass %.2f dBFS, stop %.1f dB down; %s", tc.band, e.Preferred.Name(), pass, pass-stop, st)
			}
		}
		if err := m.SetPlaythrough(false, dsp.BandSpec{}); err != nil || m.PlaythroughStatus() != "" {
			t.Errorf("off: %v, %q", err, m.PlaythroughStatus())
		}
		m.Close()
	}
	// no such output device: a clear error
	cpu := testEngines(t)[0]
	if _, err := StartPlaythrough("no-such-output-device", 48000, 2, dsp.BandSpec{}, cpu); !errors.Is(err, audio.ErrNoOutputDevice) {
		t.Errorf("a missing output device: %v", err)
	}
	if _, err := StartPlaythrough("", 48000, 2, apptest.Band(t, "lowpass:30000"), cpu); err == nil {
		t.Error("a bad band did not fail")
	}
}

// recordSettled records the sink until two recordings in a row measure the
// pass band (pass Hz) alike, and returns the level of a tone of the last
// second: the median over its eight 0.125 s pieces.
func recordSettled(t *testing.T, sink string, band string, pass float64) func(f float64) float64 {
	t.Helper()
	var x []float64
	// the median over eight 0.125 s pieces of the last second: a
	// scheduling hiccup on a loaded machine (an output underflow)
	// spoils a piece, not the measurement
	piece := func(f float64) float64 {
		var v []float64
		for i := range 8 {
			v = append(v, toneDB(x[i*6000:(i+1)*6000], 48000, f))
		}
		slices.Sort(v)
		return (v[3] + v[4]) / 2
	}
	// the output has settled when two recordings in a row measure
	// the pass band alike (after a switch the old stream's tail
	// or the new one's start can still be in the first second)
	prev := math.Inf(-1)
	for deadline := time.Now().Add(15 * time.Second); ; {
		// parec starts late on a loaded machine: a short recording is
		// taken again, not failed, until the deadline
		if x = recordSink(t, sink, 1.2); len(x) < 48000 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: recorded %d samples", band, len(x))
			}
			continue
		}
		x = x[len(x)-48000:]
		p := piece(pass)
		if (p > -100 && math.Abs(p-prev) <= 0.05) || time.Now().After(deadline) {
			break
		}
		prev = p
	}
	return piece
}
