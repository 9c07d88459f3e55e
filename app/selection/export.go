package selection

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/encode"
)

// Export writes the selection's results as CSV files named base plus a
// suffix, and returns their paths: base_spectrum.csv as `prism spectrum
// -o x.csv` writes it (freq_hz,level…), base_bands.csv as `prism bands`
// (nominal_hz,exact_hz,lower_hz,upper_hz,level_db,under_resolved) where
// the band levels were measured, and base_levels.csv, one row per channel
// (channel,sample_peak_dbfs,true_peak_dbtp,rms_dbfs,integrated_lufs,
// loudness_range_lu,momentary_max_lufs,short_term_max_lufs; the loudness
// is the programme's, the same on every row).
func Export(base string, res Result) ([]string, error) {
	var paths []string
	write := func(suffix string, fill func(w *strings.Builder)) error {
		path := base + suffix
		o, err := encode.Create(path)
		if err != nil {
			return fmt.Errorf("selection: %w", err)
		}
		defer o.Discard()
		var b strings.Builder
		fill(&b)
		if _, err := o.W.WriteString(b.String()); err != nil {
			return fmt.Errorf("selection: write %s: %w", path, err)
		}
		paths = append(paths, path)
		return o.Commit()
	}
	if err := write("_spectrum.csv", func(w *strings.Builder) { spectrumCSV(w, res) }); err != nil {
		return paths, err
	}
	if err := write("_levels.csv", func(w *strings.Builder) { levelsCSV(w, res) }); err != nil {
		return paths, err
	}
	if res.BandsErr == nil && len(res.Bands.Levels) > 0 {
		if err := write("_bands.csv", func(w *strings.Builder) { bandsCSV(w, res) }); err != nil {
			return paths, err
		}
	}
	return paths, nil
}

func spectrumCSV(w *strings.Builder, res Result) {
	s := res.Spectrum
	fmt.Fprintf(w, "freq_hz,%s\n", strings.Join(s.Columns, ","))
	for k, hz := range s.FreqHz {
		w.WriteString(strconv.FormatFloat(hz, 'f', -1, 64))
		for _, lv := range s.Levels {
			w.WriteString("," + strconv.FormatFloat(lv[k], 'f', 4, 64))
		}
		w.WriteString("\n")
	}
}

func levelsCSV(w *strings.Builder, res Result) {
	l := res.Levels
	w.WriteString("channel,sample_peak_dbfs,true_peak_dbtp,rms_dbfs,integrated_lufs,loudness_range_lu,momentary_max_lufs,short_term_max_lufs\n")
	for c, ch := range l.Channels {
		fmt.Fprintf(w, "%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", c, ch.SamplePeakDBFS, ch.TruePeakDBTP, ch.RMSDBFS,
			l.IntegratedLUFS, l.LoudnessRangeLU, l.MomentaryMaxLUFS, l.ShortTermMaxLUFS)
	}
}

func bandsCSV(w *strings.Builder, res Result) {
	w.WriteString("nominal_hz,exact_hz,lower_hz,upper_hz,level_db,under_resolved\n")
	for _, l := range res.Bands.Levels {
		ur := 0
		if l.UnderResolved {
			ur = 1
		}
		fmt.Fprintf(w, "%g,%.4f,%.4f,%.4f,%.2f,%d\n", l.Nominal, l.Exact, l.Lower, l.Upper, l.LevelDB, ur)
	}
}
