package pitch

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/prismaudio/prism/audio"
)

const rate = 48000

// harmonic is n samples of a tone of 8 harmonics (amplitudes 1/k, seeded
// random phases) whose fundamental at sample i is f0(i/rate), synthesized
// by integrating the phase in float64.
func harmonic(n int, seed uint64, f0 func(t float64) float64) []float32 {
	rng := rand.New(rand.NewPCG(seed, seed))
	var ps, pc [8]float64 // sin and cos of each harmonic's phase
	for k := range ps {
		ps[k], pc[k] = math.Sincos(2 * math.Pi * rng.Float64())
	}
	x := make([]float32, n)
	phase := 0.0
	for i := range x {
		f := f0(float64(i) / rate)
		// sin and cos of k·phase by the angle-sum recurrence
		s1, c1 := math.Sincos(phase)
		sk, ck := s1, c1
		v := 0.0
		for k := range ps {
			if float64(k+1)*f < rate/2 {
				v += (sk*pc[k] + ck*ps[k]) / float64(k+1)
			}
			sk, ck = sk*c1+ck*s1, ck*c1-sk*s1
		}
		x[i] = float32(0.3 * v)
		phase = math.Mod(phase+2*math.Pi*f/rate, 2*math.Pi)
	}
	return x
}

var speechConfig = Config{SampleRate: rate, MinHz: 50, MaxHz: 2000}

// checkTrack asserts that every point of pts is voiced and within 0.5 %
// of want at its time, but for gross errors in fewer than 1 % of them.
func checkTrack(t *testing.T, name string, pts []Point, want func(t float64) float64) {
	t.Helper()
	if len(pts) < 50/raceScale {
		t.Fatalf("%s: %d points", name, len(pts))
	}
	off, worst := 0, 0.0
	for _, p := range pts {
		rel := math.Abs(p.F0Hz/want(p.TimeS) - 1)
		if math.IsNaN(p.F0Hz) || rel > 0.005 {
			off++
			if off <= 3 {
				t.Logf("%s: %.3f s: %.3f Hz (confidence %.2f), want %.3f", name, p.TimeS, p.F0Hz, p.Confidence, want(p.TimeS))
			}
			continue
		}
		worst = max(worst, rel)
	}
	if float64(off) >= 0.01*float64(len(pts)) {
		t.Errorf("%s: %d of %d points unvoiced or off by more than 0.5 %%", name, off, len(pts))
	}
	t.Logf("%s: %d points, worst of the rest %.3f %%", name, len(pts), 100*worst)
}

// Steady harmonic tones from E2 to E6, a vibrato (±2 % at 5.5 Hz) and
// glides (an octave up in 1 s, exponential; 600 → 150 Hz linear in 1.5 s):
// f0 at each frame's centre (the formula, float64) within 0.5 %.
func TestTracksSyntheticTones(t *testing.T) {
	hop := 480 * raceScale
	cases := []struct {
		name    string
		seconds float64
		f0      func(t float64) float64
	}{
		{"steady 82.41 Hz", 0.8, func(float64) float64 { return 82.41 }},
		{"steady 220 Hz", 0.8, func(float64) float64 { return 220 }},
		{"steady 440 Hz", 0.8, func(float64) float64 { return 440 }},
		{"steady 1318.5 Hz", 0.8, func(float64) float64 { return 1318.5 }},
		{"vibrato 220 Hz ±2 % at 5.5 Hz", 1.5, func(t float64) float64 { return 220 * (1 + 0.02*math.Sin(2*math.Pi*5.5*t)) }},
		{"vibrato 660 Hz ±3 % at 6 Hz", 1.5, func(t float64) float64 { return 660 * (1 + 0.03*math.Sin(2*math.Pi*6*t)) }},
		{"glide 110 → 220 Hz exponential", 1, func(t float64) float64 { return 110 * math.Pow(2, t) }},
		{"glide 600 → 150 Hz linear", 1.5, func(t float64) float64 { return 600 - 300*t }},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := harmonic(int(c.seconds*rate), uint64(i+1), c.f0)
			pts, err := Track(x, speechConfig, hop)
			if err != nil {
				t.Fatal(err)
			}
			checkTrack(t, c.name, pts, c.f0)
		})
	}
}

// Alternating 0.3 s of a 200 Hz harmonic tone and 0.3 s of white noise
// (seeded, the same RMS): frames wholly inside a tone are voiced, frames
// wholly inside noise unvoiced, but for fewer than 2 % of them.
func TestVoicingToneNoise(t *testing.T) {
	const seg, segs = rate * 3 / 10, 6
	hop := 240 * raceScale
	tone := harmonic(seg*segs, 9, func(float64) float64 { return 200 })
	rms := 0.0
	for _, v := range tone {
		rms += float64(v) * float64(v)
	}
	rms = math.Sqrt(rms / float64(len(tone)))
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, seg*segs)
	for i := range x {
		if (i/seg)%2 == 0 {
			x[i] = tone[i]
		} else {
			x[i] = float32(rng.NormFloat64() * rms)
		}
	}
	pts, err := Track(x, speechConfig, hop)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewDetector(speechConfig)
	half := float64(d.FrameLen()) / 2 / rate
	checked, wrong := 0, 0
	for _, p := range pts {
		k := int(p.TimeS * rate / seg)
		lo, hi := float64(k*seg)/rate, float64((k+1)*seg)/rate
		if p.TimeS-half < lo || p.TimeS+half > hi {
			continue // straddles a boundary
		}
		checked++
		voiced := !math.IsNaN(p.F0Hz)
		if voiced != (k%2 == 0) || (voiced && math.Abs(p.F0Hz/200-1) > 0.005) {
			wrong++
			t.Logf("%.3f s (segment %d): %.2f Hz, confidence %.2f", p.TimeS, k, p.F0Hz, p.Confidence)
		}
	}
	if checked < 60/raceScale || float64(wrong) > 0.02*float64(checked) {
		t.Errorf("%d of %d frames decided wrong", wrong, checked)
	}
}

// reference is the same algorithm written out plainly in float64 (no FFT,
// no running sums): the centred difference function summed term by term,
// its cumulative mean normalization, the threshold and local-minimum
// search, and the parabola.
func reference(frame []float64, cfg Config) Estimate {
	maxLag := int(math.Ceil(float64(cfg.SampleRate) / cfg.MinHz))
	minLag := max(2, int(math.Floor(float64(cfg.SampleRate)/cfg.MaxHz)))
	w, m := maxLag, maxLag+1
	diff := make([]float64, m+1)
	for lag := range diff {
		s := 0.0
		for j := m; j < m+w; j++ {
			a, b := frame[j]-frame[j+lag], frame[j]-frame[j-lag]
			s += (a*a + b*b) / 2
		}
		diff[lag] = s
	}
	norm := make([]float64, len(diff))
	norm[0] = 1
	for lag := 1; lag < len(diff); lag++ {
		sum := 0.0
		for j := 1; j <= lag; j++ {
			sum += diff[j]
		}
		norm[lag] = 1
		if sum > 0 {
			norm[lag] = diff[lag] * float64(lag) / sum
		}
	}
	best := minLag
	for lag := minLag; lag <= maxLag; lag++ {
		if norm[lag] < cfg.Threshold {
			for lag < maxLag && norm[lag+1] < norm[lag] {
				lag++
			}
			tau := float64(lag)
			if den := diff[lag-1] - 2*diff[lag] + diff[lag+1]; den > 0 {
				tau += math.Max(-1, math.Min(1, (diff[lag-1]-diff[lag+1])/(2*den)))
			}
			return Estimate{F0Hz: float64(cfg.SampleRate) / tau, Confidence: math.Max(0, 1-norm[lag])}
		}
		if norm[lag] < norm[best] {
			best = lag
		}
	}
	return Estimate{F0Hz: math.NaN(), Confidence: math.Max(0, 1-norm[best])}
}

// Real speech (alsa-utils' Front_Center.wav, "front center", and
// Rear_Left.wav, 48 kHz): every frame's voicing equals the float64
// reference's, and f0 and confidence agree within 1e-6 relative (the FFT
// correlation against the term-by-term sums).
func TestSpeechMatchesReference(t *testing.T) {
	cfg := Config{SampleRate: rate, MinHz: 60, MaxHz: 800, Threshold: DefaultThreshold}
	for _, name := range []string{"Front_Center.wav", "Rear_Left.wav"} {
		path := filepath.Join("/usr/share/sounds/alsa", name)
		if _, err := os.Stat(path); err != nil {
			if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
				t.Fatalf("%s: %v (alsa-utils)", path, err)
			}
			t.Skipf("%s: %v (alsa-utils not installed)", path, err)
		}
		chans, f, _, err := audio.ReadChannels(path, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		if f.SampleRate != rate {
			t.Fatalf("%s: %d Hz", name, f.SampleRate)
		}
		hop := 480 * raceScale
		if testing.Short() {
			hop *= 2
		}
		pts, err := Track(chans[0], cfg, hop)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := NewDetector(cfg)
		n, voiced := d.FrameLen(), 0
		frame := make([]float64, n)
		for i, p := range pts {
			for j := range frame {
				frame[j] = float64(chans[0][i*hop+j])
			}
			want := reference(frame, cfg)
			if math.IsNaN(want.F0Hz) != math.IsNaN(p.F0Hz) ||
				(!math.IsNaN(want.F0Hz) && math.Abs(p.F0Hz/want.F0Hz-1) > 1e-6) || math.Abs(p.Confidence-want.Confidence) > 1e-6 {
				t.Errorf("%s frame %d (%.3f s): %+v, reference %+v", name, i, p.TimeS, p.Estimate, want)
			}
			if !math.IsNaN(want.F0Hz) {
				voiced++
			}
		}
		if voiced < len(pts)/5 || voiced == len(pts) {
			t.Errorf("%s: %d of %d frames voiced: want speech's mix of voiced and unvoiced", name, voiced, len(pts))
		}
		t.Logf("%s: %d frames, %d voiced", name, len(pts), voiced)
	}
}
