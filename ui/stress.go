package ui

import (
	"fmt"

	"github.com/prismaudio/prism/app/session"
)

// The stress preset: more analysis than a CPU keeps up with and a GPU does
// (192 kHz × 8 channels, 65536-point frames every 16 samples: 12,000
// frames a second per channel, nine outputs with the mix), so the engine
// toggle shows what each one sustains. Where there is no GPU (no GPU
// engine, or its OpenCL device is a CPU) the frames come every 16384
// samples (11.7 a second per channel, 75 % overlap) and the CPU engine
// runs them: the heavy preset would need some 3000 times the CPU there
// is, and OpenCL on a CPU falls behind even the light one (2.7 times
// real time on PoCL, 2 shared cores), so the waterfall stopped.
const (
	stressRate     = 192000
	stressChannels = 8
	stressFFT      = 65536
	stressHop      = 16
	stressHopCPU   = 16384
	stressSignal   = "pink:-20"
)

// stressSaved is what the stress preset changed (the source, FFT size,
// overlap and engine), as it was before: the
// preset's second press restores it, and while the preset is on the
// settings are saved with it in their place (the preset is never
// remembered).
type stressSaved struct {
	on      bool
	source  session.SourceSpec
	fft     int
	overlap float64
	engine  string
}

// stressHopFor is the preset's hop: 16 with a GPU, stressHopCPU without.
func stressHopFor(hasGPU, onCPU bool) int {
	if !hasGPU || onCPU {
		return stressHopCPU
	}
	return stressHop
}

// stress turns the stress preset on (the generator at 192 kHz × 8
// channels, N=65536, hop 16, or 16384 on the CPU engine where there is no
// GPU) or, pressed again, off: the source, FFT size, overlap and engine
// it changed come back as they were.
func (w *Window) stress() {
	if prev := w.set.stress; prev.on {
		w.change(func(s *Settings) {
			s.Source, s.FFT, s.Overlap, s.Engine = prev.source, prev.fft, prev.overlap, prev.engine
			s.stress = stressSaved{}
		})
		return
	}
	hop := stressHopFor(w.eng.HasGPU(), w.eng.GPUOnCPU())
	w.change(func(s *Settings) {
		s.stress = stressSaved{on: true, source: s.Source, fft: s.FFT, overlap: s.Overlap, engine: s.Engine}
		s.Source = session.SourceSpec{Kind: session.SourceGenerator, Generator: stressSignal, Rate: stressRate, Channels: stressChannels}
		s.FFT = stressFFT
		s.Overlap = 1 - float64(hop)/float64(stressFFT)
		if hop != stressHop {
			s.Engine = "cpu"
		}
	})
}

// stressOn says whether the stress preset is on (controlsHost).
func (w *Window) stressOn() bool { return w.set.stress.on }

// stressNote explains the stress preset while it is on, for the side
// panel under its button ("" while off) (controlsHost).
func (w *Window) stressNote() string {
	return stressNote(w.set.stress, w.eng.HasGPU(), w.eng.GPUOnCPU())
}

// stressNote is the preset's explanation: what runs, what the second
// press brings back, and where there is no GPU, why the load is lighter.
func stressNote(prev stressSaved, hasGPU, onCPU bool) string {
	if !prev.on {
		return ""
	}
	hop := stressHopFor(hasGPU, onCPU)
	s := fmt.Sprintf("Pink noise, %d kHz × %d channels, N=%d every %d samples: %.0f frames/s per channel. ",
		stressRate/1000, stressChannels, stressFFT, hop, float64(stressRate)/float64(hop))
	switch {
	case !hasGPU:
		s += fmt.Sprintf("No GPU engine here (OpenCL is not usable): the CPU engine runs it alone, with hop %d, not %d, so the window keeps up. ", hop, stressHop)
	case onCPU:
		s += fmt.Sprintf("No GPU here: the OpenCL device is a CPU, so both engines share the same cores; hop %d, not %d, on the CPU engine (OpenCL on a CPU falls behind), so the window keeps up. ", hop, stressHop)
	default:
		s += "G switches engines: the status bar shows each engine's load. "
	}
	return s + fmt.Sprintf("Press again for N=%d and the source before; not remembered.", prev.fft)
}
