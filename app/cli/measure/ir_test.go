package measure

import (
	"encoding/json"
	"image/png"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/internal/apptest"
)

// irFiles writes, with prism sweep, a 2-s 20 Hz–20 kHz sweep at 48 kHz
// (s.wav) and a recording of it (rec.wav): channel 0 the system — a
// quadratic distortion y = x + 0.01·x², then a peaking EQ (+6 dB, Q 2 at
// 3 kHz), 300 samples late — and channel 1 the loopback, 100 samples late
// (the interface's latency).
func irFiles(t *testing.T) (dir string, eq apptest.Biquad) {
	dir = t.TempDir()
	sw := filepath.Join(dir, "s.wav")
	if code, _, msg := runOut("sweep", "-o", sw, "--from", "20", "--to", "20000", "--seconds", "2", "--quiet"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, msg)
	}
	_, x32 := apptest.ReadAll(t, sw)
	x := make([]float64, len(x32)+2000)
	for i, v := range x32 {
		x[i] = float64(v)
	}
	eq = apptest.PeakingEQ(3000, 6, 2, 48000)
	sys := make([]float64, len(x))
	for i, v := range x {
		sys[i] = v + 0.01*v*v
	}
	sys = eq.Filter(apptest.Delayed(sys, 300))
	ref := apptest.Delayed(x, 100)
	ch := [][]float32{make([]float32, len(x)), make([]float32, len(x))}
	for i := range x {
		ch[0][i], ch[1][i] = float32(sys[i]), float32(ref[i])
	}
	apptest.WriteWAV(t, filepath.Join(dir, "rec.wav"), 48000, ch)
	return dir, eq
}

// TestIRCLI: `prism ir` with a loopback reference reports the system's
// own latency (200 samples) and, without it, the whole (300), with the
// contract's JSON keys; --sweep and --from/--to/--seconds agree; the IR
// file holds the response; --distortion's CSV has the contract's header
// and the second harmonic of 0.01·x² at a −3-dBFS sweep (0.01·A/2 of the
// fundamental, the EQ's gains at f and 2f applied); --csd writes its NPY
// and PNG.
func TestIRCLI(t *testing.T) {
	dir, eq := irFiles(t)
	rec, sw := filepath.Join(dir, "rec.wav"), filepath.Join(dir, "s.wav")
	summary := func(args ...string) map[string]any {
		t.Helper()
		code, stdout, msg := runOut(append([]string{"ir", rec, "--engine", "cpu", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, msg)
		}
		var sum map[string]any
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("--json: %v: %q", err, stdout)
		}
		if len(sum) != 4 {
			t.Errorf("--json keys: %s", stdout)
		}
		for _, k := range []string{"latency_ms", "peak_dbfs", "snr_db", "polarity"} {
			if _, ok := sum[k]; !ok {
				t.Errorf("--json lacks %q: %s", k, stdout)
			}
		}
		return sum
	}
	irPath := filepath.Join(dir, "ir.wav")
	withRef := summary("--sweep", sw, "--ref-channel", "1", "-o", irPath)
	if ms := withRef["latency_ms"].(float64); math.Abs(ms-200.0/48) > 1.0/48 || withRef["polarity"] != 1.0 || withRef["snr_db"].(float64) < 80 {
		t.Errorf("with the reference: %v; want latency %.4f ms, polarity 1, SNR over 80 dB", withRef, 200.0/48)
	}
	alone := summary("--from", "20", "--to", "20000", "--seconds", "2", "-o", filepath.Join(dir, "ir.npy"))
	if ms := alone["latency_ms"].(float64); math.Abs(ms-300.0/48) > 1.0/48 || alone["peak_dbfs"] != withRef["peak_dbfs"] {
		t.Errorf("alone: %v; want latency %.4f ms and the peak %v", alone, 300.0/48, withRef["peak_dbfs"])
	}
	f, ir := apptest.ReadAll(t, irPath)
	rows, cols, vals := apptest.ReadNPY(t, filepath.Join(dir, "ir.npy"))
	if f.SampleRate != 48000 || f.Channels != 1 || cols != 1 || rows != len(ir)+100 {
		t.Fatalf("IR.wav %+v, %d samples; IR.npy %d×%d", f, len(ir), rows, cols)
	}
	// the reference's 100 samples taken out of the WAV's response
	at, _ := apptest.PeakIn(ir, 0, len(ir))
	at2, _ := apptest.PeakIn(vals, 0, len(vals))
	if at2-at != 100 {
		t.Errorf("peaks at %d (with the reference) and %d (alone)", at, at2)
	}

	dist := filepath.Join(dir, "d.csv")
	summary("--sweep", sw, "--distortion", "-o", dist)
	b, err := os.ReadFile(dist)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "freq_hz,thd_percent,h2_db,h3_db,h4_db,h5_db,h6_db,h7_db,h8_db,h9_db" {
		t.Fatalf("header %q", lines[0])
	}
	checked := 0
	for _, line := range lines[1:] {
		v := strings.Split(line, ",")
		fHz, _ := strconv.ParseFloat(v[0], 64)
		h2, _ := strconv.ParseFloat(v[2], 64)
		if len(v) != 10 || fHz < 100 || fHz > 8000 {
			continue
		}
		want := 20 * math.Log10(0.01*math.Pow(10, -3.0/20)/2*cmplx.Abs(eq.Response(2*fHz, 48000))/cmplx.Abs(eq.Response(fHz, 48000)))
		if math.Abs(h2-want) > 0.5 {
			t.Errorf("%s: h2 %.2f dB, want %.2f", line, h2, want)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("%d rows checked", checked)
	}

	summary("--sweep", sw, "--csd", "-o", filepath.Join(dir, "c.npy"))
	if rows, cols, vals := apptest.ReadNPY(t, filepath.Join(dir, "c.npy")); rows != 41 || cols < 200 || vals[0] != 0 || vals[1] < 20 || vals[cols] > 0 {
		t.Errorf("CSD NPY %d×%d, %v…", rows, cols, vals[:3])
	}
	summary("--sweep", sw, "--csd", "-o", filepath.Join(dir, "c.png"))
	pf, err := os.Open(filepath.Join(dir, "c.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if _, err := png.Decode(pf); err != nil {
		t.Errorf("CSD PNG: %v", err)
	}
}

// TestIRCLIBadInput: every bad input is one "prism: ir:" line and exit 2,
// and nothing is written.
func TestIRCLIBadInput(t *testing.T) {
	dir, _ := irFiles(t)
	rec, sw := filepath.Join(dir, "rec.wav"), filepath.Join(dir, "s.wav")
	out := filepath.Join(dir, "out.wav")
	plain := filepath.Join(dir, "plain.wav")
	apptest.WriteWAV(t, plain, 48000, [][]float32{make([]float32, 1000)})
	if code, _, msg := runOut("sweep", "-o", filepath.Join(dir, "s44.wav"), "--from", "20", "--to", "20000", "--seconds", "2", "--rate", "44100", "--quiet"); code != 0 {
		t.Fatal(msg)
	}
	for _, args := range [][]string{
		{rec, "-o", out}, // no sweep
		{rec, "--sweep", sw, "--from", "20", "-o", out},   // both
		{rec, "--from", "20", "--to", "20000", "-o", out}, // no --seconds
		{rec, "--sweep", sw},                              // no -o
		{rec, "--sweep", sw, "-o", filepath.Join(dir, "x.csv")},
		{rec, "--sweep", sw, "--distortion", "-o", out},
		{rec, "--sweep", sw, "--csd", "-o", filepath.Join(dir, "x.csv")},
		{rec, "--sweep", sw, "--csd", "--distortion", "-o", filepath.Join(dir, "x.npy")},
		{rec, "--sweep", sw, "--channel", "1", "--ref-channel", "1", "-o", out},
		{rec, "--sweep", sw, "--channel", "5", "-o", out},
		{rec, "--sweep", sw, "--ref-channel", "7", "-o", out},
		{rec, "--sweep", plain, "-o", out},                         // no parameters
		{rec, "--sweep", filepath.Join(dir, "s44.wav"), "-o", out}, // another rate
		{rec, "--sweep", filepath.Join(dir, "none.wav"), "-o", out},
		{filepath.Join(dir, "none.wav"), "--sweep", sw, "-o", out},
		{plain, "--sweep", sw, "-o", out}, // shorter than the sweep
		{rec, "--from", "20", "--to", "30000", "--seconds", "2", "-o", out},
		{rec, rec, "--sweep", sw, "-o", out},
		{rec, "--sweep", sw, "-o", rec}, // the output is the input
	} {
		code, _, msg := runOut(append([]string{"ir", "--engine", "cpu"}, args...)...)
		if code != kit.ExitUsage || !strings.HasPrefix(msg, "prism: ir: ") || strings.Count(msg, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, msg)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an output was written")
	}
}

// TestIRCLIForce: an output whose permission bits forbid writing it is
// refused before any work (exit 2, untouched) and replaced with --force.
func TestIRCLIForce(t *testing.T) {
	dir, _ := irFiles(t)
	out := filepath.Join(dir, "ir.wav")
	if err := os.WriteFile(out, []byte("keep me"), 0o444); err != nil {
		t.Fatal(err)
	}
	args := []string{"ir", filepath.Join(dir, "rec.wav"), "--sweep", filepath.Join(dir, "s.wav"), "-o", out, "--engine", "cpu", "--quiet"}
	code, _, msg := runOut(args...)
	if b, _ := os.ReadFile(out); code != kit.ExitUsage || !strings.Contains(msg, "not writable") || string(b) != "keep me" {
		t.Fatalf("without --force: exit %d, %q: %s", code, b, msg)
	}
	if code, _, msg := runOut(append(args, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, msg)
	}
	if f, ir := apptest.ReadAll(t, out); f.SampleRate != 48000 || len(ir) == 0 {
		t.Fatalf("after --force: %+v, %d samples", f, len(ir))
	}
}
