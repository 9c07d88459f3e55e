package app

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/prismaudio/prism/gpufft"
)

func readNPY(t *testing.T, path string) (rows, cols int, vals []float32) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x93NUMPY\x01\x00")) {
		t.Fatalf("not NPY v1.0: %q", b[:8])
	}
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	hdr := string(b[10 : 10+hl])
	if (10+hl)%64 != 0 || !strings.HasSuffix(hdr, "\n") || !strings.Contains(hdr, "'descr': '<f4'") || !strings.Contains(hdr, "'fortran_order': False") {
		t.Fatalf("bad header %q", hdr)
	}
	if _, err := fmt.Sscanf(hdr[strings.Index(hdr, "'shape': (")+10:], "%d, %d)", &rows, &cols); err != nil {
		t.Fatalf("shape in %q: %v", hdr, err)
	}
	data := b[10+hl:]
	if len(data) != 4*rows*cols {
		t.Fatalf("%d data bytes for shape (%d, %d)", len(data), rows, cols)
	}
	vals = make([]float32, rows*cols)
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return rows, cols, vals
}

// TestNPYMatchesFloat64STFT: the NPY output equals an independent float64
// STFT of the mix within 0.02 dB wherever the reference is above −90 dBFS,
// on both engines, across many batch boundaries (batches forced small).
func TestNPYMatchesFloat64STFT(t *testing.T) {
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 5000
	const rate, length = 44100, 30011
	rng := rand.New(rand.NewPCG(1, 1))
	left := tone(length, rate, 1000, 0.5)
	right := tone(length, rate, 7350, 0.25)
	for i := range right {
		right[i] += float32(0.01 * rng.NormFloat64())
	}
	in := tempPath(t, "in.wav")
	writeWAV(t, in, rate, [][]float32{left, right})
	mix := make([]float64, length)
	for i := range mix {
		mix[i] = float64(float32((float64(left[i]) + float64(right[i])) / 2))
	}
	for _, c := range []struct {
		n, hop int
		win    string
	}{{1024, 256, "hann"}, {4096, 1000, "blackman-harris"}, {256, 77, "kaiser:6"}} {
		w, _ := gpufft.ParseWindow(c.win)
		ref := stft64(mix, c.n, c.hop, w)
		for _, eng := range testEngines(t) {
			out := tempPath(t, "out.npy")
			opts := AnalyzeOptions{FFT: c.n, Hop: c.hop, Window: w, Channel: -1}
			res, err := AnalyzeFile(context.Background(), in, out, FormatNPY, opts, eng, nil)
			if err != nil {
				t.Fatal(err)
			}
			rows, cols, vals := readNPY(t, out)
			if rows != len(ref) || cols != c.n/2+1 || res.Frames != rows {
				t.Fatalf("shape (%d, %d), frames %d; want (%d, %d)", rows, cols, res.Frames, len(ref), c.n/2+1)
			}
			for f := range rows {
				for k := range cols {
					if r := ref[f][k]; r > -90 && math.Abs(float64(vals[f*cols+k])-r) > 0.02 {
						t.Fatalf("%s %+v: frame %d bin %d = %.4f dBFS, reference %.4f", eng.Preferred.Name(), c, f, k, vals[f*cols+k], r)
					}
				}
			}
		}
	}
}

// TestChannelSelection: --channel picks one channel.
func TestChannelSelection(t *testing.T) {
	const rate = 48000
	in := tempPath(t, "in.wav")
	writeWAV(t, in, rate, [][]float32{tone(8192, rate, 1500, 0.5), tone(8192, rate, 6000, 0.5)})
	eng := testEngines(t)[0]
	for ch, hz := range []float64{1500, 6000} {
		out := tempPath(t, "c.npy")
		if _, err := AnalyzeFile(context.Background(), in, out, FormatNPY, AnalyzeOptions{FFT: 4096, Hop: 4096, Window: gpufft.Window{Kind: gpufft.FlatTop}, Channel: ch}, eng, nil); err != nil {
			t.Fatal(err)
		}
		_, cols, vals := readNPY(t, out)
		k := int(hz * 4096 / rate)
		if math.Abs(float64(vals[k])+6.02) > 0.05 || vals[int(float64([]float64{6000, 1500}[ch])*4096/rate)] > -100 {
			t.Errorf("channel %d: bin %d reads %.2f dBFS (want −6.02), other tone %.1f", ch, k, vals[k], vals[cols+0])
		}
	}
	if _, err := AnalyzeFile(context.Background(), in, tempPath(t, "x.npy"), FormatNPY, AnalyzeOptions{FFT: 4096, Hop: 1024, Channel: 2}, eng, nil); !errors.As(err, new(*InputError)) {
		t.Errorf("channel 2 of 2: %v", err)
	}
}

func TestCSV(t *testing.T) {
	const rate = 8000
	in := tempPath(t, "in.wav")
	writeWAV(t, in, rate, [][]float32{tone(3000, rate, 1000, 0.5)})
	eng := testEngines(t)[0]
	opts := AnalyzeOptions{FFT: 256, Hop: 100, Window: gpufft.Window{Kind: gpufft.Hann}, Channel: -1}
	csvPath, npyPath := tempPath(t, "o.csv"), tempPath(t, "o.npy")
	if _, err := AnalyzeFile(context.Background(), in, csvPath, FormatCSV, opts, eng, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := AnalyzeFile(context.Background(), in, npyPath, FormatNPY, opts, eng, nil); err != nil {
		t.Fatal(err)
	}
	rows, cols, vals := readNPY(t, npyPath)
	b, _ := os.ReadFile(csvPath)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != rows+1 {
		t.Fatalf("%d CSV lines for %d frames", len(lines), rows)
	}
	head := strings.Split(lines[0], ",")
	if head[0] != "time_s" || len(head) != cols+1 || head[1] != "0" || head[2] != "31.25" || head[cols] != "4000" {
		t.Errorf("header starts %q … ends %q", head[:3], head[len(head)-1])
	}
	for f := range rows {
		fields := strings.Split(lines[f+1], ",")
		tt, _ := strconv.ParseFloat(fields[0], 64)
		if want := (float64(f*100) + 128) / rate; math.Abs(tt-want) > 1e-12 {
			t.Errorf("row %d: time %g, want the frame centre %g", f, tt, want)
		}
		for k := range cols {
			v, err := strconv.ParseFloat(fields[k+1], 32)
			if err != nil || float32(v) != vals[f*cols+k] {
				t.Fatalf("row %d bin %d: %q, NPY has %v", f, k, fields[k+1], vals[f*cols+k])
			}
		}
	}
}

// TestPNG: size, axes drawn, and a tone as the brightest row at its
// frequency on log and linear axes.
func TestPNG(t *testing.T) {
	const rate = 48000
	in := tempPath(t, "in.wav")
	writeWAV(t, in, rate, [][]float32{tone(rate*3, rate, 2000, 0.5)})
	for _, eng := range testEngines(t) {
		for _, scale := range []string{"log", "lin", "mel"} {
			out := tempPath(t, "o.png")
			io := ImageOptions{Width: 300, Height: 200, FreqScale: scale, DBMin: -120, DBMax: 0, Colormap: "gray"}
			opts := AnalyzeOptions{FFT: 4096, Hop: 1024, Window: gpufft.Window{Kind: gpufft.Hann}, Channel: -1, Image: io}
			if _, err := AnalyzeFile(context.Background(), in, out, FormatPNG, opts, eng, nil); err != nil {
				t.Fatal(err)
			}
			f, _ := os.Open(out)
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			b := img.Bounds()
			if b.Dx() != 300+marginLeft+marginRight || b.Dy() != 200+marginTop+marginBottom {
				t.Fatalf("%s: image %v", scale, b)
			}
			// axes: the frame line and tick labels in the left margin
			if r, _, _, _ := img.At(marginLeft-1, marginTop+100).RGBA(); r>>8 != uint32(gridColor.R) {
				t.Errorf("%s: no axis line at the plot's left edge", scale)
			}
			ink := 0
			for y := marginTop; y < marginTop+200; y++ {
				for x := 5; x < marginLeft-10; x++ {
					if r, _, _, _ := img.At(x, y).RGBA(); r>>8 > 120 {
						ink++
					}
				}
			}
			if ink < 50 {
				t.Errorf("%s: no frequency labels (%d light pixels)", scale, ink)
			}
			// brightest row in the middle column
			x := marginLeft + 150
			best, by := uint32(0), 0
			for y := marginTop; y < marginTop+200; y++ {
				if r, _, _, _ := img.At(x, y).RGBA(); r > best {
					best, by = r, y
				}
			}
			axis, _ := NewFreqAxis(scale, rate, 4096)
			row := marginTop + 200 - 1 - by
			lo, hi := axis.Freq(float64(row-1)/200), axis.Freq(float64(row+2)/200)
			if 2000 < lo || 2000 > hi || best>>8 < 240 {
				t.Errorf("%s %s: brightest row %d spans %.0f…%.0f Hz (level %d), want 2000 Hz at full scale", eng.Preferred.Name(), scale, row, lo, hi, best>>8)
			}
		}
	}
}

func runCLI(args ...string) (code int, stderr string) {
	var out, errb bytes.Buffer
	code = Run(args, &out, &errb)
	return code, errb.String()
}

func TestAnalyzeCLIErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.wav")
	writeWAV(t, good, 8000, [][]float32{tone(9000, 8000, 500, 0.5)})
	short := filepath.Join(dir, "short.wav")
	writeWAV(t, short, 8000, [][]float32{tone(100, 8000, 500, 0.5)})
	bad := filepath.Join(dir, "bad.wav")
	os.WriteFile(bad, []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x02\x00\x01\x00\x40\x1f\x00\x00\x00\x7d\x00\x00\x04\x00\x10\x00"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--fft", "1000"}, 2, "--fft 1000"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--hop", "99999"}, 2, "--hop"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--window", "nope"}, 2, "--window"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--db-range", "0:-10"}, 2, "--db-range"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--engine", "tpu"}, 2, "--engine"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.png"), "--colormap", "jet"}, 2, "--colormap"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.txt")}, 2, "unknown output format"},
		{[]string{"analyze", good}, 2, "-o OUT is required"},
		{[]string{"analyze", filepath.Join(dir, "missing.wav"), "-o", filepath.Join(dir, "m.npy")}, 2, "no such file"},
		{[]string{"analyze", bad, "-o", filepath.Join(dir, "b.npy")}, 2, "offset"},
		{[]string{"analyze", short, "-o", filepath.Join(dir, "s.npy"), "--fft", "256"}, 2, "fewer than one frame"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "o.npy"), "--channel", "3"}, 2, "no channel 3"},
		{[]string{"analyze", good, "-o", filepath.Join(dir, "nodir", "o.npy")}, 1, "nodir"},
	} {
		code, msg := runCLI(append(c.args, "--quiet")...)
		if code != c.code || !strings.Contains(msg, c.msg) || !strings.HasPrefix(msg, "prism: ") {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args[1:], code, msg, c.code, c.msg)
		}
	}
	// no output file (not even a temporary one) is left by a failure
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".wav") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestAnalyzeBatch(t *testing.T) {
	dir := t.TempDir()
	a, b, bad := filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav"), filepath.Join(dir, "c.wav")
	writeWAV(t, a, 8000, [][]float32{tone(9000, 8000, 500, 0.5)})
	writeWAV(t, b, 8000, [][]float32{tone(9000, 8000, 700, 0.5), tone(9000, 8000, 900, 0.5)})
	os.WriteFile(bad, []byte("not audio at all"), 0o644)
	out := filepath.Join(dir, "out") + "/"
	code, msg := runCLI("analyze", a, bad, b, "-o", out, "--format", "npy", "--fft", "512", "--quiet", "--engine", "cpu")
	if code != 2 || !strings.Contains(msg, "c.wav") {
		t.Errorf("exit %d, stderr %q; want 2 naming c.wav", code, msg)
	}
	for _, name := range []string{"a.npy", "b.npy"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "c.npy")); err == nil {
		t.Error("c.npy written for a bad input")
	}
	// all good: exit 0 and the summary line
	code, msg = runCLI("analyze", a, b, "-o", out, "--fft", "512", "--engine", "cpu")
	if code != 0 || !strings.Contains(msg, "real time") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
}

// failingEngine is an engine whose plans fail after `after` calls, like a
// GPU that dies mid-run.
type failingEngine struct {
	gpufft.Engine
	after int
}

func (f *failingEngine) Name() string { return "opencl" }

func (f *failingEngine) NewSpectrogram(cfg gpufft.SpectrogramConfig) (gpufft.SpectrogramPlan, error) {
	p, err := f.Engine.NewSpectrogram(cfg)
	return &failingPlan{SpectrogramPlan: p, left: f.after}, err
}

type failingPlan struct {
	gpufft.SpectrogramPlan
	left int
}

func (p *failingPlan) Execute(dst, src []float32) (int, error) {
	if p.left == 0 {
		return 0, errors.New("clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES")
	}
	p.left--
	return p.SpectrogramPlan.Execute(dst, src)
}

func TestGPUFailureFallsBackToCPU(t *testing.T) {
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 2000
	in := tempPath(t, "in.wav")
	writeWAV(t, in, 8000, [][]float32{tone(20000, 8000, 500, 0.5)})
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	opts := AnalyzeOptions{FFT: 256, Hop: 64, Window: gpufft.Window{Kind: gpufft.Hann}, Channel: -1}
	want := tempPath(t, "want.npy")
	if _, err := AnalyzeFile(context.Background(), in, want, FormatNPY, opts, Engines{Preferred: cpu, CPU: cpu}, nil); err != nil {
		t.Fatal(err)
	}
	out := tempPath(t, "out.npy")
	res, err := AnalyzeFile(context.Background(), in, out, FormatNPY, opts, Engines{Preferred: &failingEngine{Engine: cpu, after: 3}, CPU: cpu}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "GPU failed") || !strings.Contains(res.Warnings[0], "CL_OUT_OF_RESOURCES") {
		t.Errorf("warnings %q", res.Warnings)
	}
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(out)
	if !bytes.Equal(a, b) {
		t.Error("output after the fallback differs from a CPU run")
	}
}

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		seconds float64
		pixels  int
		step    float64
	}{{600, 1920, 60}, {20, 800, 5}, {3 * 3600, 1920, 900}, {0.5, 300, 0.2}} {
		ticks := TimeTicks(c.seconds, c.pixels)
		if len(ticks) < 2 || math.Abs(ticks[1]-ticks[0]-c.step) > 1e-9 || ticks[0] != 0 {
			t.Errorf("TimeTicks(%g, %d) = %v, want steps of %g", c.seconds, c.pixels, ticks, c.step)
		}
	}
	log, _ := NewFreqAxis("log", 48000, 4096)
	got := FreqTicks(log, 1080)
	want := []float64{20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("log ticks %v, want %v", got, want)
	}
	lin, _ := NewFreqAxis("lin", 48000, 4096)
	if got := FreqTicks(lin, 1080); got[0] != 0 || got[1] != 2000 || got[len(got)-1] != 24000 {
		t.Errorf("lin ticks %v", got)
	}
	for f, s := range map[float64]string{50: "50", 1000: "1k", 2500: "2.5k", 20000: "20k", 12.5: "12.5"} {
		if FormatHz(f) != s {
			t.Errorf("FormatHz(%g) = %q, want %q", f, FormatHz(f), s)
		}
	}
	// axis round trip and the mel definition
	mel, _ := NewFreqAxis("mel", 48000, 4096)
	for _, f := range []float64{100, 1000, 10000} {
		if math.Abs(mel.Freq(mel.Pos(f))-f) > 1e-6 || math.Abs(log.Freq(log.Pos(f))-f) > 1e-6 {
			t.Errorf("round trip at %g Hz", f)
		}
	}
	if p := mel.Pos(1000) * (2595 * math.Log10(1+24000.0/700)); math.Abs(p-2595*math.Log10(1+1000.0/700)) > 1e-9 {
		t.Errorf("mel position of 1 kHz: %g", p)
	}
}

// TestAnalyzeCancel: a cancelled analysis stops and leaves no file behind.
func TestAnalyzeCancel(t *testing.T) {
	defer func(b int) { batchSamples = b }(batchSamples)
	batchSamples = 1000
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	writeWAV(t, in, 8000, [][]float32{tone(50000, 8000, 500, 0.5)})
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	ctx, cancel := context.WithCancel(context.Background())
	progress := func(done, total int) {
		if done > 100 {
			cancel()
		}
	}
	_, err := AnalyzeFile(ctx, in, filepath.Join(dir, "o.npy"), FormatNPY, AnalyzeOptions{FFT: 256, Hop: 64, Channel: -1}, Engines{Preferred: cpu, CPU: cpu}, progress)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// TestFullDisk: writing to a full filesystem is a clear runtime error (exit
// 1) and leaves nothing behind. It needs root to mount a small tmpfs.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	mnt := filepath.Join(dir, "full")
	os.Mkdir(mnt, 0o755)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v", err)
	}
	defer exec.Command("umount", mnt).Run()
	in := filepath.Join(dir, "in.wav")
	writeWAV(t, in, 8000, [][]float32{tone(80000, 8000, 500, 0.5)})
	code, msg := runCLI("analyze", in, "-o", filepath.Join(mnt, "o.npy"), "--fft", "256", "--engine", "cpu", "--quiet")
	if code != 1 || !strings.Contains(msg, "no space left on device") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
	if ents, _ := os.ReadDir(mnt); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
