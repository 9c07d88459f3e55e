package tfrfile

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/window"
)

// Flags are `prism analyze`'s mode flags; Config turns them, with the
// command's --fft, --hop and --window, into a transform's configuration.
type Flags struct {
	mode          string
	binsPerOctave int
	fmin, fmax    float64
	gamma         float64
	sizes         string
	thresholdDB   float64
	squeeze       bool
}

// Register adds --mode and its parameters to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "mode", "", "time-frequency mode: stft (default: today's analysis), multires, vqt, reassigned")
	fs.IntVar(&f.binsPerOctave, "bins-per-octave", 48, "--mode vqt: bins per octave, 12…96")
	fs.Float64Var(&f.fmin, "fmin", 20, "--mode vqt: the lowest bin's centre frequency in Hz")
	fs.Float64Var(&f.fmax, "fmax", 0, "--mode vqt: the highest centre frequency in Hz (0: as high as the rate allows)")
	fs.Float64Var(&f.gamma, "gamma", 0, "--mode vqt: γ in Hz, widening low bins' bandwidths (0: constant Q)")
	fs.StringVar(&f.sizes, "sizes", "", "--mode multires or reassigned: FFT sizes, largest first, e.g. 16384,8192,4096,2048,1024 (multires default: 5 sizes from about rate/3; reassigned: on that multi-resolution grid, default one size, --fft)")
	fs.Float64Var(&f.thresholdDB, "threshold", tfr.DefaultThresholdDB, "--mode reassigned: bins this many dB below their frame's strongest stay unmoved")
	fs.BoolVar(&f.squeeze, "squeeze", false, "--mode reassigned: move energy in frequency only (synchrosqueezing)")
}

// modeFlags names each mode's own flags (--sizes: multires's, and
// reassigned's multi-resolution grid).
var modeFlags = map[string][]tfr.Mode{
	"bins-per-octave": {tfr.VQT}, "fmin": {tfr.VQT}, "fmax": {tfr.VQT}, "gamma": {tfr.VQT},
	"sizes": {tfr.MultiRes, tfr.Reassigned}, "threshold": {tfr.Reassigned}, "squeeze": {tfr.Reassigned},
}

// Config reads the flags set on fs (after parsing) with the command's
// FFT size, hop and window. ok is false for the plain analysis (no
// --mode, or --mode stft), which keeps today's outputs.
func (f *Flags) Config(fs *flag.FlagSet, fft, hop int, w window.Func) (cfg tfr.Config, ok bool, err error) {
	mode := tfr.STFT
	if f.mode != "" {
		if mode, err = tfr.ParseMode(f.mode); err != nil {
			return cfg, false, fmt.Errorf("--mode: %v", strings.TrimPrefix(err.Error(), "tfr: "))
		}
	}
	fs.Visit(func(fl *flag.Flag) {
		if ms, own := modeFlags[fl.Name]; own && !slices.Contains(ms, mode) && err == nil {
			names := make([]string, len(ms))
			for i, m := range ms {
				names[i] = m.String()
			}
			err = fmt.Errorf("--%s applies to --mode %s only", fl.Name, strings.Join(names, " or "))
		}
	})
	if err != nil || mode == tfr.STFT {
		return cfg, false, err
	}
	cfg = tfr.Config{Mode: mode, Hop: hop, Window: w, Size: fft, BinsPerOctave: f.binsPerOctave,
		FMin: f.fmin, FMax: f.fmax, Gamma: f.gamma, ThresholdDB: f.thresholdDB, Squeeze: f.squeeze}
	switch {
	case mode == tfr.VQT && (f.binsPerOctave < 12 || f.binsPerOctave > 96):
		return cfg, false, fmt.Errorf("--bins-per-octave %d: want 12…96", f.binsPerOctave)
	case mode == tfr.VQT && !(f.fmin > 0 && f.fmax >= 0 && (f.fmax == 0 || f.fmax > f.fmin) && f.gamma >= 0 && !math.IsInf(f.gamma+f.fmax+f.fmin, 0)):
		return cfg, false, fmt.Errorf("--fmin %g, --fmax %g, --gamma %g: want fmin > 0, fmax 0 or above fmin, gamma ≥ 0", f.fmin, f.fmax, f.gamma)
	case mode == tfr.Reassigned && !(f.thresholdDB > 0 && f.thresholdDB <= 300):
		return cfg, false, fmt.Errorf("--threshold %g: want 0 < dB ≤ 300", f.thresholdDB)
	}
	if (mode == tfr.MultiRes || mode == tfr.Reassigned) && f.sizes != "" {
		for _, s := range strings.Split(f.sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return cfg, false, fmt.Errorf("--sizes %q: want FFT sizes separated by commas", f.sizes)
			}
			cfg.Sizes = append(cfg.Sizes, n)
		}
	}
	return cfg, true, nil
}
