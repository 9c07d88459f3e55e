// Package pitchcmd is `prism pitch`: the f0 track of a file (package
// pitch's YIN) as CSV. It knows flags, files and the CSV contract, not
// the estimator.
package pitchcmd

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/pitch"
)

// Header is the CSV's first line (the contract).
const Header = "time_s,f0_hz,confidence"

const usage = `  prism pitch IN -o OUT.csv [--fmin HZ] [--fmax HZ] [--hop DURATION]
      [--threshold T] [--channel mix|N] [--force]
  The fundamental frequency (f0) of IN over time by YIN (de Cheveigné and
  Kawahara 2002, the difference function centred on each frame), as CSV
  with the header time_s,f0_hz,confidence: one row per frame, time_s the
  frame's centre in seconds, f0_hz NaN where the frame is unvoiced (no dip
  of the normalized difference below --threshold), confidence 1 − that
  difference at the best lag (0…1). A frame is the longest period searched
  (1/fmin) plus that period and one sample on either side: about 3/fmin
  (60 ms at the default 50 Hz); frames start --hop apart, the first at the
  file's start; a file shorter than one frame gives the header alone.
`

// Run is `prism pitch`.
func Run(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("pitch", usage, stderr)
	out := fs.String("o", "", "output CSV: "+Header)
	minHz := fs.Float64("fmin", 50, "lowest f0 searched, Hz")
	maxHz := fs.Float64("fmax", 2000, "highest f0 searched, Hz (at most a quarter of the sample rate)")
	hop := fs.Duration("hop", 10*time.Millisecond, "time between frames (e.g. 10ms; rounded to whole samples)")
	threshold := fs.Float64("threshold", pitch.DefaultThreshold, "YIN's absolute threshold on the normalized difference, 0…1: lower is stricter voicing")
	channel := fs.String("channel", "mix", "channel: mix (mean of channels) or a 0-based index")
	var force bool
	kit.RegisterForce(fs, &force)
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	fail := kit.UsageError("pitch", stderr)
	if len(pos) != 1 {
		return fail("want one input file (prism pitch IN -o OUT.csv)")
	}
	if *out == "" || !strings.HasSuffix(strings.ToLower(*out), ".csv") {
		return fail("-o OUT.csv is required")
	}
	if *hop <= 0 {
		return fail("--hop %v: want a positive duration", *hop)
	}
	ch, err := kit.ParseChannel(*channel)
	if err != nil {
		return fail("%v", err)
	}
	if err := kit.CheckReplace(force, *out); err != nil {
		return fail("%v", err)
	}
	pts, warnings, err := pitch.TrackFile(pos[0], pitch.FileOptions{Channel: ch, MinHz: *minHz, MaxHz: *maxHz, Threshold: *threshold, HopSeconds: hop.Seconds()})
	if err != nil {
		return fail("%v", err)
	}
	kit.Warn(stderr, warnings)
	err = writeCSV(*out, pts, pos[0], force)
	if err != nil {
		fmt.Fprintf(stderr, "prism: pitch: %v\n", err)
		return kit.ExitFailure
	}
	return kit.ExitOK
}

// writeCSV writes the track through a temporary file renamed into place.
func writeCSV(path string, pts []pitch.Point, input string, force bool) error {
	o, err := encode.CreateWith(path, encode.CreateOptions{Inputs: []string{input}, Force: force})
	if err != nil {
		return err
	}
	defer o.Discard()
	buf := append(make([]byte, 0, 64), Header...)
	buf = append(buf, '\n')
	for _, p := range pts {
		if _, err := o.W.Write(buf); err != nil {
			return err
		}
		buf = strconv.AppendFloat(buf[:0], p.TimeS, 'f', 6, 64)
		buf = append(buf, ',')
		if math.IsNaN(p.F0Hz) {
			buf = append(buf, "NaN"...)
		} else {
			buf = strconv.AppendFloat(buf, p.F0Hz, 'f', 4, 64)
		}
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, p.Confidence, 'f', 4, 64)
		buf = append(buf, '\n')
	}
	if _, err := o.W.Write(buf); err != nil {
		return err
	}
	return o.Commit()
}
