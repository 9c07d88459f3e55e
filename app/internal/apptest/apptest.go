// Package apptest holds the helpers the app packages' tests share:
// writing and reading test files, float64 reference transforms, the
// engines to test on, and real audio through the PulseAudio null sink.
// Only tests import it.
package apptest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// WriteWAV writes 32-bit float WAV: ch[c][i] is channel c's sample i.
func WriteWAV(t testing.TB, path string, rate int, ch [][]float32) {
	t.Helper()
	frames := len(ch[0])
	data := make([]byte, 0, 4*frames*len(ch))
	for i := range frames {
		for c := range ch {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(ch[c][i]))
		}
	}
	le := binary.LittleEndian
	var h []byte
	h = append(h, "RIFF"...)
	h = le.AppendUint32(h, uint32(36+len(data)))
	h = append(h, "WAVEfmt "...)
	h = le.AppendUint32(h, 16)
	h = le.AppendUint16(h, 3)
	h = le.AppendUint16(h, uint16(len(ch)))
	h = le.AppendUint32(h, uint32(rate))
	h = le.AppendUint32(h, uint32(rate*4*len(ch)))
	h = le.AppendUint16(h, uint16(4*len(ch)))
	h = le.AppendUint16(h, 32)
	h = append(h, "data"...)
	h = le.AppendUint32(h, uint32(len(data)))
	if err := os.WriteFile(path, append(h, data...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Tone is n samples of a sine of amplitude amp at hz, phase 0.4 rad.
func Tone(n, rate int, hz, amp float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)+0.4))
	}
	return x
}

// FFT64 is a textbook recursive radix-2 FFT in float64: the independent
// reference for the STFT checks (gpufft's tests check it against a DFT).
func FFT64(x []complex128) []complex128 {
	n := len(x)
	if n == 1 {
		return []complex128{x[0]}
	}
	e, o := make([]complex128, n/2), make([]complex128, n/2)
	for i := range n / 2 {
		e[i], o[i] = x[2*i], x[2*i+1]
	}
	E, O := FFT64(e), FFT64(o)
	out := make([]complex128, n)
	for k := range n / 2 {
		w := cmplx.Exp(complex(0, -2*math.Pi*float64(k)/float64(n))) * O[k]
		out[k], out[k+n/2] = E[k]+w, E[k]-w
	}
	return out
}

// STFT64 is the contract's spectrogram in float64: frame i covers samples
// [i·hop, i·hop+n) of the mix, no padding; dBFS with the window's coherent
// gain; floor −200.
func STFT64(x []float64, n, hop int, w window.Func) [][]float64 {
	win := w.Values(n)
	sum := 0.0
	for _, v := range win {
		sum += v
	}
	var out [][]float64
	for start := 0; start+n <= len(x); start += hop {
		fr := make([]complex128, n)
		for i := range n {
			fr[i] = complex(x[start+i]*win[i], 0)
		}
		X := FFT64(fr)
		row := make([]float64, n/2+1)
		for k := range row {
			c := 2.0
			if k == 0 || k == n/2 {
				c = 1
			}
			row[k] = max(-200, 20*math.Log10(cmplx.Abs(X[k])*c/sum))
		}
		out = append(out, row)
	}
	return out
}

// OpenCL opens an OpenCL engine on the default device, closed when the
// test ends; without OpenCL the test is skipped, or under
// PRISM_REQUIRE_OPENCL=1 fails.
func OpenCL(t *testing.T) *gpufft.OpenCL {
	t.Helper()
	g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{})
	if err != nil {
		if Required("OPENCL") {
			t.Fatalf("OpenCL required (PRISM_REQUIRE_OPENCL=1): %v", err)
		}
		t.Skip("no OpenCL:", err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// Engines returns the engines to test on, each made by pair from a
// preferred engine and the CPU engine: the CPU engine alone and, where
// OpenCL works, the GPU one with the CPU beside it; without OpenCL the GPU
// case is missing, and under PRISM_REQUIRE_OPENCL=1 the test fails
// instead.
func Engines[T any](t *testing.T, pair func(preferred, cpu gpufft.Engine) T) []T {
	t.Helper()
	cpu := gpufft.NewCPU(0)
	t.Cleanup(func() { cpu.Close() })
	es := []T{pair(cpu, cpu)}
	g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{})
	switch {
	case err == nil:
		t.Cleanup(func() { g.Close() })
		es = append(es, pair(g, cpu))
	case Required("OPENCL"):
		t.Fatalf("OpenCL required (PRISM_REQUIRE_OPENCL=1): %v", err)
	default:
		t.Logf("no OpenCL (%v): CPU engine only", err)
	}
	return es
}

// TempPath is name in the test's temporary directory.
func TempPath(t *testing.T, name string) string { return filepath.Join(t.TempDir(), name) }

// ReadNPY reads a 2-D float32 NPY file.
func ReadNPY(t *testing.T, path string) (rows, cols int, vals []float32) {
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

// RequireAudio skips without a sound server and input device (or fails,
// under PRISM_REQUIRE_AUDIO=1 as in CI, where make test starts a
// PulseAudio null sink whose monitor is the default input).
func RequireAudio(t *testing.T) {
	t.Helper()
	devs, err := audio.Devices()
	ok := false
	for _, d := range devs {
		ok = ok || (d.DefaultInput && d.MaxInputChannels > 0)
	}
	if ok {
		// listed is not enough: ALSA keeps the configuration it first
		// loaded, so a process that once reached a PulseAudio daemon
		// (StartPulse) still lists its devices when none runs
		c, oerr := audio.OpenCapture(audio.CaptureConfig{})
		if ok = oerr == nil; ok {
			c.Close()
		} else {
			err = oerr
		}
	}
	_, perr := exec.LookPath("paplay")
	_, serr := exec.LookPath("sox")
	if !ok || perr != nil || serr != nil {
		if Required("AUDIO") {
			t.Fatalf("audio required (PRISM_REQUIRE_AUDIO=1): input %v (%v), paplay %v, sox %v", ok, err, perr, serr)
		}
		t.Skipf("no audio input or player: %v %v %v", err, perr, serr)
	}
}

// PlayTones plays a stereo tone (left hz[0], right hz[1]) at amplitude amp
// into the default sink for the test's duration.
func PlayTones(t *testing.T, seconds float64, amp float64, hz ...float64) {
	t.Helper()
	args := []string{"-q", "-n", "-r", "48000", "-c", "2", "-b", "16", "-t", "wav", "-", "synth", FormatFloat(seconds)}
	for _, f := range hz {
		args = append(args, "sine", FormatFloat(f))
	}
	args = append(args, "vol", FormatFloat(amp))
	sox := exec.Command("sox", args...)
	play := exec.Command("paplay")
	pipe, err := sox.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	play.Stdin = pipe
	if err := play.Start(); err != nil {
		t.Fatal(err)
	}
	if err := sox.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sox.Process.Kill()
		play.Process.Kill()
		sox.Wait()
		play.Wait()
	})
	time.Sleep(300 * time.Millisecond) // the stream reaches the sink
}

func FormatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// GenSamples renders n mono samples of a generator spec, unpaced.
func GenSamples(t *testing.T, spec string, rate, n int) []float32 {
	t.Helper()
	gs, err := audio.ParseGenerator(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := audio.NewGenerator(gs, rate, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, n)
	g.Generate(x)
	return x
}

// GenWAV writes seconds of a generator spec as a mono float WAV.
func GenWAV(t *testing.T, spec string, rate int, seconds float64) string {
	t.Helper()
	x := GenSamples(t, spec, rate, int(seconds*float64(rate)))
	path := filepath.Join(t.TempDir(), strings.ReplaceAll(spec, ":", "_")+".wav")
	WriteWAV(t, path, rate, [][]float32{x})
	return path
}

// ReadAll decodes a whole file, interleaved.
func ReadAll(t *testing.T, path string) (audio.Format, []float32) {
	t.Helper()
	d, err := audio.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f := d.Format()
	var out []float32
	buf := make([]float32, 4096*f.Channels)
	for {
		k, err := d.Read(buf)
		out = append(out, buf[:k*f.Channels]...)
		if err != nil {
			return f, out
		}
	}
}

// PeakIn is the bin of row[lo:hi] with the highest level, and the level.
func PeakIn(row []float32, lo, hi int) (int, float32) {
	best := lo
	for k := lo; k < hi; k++ {
		if row[k] > row[best] {
			best = k
		}
	}
	return best, row[best]
}

// FailingEngine is an engine whose plans fail after `after` calls, like a
// GPU that dies mid-run.
type FailingEngine struct {
	gpufft.Engine
	After int // calls that succeed
}

func (f *FailingEngine) Name() string { return "opencl" }

func (f *FailingEngine) NewSpectrogram(cfg gpufft.SpectrogramConfig) (gpufft.SpectrogramPlan, error) {
	p, err := f.Engine.NewSpectrogram(cfg)
	return &failingPlan{SpectrogramPlan: p, left: f.After}, err
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

func (f *FailingEngine) NewLive(cfg gpufft.LiveConfig) (gpufft.LivePlan, error) {
	p, err := f.Engine.NewLive(cfg)
	return &failingLive{LivePlan: p, left: f.After}, err
}

type failingLive struct {
	gpufft.LivePlan
	left int
}

func (p *failingLive) Execute(out *gpufft.LiveOutput, src []float32, first int64, traces bool) (int, error) {
	if p.left == 0 {
		return 0, errors.New("clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES")
	}
	p.left--
	return p.LivePlan.Execute(out, src, first, traces)
}

// Band parses a band spec or fails the test.
func Band(t *testing.T, spec string) dsp.BandSpec {
	t.Helper()
	b, err := dsp.ParseBand(spec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// StartGenerator starts a recorder on the signal generator (spec, as
// audio.ParseGenerator reads it) at rate Hz with channels; it stops when
// the test ends.
func StartGenerator(t testing.TB, spec string, rate, channels int) *audio.Recorder {
	t.Helper()
	gs, err := audio.ParseGenerator(spec)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := audio.StartRecorder(func() (audio.Source, error) { return audio.NewGenerator(gs, rate, channels, true) }, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Stop)
	return rec
}

// Required says whether PRISM_REQUIRE_<what>=1 turns a missing resource
// (OPENCL, AUDIO) from a skip into a failure; the one place this package
// reads the environment.
func Required(what string) bool { return os.Getenv("PRISM_REQUIRE_"+what) == "1" }
