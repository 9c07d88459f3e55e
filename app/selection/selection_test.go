package selection_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/prismaudio/prism/app/cli"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/selection"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// prism runs a command of the CLI and fails the test on an error.
func prism(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run(args, &out, &errb); code != 0 {
		t.Fatalf("prism %v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// readCSV reads a spectrum CSV's first level column.
func readCSV(t *testing.T, path string) (hz, db []float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		f, _ := strconv.ParseFloat(r[0], 64)
		l, _ := strconv.ParseFloat(r[1], 64)
		hz, db = append(hz, f), append(db, l)
	}
	return hz, db
}

// TestSelection: the selection 0.7…2.2 s of a two-channel file (a 1-kHz
// tone in noise) measures as the commands measure the same samples
// written to a file of their own by the test: its long-term spectrum is
// `prism spectrum`'s within 0.01 dB, its levels and loudness `prism
// levels --json`'s; a time×frequency box is `prism spectrum` of `prism
// filter --band` of the cut; the exported spectrum CSV reads back alike.
func TestSelection(t *testing.T) {
	const rate = 48000
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	n := 3 * rate
	ch := [][]float32{make([]float32, n), make([]float32, n)}
	for i := range n {
		tone := 0.4 * math.Sin(2*math.Pi*1000*float64(i)/rate)
		ch[0][i] = float32(tone + 0.05*(r.Float64()-0.5))
		ch[1][i] = float32(0.5*tone + 0.1*(r.Float64()-0.5))
	}
	in := filepath.Join(dir, "in.wav")
	apptest.WriteWAV(t, in, rate, ch)
	a, b := int(0.7*rate), int(2.2*rate)
	ref := filepath.Join(dir, "ref.wav")
	apptest.WriteWAV(t, ref, rate, [][]float32{ch[0][a:b], ch[1][a:b]})

	cpu := gpufft.NewCPU(1)
	defer cpu.Close()
	engines := engine.Pair{Preferred: cpu, CPU: cpu}
	o := selection.Options{FFT: 4096, OverlapPct: 50, Window: window.Func{Kind: window.Hann}, Channel: -1}
	res, err := selection.Analyze(context.Background(), in, selection.Range{T0: 0.7, T1: 2.2}, o, engines)
	if err != nil {
		t.Fatal(err)
	}
	refCSV := filepath.Join(dir, "ref.csv")
	prism(t, "spectrum", ref, "-o", refCSV, "--fft", "4096", "--overlap", "50", "--window", "hann", "--engine", "cpu")
	compareSpectrum(t, "time selection", res, refCSV)

	var lv struct {
		Channels []struct {
			SamplePeak float64 `json:"sample_peak_dbfs"`
			TruePeak   float64 `json:"true_peak_dbtp"`
			RMS        float64 `json:"rms_dbfs"`
		} `json:"channels"`
		Integrated float64 `json:"integrated_lufs"`
		Momentary  float64 `json:"momentary_max_lufs"`
	}
	if err := json.Unmarshal([]byte(prism(t, "levels", ref, "--json")), &lv); err != nil {
		t.Fatal(err)
	}
	if len(lv.Channels) != 2 || len(res.Levels.Channels) != 2 {
		t.Fatalf("levels of %d and %d channels", len(res.Levels.Channels), len(lv.Channels))
	}
	for c, want := range lv.Channels {
		got := res.Levels.Channels[c]
		for _, q := range []struct {
			name      string
			got, want float64
		}{{"sample peak", got.SamplePeakDBFS, want.SamplePeak}, {"true peak", got.TruePeakDBTP, want.TruePeak}, {"RMS", got.RMSDBFS, want.RMS}} {
			if math.Abs(q.got-q.want) > 1e-4 {
				t.Errorf("channel %d %s: %.4f, prism levels %.4f", c, q.name, q.got, q.want)
			}
		}
	}
	if math.Abs(res.Levels.IntegratedLUFS-lv.Integrated) > 1e-4 || math.Abs(res.Levels.MomentaryMaxLUFS-lv.Momentary) > 1e-4 {
		t.Errorf("loudness %.4f / %.4f LUFS, prism levels %.4f / %.4f", res.Levels.IntegratedLUFS, res.Levels.MomentaryMaxLUFS, lv.Integrated, lv.Momentary)
	}
	if res.DistErr != nil || math.Abs(res.Distortion.FundamentalHz-1000) > 1 {
		t.Errorf("distortion: fundamental %.2f Hz, %v", res.Distortion.FundamentalHz, res.DistErr)
	}

	// the box 500…2000 Hz: prism filter of the cut, then prism spectrum
	box := selection.Range{T0: 0.7, T1: 2.2, LoHz: 500, HiHz: 2000}
	resBox, err := selection.Analyze(context.Background(), in, box, o, engines)
	if err != nil {
		t.Fatal(err)
	}
	filtered := filepath.Join(dir, "filtered.wav")
	prism(t, "filter", ref, "-o", filtered, "--band", resBox.Band.String(), "--engine", "cpu")
	boxCSV := filepath.Join(dir, "box.csv")
	prism(t, "spectrum", filtered, "-o", boxCSV, "--fft", "4096", "--overlap", "50", "--window", "hann", "--engine", "cpu")
	compareSpectrum(t, "box "+resBox.Band.String(), resBox, boxCSV)

	paths, err := selection.Export(filepath.Join(dir, "sel"), res)
	if err != nil || len(paths) != 3 {
		t.Fatalf("export: %v %v", paths, err)
	}
	compareSpectrum(t, "exported", res, paths[0])
	// the band levels are `prism bands`' of the cut
	bandsCSV := filepath.Join(dir, "bands.csv")
	prism(t, "bands", ref, "-o", bandsCSV, "--engine", "cpu")
	want, err := os.ReadFile(bandsCSV)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(paths[2]); !bytes.Equal(got, want) {
		t.Errorf("the exported band levels differ from prism bands':\n%s\nwant\n%s", got, want)
	}
}

// compareSpectrum checks res's spectrum against a spectrum CSV within
// 0.01 dB (wherever the reference is above −200 dB).
func compareSpectrum(t *testing.T, what string, res selection.Result, path string) {
	t.Helper()
	hz, db := readCSV(t, path)
	got := res.Spectrum
	if len(got.FreqHz) != len(hz) {
		t.Fatalf("%s: %d bins, prism spectrum %d", what, len(got.FreqHz), len(hz))
	}
	worst := 0.0
	for k := range hz {
		if hz[k] != got.FreqHz[k] {
			t.Fatalf("%s: bin %d at %g Hz, prism spectrum %g", what, k, got.FreqHz[k], hz[k])
		}
		if db[k] > -200 {
			worst = max(worst, math.Abs(got.Levels[0][k]-db[k]))
		}
	}
	if worst > 0.01 {
		t.Errorf("%s: spectrum differs from prism spectrum's by up to %.4f dB, want ≤ 0.01", what, worst)
	}
}
