package audio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Source is a live input: a capture device, the signal generator, or a file
// played at real-time pace.
type Source interface {
	Name() string
	SampleRate() int
	Channels() int
	// Read blocks until up to len(dst)/Channels frames are there, writes
	// them interleaved into dst, and returns the count and the time the
	// block arrived.
	Read(dst []float32) (frames int, arrived time.Time, err error)
	Close() error
}

// Signal kinds of the generator.
const (
	SignalSine  = "sine"
	SignalTones = "tones"
	SignalSweep = "sweep"
	SignalWhite = "white"
	SignalPink  = "pink"
	// Periodic stimuli (generator_stimuli.go): one period computed at
	// start and looped, the same on every channel.
	SignalPinkPeriodic = "pinkperiodic"
	SignalMLS          = "mls"
)

// GeneratorSpec describes a test signal. Levels are dBFS: the peak of each
// tone (a full-scale sine reads 0 dBFS, as Prism's spectra define it) and,
// for noise, the RMS relative to a full-scale sine's RMS (AES17), so
// white:-20 has an RMS of 0.1/√2.
type GeneratorSpec struct {
	Kind     string
	Freqs    []float64 // sine: one; tones: several; sweep: start and end
	LevelDB  float64
	SweepSec float64 // sweep period (default 10 s)
	// Period is pinkperiodic's loop length N (a power of two) and mls's
	// order k (a loop of 2^k − 1 samples).
	Period int
}

// ParseGenerator reads sine:FREQ:DB, tones:F1,F2,…:DB,
// sweep:F0:F1:DB[:SECONDS], white:DB, pink:DB, pinkperiodic:N:DB (pink
// noise periodic in N samples, a power of two: equal power per octave of
// the N-point spectrum, random phases) and mls:K:DB (the maximum-length
// sequence of order K, 2^K − 1 samples, looped). The level may be omitted
// (−6 dBFS for tones, −20 for noise and the periodic stimuli, whose levels
// are RMS as noise's are); N defaults to 65536 and K to 16.
func ParseGenerator(s string) (GeneratorSpec, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), ":")
	g := GeneratorSpec{Kind: parts[0], SweepSec: 10}
	num := func(i int, def float64) (float64, error) {
		if i >= len(parts) || parts[i] == "" {
			return def, nil
		}
		v, err := strconv.ParseFloat(parts[i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("audio: generator %q: %q is not a number", s, parts[i])
		}
		return v, nil
	}
	var err error
	bad := func(why string) (GeneratorSpec, error) {
		return GeneratorSpec{}, fmt.Errorf("audio: generator %q: %s (want sine:FREQ:DB, tones:F1,F2,…:DB, sweep:F0:F1:DB[:SECONDS], white:DB, pink:DB, pinkperiodic:N:DB or mls:K:DB)", s, why)
	}
	switch g.Kind {
	case SignalSine:
		f, err := num(1, 1000)
		if err != nil {
			return g, err
		}
		g.Freqs = []float64{f}
		if g.LevelDB, err = num(2, -6); err != nil {
			return g, err
		}
	case SignalTones:
		if len(parts) < 2 || parts[1] == "" {
			return bad("no frequencies")
		}
		for _, f := range strings.Split(parts[1], ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return bad(fmt.Sprintf("%q is not a frequency", f))
			}
			g.Freqs = append(g.Freqs, v)
		}
		if g.LevelDB, err = num(2, -12); err != nil {
			return g, err
		}
	case SignalSweep:
		f0, err0 := num(1, 20)
		f1, err1 := num(2, 20000)
		if err0 != nil || err1 != nil {
			return bad("bad frequencies")
		}
		g.Freqs = []float64{f0, f1}
		if g.LevelDB, err = num(3, -12); err != nil {
			return g, err
		}
		if g.SweepSec, err = num(4, 10); err != nil {
			return g, err
		}
		if g.SweepSec <= 0 || f0 <= 0 || f1 <= 0 || f0 == f1 {
			return bad("a sweep needs two different positive frequencies and a positive period")
		}
	case SignalWhite, SignalPink:
		if g.LevelDB, err = num(1, -20); err != nil {
			return g, err
		}
	case SignalPinkPeriodic, SignalMLS:
		if why := g.parsePeriodic(parts, num); why != "" {
			return bad(why)
		}
		if g.LevelDB, err = num(2, -20); err != nil {
			return g, err
		}
	default:
		return bad("unknown signal " + strconv.Quote(g.Kind))
	}
	if why := g.check(); why != "" {
		return bad(why)
	}
	return g, nil
}

// check says what is wrong with a parsed spec's frequencies and level
// ("" when nothing is).
func (g GeneratorSpec) check() string {
	for _, f := range g.Freqs {
		if f <= 0 {
			return "frequencies must be positive"
		}
	}
	if g.LevelDB > 0 || g.LevelDB < -200 {
		return "level must be in −200…0 dBFS"
	}
	return ""
}

func (g GeneratorSpec) String() string {
	fs := make([]string, len(g.Freqs))
	for i, f := range g.Freqs {
		fs[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	switch g.Kind {
	case SignalWhite, SignalPink:
		return fmt.Sprintf("%s:%g", g.Kind, g.LevelDB)
	case SignalPinkPeriodic, SignalMLS:
		return fmt.Sprintf("%s:%d:%g", g.Kind, g.Period, g.LevelDB)
	case SignalSweep:
		return fmt.Sprintf("sweep:%s:%s:%g:%g", fs[0], fs[1], g.LevelDB, g.SweepSec)
	}
	return fmt.Sprintf("%s:%s:%g", g.Kind, strings.Join(fs, ","), g.LevelDB)
}

// Generator is a Source producing a GeneratorSpec's signal. Paced, it
// delivers each block when real time reaches its last sample, like a sound
// card; unpaced, as fast as it is read (tests, offline use).
type Generator struct {
	spec     GeneratorSpec
	rate     int
	channels int
	paced    bool
	block    int // frames per paced block
	pos      int64
	start    time.Time
	phase    []float64 // per tone, in cycles
	rng      *rand.Rand
	pink     [][7]float64 // per channel: Kellet's filter state
	pinkGain float64
	loop     []float32   // a periodic stimulus' period, unit RMS
	closed   atomic.Bool // Close may come from another goroutine than Read
}

// NewGenerator makes a generator at rate Hz with channels channels (the same
// tones on every channel; independent noise per channel). A paced generator
// delivers blocks of at most 5 ms.
func NewGenerator(spec GeneratorSpec, rate, channels int, paced bool) (*Generator, error) {
	if rate < 1000 || rate > 768000 || channels < 1 || channels > 64 {
		return nil, fmt.Errorf("audio: generator at %d Hz, %d channels: out of range", rate, channels)
	}
	for _, f := range spec.Freqs {
		if f >= float64(rate)/2 {
			return nil, fmt.Errorf("audio: generator %v: %g Hz is at or above Nyquist (%d Hz)", spec, f, rate/2)
		}
	}
	g := &Generator{spec: spec, rate: rate, channels: channels, paced: paced, block: max(1, rate/200),
		phase: make([]float64, len(spec.Freqs)), rng: rand.New(rand.NewPCG(uint64(rate), 7)),
		pink: make([][7]float64, channels)}
	switch spec.Kind {
	case SignalPink:
		g.pinkGain = 1 / pinkRMS()
	case SignalPinkPeriodic:
		if !validPinkPeriod(spec.Period) {
			return nil, fmt.Errorf("audio: generator %v: period %d (want a power of two, %d…%d)", spec, spec.Period, minPinkPeriod, maxPinkPeriod)
		}
		g.loop = PinkPeriodic(spec.Period)
	case SignalMLS:
		if spec.Period < MinMLSOrder || spec.Period > MaxMLSOrder {
			return nil, fmt.Errorf("audio: generator %v: order %d (want %d…%d)", spec, spec.Period, MinMLSOrder, MaxMLSOrder)
		}
		g.loop = MLS(spec.Period)
	}
	return g, nil
}

func (g *Generator) Name() string    { return "generator " + g.spec.String() }
func (g *Generator) SampleRate() int { return g.rate }
func (g *Generator) Channels() int   { return g.channels }
func (g *Generator) Close() error    { g.closed.Store(true); return nil }

// Read implements Source.
func (g *Generator) Read(dst []float32) (int, time.Time, error) {
	if g.closed.Load() {
		return 0, time.Time{}, fmt.Errorf("audio: generator closed")
	}
	frames := len(dst) / g.channels
	if g.paced {
		frames = min(frames, g.block)
		if g.start.IsZero() {
			g.start = time.Now()
		}
	}
	g.Generate(dst[:frames*g.channels])
	arrived := time.Now()
	if g.paced {
		due := g.start.Add(time.Duration(float64(g.pos) / float64(g.rate) * float64(time.Second)))
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		arrived = time.Now()
	}
	return frames, arrived, nil
}

// selfPaced: the generator's lateness is only ever the reader's (see
// Recorder's watchdog).
func (*Generator) selfPaced() {}

// Generate writes the next len(dst)/Channels frames, unpaced.
func (g *Generator) Generate(dst []float32) {
	ch := g.channels
	amp := math.Pow(10, g.spec.LevelDB/20)
	noiseRMS := amp / math.Sqrt2
	for i := 0; i+ch <= len(dst); i += ch {
		var tone float64
		switch g.spec.Kind {
		case SignalSine, SignalTones:
			for k, f := range g.spec.Freqs {
				tone += amp * math.Sin(2*math.Pi*g.phase[k])
				g.phase[k] += f / float64(g.rate)
				g.phase[k] -= math.Floor(g.phase[k])
			}
		case SignalSweep:
			// Farina's exponential sweep f0 → f1 over SweepSec (ExpSweep,
			// the one rule), then again, its phase going on across the wrap
			s := ExpSweep{F0: g.spec.Freqs[0], F1: g.spec.Freqs[1], Seconds: g.spec.SweepSec}
			t := float64(g.pos) / float64(g.rate)
			n := math.Floor(t / s.Seconds)
			var c [2]float64 // the phase now, and the fraction a period adds
			s.Phases(c[:1], nil, t-n*s.Seconds, 0)
			s.Phases(c[1:], nil, s.Seconds, 0)
			_, lead := math.Modf(n * c[1])
			tone = amp * math.Sin(2*math.Pi*(c[0]+lead))
		}
		for c := range ch {
			v := tone
			switch g.spec.Kind {
			case SignalWhite:
				v = noiseRMS * g.rng.NormFloat64()
			case SignalPink:
				v = noiseRMS * g.pinkGain * pinkStep(&g.pink[c], g.rng.NormFloat64())
			case SignalPinkPeriodic, SignalMLS:
				v = noiseRMS * float64(g.loop[g.pos%int64(len(g.loop))])
			}
			dst[i+c] = float32(v)
		}
		g.pos++
	}
}

// pinkStep is Paul Kellet's refined pink filter (−3 dB/octave within
// ±0.05 dB from 9 Hz up at 44.1 kHz) driven by white noise w.
func pinkStep(b *[7]float64, w float64) float64 {
	b[0] = 0.99886*b[0] + w*0.0555179
	b[1] = 0.99332*b[1] + w*0.0750759
	b[2] = 0.96900*b[2] + w*0.1538520
	b[3] = 0.86650*b[3] + w*0.3104856
	b[4] = 0.55000*b[4] + w*0.5329522
	b[5] = -0.7616*b[5] - w*0.0168980
	out := b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + w*0.5362
	b[6] = w * 0.115926
	return out
}

// pinkRMS is the filter's output RMS for unit white noise, from the sum of
// its branches' power responses integrated exactly: Σ_ij g_i g_j /(1 − a_i a_j)
// over the one-pole branches, plus the direct and delayed terms.
func pinkRMS() float64 {
	a := []float64{0.99886, 0.99332, 0.96900, 0.86650, 0.55000, -0.7616}
	gains := []float64{0.0555179, 0.0750759, 0.1538520, 0.3104856, 0.5329522, -0.0168980}
	// y[n] = Σ_i s_i[n] + 0.5362 w[n] + 0.115926 w[n−1], s_i[n] = a_i s_i[n−1] + g_i w[n]
	// impulse response h[0] = Σ g_i + 0.5362, h[1] = Σ g_i a_i + 0.115926,
	// h[n≥2] = Σ g_i a_i^n
	var p float64
	for i := range a {
		for j := range a {
			p += gains[i] * gains[j] / (1 - a[i]*a[j])
		}
	}
	var s0, s1 float64
	for i := range a {
		s0 += gains[i]
		s1 += gains[i] * a[i]
	}
	// Σ_n h[n]² = Σ_n (Σ g a^n)² + cross terms with the direct taps
	p += 0.5362*0.5362 + 2*0.5362*s0 + 0.115926*0.115926 + 2*0.115926*s1
	return math.Sqrt(p)
}
