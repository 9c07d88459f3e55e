package archive

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Transducer is what turns the samples into a physical level.
type Transducer int

const (
	// Uncalibrated levels are dB re 1 FS² (dBFS/Hz for a density): the
	// samples' own units, where a full-scale sine has a power of 0.5 FS².
	Uncalibrated Transducer = iota
	// Hydrophone levels are dB re 1 µPa² (re 1 µPa²/Hz for a density);
	// the sensitivity is in dB re 1 V/µPa.
	Hydrophone
	// Microphone levels are dB re (20 µPa)²; the sensitivity is in dB re
	// 1 V/Pa.
	Microphone
)

// Calibration turns the samples (full scale ±1) into pressure: a sample x
// is x·FullScaleV volts at the recorder's input after GainDB of gain, and
// SensitivityDB (or Curve, per frequency) says how many volts the
// transducer gives per unit of pressure. The zero value is uncalibrated.
type Calibration struct {
	Transducer    Transducer
	SensitivityDB float64 // dB re 1 V/µPa (hydrophone) or 1 V/Pa (microphone)
	GainDB        float64 // preamplifier gain, dB
	FullScaleV    float64 // volts at digital full scale (1.0); 0 means 1 V
	// Curve, when set, replaces SensitivityDB by a sensitivity versus
	// frequency, interpolated linearly in log frequency and held flat
	// beyond its ends. Sorted by frequency.
	Curve []CurvePoint
	// Source names where the calibration came from (a file name), for
	// provenance; it changes nothing.
	Source string
}

// CurvePoint is one point of a sensitivity-versus-frequency curve.
type CurvePoint struct {
	Hz, DB float64
}

// Unit is the unit of a spectral density level under this calibration:
// "dBFS/Hz", "dB re 1 µPa²/Hz" or "dB re (20 µPa)²/Hz".
func (c Calibration) Unit() string { return c.BandUnit() + "/Hz" }

// BandUnit is the unit of a band level (power in a band) under this
// calibration: "dBFS", "dB re 1 µPa²" or "dB re (20 µPa)²".
func (c Calibration) BandUnit() string {
	switch c.Transducer {
	case Hydrophone:
		return "dB re 1 µPa²"
	case Microphone:
		return "dB re (20 µPa)²"
	}
	return "dBFS"
}

// OffsetDB is what is added to 10·log10 of a power in FS² to give the
// calibrated level at frequency hz.
func (c Calibration) OffsetDB(hz float64) float64 {
	if c.Transducer == Uncalibrated {
		return 0
	}
	fs := c.FullScaleV
	if fs == 0 {
		fs = 1
	}
	off := 20*math.Log10(fs) - c.sensitivityAt(hz) - c.GainDB
	if c.Transducer == Microphone {
		off -= 20 * math.Log10(20e-6) // re (20 µPa)², the sensitivity being per pascal
	}
	return off
}

func (c Calibration) sensitivityAt(hz float64) float64 {
	n := len(c.Curve)
	switch {
	case n == 0:
		return c.SensitivityDB
	case hz <= c.Curve[0].Hz || n == 1:
		return c.Curve[0].DB
	case hz >= c.Curve[n-1].Hz:
		return c.Curve[n-1].DB
	}
	i := sort.Search(n, func(i int) bool { return c.Curve[i].Hz >= hz })
	a, b := c.Curve[i-1], c.Curve[i]
	t := math.Log(hz/a.Hz) / math.Log(b.Hz/a.Hz)
	return a.DB + t*(b.DB-a.DB)
}

// Check reports a calibration that cannot be applied.
func (c Calibration) Check() error {
	switch {
	case c.Transducer < Uncalibrated || c.Transducer > Microphone:
		return fmt.Errorf("archive: calibration: unknown transducer %d", c.Transducer)
	case c.FullScaleV < 0 || math.IsNaN(c.FullScaleV) || math.IsInf(c.FullScaleV, 0):
		return fmt.Errorf("archive: calibration: full-scale voltage %v", c.FullScaleV)
	case math.IsNaN(c.SensitivityDB) || math.IsNaN(c.GainDB):
		return fmt.Errorf("archive: calibration: sensitivity or gain is not a number")
	}
	for i, p := range c.Curve {
		if !(p.Hz > 0) || math.IsNaN(p.DB) || (i > 0 && p.Hz <= c.Curve[i-1].Hz) {
			return fmt.Errorf("archive: calibration: curve point %d (%v Hz, %v dB): want rising positive frequencies", i+1, p.Hz, p.DB)
		}
	}
	return nil
}

// ReadCurve reads a sensitivity-versus-frequency file: one "hz,db" pair a
// line (commas, tabs or spaces between), rising in frequency; blank lines,
// lines starting with '#' and a first line that is not numbers (a header)
// are skipped.
func ReadCurve(path string) ([]CurvePoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("archive: sensitivity file: %w", err)
	}
	defer f.Close()
	var pts []CurvePoint
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\t' || r == ' ' || r == ';' })
		if len(fields) < 2 {
			return nil, fmt.Errorf("archive: %s:%d: want hz,db", path, line)
		}
		hz, err1 := strconv.ParseFloat(fields[0], 64)
		db, err2 := strconv.ParseFloat(fields[1], 64)
		if err1 != nil || err2 != nil {
			if len(pts) == 0 && line == 1 {
				continue // a header
			}
			return nil, fmt.Errorf("archive: %s:%d: want hz,db numbers", path, line)
		}
		pts = append(pts, CurvePoint{hz, db})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("archive: %s: no points", path)
	}
	if err := (Calibration{Curve: pts}).Check(); err != nil {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	return pts, nil
}
