package panel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/room"
	"github.com/prismaudio/prism/app/session"
	"github.com/prismaudio/prism/ui/view"
)

// MeasureEngine is what the Measure workspace needs of the analysis
// (session.Session's sweep measurement): Measure blocks for the sweeps
// and the analysis (the panel calls it from a goroutine of its own),
// OutputDevices may block while PortAudio lists the devices.
type MeasureEngine interface {
	Measure(ctx context.Context, s session.MeasureSettings, progress func(string)) (*session.Measurement, error)
	OutputDevices() ([]string, error)
}

// MeasureHost is what the Measure panel needs of the window: the save
// dialog the exports go through.
type MeasureHost interface {
	SaveDialog(name string, fn func(path string))
}

// Measure is the Measure workspace's side panel and view: the output,
// the measured and reference input channels, the sweep (range, length,
// level, how many are averaged), Measure and Cancel, the smoothing of the
// response shown, and Store / Export of the results. The measurement runs
// on a goroutine of the panel's; its progress and failures go to the
// panel's status line and the window's notice line.
type Measure struct {
	eng  MeasureEngine
	host MeasureHost
	note *Notice
	do   func(func()) // onto the Fyne goroutine

	// OnStore, if set, keeps a trace Store makes as a reference.
	OnStore func(*dsp.Trace) error

	set       session.MeasureSettings
	smoothing int // 1/N octave of the response shown and exported (0: none)
	inputs    int
	outputs   []string // the output devices listed ("" first: the default)
	res       *session.Measurement
	resp      room.Response // res's response at smoothing, re the impulse's peak
	cancel    context.CancelFunc
	done      chan struct{} // closed when the running measurement ends
	view      *view.MeasureView

	output, channel, ref, seconds, level, sweeps, smooth *widget.Select
	from, to                                             *widget.Entry
	start, stop                                          *widget.Button
	storeResp, storeDist                                 *widget.Button
	exportIR, exportCSV, exportPNG                       *widget.Button
	status                                               *widget.Label
	content                                              fyne.CanvasObject
}

// Option tables: the values each select offers.
var (
	measureSeconds   = []float64{1, 2, 5, 10, 20, 30}
	measureLevels    = []float64{-40, -30, -24, -18, -12, -6, -3, 0}
	measureSweeps    = []int{1, 2, 3, 4, 8, 16}
	measureSmoothing = []int{0, 48, 24, 12, 6, 3}
)

// defaultOutput labels the default output device in the output select.
const defaultOutput = "Default output"

// NewMeasure makes the panel, its view and its controls for a source of
// inputs channels, with the default settings (session.DefaultMeasureSettings,
// 1/6-octave smoothing). It does not list the output devices
// (ListOutputs does).
func NewMeasure(eng MeasureEngine, host MeasureHost, note *Notice, do func(func()), inputs int) *Measure {
	p := &Measure{eng: eng, host: host, note: note, do: do, inputs: max(inputs, 1), set: session.DefaultMeasureSettings(),
		smoothing: 6, outputs: []string{""}}
	p.view = view.NewMeasureView()
	p.build()
	p.sync()
	return p
}

// View is the workspace's view.
func (p *Measure) View() *view.MeasureView { return p.view }

// Content is the side panel's content.
func (p *Measure) Content() fyne.CanvasObject { return p.content }

func (p *Measure) build() {
	sel := func(labels []string, set func(i int)) *widget.Select {
		return widget.NewSelect(labels, func(v string) {
			for i, l := range labels {
				if l == v {
					set(i)
					return
				}
			}
		})
	}
	p.output = widget.NewSelect([]string{defaultOutput}, func(v string) {
		p.set.Output = ""
		if v != defaultOutput {
			p.set.Output = v
		}
	})
	p.channel = widget.NewSelect(nil, func(v string) {
		if c := channelIndex(v); c >= 0 {
			p.set.Channel = c
		}
	})
	p.ref = widget.NewSelect(nil, func(v string) { p.set.RefChannel = channelIndex(v) })
	p.from, p.to = widget.NewEntry(), widget.NewEntry()
	p.seconds = sel(labelsOf(measureSeconds, func(s float64) string { return strconv.FormatFloat(s, 'g', -1, 64) + " s" }),
		func(i int) { p.set.Seconds = measureSeconds[i] })
	p.level = sel(labelsOf(measureLevels, func(l float64) string { return strconv.FormatFloat(l, 'g', -1, 64) + " dBFS" }),
		func(i int) { p.set.LevelDB = measureLevels[i] })
	p.sweeps = sel(labelsOf(measureSweeps, strconv.Itoa), func(i int) { p.set.Sweeps = measureSweeps[i] })
	p.smooth = sel(labelsOf(measureSmoothing, smoothLabel), func(i int) {
		if p.smoothing != measureSmoothing[i] {
			p.smoothing = measureSmoothing[i]
			p.show()
		}
	})
	p.start = widget.NewButton("Measure", p.Start)
	p.start.Importance = widget.HighImportance
	p.stop = widget.NewButton("Cancel", p.Cancel)
	p.storeResp = widget.NewButton("Store response", func() { p.report(p.StoreResponse()) })
	p.storeDist = widget.NewButton("Store distortion", func() { p.report(p.StoreDistortion()) })
	p.exportIR = widget.NewButton("Export IR (WAV)", func() { p.exportDialog("impulse.wav", p.ExportIR) })
	p.exportCSV = widget.NewButton("Export response (CSV)", func() { p.exportDialog("response.csv", p.ExportResponse) })
	p.exportPNG = widget.NewButton("Export PNG", func() { p.exportDialog("measurement.png", p.ExportPNG) })
	p.status = widget.NewLabel("")
	p.status.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("Output", p.output),
		widget.NewFormItem("Measure", p.channel),
		widget.NewFormItem("Reference", p.ref),
		widget.NewFormItem("From Hz", p.from),
		widget.NewFormItem("To Hz", p.to),
		widget.NewFormItem("Length", p.seconds),
		widget.NewFormItem("Level", p.level),
		widget.NewFormItem("Sweeps", p.sweeps),
		widget.NewFormItem("Smoothing", p.smooth),
	)
	p.content = container.NewVBox(widget.NewLabelWithStyle("Sweep measurement", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		form, container.NewGridWithColumns(2, p.start, p.stop), p.status, widget.NewSeparator(),
		container.NewGridWithColumns(2, p.storeResp, p.storeDist), p.exportIR, p.exportCSV, p.exportPNG)
}

// sync sets every control to the settings and the state.
func (p *Measure) sync() {
	outs := make([]string, len(p.outputs))
	for i, o := range p.outputs {
		outs[i] = o
		if o == "" {
			outs[i] = defaultOutput
		}
	}
	p.output.Options = outs
	if p.set.Output == "" {
		p.output.SetSelected(defaultOutput)
	} else {
		p.output.SetSelected(p.set.Output)
	}
	p.channel.Options = channelLabels(p.inputs)
	p.channel.SetSelected(channelLabel(min(p.set.Channel, p.inputs-1)))
	p.ref.Options = append([]string{"none"}, channelLabels(p.inputs)...)
	if p.set.RefChannel >= 0 && p.set.RefChannel < p.inputs {
		p.ref.SetSelected(channelLabel(p.set.RefChannel))
	} else {
		p.ref.SetSelected("none")
	}
	p.from.SetText(strconv.FormatFloat(p.set.FromHz, 'g', -1, 64))
	p.to.SetText(strconv.FormatFloat(p.set.ToHz, 'g', -1, 64))
	p.seconds.SetSelected(strconv.FormatFloat(p.set.Seconds, 'g', -1, 64) + " s")
	p.level.SetSelected(strconv.FormatFloat(p.set.LevelDB, 'g', -1, 64) + " dBFS")
	p.sweeps.SetSelected(strconv.Itoa(p.set.Sweeps))
	p.smooth.SetSelected(smoothLabel(p.smoothing))
	p.enable()
}

// enable enables the controls for the state: Cancel while measuring,
// the rest then not; Store and Export with a result.
func (p *Measure) enable() {
	running := p.Running()
	for _, w := range []fyne.Disableable{p.start, p.output, p.channel, p.ref, p.from, p.to, p.seconds, p.level, p.sweeps} {
		setEnabled(w, !running)
	}
	setEnabled(p.stop, running)
	for _, w := range []fyne.Disableable{p.storeResp, p.exportIR, p.exportCSV, p.exportPNG} {
		setEnabled(w, p.res != nil)
	}
	setEnabled(p.storeDist, p.res != nil && p.res.Result.Distortion != nil)
}

func setEnabled(w fyne.Disableable, on bool) {
	if on {
		w.Enable()
	} else {
		w.Disable()
	}
}

// Settings are the measurement's settings as the controls say, or why
// they are not valid.
func (p *Measure) Settings() (session.MeasureSettings, error) {
	s := p.set
	var err error
	if s.FromHz, err = parseHz(p.from.Text, "From"); err != nil {
		return s, err
	}
	if s.ToHz, err = parseHz(p.to.Text, "To"); err != nil {
		return s, err
	}
	return s, nil
}

func parseHz(text, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "Hz")), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("prism: %s Hz is %q; want a frequency above 0", what, text)
	}
	return v, nil
}

// SetSettings sets every control to s.
func (p *Measure) SetSettings(s session.MeasureSettings) {
	p.set = s
	p.sync()
}

// Smoothing is the response's smoothing, 1/N octave (0: none).
func (p *Measure) Smoothing() int { return p.smoothing }

// Sync follows the source's channel count.
func (p *Measure) Sync(inputs int) {
	inputs = max(inputs, 1)
	if inputs == p.inputs {
		return
	}
	p.inputs = inputs
	p.set.Channel = min(p.set.Channel, inputs-1)
	if p.set.RefChannel >= inputs || p.set.RefChannel == p.set.Channel {
		p.set.RefChannel = -1
	}
	p.sync()
}

// ListOutputs lists the output devices off the Fyne goroutine and offers
// them; without any, the status says so.
func (p *Measure) ListOutputs() {
	go func() {
		names, err := p.eng.OutputDevices()
		p.do(func() {
			p.outputs = append([]string{""}, names...)
			if err != nil {
				p.status.SetText(noOutputSentence)
			}
			p.sync()
		})
	}()
}

// noOutputSentence is what the panel says without an output device.
const noOutputSentence = "There is no output device to play the sweep through: connect one (or start the sound server) and measure again."

// Running says whether a measurement runs.
func (p *Measure) Running() bool { return p.cancel != nil }

// Start starts a measurement with the controls' settings (nothing when
// one runs); its end shows the results, or says why there are none.
func (p *Measure) Start() {
	if p.Running() {
		return
	}
	s, err := p.Settings()
	if err != nil {
		p.status.SetText(err.Error())
		p.note.Fail(err.Error(), nil)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel, p.done = cancel, make(chan struct{})
	done := p.done
	p.status.SetText("Starting the sweep…")
	p.enable()
	go func() {
		defer close(done)
		res, err := p.eng.Measure(ctx, s, func(step string) {
			p.do(func() { p.status.SetText(strings.ToUpper(step[:1]) + step[1:] + "…") })
		})
		p.do(func() { p.finish(res, err) })
	}()
}

// Cancel stops a running measurement (its end says so).
func (p *Measure) Cancel() {
	if p.cancel != nil {
		p.cancel()
	}
}

// Wait waits until the running measurement (if any) has ended and its
// end was handed to do (tests; Close).
func (p *Measure) Wait() {
	if p.done != nil {
		<-p.done
	}
}

// Close cancels a running measurement and waits for it.
func (p *Measure) Close() {
	p.Cancel()
	p.Wait()
}

func (p *Measure) finish(res *session.Measurement, err error) {
	if p.cancel != nil {
		p.cancel()
	}
	p.cancel = nil
	switch {
	case errors.Is(err, context.Canceled):
		p.status.SetText("Measurement cancelled.")
	case errors.Is(err, session.ErrNoOutputDevice):
		p.status.SetText(noOutputSentence)
		p.note.Fail(noOutputSentence, err)
	case err != nil:
		p.status.SetText("The measurement failed: " + Explain(err))
		p.note.Fail("The measurement failed: "+Explain(err), err)
	default:
		p.SetResult(res)
		p.note.Info("Measured: " + p.view.Data().Summary)
		p.status.SetText("Done.")
	}
	p.enable()
}

// SetResult shows m (tests give a known one).
func (p *Measure) SetResult(m *session.Measurement) {
	p.res = m
	p.show()
	p.enable()
}

// Result is the measurement shown (nil: none).
func (p *Measure) Result() *session.Measurement { return p.res }

// show computes the response at the smoothing and hands everything to
// the view.
func (p *Measure) show() {
	if p.res == nil {
		p.view.SetData(nil)
		return
	}
	m := p.res
	r := m.Result
	d := &view.MeasureData{Summary: summary(m), Smoothing: p.smoothing, Rate: r.Rate, Distortion: r.Distortion, ETC: room.ETC(r.IR)}
	if m.RoomErr == "" {
		rr := m.Room
		d.Room = &rr
	} else {
		d.RoomNote = "No room parameters: " + m.RoomErr
	}
	resp, err := response(r.IR, r.Peak, r.Zero, r.Rate, p.smoothing)
	if err != nil {
		d.RoomNote += " No response: " + err.Error()
	}
	p.resp = resp
	d.FreqHz, d.MagnitudeDB, d.PhaseDeg = logGrid(resp, m.Spec.From, min(m.Spec.To, 0.99*float64(r.Rate)/2))
	p.view.SetData(d)
}

// response is the frequency response of ir from zero samples before its
// peak, re the peak: the magnitude and phase of the samples from the
// peak on, those before it wrapped to the end of the transform (so that
// the smoothing averages a phase without the pure delay's rotation), the
// group delay of the samples as they come less the delay to the peak.
func response(ir []float64, peak, zero, rate, smoothing int) (room.Response, error) {
	from := max(0, peak-zero)
	if peak < 0 || peak >= len(ir) {
		return room.Response{}, errors.New("the impulse response has no peak")
	}
	gd, err := room.FrequencyResponse(ir[from:], rate, smoothing)
	if err != nil {
		return gd, err
	}
	n := 2 * (len(gd.FreqHz) - 1) // the transform's length
	buf := make([]float64, n)
	copy(buf, ir[peak:])
	copy(buf[n-(peak-from):], ir[from:peak])
	resp, err := room.FrequencyResponse(buf, rate, smoothing)
	if err != nil {
		return resp, err
	}
	d := float64(peak-from) / float64(rate) * 1000
	for k := range resp.GroupDelayMs {
		resp.GroupDelayMs[k] = gd.GroupDelayMs[k] - d
	}
	return resp, nil
}

// logGrid samples r at 1/48 octave from lo to hi Hz (the nearest bin;
// no point twice, none where the magnitude is not finite).
func logGrid(r room.Response, lo, hi float64) (freq, mag, phase []float64) {
	if len(r.FreqHz) < 2 {
		return nil, nil, nil
	}
	binHz := r.FreqHz[1]
	last := -1
	for f := lo; f <= hi*1.0001; f *= math.Pow(2, 1.0/48) {
		k := int(math.Round(f / binHz))
		if k <= last || k >= len(r.FreqHz) || math.IsInf(r.MagnitudeDB[k], 0) || math.IsNaN(r.MagnitudeDB[k]) {
			continue
		}
		last = k
		freq, mag, phase = append(freq, r.FreqHz[k]), append(mag, r.MagnitudeDB[k]), append(phase, r.PhaseDeg[k])
	}
	return freq, mag, phase
}

// summary is the measurement in one line.
func summary(m *session.Measurement) string {
	r := m.Result
	s := m.Spec
	var b strings.Builder
	fmt.Fprintf(&b, "%s–%s sweep, %g s at %g dBFS", hzText(s.From), hzText(s.To), s.Seconds, s.LevelDB)
	if n := len(m.LatencyMs); n > 1 {
		fmt.Fprintf(&b, ", %d averaged", n)
	}
	pol := "+"
	if r.Polarity < 0 {
		pol = "−"
	}
	fmt.Fprintf(&b, " · latency %.2f ms", r.LatencyMs())
	if r.HasRef {
		b.WriteString(" (re the reference)")
	}
	fmt.Fprintf(&b, " · peak %.1f dBFS · SNR %.0f dB · polarity %s", r.PeakDBFS, r.SNRDB, pol)
	if m.Output != "" {
		b.WriteString(" · " + m.Output)
	}
	if m.Replayed > 0 {
		fmt.Fprintf(&b, " · sweeps played again for a gap in the output or the input: %d", m.Replayed)
	}
	if m.Notice != "" {
		b.WriteString(" · " + m.Notice)
	}
	return b.String()
}

func hzText(f float64) string {
	if f >= 1000 {
		return strconv.FormatFloat(f/1000, 'g', -1, 64) + " kHz"
	}
	return strconv.FormatFloat(f, 'g', -1, 64) + " Hz"
}

// traceName names a stored trace after what and the measurement's channel.
func (p *Measure) traceName(what string) string {
	return fmt.Sprintf("%s ch %d %s", what, p.res.Settings.Channel+1, time.Now().Format("15:04:05"))
}

// StoreResponse keeps the response shown (magnitude and phase on its
// 1/48-octave grid) as a transfer-function reference.
func (p *Measure) StoreResponse() error {
	t, err := p.ResponseTrace()
	if err != nil {
		return err
	}
	return p.store(t)
}

// ResponseTrace is the response shown as a transfer-function trace
// (Unit "dB", PhaseDeg set, no coherence).
func (p *Measure) ResponseTrace() (*dsp.Trace, error) {
	d := p.view.Data()
	if p.res == nil || d == nil || len(d.FreqHz) == 0 {
		return nil, errors.New("prism: no response measured yet")
	}
	return dsp.NewTransferTrace(p.traceName("sweep"), d.FreqHz, d.MagnitudeDB, d.PhaseDeg, nil)
}

// StoreDistortion keeps the THD versus frequency (dB re the fundamental)
// as a spectrum reference.
func (p *Measure) StoreDistortion() error {
	t, err := p.DistortionTrace()
	if err != nil {
		return err
	}
	return p.store(t)
}

// DistortionTrace is the THD versus the fundamental's frequency as a
// spectrum trace: 20·log10(THD), Unit "dB" (re the fundamental), no
// phase.
func (p *Measure) DistortionTrace() (*dsp.Trace, error) {
	if p.res == nil || p.res.Result.Distortion == nil {
		return nil, errors.New("prism: no distortion measured yet")
	}
	d := p.res.Result.Distortion
	var freq, lvl []float64
	for i, f := range d.FreqHz {
		if v := d.THDPercent[i]; !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 {
			freq, lvl = append(freq, f), append(lvl, 20*math.Log10(v/100))
		}
	}
	t, err := dsp.NewTrace(p.traceName("THD"), freq, lvl)
	if err != nil {
		return nil, err
	}
	t.Unit = dsp.UnitDB
	return t, nil
}

func (p *Measure) store(t *dsp.Trace) error {
	if p.OnStore == nil {
		return errors.New("prism: this window keeps no references")
	}
	if err := p.OnStore(t); err != nil {
		return err
	}
	p.note.Info("Stored the reference " + t.Name + ".")
	return nil
}

// report shows err (if any) in the notice line.
func (p *Measure) report(err error) {
	if err != nil {
		p.note.Error(err)
	}
}

// exportDialog asks for a path and writes it with write, saying so.
func (p *Measure) exportDialog(name string, write func(path string) error) {
	p.host.SaveDialog(name, func(path string) {
		if err := write(path); err != nil {
			p.note.Error(err)
			return
		}
		p.note.Info("Saved " + path + ".")
	})
}

// ExportIR writes the impulse response (from its Zero samples before
// lag 0, as `prism ir` writes it) as a mono 32-bit float WAV.
func (p *Measure) ExportIR(path string) error {
	if p.res == nil {
		return errors.New("prism: no impulse response measured yet")
	}
	r := p.res.Result
	out, err := encode.CreateWith(path, encode.CreateOptions{})
	if err != nil {
		return err
	}
	defer out.Discard()
	w, err := encode.NewWAVWriter(out, r.Rate, 1, 32, true)
	if err != nil {
		return err
	}
	x := make([]float32, len(r.IR))
	for i, v := range r.IR {
		x[i] = float32(v)
	}
	if err := w.Write(x); err != nil {
		return err
	}
	if err := w.Finish(); err != nil {
		return err
	}
	return out.Commit()
}

// ExportResponse writes the response at the smoothing shown (every bin,
// phase and group delay re the impulse's peak) as `prism room`'s CSV.
func (p *Measure) ExportResponse(path string) error {
	if p.res == nil || len(p.resp.FreqHz) == 0 {
		return errors.New("prism: no response measured yet")
	}
	return room.WriteResponse(path, encode.FormatCSV, p.resp, nil, false)
}

// ExportPNG writes the four plots as one PNG (each 800×500 pixels).
func (p *Measure) ExportPNG(path string) error {
	if p.res == nil {
		return errors.New("prism: nothing measured yet")
	}
	out, err := encode.CreateWith(path, encode.CreateOptions{})
	if err != nil {
		return err
	}
	defer out.Discard()
	if err := encode.PNG(out.W, p.view.Image(800, 500)); err != nil {
		return err
	}
	return out.Commit()
}

// StatusText is the panel's status line.
func (p *Measure) StatusText() string { return p.status.Text }
