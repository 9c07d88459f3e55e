package cli

import (
	"encoding/json"
	"image/png"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/internal/apptest"
)

// transferWAVs writes, at 48 kHz for 2 s: white noise x (the reference),
// y = 0.5·x[n−120] + 0.25·x[n−121] (a filtered copy 2.5 ms late) with
// noise 60 dB down, and z = −y (inverted) and an unrelated noise u; the
// analytic response of y is e^(−iω·120)·(0.5 + 0.25·e^(−iω)).
func transferWAVs(t *testing.T, dir string) (x, y, z, u []float32) {
	const fs = 48000
	r := rand.New(rand.NewPCG(5, 5))
	n := 2 * fs
	x, y, z, u = make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(0.2 * r.NormFloat64())
		u[i] = float32(0.2 * r.NormFloat64())
	}
	for i := range y {
		v := 0.0
		if i >= 121 {
			v = 0.5*float64(x[i-120]) + 0.25*float64(x[i-121])
		}
		y[i] = float32(v + 0.0002*r.NormFloat64())
		z[i] = -y[i]
	}
	apptest.WriteWAV(t, filepath.Join(dir, "pair.wav"), fs, [][]float32{x, y})
	apptest.WriteWAV(t, filepath.Join(dir, "multi.wav"), fs, [][]float32{y, x, z, u})
	apptest.WriteWAV(t, filepath.Join(dir, "ref.wav"), fs, [][]float32{x})
	apptest.WriteWAV(t, filepath.Join(dir, "meas.wav"), fs, [][]float32{y})
	return
}

// `prism transfer` of a two-channel WAV (reference, filtered delayed
// copy): the CSV has the contract's header and one row per bin; the
// magnitude is within ±0.1 dB and the phase (the found delay taken out)
// within ±1° of the analytic response from 100 Hz to 20 kHz, the
// coherence above 0.999; --json has the contract's keys, 120 ± 1
// samples (2.5 ms), delay_ms = delay_samples/48, polarity 1.
// Two files give the same CSV as one.
func TestTransferCLIPair(t *testing.T) {
	const fs, n = 48000, 8192
	dir := t.TempDir()
	transferWAVs(t, dir)
	out := filepath.Join(dir, "h.csv")
	code, stdout, msg := runOut("transfer", filepath.Join(dir, "pair.wav"), "--ref-channel", "0", "-o", out, "--fft", "8192", "--engine", "cpu", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	head, cols := readSpectrumCSV(t, out)
	if head != "freq_hz,magnitude_db,phase_deg,coherence" {
		t.Fatalf("header %q", head)
	}
	if len(cols) != 4 || len(cols[0]) != n/2+1 || cols[0][1] != fs/float64(n) {
		t.Fatalf("%d columns, %d rows", len(cols), len(cols[0]))
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json: %v: %q", err, stdout)
	}
	for _, k := range []string{"delay_ms", "delay_samples", "polarity", "mean_coherence"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("--json lacks %q: %s", k, stdout)
		}
	}
	// the filter's own group delay moves the impulse response's peak
	// (PHAT: 120.18 samples): the whole-sample delay is within ±1
	d, _ := sum["delay_samples"].(float64)
	if math.Abs(d-120) > 1 {
		t.Errorf("delay_samples %v, want 120 ± 1", sum["delay_samples"])
	}
	if ms, _ := sum["delay_ms"].(float64); math.Abs(ms-d/48) > 1e-5 {
		t.Errorf("delay_ms %v, want %v", sum["delay_ms"], d/48)
	}
	if sum["polarity"] != 1.0 || sum["mean_coherence"].(float64) < 0.999 || sum["delay_found"] != true || sum["delay_given"] != false {
		t.Errorf("--json %s", stdout)
	}
	worstDB, worstDeg := 0.0, 0.0
	for k, f := range cols[0] {
		if f < 100 || f > 20000 {
			continue
		}
		w := 2 * math.Pi * f / fs
		h := (0.5 + 0.25*cmplx.Exp(complex(0, -w))) * cmplx.Exp(complex(0, w*(d-120))) // the found delay taken out
		worstDB = max(worstDB, math.Abs(cols[1][k]-20*math.Log10(cmplx.Abs(h))))
		worstDeg = max(worstDeg, math.Abs(math.Mod(cols[2][k]-cmplx.Phase(h)*180/math.Pi+540, 360)-180))
		if cols[3][k] < 0.999 {
			t.Fatalf("%v Hz: coherence %v", f, cols[3][k])
		}
	}
	if worstDB > 0.1 || worstDeg > 1 {
		t.Errorf("worst %.3f dB, %.3f° off the analytic response", worstDB, worstDeg)
	}
	// a given delay is reported as given, with the response's polarity
	code, stdout, msg = runOut("transfer", filepath.Join(dir, "pair.wav"), "-o", filepath.Join(dir, "given.csv"), "--fft", "8192", "--engine", "cpu", "--json", "--delay", "2.5")
	if code != 0 {
		t.Fatalf("--delay 2.5: exit %d: %s", code, msg)
	}
	if want := `{"delay_found":false,"delay_given":true,"delay_ms":2.5,"delay_samples":120,`; !strings.HasPrefix(stdout, want) || !strings.Contains(stdout, `"polarity":1}`) {
		t.Errorf("--delay 2.5: %s, want %s…\"polarity\":1}", stdout, want)
	}
	out2 := filepath.Join(dir, "h2.csv")
	if code, _, msg := runOut("transfer", filepath.Join(dir, "ref.wav"), filepath.Join(dir, "meas.wav"), "-o", out2, "--fft", "8192", "--engine", "cpu", "--quiet"); code != 0 {
		t.Fatalf("two files: exit %d: %s", code, msg)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(out2)
	if string(a) != string(b) {
		t.Error("two files and one file give different CSVs")
	}
}

// Several measurement channels: the CSV names each column after its
// channel, --json holds arrays in --channels order (an inverted channel
// reports polarity −1, an unrelated one no delay: null), and NPY and
// PNG outputs are written with the same columns and three plots.
func TestTransferCLIChannels(t *testing.T) {
	dir := t.TempDir()
	transferWAVs(t, dir)
	in := filepath.Join(dir, "multi.wav")
	out := filepath.Join(dir, "m.csv")
	code, stdout, msg := runOut("transfer", in, "--ref-channel", "1", "--channels", "0,2,3", "-o", out, "--fft", "4096",
		"--average", "polar", "--smoothing", "1/12", "--engine", "cpu", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	head, cols := readSpectrumCSV(t, out)
	want := "freq_hz,magnitude_db_ch0,phase_deg_ch0,coherence_ch0,magnitude_db_ch2,phase_deg_ch2,coherence_ch2,magnitude_db_ch3,phase_deg_ch3,coherence_ch3"
	if head != want || len(cols) != 10 {
		t.Fatalf("header %q, want %q", head, want)
	}
	var sum struct {
		Channels []int      `json:"channels"`
		DelayMs  []*float64 `json:"delay_ms"`
		Samples  []*float64 `json:"delay_samples"`
		Polarity []*int     `json:"polarity"`
		Coh      []float64  `json:"mean_coherence"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json: %v: %q", err, stdout)
	}
	if len(sum.Channels) != 3 || sum.Channels[1] != 2 || len(sum.DelayMs) != 3 || len(sum.Polarity) != 3 || len(sum.Coh) != 3 {
		t.Fatalf("--json %s", stdout)
	}
	if sum.Polarity[0] == nil || *sum.Polarity[0] != 1 || sum.Polarity[1] == nil || *sum.Polarity[1] != -1 {
		t.Errorf("polarities %s, want 1, -1, null", stdout)
	}
	if sum.DelayMs[2] != nil || sum.Samples[2] != nil || sum.Polarity[2] != nil || sum.Coh[2] > 0.1 {
		t.Errorf("unrelated channel: %s, want no delay", stdout)
	}
	if sum.DelayMs[1] == nil || math.Abs(*sum.DelayMs[1]-2.5) > 1.0/48 {
		t.Errorf("inverted channel: %s", stdout)
	}
	npy := filepath.Join(dir, "m.npy")
	if code, _, msg := runOut("transfer", in, "--ref-channel", "1", "--channels", "0,2", "-o", npy, "--fft", "4096", "--engine", "cpu", "--quiet"); code != 0 {
		t.Fatalf("npy: exit %d: %s", code, msg)
	}
	if rows, c, _ := apptest.ReadNPY(t, npy); rows != 2049 || c != 7 {
		t.Errorf("NPY %d×%d, want 2049×7", rows, c)
	}
	pngOut := filepath.Join(dir, "m.png")
	if code, _, msg := runOut("transfer", in, "--ref-channel", "1", "--channels", "0,2", "-o", pngOut, "--fft", "4096", "--engine", "cpu", "--quiet"); code != 0 {
		t.Fatalf("png: exit %d: %s", code, msg)
	}
	f, err := os.Open(pngOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 1200 || b.Dy() < 3*280 {
		t.Errorf("PNG %v: want three plots of 1200×280 or more", b)
	}
}

// Bad usage and bad input exit 2 with a "prism: " message, and leave no
// output.
func TestTransferCLIErrors(t *testing.T) {
	dir := t.TempDir()
	transferWAVs(t, dir)
	in := filepath.Join(dir, "pair.wav")
	out := filepath.Join(dir, "e.csv")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{in}, "-o OUT.csv"},
		{[]string{in, "-o", filepath.Join(dir, "e.txt")}, "-o OUT.csv"},
		{[]string{in, in, in, "-o", out}, "want one input file"},
		{[]string{in, "-o", out, "--average", "vector"}, "--average"},
		{[]string{in, "-o", out, "--smoothing", "1/2"}, "--smoothing"},
		{[]string{in, "-o", out, "--delay", "soon"}, "--delay"},
		{[]string{in, "-o", out, "--channels", "0"}, "is the reference"},
		{[]string{in, "-o", out, "--channels", "x"}, "--channels"},
		{[]string{in, "-o", out, "--fft", "1000"}, "--fft"},
		{[]string{in, "-o", out, "--overlap", "100"}, "--overlap"},
		{[]string{in, "-o", out, "--ref-channel", "-1"}, "--ref-channel"},
		{[]string{in, "-o", out, "--channels", "5", "--engine", "cpu"}, "no channel 5"},
		{[]string{in, "-o", out, "--fft", "262144", "--engine", "cpu"}, "fewer than one frame"},
		{[]string{filepath.Join(dir, "none.wav"), "-o", out, "--engine", "cpu"}, "no such file"},
	} {
		code, _, msg := runOut(append([]string{"transfer"}, c.args...)...)
		if code != 2 || !strings.Contains(msg, c.msg) || !strings.HasPrefix(msg, "prism: ") {
			t.Errorf("%v: exit %d %q, want 2 %q", c.args, code, msg, c.msg)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed run left its output")
	}
}
