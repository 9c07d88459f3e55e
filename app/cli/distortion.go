package cli

import (
	"fmt"
	"io"
	"math"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
)

type harmonicJSON struct {
	N      int     `json:"n"`
	FreqHz float64 `json:"freq_hz"`
	DBFS   jsonDB  `json:"dbfs"`
}

type distortionJSON struct {
	FundamentalHz   float64        `json:"fundamental_hz"`
	FundamentalDBFS jsonDB         `json:"fundamental_dbfs"`
	THDPercent      float64        `json:"thd_percent"`
	THDDB           jsonDB         `json:"thd_db"`
	THDNDB          jsonDB         `json:"thdn_db"`
	SNRDB           jsonDB         `json:"snr_db"`
	SINADDB         jsonDB         `json:"sinad_db"`
	Harmonics       []harmonicJSON `json:"harmonics"`
}

func runDistortion(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("distortion", "  prism distortion IN [--fundamental F] [--channel C] [--json]\n  THD (harmonics 2…10 below Nyquist), THD+N and SINAD, SNR of a sine, from a\n  power-averaged Kaiser (β=20) spectrum of the whole file; noise is\n  everything from just above DC to Nyquist but the fundamental (and the\n  harmonics, for SNR). THD+N is relative to the fundamental.\n", stderr)
	fund := fs.Float64("fundamental", 0, "fundamental frequency in Hz (default: the strongest component)")
	channel := fs.String("channel", "0", "channel: a 0-based index or mix")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("distortion", stderr)
	if len(pos) != 1 {
		return usage("want one input file (prism distortion IN [--fundamental F])")
	}
	ch, err := kit.ParseChannel(*channel)
	if err != nil {
		return usage("%v", err)
	}
	if !(*fund >= 0) {
		return usage("--fundamental %g: want a frequency > 0 Hz (or 0: find it)", *fund)
	}
	ctx, stop := kit.WatchSignals(stderr, nil)
	defer stop()
	res, err := analysis.MeasureDistortion(ctx, pos[0], ch, *fund)
	kit.Warn(stderr, res.Warnings)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	d := res.Distortion
	if *asJSON {
		j := distortionJSON{FundamentalHz: round4(d.FundamentalHz), FundamentalDBFS: jsonDB(d.FundamentalDBFS),
			THDPercent: round6(d.THDPercent), THDDB: jsonDB(d.THDDB), THDNDB: jsonDB(d.THDNDB), SNRDB: jsonDB(d.SNRDB),
			SINADDB: jsonDB(d.SINADDB), Harmonics: []harmonicJSON{}}
		for _, h := range d.Harmonics {
			j.Harmonics = append(j.Harmonics, harmonicJSON{h.N, round4(h.FreqHz), jsonDB(h.LevelDB)})
		}
		return printJSON(stdout, stderr, j)
	}
	fmt.Fprintf(stdout, "fundamental %.3f Hz %s dBFS\n", d.FundamentalHz, textDB(d.FundamentalDBFS))
	fmt.Fprintf(stdout, "THD %.4f %% (%s dB), THD+N %s dB, SNR %s dB, SINAD %s dB\n", d.THDPercent, textDB(d.THDDB), textDB(d.THDNDB), textDB(d.SNRDB), textDB(d.SINADDB))
	for _, h := range d.Harmonics {
		fmt.Fprintf(stdout, "  H%-2d %10.2f Hz %8s dBFS\n", h.N, h.FreqHz, textDB(h.LevelDB))
	}
	fmt.Fprintf(stdout, "(%d frames of %d, channel %s)\n", res.Frames, res.FFT, *channel)
	return ExitOK
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
