package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/dsp"
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
	// with a level calibration: the same levels in dB SPL
	SamplePeakDBSPL *jsonDB `json:"sample_peak_dbspl,omitempty"`
	TruePeakDBSPL   *jsonDB `json:"true_peak_dbspl,omitempty"`
	RMSDBSPL        *jsonDB `json:"rms_dbspl,omitempty"`
}

type levelsJSON struct {
	Calibration      string              `json:"calibration,omitempty"`
	Channels         []levelsChannelJSON `json:"channels"`
	IntegratedLUFS   jsonDB              `json:"integrated_lufs"`
	LoudnessRangeLU  jsonDB              `json:"loudness_range_lu"`
	MomentaryMaxLUFS jsonDB              `json:"momentary_max_lufs"`
	ShortTermMaxLUFS jsonDB              `json:"short_term_max_lufs"`
}

func runLevels(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("levels", "  prism levels IN [--json] [--cal-dbspl LEVEL | --calibrator REC.wav]\n  Per channel sample peak (dBFS), true peak (dBTP, BS.1770-4 4× oversampled) and\n  RMS (dBFS, AES17: a full-scale sine reads 0); the programme's integrated\n  loudness (LUFS), loudness range (LU), max momentary and short-term loudness\n  (EBU R128). Undefined values are -inf (null in JSON). With a level\n  calibration the peaks and RMS are also given in dB SPL.\n  prism levels IN --every DUR --csv [--channel N] [calibration]\n  A level log: one CSV row per interval (see docs/commands.md).\n", stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	var lf levelLogFlags
	lf.register(fs)
	var cal calFlags
	cal.register(fs, "channel 0")
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	usage := kit.UsageError("levels", stderr)
	if len(pos) != 1 {
		return usage("want one input file (prism levels IN [--json])")
	}
	if cal.micFile != "" {
		return usage("--cal: a microphone response corrects spectra and bands (prism spectrum, prism bands), not broadband levels")
	}
	if _, err := cal.checkLevel(); err != nil {
		return usage("%v", err)
	}
	if lf.asked() {
		return lf.run(pos[0], *asJSON, cal, stdout, stderr)
	}
	lc, err := cal.level(0)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	ctx, stop := kit.WatchSignals(stderr, nil)
	defer stop()
	res, err := analysis.MeasureLevels(ctx, pos[0])
	kit.Warn(stderr, res.Warnings)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	if *asJSON {
		return printJSON(stdout, stderr, levelsToJSON(res, cal, lc))
	}
	for i, c := range res.Channels {
		fmt.Fprintf(stdout, "channel %d: sample peak %s dBFS, true peak %s dBTP, RMS %s dBFS", i, textDB(c.SamplePeakDBFS), textDB(c.TruePeakDBTP), textDB(c.RMSDBFS))
		if cal.hasLevel() {
			fmt.Fprintf(stdout, " (%s, %s, %s dB SPL)", textDB(lc.DBSPL(c.SamplePeakDBFS)), textDB(lc.DBSPL(c.TruePeakDBTP)), textDB(lc.DBSPL(c.RMSDBFS)))
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "integrated %s LUFS, loudness range %s LU, momentary max %s LUFS, short-term max %s LUFS\n",
		textDB(res.IntegratedLUFS), textDB(res.LoudnessRangeLU), textDB(res.MomentaryMaxLUFS), textDB(res.ShortTermMaxLUFS))
	if cal.hasLevel() {
		fmt.Fprintf(stdout, "calibration: %s\n", cal.describe(lc, nil))
	}
	return ExitOK
}

// levelsToJSON is `prism levels --json`'s object; the dB SPL keys only
// with a level calibration.
func levelsToJSON(res analysis.LevelsResult, cal calFlags, lc dsp.LevelCal) levelsJSON {
	j := levelsJSON{IntegratedLUFS: jsonDB(res.IntegratedLUFS), LoudnessRangeLU: jsonDB(res.LoudnessRangeLU),
		MomentaryMaxLUFS: jsonDB(res.MomentaryMaxLUFS), ShortTermMaxLUFS: jsonDB(res.ShortTermMaxLUFS)}
	spl := func(dbfs float64) *jsonDB {
		v := jsonDB(lc.DBSPL(dbfs))
		return &v
	}
	for _, c := range res.Channels {
		cj := levelsChannelJSON{SamplePeakDBFS: jsonDB(c.SamplePeakDBFS), TruePeakDBTP: jsonDB(c.TruePeakDBTP), RMSDBFS: jsonDB(c.RMSDBFS)}
		if cal.hasLevel() {
			cj.SamplePeakDBSPL, cj.TruePeakDBSPL, cj.RMSDBSPL = spl(c.SamplePeakDBFS), spl(c.TruePeakDBTP), spl(c.RMSDBFS)
		}
		j.Channels = append(j.Channels, cj)
	}
	if cal.hasLevel() {
		j.Calibration = cal.describe(lc, nil)
	}
	return j
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
