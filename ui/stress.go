package ui

import (
	"fmt"

	"github.com/prismaudio/prism/app/live"
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

// engineLoads is each engine's share of real time at the current settings:
// its mean time per batch (the inactive engine's measured on copies of the
// same batches) over the audio time a batch holds. A load over 1 cannot
// keep up: frames are dropped.
func engineLoads(st *live.Stats) map[string]float64 {
	if st.SampleRate <= 0 || st.FramesPerBatch <= 0 || st.Hop <= 0 {
		return nil
	}
	batchMs := st.FramesPerBatch * float64(st.Hop) / float64(st.SampleRate) * 1e3
	loads := map[string]float64{}
	for e, ms := range st.EngineMs {
		loads[e] = ms / batchMs
	}
	return loads
}

// loadText writes the engines' loads for the status strip, e.g.
// "load GPU 4 % · CPU 137 % ✗".
func loadText(loads map[string]float64) string {
	s := ""
	for _, e := range []string{"opencl", "cpu"} {
		l, ok := loads[e]
		if !ok {
			continue
		}
		if s == "" {
			s = "load"
		} else {
			s += " ·"
		}
		s += fmt.Sprintf(" %s %.0f%%", engineLabel(e), 100*l)
		if l > 1 {
			s += " ✗"
		}
	}
	return s
}
