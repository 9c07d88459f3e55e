// Package bandwidthcmd is `prism bandwidth`: the bandwidth verdict
// (package bandwidth's rule) on each file's long-term spectrum, one line
// or one JSON entry per file. It reads files and writes to the writers it
// is handed; it knows nothing of engines or windows.
package bandwidthcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/dsp/bandwidth"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/window"
	"gonum.org/v1/gonum/dsp/fourier"
)

// fftSize is the long-term spectrum's frame: 10.8 Hz bins at 44.1 kHz,
// fine beside bandwidth.BandHz.
const fftSize = 4096

const usage = `  prism bandwidth IN… [--json]
  The bandwidth verdict of each file: the frequency above which it carries
  no content, from its long-term spectrum (the channels' mean, Hann frames
  of 4096 samples, 50 % overlap, power-averaged), and whether the cut-off
  is a cliff into an empty band, the shape of a lossy encoder's low-pass
  (the LAME bit rate whose usual cut-off lies near is named as a hint,
  not a claim). Full band reads the Nyquist frequency.
`

// fileJSON is one file's entry of the JSON output (the contract:
// files[] {path, bandwidth_hz, lossy_lowpass}).
type fileJSON struct {
	Path         string  `json:"path"`
	BandwidthHz  float64 `json:"bandwidth_hz"`
	LossyLowpass bool    `json:"lossy_lowpass"`
}

// Run is `prism bandwidth`; it returns the exit code (kit's): every file
// it could judge is reported, and a file it could not makes the exit
// code that of its failure.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("bandwidth", usage, stderr)
	asJSON := fs.Bool("json", false, "print JSON: files[] {path, bandwidth_hz, lossy_lowpass}")
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return kit.UsageError("bandwidth", stderr)("want at least one input file (prism bandwidth IN… [--json])")
	}
	ctx, stop := kit.WatchSignals(stderr, nil)
	defer stop()
	out := struct {
		Files []fileJSON `json:"files"`
	}{Files: []fileJSON{}}
	code = kit.ExitOK
	for _, in := range pos {
		v, warn, err := Judge(ctx, in)
		kit.Warn(stderr, warn)
		if errors.Is(err, context.Canceled) {
			return kit.Failure(stderr, err)
		}
		if err != nil {
			code = max(code, kit.Failure(stderr, err))
			continue
		}
		if *asJSON {
			out.Files = append(out.Files, fileJSON{in, math.Round(v.BandwidthHz), v.LossyLowpass})
			continue
		}
		fmt.Fprintf(stdout, "%s: %v\n", in, v)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return kit.Failure(stderr, err)
		}
	}
	return code
}

// Judge is the bandwidth verdict of the file in, with the decoder's
// warnings. An unreadable file is an *analysis.InputError.
func Judge(ctx context.Context, in string) (bandwidth.Verdict, []string, error) {
	dec, err := audio.Open(in)
	if err != nil {
		return bandwidth.Verdict{}, nil, &analysis.InputError{Err: err}
	}
	defer dec.Close()
	w, err := longTerm(ctx, dec, in)
	if err != nil {
		return bandwidth.Verdict{}, nil, err
	}
	lv := make([]float64, w.Bins())
	w.Levels(lv, dsp.DBFS)
	return bandwidth.Detect(lv, w.BinHz()), dec.Warnings(), nil
}

// longTerm power-averages the spectra of the channels' mean, Hann frames
// of fftSize samples at 50 % overlap (one frame, zero-padded, for a file
// shorter than that).
func longTerm(ctx context.Context, dec audio.Decoder, in string) (*dsp.Welch, error) {
	f := dec.Format()
	win := window.Func{Kind: window.Hann}.Values(fftSize)
	w, err := dsp.NewWelch(win, float64(f.SampleRate))
	if err != nil {
		return nil, &analysis.InputError{Err: fmt.Errorf("%s: %w", in, err)}
	}
	fft := fourier.NewFFT(fftSize)
	frame, coef, power := make([]float64, fftSize), make([]complex128, fftSize/2+1), make([]float64, fftSize/2+1)
	mix := make([]float64, 0, 2*fftSize)
	buf := make([]float32, fftSize*f.Channels)
	add := func() {
		for i := range frame {
			frame[i] = 0
			if i < len(mix) {
				frame[i] = mix[i] * win[i]
			}
		}
		fft.Coefficients(coef, frame)
		for k, c := range coef {
			power[k] = real(c)*real(c) + imag(c)*imag(c)
		}
		w.Add64(power)
	}
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, rerr := dec.Read(buf)
		total += n
		for i := range n {
			s := 0.0
			for c := range f.Channels {
				s += float64(buf[i*f.Channels+c])
			}
			mix = append(mix, s/float64(f.Channels))
		}
		for len(mix) >= fftSize {
			add()
			mix = append(mix[:0], mix[fftSize/2:]...)
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, &analysis.InputError{Err: fmt.Errorf("%s: %w", in, rerr)}
		}
		if n == 0 {
			return nil, fmt.Errorf("bandwidth: %s: decoder returned no samples and no error", in)
		}
	}
	if total == 0 {
		return nil, &analysis.InputError{Err: fmt.Errorf("%s: no samples", in)}
	}
	if w.Frames() == 0 {
		add()
	}
	return w, nil
}
