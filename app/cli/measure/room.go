package measure

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/room"
	"github.com/prismaudio/prism/audio"
)

const roomUsage = `  prism room IR.wav [--fraction 1|3] [--channel C] [--json]
      [-o DECAY.png] [-o RESPONSE.csv|.npy] [--smoothing 1/N] [--force]
  Room-acoustic parameters of an impulse response (ISO 3382-1/-2): per
  octave (--fraction 1, 63 Hz…8 kHz) or third-octave band (--fraction 3,
  50 Hz…10 kHz) and broadband, the reverberation times EDT, T20 and T30
  from the Schroeder decay, the regressions' correlation coefficients,
  the clarity C50 and C80 and the definition D50. Bands are filtered
  zero-phase (third-order Butterworth, IEC 61260-1 class 1); the time
  origin is the onset (where the response first rises to 20 dB below its
  peak); each decay is truncated where it meets its noise and the energy
  cut off is added back (Lundeby's method). A time the decay does not
  cover with enough range above the noise (an impulse-to-noise ratio of
  45 dB for T30, 35 dB for T20, 20 dB for EDT) is "—" (null in JSON).
  -o may be given twice: a .png draws the energy–time curve and the
  Schroeder decays; a .csv or .npy holds the frequency response, columns
  freq_hz,magnitude_db,phase_deg,group_delay_ms (--smoothing 1/N smooths
  it, N in 3…48).
  --json prints {"sample_rate","onset_ms","fraction","bands":[{"center_hz",
  "edt_s","t20_s","t30_s","c50_db","c80_db","d50_percent","r_t20","r_t30",
  "inr_db"}],"broadband":{the same keys}} on stdout.
`

// outputs is a flag given more than once.
type outputs []string

func (o *outputs) String() string     { return strings.Join(*o, ",") }
func (o *outputs) Set(v string) error { *o = append(*o, v); return nil }

func Room(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("room", roomUsage, stderr)
	var (
		outs              outputs
		fraction, channel int
		smoothing         string
		asJSON, force     bool
	)
	fs.Var(&outs, "o", "output: .png (ETC and decays) or .csv/.npy (frequency response); may be given twice")
	fs.IntVar(&fraction, "fraction", 1, "bands: 1 (octaves) or 3 (third octaves)")
	fs.IntVar(&channel, "channel", 0, "the channel of IR.wav holding the response (0-based)")
	fs.StringVar(&smoothing, "smoothing", "off", "fractional-octave smoothing of the frequency response: 1/N, N in 3…48, or off")
	fs.BoolVar(&asJSON, "json", false, "print the parameters as JSON on stdout")
	kit.RegisterForce(fs, &force)
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("room", stderr)
	if len(pos) != 1 {
		return usage("want one impulse-response file (prism room IR.wav)")
	}
	if fraction != 1 && fraction != 3 {
		return usage("--fraction %d: want 1 (octaves) or 3 (third octaves)", fraction)
	}
	smooth, err := dual.ParseSmoothing(smoothing)
	if err != nil {
		return usage("--smoothing: %v", err)
	}
	png, resp, respFormat, ok := roomOutputs(outs)
	if !ok {
		return usage("-o %s: want at most one .png (decays) and one .csv or .npy (frequency response)", outs.String())
	}
	if err := kit.CheckReplace(force, outs...); err != nil {
		return usage("%v", err)
	}
	chans, f, warnings, err := audio.ReadChannels(pos[0], []int{channel})
	if err != nil {
		return usage("%v", err)
	}
	kit.Warn(stderr, warnings)
	ir := make([]float64, len(chans[0]))
	for i, v := range chans[0] {
		ir[i] = float64(v)
	}
	res, err := room.Analyze(ir, f.SampleRate, room.Options{Fraction: fraction})
	if err != nil {
		return usage("%s: %v", pos[0], err)
	}
	if png != "" {
		if err := room.WriteDecayPlot(png, res, room.ETC(ir), pos, force); err != nil {
			fmt.Fprintf(stderr, "prism: room: %v\n", err)
			return kit.ExitFailure
		}
	}
	if resp != "" {
		r, err := room.FrequencyResponse(ir, f.SampleRate, smooth)
		if err == nil {
			err = room.WriteResponse(resp, respFormat, r, pos, force)
		}
		if err != nil {
			fmt.Fprintf(stderr, "prism: room: %v\n", err)
			return kit.ExitFailure
		}
	}
	if asJSON {
		b, err := json.Marshal(room.JSON(res, fraction))
		if err != nil {
			fmt.Fprintf(stderr, "prism: room: %v\n", err)
			return kit.ExitFailure
		}
		fmt.Fprintln(stdout, string(b))
		return kit.ExitOK
	}
	fmt.Fprint(stdout, room.Table(res))
	return kit.ExitOK
}

// roomOutputs sorts the -o values: at most one PNG (the decays) and one
// CSV or NPY (the frequency response); ok is false for anything else.
func roomOutputs(outs []string) (png, resp string, respFormat encode.Format, ok bool) {
	for _, o := range outs {
		f, known := encode.FormatOf(o)
		switch {
		case known && f == encode.FormatPNG && png == "":
			png = o
		case known && (f == encode.FormatCSV || f == encode.FormatNPY) && resp == "":
			resp, respFormat = o, f
		default:
			return "", "", respFormat, false
		}
	}
	return png, resp, respFormat, true
}
