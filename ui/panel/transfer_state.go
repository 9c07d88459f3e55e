package panel

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// TransferState is what the Transfer panel's controls set: the
// measurement's settings and how the view shows it. It lives as long as
// the window and is never saved.
type TransferState struct {
	Ref      int   // the reference, a 0-based input channel
	Channels []int // the measurement channels, 0-based, increasing
	FFT      int
	HopDiv   int // hop = FFT / HopDiv (overlap 1 − 1/HopDiv)
	Window   window.Kind
	Average  dual.TransferAverage
	Frames   int // FIFO length 1…256; 0: exponential (ExpAlpha)
	Track    bool
	PHAT     bool                 // Find weights GCC-PHAT
	View     view.TransferOptions // smoothing, coherence threshold, phase, panes, speed of sound, IR channel
}

// transferExpAlpha is the exponential average's weight: about the
// memory of a 16-frame FIFO.
const transferExpAlpha = 1.0 / 16

// DefaultTransferState: reference channel 1, every other channel
// measured, N=65536 at 75 % overlap with a Hann window, complex
// averages of 16 frames.
func DefaultTransferState(inputs int) TransferState {
	s := TransferState{Ref: 0, FFT: 65536, HopDiv: 4, Window: window.Hann, Average: dual.AverageComplex, Frames: 16,
		View: view.DefaultTransferOptions()}
	s.FitChannels(inputs)
	return s
}

// FitChannels keeps the reference and the measurement channels within
// inputs channels: a reference past them becomes channel 1, measurement
// channels past them or on the reference are dropped, and when none is
// left every other channel is measured.
func (s *TransferState) FitChannels(inputs int) {
	if s.Ref >= inputs {
		s.Ref = 0
	}
	s.Channels = slices.DeleteFunc(s.Channels, func(c int) bool { return c >= inputs || c == s.Ref })
	if len(s.Channels) == 0 {
		for c := range inputs {
			if c != s.Ref {
				s.Channels = append(s.Channels, c)
			}
		}
	}
	s.View.IRChannel = min(s.View.IRChannel, max(len(s.Channels)-1, 0))
}

// Hop is the frame step in samples.
func (s TransferState) Hop() int { return max(1, s.FFT/max(1, s.HopDiv)) }

// LiveSettings are the analyzer's settings for s.
func (s TransferState) LiveSettings() transfer.LiveSettings {
	ls := transfer.LiveSettings{FFT: s.FFT, Hop: s.Hop(), Window: window.Func{Kind: s.Window}, RefChannel: s.Ref,
		Channels: slices.Clone(s.Channels), Average: s.Average, Frames: s.Frames, Track: s.Track}
	if s.Frames == 0 {
		ls.ExpAlpha = transferExpAlpha
	}
	return ls
}

// clone copies s with its own channel list.
func (s TransferState) clone() TransferState {
	s.Channels = slices.Clone(s.Channels)
	return s
}

// The stress preset of the GPU-vs-CPU demo: 16 measurement channels and
// a reference at 192 kHz from the generator's periodic pink noise,
// N=65536, hop 128 (1,500 frames/s per channel), 64-frame averages,
// tracking on.
const (
	stressTransferRate     = 192000
	stressTransferChannels = 17
	stressTransferFFT      = 65536
	stressTransferHop      = 128
	stressTransferFrames   = 64
)

// stressTransferState is the preset's state, the view's options kept.
func stressTransferState(view view.TransferOptions) TransferState {
	s := TransferState{Ref: 0, FFT: stressTransferFFT, HopDiv: stressTransferFFT / stressTransferHop, Window: window.Rect,
		Average: dual.AverageComplex, Frames: stressTransferFrames, Track: true, View: view}
	s.FitChannels(stressTransferChannels)
	return s
}

// Stimuli: the generator's periodic signals for a measurement, in
// the FFT's length.
const (
	StimulusInput   = iota // the source as it is (a device, a file, …)
	StimulusPink           // pink noise periodic in N, as the source
	StimulusMLS            // the maximum-length sequence of order log2 N, as the source
	StimulusOutPink        // the periodic pink noise played to the output, the input measured
	StimulusOutMLS         // the MLS played to the output, the input measured
)

// playsOut says whether a stimulus is played to the output (the source
// stays the input) rather than analyzed as the source.
func playsOut(stimulus int) bool { return stimulus == StimulusOutPink || stimulus == StimulusOutMLS }

// stimulusSpec is the generator spec of a stimulus for FFT size n.
func stimulusSpec(stimulus, n int) string {
	k := bits.Len(uint(n)) - 1
	switch stimulus {
	case StimulusOutPink:
		return stimulusSpec(StimulusPink, n)
	case StimulusOutMLS:
		return stimulusSpec(StimulusMLS, n)
	case StimulusPink:
		return fmt.Sprintf("pinkperiodic:%d:-20", min(n, 1<<20))
	case StimulusMLS:
		return fmt.Sprintf("mls:%d:-20", min(max(k, 2), 20))
	}
	return ""
}
