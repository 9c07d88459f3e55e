package bandwidthcmd

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/internal/apptest"
)

const rate = 44100

// noise is seconds of seeded white noise at −10 dBFS RMS.
func noise(seconds float64) []float32 {
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, int(seconds*rate))
	for i := range x {
		x[i] = float32(0.316 * r.NormFloat64())
	}
	return x
}

func run(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(args, &o, &e)
	return code, o.String(), e.String()
}

// bandwidthOf runs `prism bandwidth --json` on one file.
func bandwidthOf(t *testing.T, path string) fileJSON {
	t.Helper()
	code, out, msg := run("--json", path)
	if code != kit.ExitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var j struct{ Files []fileJSON }
	if err := json.Unmarshal([]byte(out), &j); err != nil || len(j.Files) != 1 {
		t.Fatalf("JSON %q: %v", out, err)
	}
	return j.Files[0]
}

var transition = regexp.MustCompile(`transition band: (\d+) Hz - (\d+) Hz`)

// TestLAME: white noise through LAME with --lowpass 16, 17, 19 and
// 20 kHz reads within 250 Hz of the middle of the transition band LAME
// reports, a lossy low-pass; the noise itself is full band (Nyquist).
func TestLAME(t *testing.T) {
	if _, err := exec.LookPath("lame"); err != nil {
		if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
			t.Fatal("lame not found (PRISM_REQUIRE_TOOLS=1; scripts/setup.sh installs it)")
		}
		t.Skip("lame not found")
	}
	dir := t.TempDir()
	wav := filepath.Join(dir, "noise.wav")
	apptest.WriteWAV(t, wav, rate, [][]float32{noise(3)})
	if j := bandwidthOf(t, wav); j.BandwidthHz != rate/2 || j.LossyLowpass || j.Path != wav {
		t.Errorf("white noise: %+v, want full band (%d Hz), not lossy", j, rate/2)
	}
	for _, lp := range []string{"16", "17", "19", "20"} {
		mp3 := filepath.Join(dir, lp+".mp3")
		out, err := exec.Command("lame", "-b", "320", "--lowpass", lp, wav, mp3).CombinedOutput()
		m := transition.FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("lame --lowpass %s: %v\n%s", lp, err, out)
		}
		lo, _ := strconv.ParseFloat(string(m[1]), 64)
		hi, _ := strconv.ParseFloat(string(m[2]), 64)
		j := bandwidthOf(t, mp3)
		if math.Abs(j.BandwidthHz-(lo+hi)/2) > 250 || !j.LossyLowpass {
			t.Errorf("lame --lowpass %s (transition %v … %v Hz): %+v, want %.0f ± 250 Hz, lossy", lp, lo, hi, j, (lo+hi)/2)
		}
	}
}

// TestFIR: white noise low-passed by a float64 windowed-sinc FIR (cut-off
// fc at −6 dB, Kaiser β 10, 1023 taps: a transition of some 160 Hz, a
// stop band 100 dB down) reads fc within 250 Hz, a lossy-looking cliff.
func TestFIR(t *testing.T) {
	x := noise(1)
	const taps, beta = 1023, 10
	i0 := func(v float64) float64 { // the Kaiser window's Bessel function, by its series
		s, term := 1.0, 1.0
		for k := 1; k < 50; k++ {
			term *= (v / 2 / float64(k)) * (v / 2 / float64(k))
			s += term
		}
		return s
	}
	for _, fc := range []float64{16000, 19000} {
		h := make([]float64, taps)
		for i := range h {
			u := float64(i - taps/2)
			sinc := 2 * fc / rate
			if u != 0 {
				sinc = math.Sin(2*math.Pi*fc/rate*u) / (math.Pi * u)
			}
			r := u / (taps / 2)
			h[i] = sinc * i0(beta*math.Sqrt(1-r*r)) / i0(beta)
		}
		y := make([]float32, len(x))
		for n := range y {
			s := 0.0
			for k := max(0, n-len(x)+1+taps/2); k < taps && n-k+taps/2 >= 0; k++ {
				if j := n - k + taps/2; j < len(x) {
					s += h[k] * float64(x[j])
				}
			}
			y[n] = float32(s)
		}
		path := filepath.Join(t.TempDir(), "fir.wav")
		apptest.WriteWAV(t, path, rate, [][]float32{y})
		if j := bandwidthOf(t, path); math.Abs(j.BandwidthHz-fc) > 250 || !j.LossyLowpass {
			t.Errorf("FIR at %v Hz: %+v, want %v ± 250 Hz, lossy", fc, j, fc)
		}
	}
}

// TestErrors: no file is a usage error; a missing or undecodable file is
// reported on stderr with exit 2 while the others are still judged.
func TestErrors(t *testing.T) {
	if code, _, msg := run(); code != kit.ExitUsage || !strings.HasPrefix(msg, "prism: bandwidth: ") {
		t.Errorf("no file: exit %d, %q", code, msg)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.wav")
	apptest.WriteWAV(t, good, rate, [][]float32{noise(1)})
	bad := filepath.Join(dir, "bad.wav")
	if err := os.WriteFile(bad, []byte("RIFF nonsense"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, msg := run(filepath.Join(dir, "missing.wav"), bad, good)
	if code != kit.ExitUsage || strings.Count(msg, "prism: ") != 2 || !strings.Contains(out, good+": full band") {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, msg)
	}
	code, out, _ = run("--json", good, good)
	var shape map[string][]map[string]any
	if err := json.Unmarshal([]byte(out), &shape); err != nil || code != kit.ExitOK || len(shape) != 1 || len(shape["files"]) != 2 {
		t.Fatalf("JSON of two files: exit %d, %v\n%s", code, err, out)
	}
	for _, f := range shape["files"] {
		_, isNum := f["bandwidth_hz"].(float64)
		_, isBool := f["lossy_lowpass"].(bool)
		if len(f) != 3 || f["path"] != good || !isNum || !isBool {
			t.Errorf("JSON entry %v, want {path, bandwidth_hz, lossy_lowpass}", f)
		}
	}
	code, out, _ = run("--json", bad)
	if code != kit.ExitUsage || strings.TrimSpace(out) != "{\n  \"files\": []\n}" {
		t.Errorf("JSON with no file judged: exit %d, %q", code, out)
	}
}

// TestUpsampled: white noise at 44.1 kHz resampled to 96 kHz by sox ends
// just below 22.05 kHz (sox's pass band: 94 … 101 % of it) and is no
// lossy low-pass: the text says it was likely upsampled.
func TestUpsampled(t *testing.T) {
	if _, err := exec.LookPath("sox"); err != nil {
		if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
			t.Fatal("sox not found (PRISM_REQUIRE_TOOLS=1; scripts/setup.sh installs it)")
		}
		t.Skip("sox not found")
	}
	dir := t.TempDir()
	wav, up := filepath.Join(dir, "noise.wav"), filepath.Join(dir, "up.wav")
	apptest.WriteWAV(t, wav, rate, [][]float32{noise(1)})
	if out, err := exec.Command("sox", wav, "-r", "96000", up).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v\n%s", err, out)
	}
	if j := bandwidthOf(t, up); j.LossyLowpass || j.BandwidthHz < 0.94*22050 || j.BandwidthHz > 1.01*22050 {
		t.Errorf("upsampled: %+v", j)
	}
	if _, out, _ := run(up); !strings.Contains(out, "likely upsampled from that rate") {
		t.Errorf("text %q", out)
	}
}
