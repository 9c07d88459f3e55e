//go:build cgo

package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// nullSink loads a null sink of its own into the running sound server
// (unloaded, by its module index, at the end) and returns its name and
// description.
func nullSink(t *testing.T) (name, desc string) {
	t.Helper()
	name = fmt.Sprintf("prism_monitor_test_%d", os.Getpid())
	desc = fmt.Sprintf("Prism monitor test %d", os.Getpid())
	out, err := exec.Command("pactl", "load-module", "module-null-sink", "sink_name="+name, "rate=48000", "channels=2",
		"sink_properties='device.description=\""+desc+"\"'").Output()
	if err != nil {
		t.Fatalf("pactl load-module: %v", err)
	}
	idx := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("pactl", "unload-module", idx).Run() })
	return name, desc
}

// readFor reads frames from c until n frames of the first channel are
// collected or the deadline passes.
func readFor(t *testing.T, c *Capture, n int, deadline time.Time, keep func([]float32) bool) []float32 {
	t.Helper()
	buf := make([]float32, 4096*c.Channels())
	var got []float32
	for len(got) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d frames by the deadline", len(got), n)
		}
		k, _, err := c.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		for i := range k {
			if v := buf[i*c.Channels() : i*c.Channels()+1]; keep(v) || len(got) > 0 {
				got = append(got, v[0])
			}
		}
	}
	return got[:n]
}

// TestMonitorSource: an output's monitor is listed by the name of the
// output ("Monitor of …", the default output's first) and opened by that
// name: with nothing playing it delivers silence, not an outage; a tone
// played into the output (a 1 kHz sine of peak 0.5, by pacat) is
// recorded at its level, −6.02 dBFS ± 0.1 dB (AES17: a full-scale sine
// reads 0 dBFS).
func TestMonitorSource(t *testing.T) {
	requireAudio(t)
	sink, desc := nullSink(t)
	mons, err := Monitors()
	if err != nil {
		t.Fatal(err)
	}
	var mine *Monitor
	for i, m := range mons {
		if m.Name == "Monitor of "+desc {
			mine = &mons[i]
		}
	}
	if mine == nil || mine.Source != sink+".monitor" || mine.Rate != 48000 || !mons[0].Default {
		t.Fatalf("monitors %+v: want %q (%s.monitor, 48 kHz), the default output's first", mons, "Monitor of "+desc, sink)
	}
	c, err := OpenCapture(CaptureConfig{Device: "monitor of " + strings.ToLower(desc), Channels: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Name() != mine.Name || c.SampleRate() != 48000 {
		t.Errorf("opened %q at %d Hz", c.Name(), c.SampleRate())
	}
	// nothing playing: a quarter second of zeros arrives (a generous bound
	// for a loaded machine, not a timing under test)
	silence := readFor(t, c, 12000, time.Now().Add(10*time.Second), func([]float32) bool { return true })
	for i, v := range silence {
		if v != 0 {
			t.Fatalf("sample %d of the silent monitor is %g", i, v)
		}
	}
	// a tone: 3 s of float32 stereo into the sink
	const rate, f, amp = 48000, 1000.0, 0.5
	pcm := make([]byte, 3*rate*2*4)
	for i := range 3 * rate {
		v := math.Float32bits(float32(amp * math.Sin(2*math.Pi*f*float64(i)/rate)))
		binary.LittleEndian.PutUint32(pcm[8*i:], v)
		binary.LittleEndian.PutUint32(pcm[8*i+4:], v)
	}
	play := exec.Command("pacat", "--playback", "--device="+sink, "--raw", "--format=float32le", "--rate=48000", "--channels=2")
	play.Stdin = strings.NewReader(string(pcm))
	if err := play.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { play.Process.Kill(); play.Wait() }()
	// from the first sound, skip 0.1 s (the stream's start), then 0.5 s
	tone := readFor(t, c, rate*6/10, time.Now().Add(15*time.Second), func(v []float32) bool { return v[0] != 0 })[rate/10:]
	sum := 0.0
	for _, v := range tone {
		sum += float64(v) * float64(v)
	}
	level := 20 * math.Log10(math.Sqrt(sum/float64(len(tone)))*math.Sqrt2)
	t.Logf("recorded %.3f dBFS of a tone played at %.3f dBFS", level, 20*math.Log10(amp))
	if want := 20 * math.Log10(amp); math.Abs(level-want) > 0.1 {
		t.Errorf("recorded %.3f dBFS, played %.3f dBFS", level, want)
	}
	if _, err := OpenCapture(CaptureConfig{Device: "monitor of no such output xyz"}); !errors.Is(err, ErrNoInputDevice) || !strings.Contains(err.Error(), desc) {
		t.Errorf("a monitor that is not there: %v", err)
	}
}
