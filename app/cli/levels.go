package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/prismaudio/prism/app/analysis"
)

// jsonDB is a level in JSON: 4 decimals, null where undefined (−Inf for
// silence, or a loudness window longer than the file).
type jsonDB float64

func (v jsonDB) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, math.Round(f*1e4)/1e4, 'f', -1, 64), nil
}

// textDB formats a level for the text output ("-inf" where undefined).
func textDB(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

type levelsChannelJSON struct {
	SamplePeakDBFS jsonDB `json:"sample_peak_dbfs"`
	TruePeakDBTP   jsonDB `json:"true_peak_dbtp"`
	RMSDBFS        jsonDB `json:"rms_dbfs"`
}

type levelsJSON struct {
	Channels         []levelsChannelJSON `json:"channels"`
	IntegratedLUFS   jsonDB              `json:"integrated_lufs"`
	LoudnessRangeLU  jsonDB              `json:"loudness_range_lu"`
	MomentaryMaxLUFS jsonDB              `json:"momentary_max_lufs"`
	ShortTermMaxLUFS jsonDB              `json:"short_term_max_lufs"`
}

func runLevels(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("levels", "  prism levels IN [--json]\n  Per channel sample peak (dBFS), true peak (dBTP, BS.1770-4 4× oversampled) and\n  RMS (dBFS, AES17: a full-scale sine reads 0); the programme's integrated\n  loudness (LUFS), loudness range (LU), max momentary and short-term loudness\n  (EBU R128). Undefined values are -inf (null in JSON).\n", stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	pos, code, ok := parseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return usageError("levels", stderr)("want one input file (prism levels IN [--json])")
	}
	ctx, stop := watchSignals(stderr)
	defer stop()
	res, err := analysis.MeasureLevels(ctx, pos[0])
	warn(stderr, res.Warnings)
	if err != nil {
		return failure(stderr, err)
	}
	if *asJSON {
		j := levelsJSON{IntegratedLUFS: jsonDB(res.IntegratedLUFS), LoudnessRangeLU: jsonDB(res.LoudnessRangeLU),
			MomentaryMaxLUFS: jsonDB(res.MomentaryMaxLUFS), ShortTermMaxLUFS: jsonDB(res.ShortTermMaxLUFS)}
		for _, c := range res.Channels {
			j.Channels = append(j.Channels, levelsChannelJSON{jsonDB(c.SamplePeakDBFS), jsonDB(c.TruePeakDBTP), jsonDB(c.RMSDBFS)})
		}
		return printJSON(stdout, stderr, j)
	}
	for i, c := range res.Channels {
		fmt.Fprintf(stdout, "channel %d: sample peak %s dBFS, true peak %s dBTP, RMS %s dBFS\n", i, textDB(c.SamplePeakDBFS), textDB(c.TruePeakDBTP), textDB(c.RMSDBFS))
	}
	fmt.Fprintf(stdout, "integrated %s LUFS, loudness range %s LU, momentary max %s LUFS, short-term max %s LUFS\n",
		textDB(res.IntegratedLUFS), textDB(res.LoudnessRangeLU), textDB(res.MomentaryMaxLUFS), textDB(res.ShortTermMaxLUFS))
	return ExitOK
}

func printJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "prism: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}
