package app

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// LiveSettings configure the real-time analysis. A zero field takes its
// default (see DefaultLiveSettings).
type LiveSettings struct {
	FFT, Hop  int
	Window    gpufft.Window
	AvgTau    time.Duration // exponential averaging time constant
	AvgFrames int           // linear average over this many frames
	PeakHold  time.Duration // how long a peak is held before it decays
	PeakDecay float64       // dB/s once the hold time is over
	History   int           // spectrogram columns kept, per output channel
	// Band, if set (a band spec, see ParseBand), filters what is shown: the
	// band filter's response |H(f)|² multiplies every bin's power on the
	// engine, after the FFT.
	Band string
	// Fraction (1, 3, 6, 12, 24; 0 = off) and Weighting ("A", "C", "Z")
	// give fractional-octave band levels (the RTA), averaged like ExpAvg.
	Fraction  int
	Weighting string
}

// spectrogramConfig is the mono dB spectrogram these settings describe (for
// plot layouts).
func (s LiveSettings) spectrogramConfig() gpufft.SpectrogramConfig {
	return gpufft.SpectrogramConfig{Size: s.FFT, Hop: s.Hop, Window: s.Window, Channels: 1, Mix: true, MaxSamples: s.FFT}
}

// DefaultLiveSettings are 4096-point Hann frames every 1024 samples, 1 s
// exponential averaging, 8-frame linear average, 2 s peak hold decaying at
// 20 dB/s, and 2048 history columns.
func DefaultLiveSettings() LiveSettings {
	return LiveSettings{FFT: 4096, Hop: 1024, Window: gpufft.Window{Kind: gpufft.Hann}, AvgTau: time.Second,
		AvgFrames: 8, PeakHold: 2 * time.Second, PeakDecay: 20, History: 2048}
}

// Peak is a spectrum's dominant peak, interpolated between bins.
type Peak struct {
	Freq    float64 // Hz, quadratic interpolation of the dB values around the peak bin
	LevelDB float64 // dBFS at the interpolated peak
	Note    string  // nearest equal-tempered note, A4 = 440 Hz, e.g. "A4"
	Cents   float64 // deviation from that note
}

// Spectrum is a copy of one output channel's spectra, in dBFS, bins 0…N/2.
type Spectrum struct {
	Current, ExpAvg, LinAvg, PeakHold, MinHold []float32
	Peak                                       Peak
	BinHz                                      float64
	Bands                                      []BandLevel // RTA levels (Fraction > 0), dBFS, averaged
}

// LiveStats describe the analysis at any time.
type LiveStats struct {
	Engine         string             `json:"engine"`
	Device         string             `json:"device"`
	Source         string             `json:"source"`
	SampleRate     int                `json:"sample_rate"`
	Channels       int                `json:"channels"`
	FFT            int                `json:"fft"`
	Hop            int                `json:"hop"`
	MsPerBatch     float64            `json:"ms_per_batch"` // latest engine call, all channels
	BatchP50Ms     float64            `json:"batch_p50_ms"` // engine call (upload, kernels, download), recent batches
	BatchP99Ms     float64            `json:"batch_p99_ms"`
	FramesPerBatch float64            `json:"frames_per_batch"`    // per channel, mean
	EngineMs       map[string]float64 `json:"engine_ms_per_batch"` // each engine's recent mean (the inactive one measured on copies of the same batches, see MeasureOther)
	FramesPerSec   float64            `json:"frames_per_s"`        // per channel
	Frames         uint64             `json:"frames"`              // per channel, analyzed
	LatencyP50Ms   float64            `json:"latency_p50_ms"`      // sample arrival → spectrum published
	LatencyP99Ms   float64            `json:"latency_p99_ms"`
	LatencyMaxMs   float64            `json:"latency_max_ms"`
	DroppedFrames  uint64             `json:"dropped_input_frames"` // overwritten in the ring before analysis
	Overflows      uint64             `json:"input_overflows"`      // device buffers dropped by PortAudio
	Stalls         uint64             `json:"stalls"`
	Reopens        uint64             `json:"reopens"`
	Status         string             `json:"status,omitempty"` // errors and fallbacks, e.g. "GPU failed: … — using the CPU"
}

// Live analyzes a Recorder's stream in real time. Its engine goroutine
// calls Step (or Run); other goroutines copy results out with Latest,
// Columns and Stats, and change settings with Apply, which takes effect
// between batches.
type Live struct {
	rec     *audio.Recorder
	engines Engines
	cmds    chan func(*Live) error

	// engine goroutine state
	eng         gpufft.Engine
	set         LiveSettings
	plan        gpufft.SpectrogramPlan
	rate, ch    int
	outCh       int       // ch + 1: every channel and the mix
	tmp         []float32 // interleaved frames from the ring
	planar      []float32 // outCh blocks of maxLen
	pack        []float32 // the engine's contiguous copy of planar
	have        int       // samples per channel in planar
	maxLen      int
	pos         uint64 // stream position of planar's first sample
	out         []float32
	gain2       []float32 // (c_k/Σw)²
	state       []chanState
	bandGain    []float32        // the band filter's |H|² per bin, nil: none
	settingsErr bool             // Status holds an Apply error
	rta         *bandAccumulator // nil: no RTA
	rtaMS       []float64
	onFrame     func(frame uint64, spectra []float32, bins int) // capture's sink: dBFS rows, all outCh channels
	frameDB     []float32
	frames      uint64

	mu       sync.Mutex    // guards everything below
	pub      []Spectrum    // published copies, as power: Latest converts to dB
	hist     [][][]float32 // [output channel][column % History][bin], power (Columns converts to dB)
	histNext uint64        // columns (frames) ever pushed
	lat      []float64
	latN     int
	batch    []float64 // recent engine call times, ms
	batchN   int
	stats    LiveStats
	engMs    map[string][2]float64 // recent mean ms per batch (exponential), batches measured
	fpsMark  time.Time
	fpsCount uint64
	sortBuf  []float64 // ReadStats' scratch

	shadow shadowState
	tee    atomic.Pointer[audio.Ring] // the monitor output's input, or nil
}

type chanState struct {
	primed                   bool // exp holds a frame
	primedBands              bool
	pow, exp, lin, peak, min []float32
	linRing                  [][]float32
	linSum                   []float64
	linN, linNext            int
	peakAge                  []int32   // frames since the held peak was set
	bandPow                  []float64 // RTA: averaged mean square per band
}

// NewLive starts analysis on rec's stream with the preferred engine.
func NewLive(rec *audio.Recorder, engines Engines, s LiveSettings) (*Live, error) {
	l := &Live{rec: rec, engines: engines, eng: engines.Preferred, cmds: make(chan func(*Live) error, 16),
		rate: rec.SampleRate(), ch: rec.Channels(), engMs: map[string][2]float64{}}
	l.outCh = l.ch + 1
	l.lat = make([]float64, 4096)
	l.batch = make([]float64, 4096)
	if err := l.configure(s); err != nil {
		return nil, err
	}
	// start from the newest input: what piled up while starting is not live
	rec.Ring().Drain(0)
	l.pos = rec.Ring().Position()
	return l, nil
}

// configure (re)builds the plan and state for settings s; on failure the
// old configuration stays.
func (l *Live) configure(s LiveSettings) (err error) {
	d := DefaultLiveSettings()
	if s.FFT == 0 {
		s.FFT = d.FFT
	}
	if s.Hop == 0 {
		s.Hop = s.FFT / 4
	}
	if s.AvgFrames < 1 {
		s.AvgFrames = 1
	}
	if s.History <= 0 {
		s.History = d.History
	}
	// about 10 ms of frames per batch keeps latency low; never less than
	// one frame
	maxFrames := max(1, l.rate/100/s.Hop+2)
	maxLen := s.FFT + (maxFrames-1)*s.Hop
	cfg := gpufft.SpectrogramConfig{Size: s.FFT, Hop: s.Hop, Window: s.Window, Channels: l.outCh, MaxSamples: maxLen, Output: gpufft.Power}
	if s.Band != "" {
		if cfg.BinGain, err = bandGains(s.Band, l.rate, s.FFT); err != nil {
			return err
		}
	}
	var rta *bandAccumulator
	if s.Fraction > 0 {
		nyq := float64(l.rate) / 2
		bands, err := Bands(s.Fraction, 20, 20000, nyq)
		if err != nil {
			return err
		}
		w := s.Weighting
		if w == "" {
			w = "Z"
		}
		sumW2 := 0.0
		for _, v := range s.Window.Values(s.FFT) {
			sumW2 += v * v
		}
		if rta, err = newBandAccumulator(bands, s.FFT, l.rate, sumW2, w); err != nil {
			return err
		}
	}
	plan, err := l.eng.NewSpectrogram(cfg)
	if err != nil {
		return err
	}
	// one call on silence now, so kernel compilation (PoCL compiles at the
	// first launch) does not land on a live batch
	warm := make([]float32, l.outCh*s.FFT)
	if _, err := plan.Execute(make([]float32, cfg.DstLen(s.FFT)), warm); err != nil {
		plan.Close()
		return err
	}
	if l.plan != nil {
		l.plan.Close()
	}
	l.plan, l.set, l.maxLen, l.rta, l.bandGain = plan, s, maxLen, rta, cfg.BinGain
	l.shadow.gen++
	bins := s.FFT/2 + 1
	l.tmp = make([]float32, maxLen*l.ch)
	l.planar = make([]float32, l.outCh*maxLen)
	l.pack = make([]float32, l.outCh*maxLen)
	l.have = 0
	l.pos = l.rec.Ring().Position()
	l.out = make([]float32, cfg.DstLen(maxLen))
	w := s.Window.Values(s.FFT)
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	l.gain2 = make([]float32, bins)
	for k := range l.gain2 {
		g := 2 / sum
		if k == 0 || k == bins-1 {
			g = 1 / sum
		}
		l.gain2[k] = float32(g * g)
	}
	l.state = make([]chanState, l.outCh)
	for c := range l.state {
		st := &l.state[c]
		st.pow, st.exp, st.lin, st.peak, st.min = make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins)
		st.linSum = make([]float64, bins)
		st.peakAge = make([]int32, bins)
		for range s.AvgFrames {
			st.linRing = append(st.linRing, make([]float32, bins))
		}
		for k := range st.min {
			st.min[k] = float32(math.Inf(1))
		}
	}
	l.frameDB = make([]float32, l.outCh*bins)
	if rta != nil {
		l.rtaMS = make([]float64, len(rta.bands))
		for c := range l.state {
			l.state[c].bandPow = make([]float64, len(rta.bands))
		}
	}
	l.mu.Lock()
	l.pub = make([]Spectrum, l.outCh)
	for c := range l.pub {
		p := &l.pub[c]
		p.Current, p.ExpAvg, p.LinAvg, p.PeakHold, p.MinHold = make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins), make([]float32, bins)
		p.BinHz = float64(l.rate) / float64(s.FFT)
	}
	l.hist = make([][][]float32, l.outCh)
	for c := range l.hist {
		l.hist[c] = make([][]float32, s.History)
		for i := range l.hist[c] {
			l.hist[c][i] = make([]float32, bins)
		}
	}
	l.histNext = 0
	l.stats.FFT, l.stats.Hop = s.FFT, s.Hop
	l.mu.Unlock()
	return nil
}

// Apply queues a settings change (FFT size, hop, window, averaging); it
// takes effect between batches, without losing the stream.
func (l *Live) Apply(s LiveSettings) {
	l.cmds <- func(l *Live) error {
		if err := l.configure(s); err != nil {
			l.settingsErr = true
			return fmt.Errorf("settings not applied: %w", err)
		}
		if l.settingsErr { // the last settings error no longer holds
			l.settingsErr = false
			l.setStatus("")
		}
		return nil
	}
}

// UseEngine switches between the GPU ("gpu") and CPU ("cpu") engines
// between batches.
func (l *Live) UseEngine(name string) {
	l.cmds <- func(l *Live) error {
		next := l.engines.CPU
		if name == "gpu" {
			if l.engines.Preferred == l.engines.CPU {
				return errors.New("no GPU engine: OpenCL is not usable here")
			}
			next = l.engines.Preferred
		}
		prev := l.eng
		l.setEng(next)
		if err := l.configure(l.set); err != nil {
			l.setEng(prev)
			return fmt.Errorf("switch to %s: %w", name, err)
		}
		return nil
	}
}

// Run calls Step until stop is closed, waiting about a millisecond when
// no frame is complete.
func (l *Live) Run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		n, _ := l.Step()
		if n == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// Step applies pending commands, then analyzes every complete frame of
// every channel in one engine batch and publishes the results. It returns
// the frames analyzed per channel. Only the engine goroutine calls it; in
// steady state it does not allocate.
func (l *Live) Step() (int, error) {
	for {
		select {
		case cmd := <-l.cmds:
			if err := cmd(l); err != nil {
				l.setStatus(err.Error())
			}
			continue
		default:
		}
		break
	}
	ring := l.rec.Ring()
	n, hop := l.set.FFT, l.set.Hop
	// take frames from the ring into the planar buffer (channels, then the mix)
	room := l.maxLen - l.have
	lostBefore := ring.Lost()
	got := ring.Read(l.tmp[:room*l.ch])
	if t := l.tee.Load(); t != nil && got > 0 && t.Channels() == l.ch {
		t.Write(l.tmp[:got*l.ch], time.Now())
	}
	if ring.Lost() != lostBefore {
		// input was overwritten before we read it: the stream jumped, so the
		// samples held no longer continue it
		l.have = 0
		l.pos = ring.Position() - uint64(got)
	}
	l.deinterleave(got)
	l.have += got
	if l.have < n {
		return 0, nil
	}
	frames := (l.have-n)/hop + 1
	samples := n + (frames-1)*hop
	start := time.Now()
	src := l.packed(samples)
	_, err := l.plan.Execute(l.out[:l.outCh*frames*(n/2+1)], src)
	if err != nil {
		if l.eng != l.engines.CPU {
			l.setStatus(fmt.Sprintf("GPU failed: %v — using the CPU", err))
			l.setEng(l.engines.CPU)
			if err := l.configure(l.set); err != nil {
				return 0, err
			}
			return 0, nil
		}
		l.setStatus(err.Error())
		return 0, err
	}
	took := time.Since(start)
	l.offerShadow(src, samples, start)
	l.post(frames)
	// the newest sample of the last frame: its arrival to now is the latency
	lastPos := l.pos + uint64((frames-1)*hop+n-1)
	now := time.Now()
	arrived, ok := ring.ArrivalOf(lastPos)
	l.publish(frames, took, now, arrived, ok)
	// keep the samples later frames still need
	used := frames * hop
	for c := range l.outCh {
		copy(l.planar[c*l.maxLen:], l.planar[c*l.maxLen+used:c*l.maxLen+l.have])
	}
	l.have -= used
	l.pos += uint64(used)
	return frames, nil
}

// deinterleave appends got frames from tmp to the planar channel blocks and
// the mix block (mean of channels, summed in channel order).
func (l *Live) deinterleave(got int) {
	ch := l.ch
	inv := 1 / float32(ch)
	mix := l.planar[ch*l.maxLen+l.have : ch*l.maxLen+l.have+got]
	for i := range got {
		frame := l.tmp[i*ch : i*ch+ch]
		sum := frame[0]
		for c, v := range frame {
			l.planar[c*l.maxLen+l.have+i] = v
			if c > 0 {
				sum += v
			}
		}
		mix[i] = sum * inv
	}
}

// packed copies the first `samples` of each planar block (stride maxLen)
// back to back, the layout the engine reads.
func (l *Live) packed(samples int) []float32 {
	buf := l.pack[:l.outCh*samples]
	for c := range l.outCh {
		copy(buf[c*samples:(c+1)*samples], l.planar[c*l.maxLen:c*l.maxLen+samples])
	}
	return buf
}

// post updates each channel's averages and holds from the batch's power
// spectra, frame by frame.
func (l *Live) post(frames int) {
	bins := l.set.FFT/2 + 1
	s := &l.set
	frameSec := float64(s.Hop) / float64(l.rate)
	alpha := float32(1)
	if s.AvgTau > 0 {
		alpha = float32(1 - math.Exp(-frameSec/s.AvgTau.Seconds()))
	}
	holdFrames := int32(s.PeakHold.Seconds() / frameSec)
	decay := float32(math.Pow(10, -s.PeakDecay*frameSec/10))
	for f := range frames {
		for c := range l.outCh {
			st := &l.state[c]
			row := l.out[(c*frames+f)*bins : (c*frames+f+1)*bins]
			slot := st.linRing[st.linNext]
			if !st.primed { // the average starts at the first frame, not at zero
				for k, p := range row {
					st.exp[k] = p * l.gain2[k]
				}
				st.primed = true
			}
			for k, p := range row {
				p *= l.gain2[k]
				st.pow[k] = p
				st.exp[k] += alpha * (p - st.exp[k])
				st.linSum[k] += float64(p) - float64(slot[k])
				slot[k] = p
				if p >= st.peak[k] {
					st.peak[k], st.peakAge[k] = p, 0
				} else if st.peakAge[k]++; st.peakAge[k] > holdFrames {
					st.peak[k] = max(p, st.peak[k]*decay)
				}
				st.min[k] = min(st.min[k], p)
			}
			if l.rta != nil {
				l.rta.frame(row, l.rtaMS) // row is |X|² with any band gain
				for i, ms := range l.rtaMS {
					if st.primedBands {
						st.bandPow[i] += float64(alpha) * (ms - st.bandPow[i])
					} else {
						st.bandPow[i] = ms
					}
				}
				st.primedBands = true
			}
			st.linNext = (st.linNext + 1) % len(st.linRing)
			st.linN = min(st.linN+1, len(st.linRing))
			if l.onFrame != nil {
				db := l.frameDB[c*bins : (c+1)*bins]
				for k, p := range st.pow {
					db[k] = powDB(p)
				}
			}
		}
		if l.onFrame != nil {
			l.onFrame(l.frames+uint64(f), l.frameDB, bins)
		}
		l.pushColumn()
	}
	for c := range l.outCh {
		st := &l.state[c]
		for k := range st.lin {
			st.lin[k] = float32(st.linSum[k] / float64(st.linN))
		}
	}
}

func powDB(p float32) float32 {
	if p > 1e-20 {
		return float32(10 * math.Log10(float64(p)))
	}
	return gpufft.FloorDB
}

func (l *Live) publish(frames int, took time.Duration, now, arrived time.Time, arrivedOK bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// Copy the power spectra only: readers (a display at ~60 Hz) convert to
	// dB in Latest, not every batch here.
	for c := range l.outCh {
		st, p := &l.state[c], &l.pub[c]
		copy(p.Current, st.pow)
		copy(p.ExpAvg, st.exp)
		copy(p.LinAvg, st.lin)
		copy(p.PeakHold, st.peak)
		copy(p.MinHold, st.min)
	}
	for c := range l.outCh {
		if l.rta == nil {
			l.pub[c].Bands = l.pub[c].Bands[:0]
			continue
		}
		if len(l.pub[c].Bands) != len(l.rta.bands) {
			l.pub[c].Bands = make([]BandLevel, len(l.rta.bands))
		}
		for i, b := range l.rta.bands {
			l.pub[c].Bands[i] = BandLevel{Band: b, LevelDB: max(-200, 10*math.Log10(l.state[c].bandPow[i]/0.5))}
		}
	}
	l.frames += uint64(frames)
	ms := took.Seconds() * 1e3
	l.stats.MsPerBatch = ms
	l.batch[l.batchN%len(l.batch)] = ms
	l.batchN++
	l.recordEngineMs(l.eng.Name(), ms)
	if arrivedOK {
		l.lat[l.latN%len(l.lat)] = now.Sub(arrived).Seconds() * 1e3
		l.latN++
	}
	if l.fpsMark.IsZero() {
		l.fpsMark = now
	}
	l.fpsCount += uint64(frames)
	if d := now.Sub(l.fpsMark); d >= time.Second {
		l.stats.FramesPerSec = float64(l.fpsCount) / d.Seconds()
		l.fpsMark, l.fpsCount = now, 0
	}
}

// pushColumn appends every output channel's newest frame (its power
// spectrum) to the history. Every analyzed frame gets a column, so a
// display that folds several into one pixel (taking the maximum) never
// skips a short event.
func (l *Live) pushColumn() {
	l.mu.Lock()
	for c := range l.outCh {
		copy(l.hist[c][l.histNext%uint64(len(l.hist[c]))], l.state[c].pow)
	}
	l.histNext++
	l.mu.Unlock()
}

// engineAlpha is the weight of the newest time in an engine's running
// mean time per batch.
const engineAlpha = 0.05

// recordEngineMs adds one engine call's time to that engine's running
// mean. Callers hold l.mu.
func (l *Live) recordEngineMs(name string, v float64) {
	e, ok := l.engMs[name]
	if !ok {
		l.engMs[name] = [2]float64{v, 1}
		return
	}
	a := max(engineAlpha, 1/(e[1]+1)) // a plain mean until 1/alpha samples
	l.engMs[name] = [2]float64{e[0] + a*(v-e[0]), e[1] + 1}
}

func (l *Live) setStatus(s string) {
	l.mu.Lock()
	l.stats.Status = s
	l.mu.Unlock()
}

// Latest copies output channel c's spectra (c < Channels for a channel,
// c = Channels for the mix) into dst as dBFS, reusing its slices, and
// finds the dominant peak.
func (l *Live) Latest(c int, dst *Spectrum) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := &l.pub[c]
	dst.Current = appendDB(dst.Current[:0], p.Current)
	dst.ExpAvg = appendDB(dst.ExpAvg[:0], p.ExpAvg)
	dst.LinAvg = appendDB(dst.LinAvg[:0], p.LinAvg)
	dst.PeakHold = appendDB(dst.PeakHold[:0], p.PeakHold)
	dst.MinHold = appendDB(dst.MinHold[:0], p.MinHold)
	dst.BinHz = p.BinHz
	dst.Peak = FindPeak(dst.Current, p.BinHz)
	dst.Bands = append(dst.Bands[:0], p.Bands...)
}

// appendDB appends the dBFS levels of power values.
func appendDB(dst, pow []float32) []float32 {
	for _, v := range pow {
		dst = append(dst, powDB(v))
	}
	return dst
}

// Columns copies output channel c's spectrogram columns (c = Channels for
// the mix) after column number `after` (oldest first, at most len(dst))
// into dst's rows as dBFS, reusing them, and returns how many it copied and
// the number to pass as `after` next time. Every analyzed frame is a
// column: columns are Hop samples apart. Only the newest History columns
// are kept: a reader that falls behind further skips to the oldest kept.
// New settings start the count again from 0 (an `after` beyond the newest
// column reads from the start).
func (l *Live) Columns(c int, dst [][]float32, after uint64) (int, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c >= len(l.hist) {
		return 0, l.histNext
	}
	h := l.hist[c]
	if after > l.histNext {
		after = 0
	}
	first := max(after, l.histNext-min(l.histNext, uint64(len(h))))
	n := 0
	for col := first; col < l.histNext && n < len(dst); col++ {
		dst[n] = appendDB(dst[n][:0], h[col%uint64(len(h))])
		n++
	}
	return n, first + uint64(n)
}

// SetSource switches the analysis to another recorder (a different device,
// rate or channel count) between batches; the analyzer, its engine and
// settings carry on. The caller stops the old recorder afterwards.
func (l *Live) SetSource(rec *audio.Recorder) { l.SwitchSource(rec, nil) }

// SwitchSource is SetSource that calls done (if not nil) on the engine
// goroutine once the switch is made (err nil: the old recorder is no longer
// read) or has failed (the old recorder stays in use).
func (l *Live) SwitchSource(rec *audio.Recorder, done func(err error)) {
	l.cmds <- func(l *Live) error {
		prevRec, prevCh, prevRate := l.rec, l.ch, l.rate
		l.setRec(rec, rec.Channels(), rec.SampleRate())
		if err := l.configure(l.set); err != nil {
			l.setRec(prevRec, prevCh, prevRate)
			err = fmt.Errorf("switch source: %w", err)
			if done != nil {
				done(err)
			}
			return err
		}
		rec.Ring().Drain(0)
		l.pos = rec.Ring().Position()
		if done != nil {
			done(nil)
		}
		return nil
	}
}

// SetTee makes the engine goroutine copy every block of input it reads
// into r (a monitor output's ring; nil stops it). Blocks whose channel
// count is not r's are not copied. Any goroutine may call it.
func (l *Live) SetTee(r *audio.Ring) { l.tee.Store(r) }

// setEng switches the engine (engine goroutine; Stats reads it under the
// lock).
func (l *Live) setEng(e gpufft.Engine) {
	l.mu.Lock()
	l.eng = e
	l.mu.Unlock()
}

// setRec switches the recorder fields (engine goroutine; Stats reads them
// under the lock).
func (l *Live) setRec(rec *audio.Recorder, ch, rate int) {
	l.mu.Lock()
	l.rec, l.ch, l.rate, l.outCh = rec, ch, rate, ch+1
	l.mu.Unlock()
}

// Frames is the number of frames analyzed per channel so far: a display
// that sees it unchanged has nothing new to draw. Any goroutine may call
// it; it does not allocate.
func (l *Live) Frames() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.frames
}

// Stats returns the current statistics.
func (l *Live) Stats() LiveStats {
	var s LiveStats
	l.ReadStats(&s)
	return s
}

// ReadStats writes the current statistics into dst, reusing its EngineMs
// map: a display polling it does not allocate. Any goroutine may call it.
func (l *Live) ReadStats(dst *LiveStats) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := l.rec.Stats()
	engMs := dst.EngineMs
	*dst = l.stats
	s := dst
	s.Engine, s.Device = l.eng.Name(), l.eng.Device()
	s.Source, s.SampleRate, s.Channels = rs.Source, l.rate, l.ch
	s.Frames = l.frames
	s.DroppedFrames, s.Overflows, s.Stalls, s.Reopens = rs.RingLost, rs.Overflows, rs.Stalls, rs.Reopens
	if rs.LastError != "" && s.Status == "" {
		s.Status = rs.LastError
	}
	if engMs == nil {
		engMs = map[string]float64{}
	}
	clear(engMs)
	for k, v := range l.engMs {
		engMs[k] = v[0]
	}
	s.EngineMs = engMs
	if n := min(l.latN, len(l.lat)); n > 0 {
		lat := append(l.sortBuf[:0], l.lat[:n]...)
		slices.Sort(lat)
		s.LatencyP50Ms, s.LatencyP99Ms, s.LatencyMaxMs = lat[n/2], lat[min(n-1, n*99/100)], lat[n-1]
		l.sortBuf = lat
	}
	if n := min(l.batchN, len(l.batch)); n > 0 {
		b := append(l.sortBuf[:0], l.batch[:n]...)
		slices.Sort(b)
		s.BatchP50Ms, s.BatchP99Ms = b[n/2], b[min(n-1, n*99/100)]
		s.FramesPerBatch = float64(l.frames) / float64(l.batchN)
		l.sortBuf = b
	}
}

// Close stops the background timing and releases the plan (not the
// recorder or the engines). The engine goroutine calls it, after Run has
// returned.
func (l *Live) Close() {
	l.stopShadow()
	if l.plan != nil {
		l.plan.Close()
		l.plan = nil
	}
}

var noteNames = [12]string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}

// FindPeak returns the dominant peak of a dB spectrum (DC excluded), its
// frequency and level refined by a parabola through the three bins around
// the maximum, and its note name (A4 = 440 Hz).
func FindPeak(db []float32, binHz float64) Peak {
	if len(db) < 3 {
		return Peak{}
	}
	k := 1
	for i := 2; i < len(db)-1; i++ {
		if db[i] > db[k] {
			k = i
		}
	}
	a, b, c := float64(db[k-1]), float64(db[k]), float64(db[k+1])
	d := 0.0
	if den := a - 2*b + c; den < 0 {
		d = 0.5 * (a - c) / den
	}
	p := Peak{Freq: (float64(k) + d) * binHz, LevelDB: b - 0.25*(a-c)*d}
	p.Note, p.Cents = NoteName(p.Freq)
	return p
}

// noteTable holds the names of MIDI notes 0…127, so naming a peak at
// display rate does not allocate.
var noteTable = func() (t [128]string) {
	for i := range t {
		t[i] = fmt.Sprintf("%s%d", noteNames[i%12], i/12-1)
	}
	return t
}()

// NoteName returns the nearest equal-tempered note (A4 = 440 Hz) and the
// deviation in cents.
func NoteName(f float64) (string, float64) {
	if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return "", 0
	}
	m := 69 + 12*math.Log2(f/440)
	n := math.Round(m)
	i := int(n)
	if i >= 0 && i < len(noteTable) {
		return noteTable[i], (m - n) * 100
	}
	return fmt.Sprintf("%s%d", noteNames[((i%12)+12)%12], i/12-1), (m - n) * 100
}
