package out

import (
	"bytes"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testMeta and testRows are a small LTSA: 5 columns, 3 rows, one NaN.
func testMeta() Meta {
	return Meta{Kind: "ltsa", Title: "long-term spectral average", Unit: "dB re 1 uPa^2/Hz",
		FreqHz: []float64{0, 10, 20, 30, 40},
		Attrs:  []Attr{{"average_seconds", 60.0}, {"fft", int32(1024)}, {"calibration", "hydrophone -170 dB re 1 V/uPa"}}}
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func testRows() []Row {
	var rows []Row
	for i := range 3 {
		l := []float32{float32(i), 1.5, -2.25, 100, float32(10 * i)}
		if i == 1 {
			l[2] = float32(math.NaN())
		}
		rows = append(rows, Row{Start: t0.Add(time.Duration(i) * time.Minute), Seconds: 60 - float64(i), Level: l})
	}
	return rows
}

func write(t *testing.T, path string, m Meta, rows []Row) []byte {
	t.Helper()
	w, err := Create(path, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Discard()
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNetCDFNcdump reads a written file back with Debian's ncdump: the
// dimensions, the units and the values.
func TestNetCDFNcdump(t *testing.T) {
	if _, err := exec.LookPath("ncdump"); err != nil {
		requireTools(t, "ncdump (netcdf-bin)")
	}
	path := filepath.Join(t.TempDir(), "a.nc")
	write(t, path, testMeta(), testRows())
	b, err := exec.Command("ncdump", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ncdump: %v\n%s", err, b)
	}
	s := string(b)
	for _, want := range []string{
		"time = UNLIMITED ; // (3 currently)", "frequency = 5 ;",
		`level:units = "dB re 1 uPa^2/Hz" ;`, `time:units = "seconds since 1970-01-01 00:00:00 UTC" ;`,
		`:Conventions = "CF-1.8" ;`, ":fft = 1024 ;", "frequency = 0, 10, 20, 30, 40 ;",
		"0, 1.5, -2.25, 100, 0,", "1, 1.5, _, 100, 10,", "2, 1.5, -2.25, 100, 20 ;",
		"audio_seconds = 60, 59, 58 ;",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("ncdump lacks %q:\n%s", want, s)
		}
	}
}

// TestNetCDFPercentilesFill: an HMD day without a whole minute has no
// percentiles: ncdump reads them as the fill value (NaN, "_"), not zero.
func TestNetCDFPercentilesFill(t *testing.T) {
	if _, err := exec.LookPath("ncdump"); err != nil {
		requireTools(t, "ncdump (netcdf-bin)")
	}
	m := testMeta()
	m.Kind, m.Percentiles = "hmd", []float64{5, 50, 95}
	path := filepath.Join(t.TempDir(), "d.nc")
	w, err := Create(path, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Discard()
	w.(*ncWriter).SetPercentiles(make([][]float32, len(m.Percentiles))) // no rows: no values
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	b, err := exec.Command("ncdump", "-v", "level_percentile", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ncdump: %v\n%s", err, b)
	}
	if want := "level_percentile =\n  _, _, _, _, _,\n  _, _, _, _, _,\n  _, _, _, _, _ ;"; !strings.Contains(string(b), want) {
		t.Fatalf("ncdump lacks %q:\n%s", want, b)
	}
}

// TestNetCDFPython reads a written file back with netCDF4-python (the
// library under xarray): dimensions, units, time and values.
func TestNetCDFPython(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import netCDF4").Run() != nil {
		requireTools(t, "python3-netcdf4")
	}
	path := filepath.Join(t.TempDir(), "a.nc")
	write(t, path, testMeta(), testRows())
	script := `
import json, sys, netCDF4, numpy as np
d = netCDF4.Dataset(sys.argv[1])
lv = d['level'][:]
t = netCDF4.num2date(d['time'][:], d['time'].units, only_use_cftime_datetimes=False)
print(json.dumps({"dims": {k: len(v) for k, v in d.dimensions.items()},
  "unlimited": d.dimensions['time'].isunlimited(), "unit": d['level'].units,
  "fft": int(d.fft), "freq": d['frequency'][:].tolist(),
  "level": [[None if m else float(x) for x, m in zip(r.data, np.ma.getmaskarray(r))] for r in lv],
  "time": [x.isoformat() for x in t]}))
`
	b, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, b)
	}
	var got struct {
		Dims      map[string]int
		Unlimited bool
		Unit      string
		FFT       int
		Freq      []float64
		Level     [][]*float64
		Time      []string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Dims["time"] != 3 || got.Dims["frequency"] != 5 || !got.Unlimited || got.Unit != "dB re 1 uPa^2/Hz" || got.FFT != 1024 {
		t.Errorf("read back %+v", got)
	}
	for i, r := range testRows() {
		if want := r.Start.Format("2006-01-02T15:04:05"); got.Time[i] != want {
			t.Errorf("time[%d] = %s, want %s", i, got.Time[i], want)
		}
		for j, v := range r.Level {
			g := got.Level[i][j]
			if math.IsNaN(float64(v)) != (g == nil) || g != nil && *g != float64(v) {
				t.Errorf("level[%d][%d] = %v, want %v", i, j, g, v)
			}
		}
	}
}

// TestPartRoundTrip reads a shard's part back and writes it again
// without the shard: the bytes of a file written directly, in every
// format (what `prism ltsa merge` relies on).
func TestPartRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := testMeta()
	m.Shard = "1/3"
	write(t, filepath.Join(dir, "part.nc"), m, testRows())
	p, err := OpenPart(filepath.Join(dir, "part.nc"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Meta.Shard != "1/3" || p.Rows != 3 {
		t.Fatalf("part: shard %q, %d rows", p.Meta.Shard, p.Rows)
	}
	var rows []Row
	p.Each(func(r Row) error {
		r.Level = append([]float32(nil), r.Level...)
		rows = append(rows, r)
		return nil
	})
	back := p.Meta
	back.Shard = ""
	for _, ext := range []string{".nc", ".npy", ".png"} {
		direct := write(t, filepath.Join(dir, "direct"+ext), testMeta(), testRows())
		again := write(t, filepath.Join(dir, "again"+ext), back, rows)
		if !bytes.Equal(direct, again) {
			t.Errorf("%s: the part written again differs from the direct file", ext)
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "direct.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "again.json"))
	if !bytes.Equal(a, b) {
		t.Errorf("sidecars differ:\n%s\n%s", a, b)
	}
}

// TestNPYSidecar checks the NPY array and its sidecar's keys.
func TestNPYSidecar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.npy")
	b := write(t, path, testMeta(), testRows())
	if !bytes.Contains(b[:128], []byte("'shape': (3, 5)")) || len(b) != 128+3*5*4 {
		t.Fatalf("NPY header %q, %d bytes", b[:128], len(b))
	}
	var s struct {
		TimeUTC    []string       `json:"time_utc"`
		FreqHz     []float64      `json:"freq_hz"`
		Unit       string         `json:"unit"`
		Parameters map[string]any `json:"parameters"`
	}
	j, err := os.ReadFile(SidecarPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.TimeUTC) != 3 || s.TimeUTC[1] != "2026-03-01T12:01:00Z" || len(s.FreqHz) != 5 || s.Unit != "dB re 1 uPa^2/Hz" || s.Parameters["average_seconds"] != 60.0 {
		t.Errorf("sidecar %s", j)
	}
}

// TestPNG draws an image with a gap: the plot area's columns of the gap
// stay background, the others are coloured.
func TestPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.png")
	rows := testRows()
	rows[2].Start = rows[2].Start.Add(10 * time.Minute) // a gap before the last row
	b := write(t, path, testMeta(), rows)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	cols := img.Bounds().Dx() - pngLeft - pngRight
	if cols != pngMinWidth {
		t.Fatalf("%d columns, want %d", cols, pngMinWidth)
	}
	y := pngTop + pngHeight/2
	mid := img.At(pngLeft+cols/2, y) // in the gap: 12:02 … 12:12 of 12:00 … 12:13
	first := img.At(pngLeft+2, y)
	if r, g, b, _ := mid.RGBA(); r>>8 != uint32(pngBackground.R) || g>>8 != uint32(pngBackground.G) || b>>8 != uint32(pngBackground.B) {
		t.Errorf("gap column coloured %v", mid)
	}
	if first == mid {
		t.Errorf("first column not coloured")
	}
}

// requireTools skips, or fails under PRISM_REQUIRE_TOOLS=1.
func requireTools(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s not installed (PRISM_REQUIRE_TOOLS=1)", what)
	}
	t.Skipf("%s not installed", what)
}
