// Package tfr computes time-frequency pictures sharper than one STFT, on an
// engine (GPU or CPU alike): the multi-resolution spectrum (several FFT
// sizes per hop, each used over its own band), the variable-Q transform
// (constant-Q when γ = 0) and the reassigned spectrogram, beside the plain
// STFT so that callers treat every mode the same way.
//
// # Levels
//
// Every mode writes power levels in dBFS by one rule, the engines' DBFS
// rule: a sine of peak amplitude A at a bin's centre frequency reads
// 20·log10(A) (a full-scale sine reads 0 dBFS) in every mode, at every bin,
// across the joins between FFT sizes, whatever the window and its length.
// Each bin's equivalent noise bandwidth in Hz is given by ENBW, so a caller
// shows noise as density (dBFS/Hz, Prism's one rule: white noise of RMS σ
// reads 10·log10(σ²/(fs/2))) by subtracting 10·log10(2·ENBW[k]) — the 2
// because a level is a sine's, whose power is half its peak squared — and
// a calibration adds the same offset in every mode.
package tfr

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// Mode is a kind of time-frequency picture.
type Mode int

const (
	// STFT is the plain short-time Fourier transform of one size.
	STFT Mode = iota
	// MultiRes blends several FFT sizes per hop: the largest over the
	// lowest band, the smallest over the highest.
	MultiRes
	// VQT is the variable-Q transform: bins spaced BinsPerOctave per
	// octave from FMin, each a windowed DFT of its own length (Q
	// constant when Gamma is 0, bandwidths widened by Gamma Hz otherwise).
	VQT
	// Reassigned is the STFT (or multi-resolution STFT) with each bin's
	// energy moved to its time-frequency centre of gravity.
	Reassigned
)

var modeNames = [...]string{STFT: "stft", MultiRes: "multires", VQT: "vqt", Reassigned: "reassigned"}

func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// Modes lists every mode in the order selectors show them.
func Modes() []Mode { return []Mode{STFT, MultiRes, VQT, Reassigned} }

// ParseMode reads a mode's name (stft, multires, vqt, reassigned).
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if strings.EqualFold(s, n) {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("tfr: unknown mode %q (want %s)", s, strings.Join(modeNames[:], ", "))
}

// Config describes a transform. Fields a mode does not use are ignored.
type Config struct {
	Mode       Mode
	Rate       float64     // sample rate in Hz
	Channels   int         // planar input channels, ≥ 1
	Hop        int         // samples between output frames, ≥ 1
	MaxSamples int         // most samples per channel passed to one Execute
	Window     window.Func // STFT, MultiRes and Reassigned

	// Size is the FFT size of STFT and Reassigned (without Sizes).
	Size int
	// Sizes are MultiRes's FFT sizes, largest first (Reassigned may use
	// them too); nil picks the mode's default for Rate.
	Sizes []int

	// VQT: bins per octave (12…96), the lowest centre frequency in Hz, the
	// highest (0: as high as Rate allows) and γ in Hz (0: constant Q).
	BinsPerOctave int
	FMin, FMax    float64
	Gamma         float64

	// Reassigned: bins this many dB or more below the frame's strongest
	// bin are not moved (they stay where they are); Squeeze moves energy
	// in frequency only (synchrosqueezing).
	ThresholdDB float64
	Squeeze     bool
}

// Transform turns planar blocks of samples into frames of levels. Frames
// follow the engines' spectrogram convention: Execute reads src as
// Channels planar blocks of L = len(src)/Channels samples (L ≤ MaxSamples)
// and writes frame i, covering samples [i·Hop, i·Hop+Span()) of each block
// (every window of the frame centred on that span's centre), for frames =
// ⌊(L−Span)/Hop⌋+1 (0 when L < Span), as
// dst[(c·frames+i)·len(Freqs())+k] in dBFS (see Levels in the package doc).
// Execute does not allocate and panics on lengths that break this; only
// one goroutine may use a Transform at a time.
type Transform interface {
	Config() Config
	// Freqs is every output bin's centre frequency in Hz, ascending.
	Freqs() []float64
	// ENBW is every output bin's equivalent noise bandwidth in Hz.
	ENBW() []float64
	// Span is the samples one frame reads: the longest window.
	Span() int
	Execute(dst, src []float32) (frames int, err error)
	Close() error
}

// frameCount checks Execute's arguments as Transform says for the
// transform named name (panicking with that name on lengths that break
// it) and returns the samples l of each channel block and the frames of
// span samples cfg.Hop apart in it (0 when l < span: dst is not checked).
func frameCount(name string, cfg Config, span, bins int, dst, src []float32) (l, frames int) {
	ch := cfg.Channels
	l = len(src) / ch
	if l*ch != len(src) || l > cfg.MaxSamples {
		panic(fmt.Sprintf("tfr: %s: len(src) %d is not %d channels of at most %d samples", name, len(src), ch, cfg.MaxSamples))
	}
	if l < span {
		return l, 0
	}
	frames = (l-span)/cfg.Hop + 1
	if len(dst) < ch*frames*bins {
		panic(fmt.Sprintf("tfr: %s: len(dst) %d < %d", name, len(dst), ch*frames*bins))
	}
	return l, frames
}

// builders holds each mode's constructor; the files of each mode add
// theirs from init.
var builders = map[Mode]func(gpufft.Engine, Config) (Transform, error){}

// New makes the transform cfg describes on e.
func New(e gpufft.Engine, cfg Config) (Transform, error) {
	b, ok := builders[cfg.Mode]
	if !ok {
		have := make([]string, 0, len(builders))
		for m := range builders {
			have = append(have, m.String())
		}
		sort.Strings(have)
		return nil, fmt.Errorf("tfr: mode %v is not built (have %s)", cfg.Mode, strings.Join(have, ", "))
	}
	if cfg.Channels < 1 || cfg.Hop < 1 || cfg.Rate <= 0 {
		return nil, fmt.Errorf("tfr: channels %d, hop %d, rate %g: want ≥ 1, ≥ 1, > 0: %w", cfg.Channels, cfg.Hop, cfg.Rate, gpufft.ErrInvalid)
	}
	return b(e, cfg)
}
