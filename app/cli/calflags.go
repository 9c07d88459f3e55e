package cli

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/dsp"
)

// calFlags are the calibration flags `spectrum`, `bands` and `levels`
// share: a level calibration (--cal-dbspl, or a --calibrator recording)
// and a microphone response (--cal).
type calFlags struct {
	micFile, calibrator   string
	calDBSPL, calibratorL float64
}

// register adds the flags; channelNote says which channel a calibrator
// recording is measured on.
func (f *calFlags) register(fs *flag.FlagSet, channelNote string) {
	fs.StringVar(&f.micFile, "cal", "", "microphone response file (REW/miniDSP text: freq dB [phase]) to correct for")
	fs.Float64Var(&f.calDBSPL, "cal-dbspl", math.NaN(), "level calibration: a full-scale sine reads LEVEL dB SPL")
	fs.StringVar(&f.calibrator, "calibrator", "", "level calibration from a calibrator recording (a 1 kHz tone, "+channelNote+")")
	fs.Float64Var(&f.calibratorL, "calibrator-dbspl", 94, "the calibrator's level, dB SPL")
}

// hasLevel says whether a level calibration was asked for.
func (f *calFlags) hasLevel() bool { return !math.IsNaN(f.calDBSPL) || f.calibrator != "" }

// checkLevel refuses two level calibrations and reads --cal-dbspl (a
// --calibrator recording is measured by level).
func (f *calFlags) checkLevel() (dsp.LevelCal, error) {
	switch {
	case !math.IsNaN(f.calDBSPL) && f.calibrator != "":
		return dsp.LevelCal{}, fmt.Errorf("--cal-dbspl and --calibrator: give one level calibration")
	case math.IsNaN(f.calDBSPL):
		return dsp.LevelCal{}, nil
	}
	c, err := dsp.CalFromDBSPL(f.calDBSPL)
	if err != nil {
		return c, fmt.Errorf("--cal-dbspl: %v", strings.TrimPrefix(err.Error(), "dsp: "))
	}
	return c, nil
}

// level is the level calibration: --cal-dbspl's, or a --calibrator
// recording's 1 kHz tone measured on channel (mix: channel 0).
func (f *calFlags) level(channel int) (dsp.LevelCal, error) {
	if f.calibrator == "" {
		return f.checkLevel()
	}
	res, err := analysis.MeasureCalibrator(f.calibrator, max(channel, 0), f.calibratorL)
	if err != nil {
		return dsp.LevelCal{}, fmt.Errorf("--calibrator: %w", err)
	}
	return res, nil
}

// mic reads the microphone response, if named.
func (f *calFlags) mic() (*dsp.MicResponse, error) {
	if f.micFile == "" {
		return nil, nil
	}
	r, err := os.Open(f.micFile)
	if err != nil {
		return nil, &analysis.InputError{Err: fmt.Errorf("--cal: %w", err)}
	}
	defer r.Close()
	m, err := dsp.ParseMicResponse(r, filepath.Base(f.micFile))
	if err != nil {
		return nil, &analysis.InputError{Err: fmt.Errorf("--cal: %w", err)}
	}
	return m, nil
}

// describe says what the calibration is, for the output's note: "full-
// scale sine = 94.00 dB SPL (calibrator cal.wav), microphone umik.txt".
func (f *calFlags) describe(c dsp.LevelCal, m *dsp.MicResponse) string {
	var parts []string
	if f.hasLevel() {
		s := "full-scale sine = " + strconv.FormatFloat(c.DBSPL(0), 'f', 2, 64) + " dB SPL"
		if f.calibrator != "" {
			s += " (calibrator " + filepath.Base(f.calibrator) + ")"
		}
		parts = append(parts, s)
	}
	if m != nil {
		parts = append(parts, "microphone "+m.Name)
	}
	return strings.Join(parts, ", ")
}
