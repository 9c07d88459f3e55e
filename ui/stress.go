package ui

import (
	"github.com/prismaudio/prism/app/session"
)

// The stress preset: more analysis than a CPU keeps up with and a GPU does
// (192 kHz × 8 channels, 65536-point frames every 16 samples: 12,000
// frames a second per channel, nine outputs with the mix), so the engine
// toggle shows what each one sustains.
const (
	stressRate     = 192000
	stressChannels = 8
	stressFFT      = 65536
	stressHop      = 16
	stressSignal   = "pink:-20"
)

// stress switches to the stress preset: the generator at 192 kHz × 8
// channels, N=65536, hop 16. On a machine without a GPU engine it says
// that the CPU engine is all there is, and where the GPU engine's OpenCL
// device is a CPU, that there is no GPU to show.
func (w *Window) stress() {
	w.change(func(s *Settings) {
		s.Source = session.SourceSpec{Kind: session.SourceGenerator, Generator: stressSignal, Rate: stressRate, Channels: stressChannels}
		s.FFT = stressFFT
		s.Overlap = 1 - float64(stressHop)/float64(stressFFT)
	})
	switch {
	case !w.eng.HasGPU():
		w.notice = "stress test: no GPU engine here (OpenCL is not usable), so only the CPU engine runs it"
	case w.eng.GPUOnCPU():
		w.notice = "stress test: no GPU here: the OpenCL device is a CPU, so both engines share the same cores"
	}
	w.syncControls()
	w.updateStatus()
}
