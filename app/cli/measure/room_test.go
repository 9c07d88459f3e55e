package measure

import (
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/internal/apptest"
)

// roomWAV writes a room's impulse response: 10 ms of silence, then white
// noise decaying by 60 dB in t60 seconds over a noise floor 70 dB down,
// 1.6·t60 + 0.3 s in all, as 32-bit float at 48 kHz.
func roomWAV(t *testing.T, path string, t60 float64) {
	const fs = 48000
	lead := fs / 100
	n := lead + int((1.6*t60+0.3)*fs)
	decay := apptest.WhiteNoise(n, 7, 0.25)
	floor := apptest.WhiteNoise(n, 8, 0.25*math.Pow(10, -70.0/20))
	x := make([]float32, n)
	a := 3 * math.Ln10 / t60
	for i := range x {
		v := floor[i]
		if i >= lead {
			v += decay[i] * math.Exp(-a*float64(i-lead)/fs)
		}
		x[i] = float32(v)
	}
	apptest.WriteWAV(t, path, fs, [][]float32{x})
}

// `prism room --json` of a room of T60 0.8 s: the contract's keys per
// band and broadband; broadband T20 and T30 within 2 % of 0.8 s, EDT
// within 5 %, the correlation coefficients below −0.99, the onset at 10 ms
// (± 0.1 ms); 63 Hz…8 kHz octave bands; the PNG and the CSV (its header
// the contract's, group delay of a response with its onset at 10 ms
// reading about 10 ms where it is strong) are written.
func TestRoomCLI(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "ir.wav")
	roomWAV(t, in, 0.8)
	pngOut, csvOut := filepath.Join(dir, "decay.png"), filepath.Join(dir, "resp.csv")
	code, stdout, msg := runOut("room", in, "--json", "-o", pngOut, "-o", csvOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var got struct {
		SampleRate int                 `json:"sample_rate"`
		OnsetMs    float64             `json:"onset_ms"`
		Bands      []map[string]any    `json:"bands"`
		Broadband  map[string]*float64 `json:"broadband"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	keys := []string{"center_hz", "edt_s", "t20_s", "t30_s", "c50_db", "c80_db", "d50_percent", "r_t20", "r_t30"}
	for _, k := range keys {
		if got.Broadband[k] == nil {
			t.Errorf("broadband %q missing or null: %s", k, stdout)
		}
		for _, b := range got.Bands {
			if _, ok := b[k]; !ok {
				t.Errorf("band %v has no %q", b["center_hz"], k)
			}
		}
	}
	if len(got.Bands) != 8 || got.Bands[0]["center_hz"] != 63.0 || got.Bands[7]["center_hz"] != 8000.0 {
		t.Errorf("bands %v, want 63 Hz … 8 kHz", got.Bands)
	}
	bb := func(k string) float64 { return *got.Broadband[k] }
	if math.Abs(bb("t20_s")-0.8) > 0.016 || math.Abs(bb("t30_s")-0.8) > 0.016 || math.Abs(bb("edt_s")-0.8) > 0.04 ||
		bb("r_t20") > -0.99 || bb("r_t30") > -0.99 || math.Abs(got.OnsetMs-10) > 0.1 {
		t.Errorf("broadband %s, onset %v ms: want T20, T30 0.8 s ± 2 %%, EDT ± 5 %%, r < −0.99, onset 10 ms", stdout, got.OnsetMs)
	}
	f, err := os.Open(pngOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("decay PNG: %v", err)
	}
	csv, err := os.ReadFile(csvOut)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "freq_hz,magnitude_db,phase_deg,group_delay_ms" {
		t.Errorf("CSV header %q", lines[0])
	}
}

// Bad inputs to `prism room`: each a `prism: room:` message and exit 2,
// and nothing written.
func TestRoomCLIBadInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "ir.wav")
	roomWAV(t, in, 0.3)
	silent := filepath.Join(dir, "silent.wav")
	apptest.WriteWAV(t, silent, 48000, [][]float32{make([]float32, 4800)})
	out := filepath.Join(dir, "x.png")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "missing.wav")}, "no such file"},
		{[]string{in, "--fraction", "2"}, "--fraction 2"},
		{[]string{in, "--channel", "1"}, "no channel 1"},
		{[]string{silent}, "silent"},
		{[]string{in, "-o", out, "-o", filepath.Join(dir, "y.png")}, "at most one .png"},
		{[]string{in, "-o", filepath.Join(dir, "x.wav")}, "at most one .png"},
		{[]string{in, "--smoothing", "1/2"}, "smoothing"},
		{[]string{in, dir}, "one impulse-response file"},
	} {
		code, msg := runCLI(append([]string{"room"}, c.args...)...)
		if code != kit.ExitUsage || !strings.HasPrefix(msg, "prism: room: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, msg, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written by a failed run", out)
	}
}
