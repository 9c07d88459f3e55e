package app

import (
	"encoding/binary"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"testing"

	"github.com/prismaudio/prism/gpufft"
)

// writeWAV writes 32-bit float WAV: ch[c][i] is channel c's sample i.
func writeWAV(t testing.TB, path string, rate int, ch [][]float32) {
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

func tone(n, rate int, hz, amp float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)+0.4))
	}
	return x
}

// fft64 is a textbook recursive radix-2 FFT in float64: the independent
// reference for the STFT checks (gpufft's tests check it against a DFT).
func fft64(x []complex128) []complex128 {
	n := len(x)
	if n == 1 {
		return []complex128{x[0]}
	}
	e, o := make([]complex128, n/2), make([]complex128, n/2)
	for i := range n / 2 {
		e[i], o[i] = x[2*i], x[2*i+1]
	}
	E, O := fft64(e), fft64(o)
	out := make([]complex128, n)
	for k := range n / 2 {
		w := cmplx.Exp(complex(0, -2*math.Pi*float64(k)/float64(n))) * O[k]
		out[k], out[k+n/2] = E[k]+w, E[k]-w
	}
	return out
}

// stft64 is the contract's spectrogram in float64: frame i covers samples
// [i·hop, i·hop+n) of the mix, no padding; dBFS with the window's coherent
// gain; floor −200.
func stft64(x []float64, n, hop int, w gpufft.Window) [][]float64 {
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
		X := fft64(fr)
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

// testEngines returns the CPU engine and, where OpenCL works, the GPU one;
// without OpenCL the GPU cases skip, except under PRISM_REQUIRE_OPENCL=1.
func testEngines(t *testing.T) []Engines {
	t.Helper()
	cpu := gpufft.NewCPU(0)
	t.Cleanup(func() { cpu.Close() })
	es := []Engines{{Preferred: cpu, CPU: cpu}}
	g, err := gpufft.NewOpenCL(gpufft.OpenCLOptions{})
	switch {
	case err == nil:
		t.Cleanup(func() { g.Close() })
		es = append(es, Engines{Preferred: g, CPU: cpu})
	case os.Getenv("PRISM_REQUIRE_OPENCL") == "1":
		t.Fatalf("OpenCL required (PRISM_REQUIRE_OPENCL=1): %v", err)
	default:
		t.Logf("no OpenCL (%v): CPU engine only", err)
	}
	return es
}

func tempPath(t *testing.T, name string) string { return filepath.Join(t.TempDir(), name) }
