package view

import (
	"math"
	"testing"

	"github.com/prismaudio/prism/app/dsp"
)

// TestTransferMic: with a measurement microphone's response set, each
// channel's magnitude is the measurement less the microphone's response
// at that bin (a file rising from 0 dB at 100 Hz to +6 dB at 10 kHz,
// linear in log-frequency), the phase untouched, the title naming the
// file; removing it gives the measurement back.
func TestTransferMic(t *testing.T) {
	opts := DefaultTransferOptions()
	opts.Smoothing = 0 // the bins themselves
	v, src := transferFrame(t, opts)
	before := append([]float64(nil), v.pow[0]...)
	phase := append([]complex128(nil), v.h[0]...)
	v.SetMic(&dsp.MicResponse{Name: "umik.txt", FreqHz: []float64{100, 10000}, DB: []float64{0, 6}})
	src.frames++
	v.Pull(src)
	binHz := float64(fakeTrRate) / fakeTrFFT
	for k := 1; k < len(before); k += 37 {
		f := float64(k) * binHz
		want := 0.0
		switch {
		case f >= 10000:
			want = 6
		case f > 100:
			want = 6 * math.Log(f/100) / math.Log(100)
		}
		got := 10*math.Log10(before[k]) - 10*math.Log10(v.pow[0][k])
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("%.1f Hz: the microphone took %.6f dB out, want %.6f", f, got, want)
		}
		if d := math.Abs(math.Atan2(imag(v.h[0][k]), real(v.h[0][k])) - math.Atan2(imag(phase[k]), real(phase[k]))); d > 1e-9 && math.Abs(d-2*math.Pi) > 1e-9 {
			t.Fatalf("%.1f Hz: the phase moved by %g rad", f, d)
		}
	}
	v.SetMic(nil)
	src.frames++
	v.Pull(src)
	for k := 1; k < len(before); k += 37 {
		if math.Abs(v.pow[0][k]-before[k]) > 1e-12*before[k] {
			t.Fatalf("bin %d: %g without the microphone, was %g", k, v.pow[0][k], before[k])
		}
	}
}
