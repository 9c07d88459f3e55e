package panel

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/live"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/window"
)

// fakeTransferEngine records what the panel asks of the analysis.
type fakeTransferEngine struct {
	started []transfer.LiveSettings
	running bool
	finds   int
	// the stimulus played to the output ("" none); noOutput: there is no output device
	playing  string
	noOutput bool
}

func (e *fakeTransferEngine) StartTransfer(s transfer.LiveSettings) error {
	e.started, e.running = append(e.started, s), true
	return nil
}
func (e *fakeTransferEngine) StopTransfer() { e.running = false }
func (e *fakeTransferEngine) PlayStimulus(spec string) error {
	if e.noOutput {
		return errors.New("audio: no output device")
	}
	e.playing = spec
	return nil
}
func (e *fakeTransferEngine) StopStimulus()          { e.playing = "" }
func (e *fakeTransferEngine) StimulusStatus() string { return "playing " + e.playing }
func (e *fakeTransferEngine) TransferStatus() string { return "" }
func (e *fakeTransferEngine) FindDelays(dst []dual.Delay, phat bool) int {
	e.finds++
	for c := range dst {
		dst[c] = dual.Delay{Found: c == 0, Samples: 120, Polarity: 1}
	}
	return len(dst)
}

// LatestTransfer: one channel, 3 bins, after the first start.
func (e *fakeTransferEngine) LatestTransfer(dst *transfer.LiveResult) bool {
	if !e.running {
		return false
	}
	*dst = transfer.LiveResult{Geometry: live.Geometry{Rate: 48000, FFT: 4, Hop: 2}, Channels: []int{1}, Frames: 1, Averaged: 1,
		MagnitudeDB: [][]float64{{-1, -2, -3}}, PhaseDeg: [][]float64{{0, 10, 20}}, Coherence: [][]float64{{1, 0.9, 0.8}}}
	return true
}

func (e *fakeTransferEngine) TransferImpulse(int, []float64, []float64) (dual.Delay, bool) {
	return dual.Delay{}, false
}

func (e *fakeTransferEngine) last() transfer.LiveSettings { return e.started[len(e.started)-1] }

// fakeTransferHost is the window's source.
type fakeTransferHost struct{ src session.SourceSpec }

func (h *fakeTransferHost) Source() session.SourceSpec        { return h.src }
func (h *fakeTransferHost) UseSource(spec session.SourceSpec) { h.src = spec }

func newTestTransfer(t *testing.T, inputs int) (*Transfer, *fakeTransferEngine, *fakeTransferHost) {
	test.NewTempApp(t)
	eng := &fakeTransferEngine{}
	host := &fakeTransferHost{src: session.SourceSpec{Kind: session.SourceDevice, Device: "2", Rate: 48000, Channels: inputs}}
	now := func(f func()) { f() }
	p := NewTransfer(eng, host, test.NewTempWindow(t, nil), now, now, inputs)
	return p, eng, host
}

// TestTransferPanelSettings: each control changes the analyzer's
// settings as it says, and only while the panel is active.
func TestTransferPanelSettings(t *testing.T) {
	p, eng, _ := newTestTransfer(t, 4)
	if len(eng.started) != 0 {
		t.Fatal("started before its tab was shown")
	}
	p.Activate()
	want := transfer.LiveSettings{FFT: 65536, Hop: 16384, Window: window.Func{Kind: window.Hann}, RefChannel: 0,
		Channels: []int{1, 2, 3}, Average: dual.AverageComplex, Frames: 16}
	if got := eng.last(); !reflect.DeepEqual(got, want) {
		t.Fatalf("default settings %+v, want %+v", got, want)
	}
	steps := []struct {
		name string
		do   func()
		edit func(s *transfer.LiveSettings)
	}{
		{"FFT", func() { p.fft.SetSelected("262144") }, func(s *transfer.LiveSettings) { s.FFT, s.Hop = 262144, 65536 }},
		{"overlap", func() { p.overlap.SetSelected("99.8 %") }, func(s *transfer.LiveSettings) { s.Hop = 512 }},
		{"window", func() { p.window.SetSelectedIndex(1) }, func(s *transfer.LiveSettings) { s.Window.Kind = window.Rect }},
		{"average", func() { p.avg.SetSelected("polar") }, func(s *transfer.LiveSettings) { s.Average = dual.AveragePolar }},
		{"exponential", func() { p.frames.SetSelected("exponential") }, func(s *transfer.LiveSettings) { s.Frames, s.ExpAlpha = 0, 1.0/16 }},
		{"FIFO 256", func() { p.frames.SetSelected("256") }, func(s *transfer.LiveSettings) { s.Frames, s.ExpAlpha = 256, 0 }},
		{"channel 3 off", func() { p.checks[2].SetChecked(false) }, func(s *transfer.LiveSettings) { s.Channels = []int{1, 3} }},
		{"reference ch 2", func() { p.ref.SetSelected("ch 2") }, func(s *transfer.LiveSettings) { s.RefChannel, s.Channels = 1, []int{3} }},
		{"track", p.ToggleTrack, func(s *transfer.LiveSettings) { s.Track = true }},
	}
	for _, st := range steps {
		n := len(eng.started)
		st.do()
		st.edit(&want)
		if len(eng.started) != n+1 {
			t.Fatalf("%s: %d starts, want one more than %d", st.name, len(eng.started), n)
		}
		if got := eng.last(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v, want %+v", st.name, got, want)
		}
	}
	// the view's options restart nothing that matters but reach the view
	p.smooth.SetSelected("1/3 octave")
	p.coh.SetSelected("0.9")
	if o := p.View().Options(); o.Smoothing != 3 || o.CohThreshold != 0.9 {
		t.Fatalf("view options %+v", o)
	}
	p.Deactivate()
	n := len(eng.started)
	p.fft.SetSelected("8192")
	if eng.running || len(eng.started) != n {
		t.Fatal("the analyzer runs or restarted while its tab is hidden")
	}
	// a source of fewer channels: the state fits it
	p.Sync(2)
	if s := p.State(); s.Ref != 1 || !slices.Equal(s.Channels, []int{0}) {
		t.Fatalf("on 2 channels: reference %d, channels %v", s.Ref, s.Channels)
	}
	// every channel but the reference measured stays so on more channels;
	// a choice of some stays that choice
	p.Sync(4)
	if s := p.State(); s.Ref != 1 || !slices.Equal(s.Channels, []int{0, 2, 3}) {
		t.Fatalf("2 → 4 channels: reference %d, channels %v", s.Ref, s.Channels)
	}
	p.checks[3].SetChecked(false)
	p.Sync(6)
	if s := p.State(); !slices.Equal(s.Channels, []int{0, 2}) {
		t.Fatalf("4 → 6 channels: channels %v, want the choice [0 2]", s.Channels)
	}
}

// TestTransferPanelStress: the stress preset switches the source to the
// generator's periodic pink noise at 192 kHz × 17 and the analysis to 16
// channels against one, N=65536, hop 128, 64 frames, tracking, once the
// source has the channels; off again, the state and source before it
// come back exactly.
func TestTransferPanelStress(t *testing.T) {
	p, eng, host := newTestTransfer(t, 2)
	p.Activate()
	p.fft.SetSelected("16384")
	p.frames.SetSelected("exponential")
	p.smooth.SetSelected("1/48 octave")
	before, beforeSrc := p.State(), host.src
	p.stressChk.SetChecked(true)
	if !p.Stressed() || host.src != (session.SourceSpec{Kind: session.SourceGenerator, Generator: "pinkperiodic:65536:-20", Rate: 192000, Channels: 17}) {
		t.Fatalf("stress source %+v", host.src)
	}
	n := len(eng.started)
	p.Sync(2) // the source has not switched yet: nothing starts
	if len(eng.started) != n {
		t.Fatalf("started on the old source: %+v", eng.last())
	}
	p.Sync(17)
	want := transfer.LiveSettings{FFT: 65536, Hop: 128, Window: window.Func{Kind: window.Rect}, RefChannel: 0,
		Channels: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, Average: dual.AverageComplex, Frames: 64, Track: true}
	if got := eng.last(); !reflect.DeepEqual(got, want) {
		t.Fatalf("stress settings %+v, want %+v", got, want)
	}
	if p.State().View.Smoothing != 48 {
		t.Fatal("the stress preset changed the view's smoothing")
	}
	p.stressChk.SetChecked(false)
	if p.Stressed() || host.src != beforeSrc {
		t.Fatalf("source after the preset %+v, want %+v", host.src, beforeSrc)
	}
	p.Sync(2)
	if got := p.State(); !reflect.DeepEqual(got, before) {
		t.Fatalf("state after the preset %+v, want %+v", got, before)
	}
	if got := eng.last(); got.FFT != 16384 || got.Frames != 0 || got.Track {
		t.Fatalf("settings after the preset %+v", got)
	}
}

// TestTransferPanelStoreAndFind: Store reference hands OnStore the
// channel shown as a transfer function trace; Find hands the view the
// delays found; the stimuli switch the source to the generator and back.
func TestTransferPanelStoreAndFind(t *testing.T) {
	p, eng, host := newTestTransfer(t, 2)
	p.Activate()
	p.Pull()
	var got *dsp.Trace
	p.OnStore = func(tr *dsp.Trace) { got = tr }
	p.store.OnTapped()
	if got == nil || got.Unit != "dB" || !got.IsTransfer() || !slices.Equal(got.FreqHz, []float64{0, 12000, 24000}) ||
		!slices.Equal(got.Level, []float64{-1, -2, -3}) || !slices.Equal(got.PhaseDeg, []float64{0, 10, 20}) ||
		!slices.Equal(got.Coherence, []float64{1, 0.9, 0.8}) {
		t.Fatalf("stored %+v", got)
	}
	p.find.OnTapped()
	if eng.finds != 1 || len(p.Found()) != 1 || !p.Found()[0].Found {
		t.Fatalf("Find: %d calls, found %+v", eng.finds, p.Found())
	}
	src := host.src
	p.stim.SetSelectedIndex(StimulusMLS)
	if host.src.Generator != "mls:16:-20" || host.src.Channels != 2 || host.src.Rate != 48000 {
		t.Fatalf("MLS source %+v", host.src)
	}
	p.fft.SetSelected("4096") // a periodic stimulus follows the FFT size
	if host.src.Generator != "mls:12:-20" {
		t.Fatalf("MLS after N=4096: %+v", host.src)
	}
	p.stim.SetSelectedIndex(StimulusPink)
	if host.src.Generator != "pinkperiodic:4096:-20" {
		t.Fatalf("pink source %+v", host.src)
	}
	p.stim.SetSelectedIndex(StimulusInput)
	if host.src != src {
		t.Fatalf("back to the input: %+v, want %+v", host.src, src)
	}
}

// TestTransferStimulusToOutput: the stimuli played to the output keep
// the input as the source and play the generator's periodic signal in the
// FFT's length (following a new size); leaving the tab, the stress preset
// or going back to the input alone stops it; without an output device the
// status says so in a sentence and the choice goes back to the input.
func TestTransferStimulusToOutput(t *testing.T) {
	p, eng, host := newTestTransfer(t, 2)
	p.Activate()
	src := host.src
	p.stim.SetSelectedIndex(StimulusOutMLS)
	if host.src != src || eng.playing != "mls:16:-20" {
		t.Fatalf("MLS to the output: source %+v, playing %q", host.src, eng.playing)
	}
	p.fft.SetSelected("4096")
	if eng.playing != "mls:12:-20" || host.src != src {
		t.Fatalf("after N=4096: playing %q, source %+v", eng.playing, host.src)
	}
	p.stim.SetSelectedIndex(StimulusOutPink)
	if eng.playing != "pinkperiodic:4096:-20" {
		t.Fatalf("pink to the output: %q", eng.playing)
	}
	p.Deactivate()
	if eng.playing != "" {
		t.Fatalf("the tab hidden, still playing %q", eng.playing)
	}
	p.Activate()
	if eng.playing != "pinkperiodic:4096:-20" {
		t.Fatalf("the tab shown again: playing %q", eng.playing)
	}
	p.ToggleStress()
	if eng.playing != "" {
		t.Fatalf("stress preset on, still playing %q", eng.playing)
	}
	p.ToggleStress()
	if eng.playing != "pinkperiodic:4096:-20" || host.src != src {
		t.Fatalf("stress preset off: playing %q, source %+v", eng.playing, host.src)
	}
	p.stim.SetSelectedIndex(StimulusInput)
	if eng.playing != "" || host.src != src {
		t.Fatalf("back to the input: playing %q, source %+v", eng.playing, host.src)
	}
	eng.noOutput = true
	p.stim.SetSelectedIndex(StimulusOutMLS)
	if p.stimulus != StimulusInput || !strings.Contains(p.StatusText(), "connect an output device") {
		t.Fatalf("no output: stimulus %d, status %q", p.stimulus, p.StatusText())
	}
}
