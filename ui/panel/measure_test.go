package panel

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/room"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/app/sweep"
	"github.com/prismaudio/prism/gpufft"
)

// knownMeasurement is a 1-s 50 Hz–20 kHz sweep at −6 dBFS (48 kHz)
// through a known system, deconvolved by package sweep on the CPU: a
// 100-sample delay, a gain of 0.5 and the memoryless y = x + 0.1·x²,
// whose second harmonic is 0.1·A/2 of the fundamental for a sine of
// amplitude A (A = 10^(−6/20): −32.0 dB) and which has no other.
func knownMeasurement(t *testing.T) *session.Measurement {
	t.Helper()
	const rate, delay, nl = 48000, 100, 0.1
	spec := sweep.NewSpec(50, 20000, 1, rate)
	spec.LevelDB = -6
	sig := spec.Signal()
	rec := make([]float32, len(sig)+rate/2)
	for i, x := range sig {
		v := float64(x)
		rec[i+delay] = float32(0.5 * (v + nl*v*v))
	}
	cpu := gpufft.NewCPU(0)
	t.Cleanup(func() { cpu.Close() })
	res, _, err := sweep.Analyze(context.Background(), engine.Pair{Preferred: cpu, CPU: cpu}, spec, rec, nil, sweep.Options{Distortion: true})
	if err != nil {
		t.Fatal(err)
	}
	m := &session.Measurement{Settings: session.MeasureSettings{Channel: 1, RefChannel: -1, FromHz: 50, ToHz: 20000, Seconds: 1, LevelDB: -6, Sweeps: 1},
		Spec: spec, Result: res, LatencyMs: []float64{res.LatencyMs()}, Output: "Null Output"}
	if m.Room, err = room.Analyze(res.IR, rate, room.Options{Fraction: 1}); err != nil {
		m.RoomErr = err.Error()
	}
	return m
}

type fakeMeasureEngine struct {
	mu    sync.Mutex
	calls []session.MeasureSettings
	res   *session.Measurement // nil: Measure waits for the cancel
	err   error
}

func (e *fakeMeasureEngine) Measure(ctx context.Context, s session.MeasureSettings, progress func(string)) (*session.Measurement, error) {
	e.mu.Lock()
	e.calls = append(e.calls, s)
	res, err := e.res, e.err
	e.mu.Unlock()
	progress("sweep 1 of 1: playing")
	if res == nil && err == nil {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return res, err
}

func (e *fakeMeasureEngine) OutputDevices() ([]string, error) {
	return []string{"Null Output", "USB Interface"}, nil
}

type fakeMeasureHost struct{ path string }

func (h *fakeMeasureHost) SaveDialog(_ string, fn func(path string)) { fn(h.path) }

// newTestMeasure is a Measure panel on eng whose do queues onto q (run
// by drain on the test goroutine).
func newTestMeasure(t *testing.T, eng MeasureEngine, host MeasureHost) (*Measure, func()) {
	a := test.NewTempApp(t)
	win := a.NewWindow("measure")
	q := make(chan func(), 64)
	p := NewMeasure(eng, host, NewNotice(win), func(f func()) { q <- f }, 2)
	drain := func() {
		for {
			select {
			case f := <-q:
				f()
			default:
				return
			}
		}
	}
	return p, drain
}

// TestMeasureControls: the controls set the settings the measurement
// gets (output, channels, range, length, level, sweeps); a bad frequency
// is refused with a sentence; the listed outputs are offered.
func TestMeasureControls(t *testing.T) {
	eng := &fakeMeasureEngine{}
	p, drain := newTestMeasure(t, eng, &fakeMeasureHost{})
	p.ListOutputs()
	for len(p.output.Options) < 3 {
		drain()
	}
	p.output.SetSelected("USB Interface")
	p.channel.SetSelected("ch 2")
	p.ref.SetSelected("ch 1")
	p.from.SetText("40")
	p.to.SetText("16000 Hz")
	p.seconds.SetSelected("10 s")
	p.level.SetSelected("-18 dBFS")
	p.sweeps.SetSelected("4")
	want := session.MeasureSettings{Output: "USB Interface", Channel: 1, RefChannel: 0, FromHz: 40, ToHz: 16000, Seconds: 10, LevelDB: -18, Sweeps: 4}
	if got, err := p.Settings(); err != nil || got != want {
		t.Fatalf("settings %+v (%v), want %+v", got, err, want)
	}
	p.Start()
	p.Cancel()
	p.Wait()
	drain()
	if len(eng.calls) != 1 || eng.calls[0] != want {
		t.Fatalf("Measure got %+v, want %+v", eng.calls, want)
	}
	if p.Running() || p.StatusText() != "Measurement cancelled." {
		t.Errorf("after Cancel: running %v, status %q", p.Running(), p.StatusText())
	}
	p.from.SetText("low")
	if _, err := p.Settings(); err == nil || err.Error() != `prism: From Hz is "low"; want a frequency above 0` {
		t.Errorf("a bad frequency: %v", err)
	}
	p.Start()
	if p.Running() || len(eng.calls) != 1 {
		t.Error("a bad frequency started a measurement")
	}
	// the source loses a channel: channel 2 and the reference go
	p.Sync(1)
	if s, _ := p.Settings(); s.Channel != 0 || s.RefChannel != -1 {
		t.Errorf("on a mono source: channel %d, reference %d", s.Channel, s.RefChannel)
	}
}

// TestMeasureNoOutput: without an output device the status says so in
// one sentence, and the notice line too.
func TestMeasureNoOutput(t *testing.T) {
	eng := &fakeMeasureEngine{err: fmt.Errorf("%w: PortAudio: no devices", session.ErrNoOutputDevice)}
	p, drain := newTestMeasure(t, eng, &fakeMeasureHost{})
	p.Start()
	p.Wait()
	drain()
	if p.StatusText() != noOutputSentence || p.note.Text() != noOutputSentence || !p.note.Failed() {
		t.Errorf("status %q, notice %q", p.StatusText(), p.note.Text())
	}
	if p.Result() != nil || !p.exportIR.Disabled() {
		t.Error("a result without a measurement")
	}
}

// TestMeasureResults: a known system's measurement, shown, stored and
// exported: the response trace is a transfer function (Unit "dB",
// phase) of −6.02 dB (the gain 0.5) within 0.1 dB and 0° within 1° (re
// the peak: the 100-sample delay is taken out) from 400 Hz to 10 kHz
// (below, the 1-s sweep's deconvolution ripples more); the distortion trace is a spectrum
// of the THD, −32.0 dB (the analytic second harmonic) within 0.5 dB at
// 1 kHz; the IR's WAV holds the IR's samples, the CSV has `prism room`'s
// header and the smoothed response, the PNG the four plots.
func TestMeasureResults(t *testing.T) {
	dir := t.TempDir()
	host := &fakeMeasureHost{}
	eng := &fakeMeasureEngine{res: knownMeasurement(t)}
	p, drain := newTestMeasure(t, eng, host)
	var stored []*dsp.Trace
	p.OnStore = func(tr *dsp.Trace) error { stored = append(stored, tr); return nil }
	p.Start()
	p.Wait()
	drain()
	if p.Result() != eng.res || p.StatusText() != "Done." {
		t.Fatalf("result %p, status %q", p.Result(), p.StatusText())
	}
	if err := p.StoreResponse(); err != nil {
		t.Fatal(err)
	}
	if err := p.StoreDistortion(); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 2 {
		t.Fatalf("%d traces stored", len(stored))
	}
	resp, dist := stored[0], stored[1]
	if !resp.IsTransfer() || resp.Unit != dsp.UnitDB || !strings.HasPrefix(resp.Name, "sweep ch 2 ") {
		t.Errorf("response trace %q unit %q, transfer %v", resp.Name, resp.Unit, resp.IsTransfer())
	}
	want := 20 * math.Log10(0.5)
	for i, f := range resp.FreqHz {
		if f >= 400 && f <= 10000 && (math.Abs(resp.Level[i]-want) > 0.1 || math.Abs(resp.PhaseDeg[i]) > 1) {
			t.Fatalf("%.1f Hz: %.3f dB %.2f°, want %.3f dB 0°", f, resp.Level[i], resp.PhaseDeg[i], want)
		}
	}
	h2 := 20 * math.Log10(0.1*math.Pow(10, -6.0/20)/2)
	if dist.IsTransfer() || dist.Unit != dsp.UnitDB || !strings.HasPrefix(dist.Name, "THD ch 2 ") {
		t.Errorf("distortion trace %q unit %q, transfer %v", dist.Name, dist.Unit, dist.IsTransfer())
	}
	if got := dist.At(1000); math.Abs(got-h2) > 0.5 {
		t.Errorf("THD at 1 kHz %.2f dB, want %.2f", got, h2)
	}

	host.path = filepath.Join(dir, "ir.wav")
	p.exportIR.OnTapped()
	raw, err := os.ReadFile(host.path)
	if err != nil {
		t.Fatal(err)
	}
	ir := p.Result().Result.IR
	at := strings.Index(string(raw), "data")
	if string(raw[:4]) != "RIFF" || at < 0 || int(binary.LittleEndian.Uint32(raw[at+4:])) != 4*len(ir) {
		t.Fatalf("the WAV: %q…, data at %d", raw[:12], at)
	}
	for _, i := range []int{0, p.Result().Result.Peak, len(ir) - 1} {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[at+8+4*i:])); got != float32(ir[i]) {
			t.Errorf("sample %d: %v, want %v", i, got, ir[i])
		}
	}

	host.path = filepath.Join(dir, "response.csv")
	p.exportCSV.OnTapped()
	f, err := os.Open(host.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	if sc.Text() != "freq_hz,magnitude_db,phase_deg,group_delay_ms" {
		t.Errorf("header %q", sc.Text())
	}
	rows := 0
	for sc.Scan() {
		var fr, mag, ph, gd float64
		if _, err := fmt.Sscanf(strings.ReplaceAll(sc.Text(), ",", " "), "%g %g %g %g", &fr, &mag, &ph, &gd); err != nil {
			t.Fatalf("row %q: %v", sc.Text(), err)
		}
		if fr >= 1000 && fr < 1001 && math.Abs(mag-want) > 0.1 {
			t.Errorf("CSV at %g Hz: %.3f dB, want %.3f", fr, mag, want)
		}
		rows++
	}
	if rows != len(p.resp.FreqHz) {
		t.Errorf("%d rows, want %d bins", rows, len(p.resp.FreqHz))
	}

	host.path = filepath.Join(dir, "m.png")
	p.exportPNG.OnTapped()
	pf, err := os.Open(host.path)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil || img.Bounds().Dx() != 1600 || img.Bounds().Dy() != 1000 {
		t.Errorf("PNG %v: %v", img.Bounds(), err)
	}
	if !strings.HasPrefix(p.note.Text(), "Saved ") {
		t.Errorf("notice %q", p.note.Text())
	}
}
