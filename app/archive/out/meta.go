package out

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"
)

// Attr is a parameter written with an output: a NetCDF global attribute
// and a key of the NPY sidecar's "parameters". Value is a string, a
// float64 or an int32.
type Attr struct {
	Name  string
	Value any
}

// Meta describes an output: its kind, the frequency axis, the levels'
// unit and the run's parameters. Two runs with equal Meta write the same
// header bytes.
type Meta struct {
	Kind  string // "ltsa" or "hmd"
	Title string // the NetCDF title
	Unit  string // the levels' unit, e.g. "dB re 1 uPa^2/Hz"
	// FreqHz is the centre frequency of each column, Hz.
	FreqHz []float64
	// BandLoHz and BandHiHz, when set (HMD), are each band's edges, Hz.
	BandLoHz, BandHiHz []float64
	// Percentiles, when set (HMD), are the percentiles written after the
	// rows (Writer.SetPercentiles), e.g. 5…95.
	Percentiles []float64
	Attrs       []Attr
	// Shard is "K/N" in a shard's part ("" otherwise): the one attribute
	// a merge drops.
	Shard string
}

// Row is one time bin: its start (UTC), the seconds of audio it holds and
// one level per column of Meta.FreqHz (NaN where nothing was measured).
type Row struct {
	Start   time.Time
	Seconds float64
	Level   []float32
}

// Format is an output format, named by the output's extension.
type Format string

// Output formats.
const (
	NetCDF Format = "nc"
	NPY    Format = "npy"
	PNG    Format = "png"
)

// FormatOf names the format of path by its extension (.nc, .npy, .png).
func FormatOf(path string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".nc":
		return NetCDF, true
	case ".npy":
		return NPY, true
	case ".png":
		return PNG, true
	}
	return "", false
}

// check says whether m can be written.
func (m *Meta) check() error {
	if len(m.FreqHz) == 0 {
		return fmt.Errorf("out: no frequency columns")
	}
	if (m.BandLoHz != nil || m.BandHiHz != nil) && (len(m.BandLoHz) != len(m.FreqHz) || len(m.BandHiHz) != len(m.FreqHz)) {
		return fmt.Errorf("out: %d band edges for %d bands", len(m.BandLoHz), len(m.FreqHz))
	}
	for _, a := range m.Attrs {
		switch a.Value.(type) {
		case string, float64, int32:
		default:
			return fmt.Errorf("out: attribute %s: a %T (want string, float64 or int32)", a.Name, a.Value)
		}
	}
	return nil
}

// unixSeconds is t as seconds since 1970-01-01 00:00:00 UTC, the time
// coordinate of every output, from t's whole microseconds: timeOf gives
// those back exactly, so a file read and written again (a merge) keeps
// its bytes.
func unixSeconds(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// timeOf is unixSeconds' inverse.
func timeOf(s float64) time.Time { return time.UnixMicro(int64(math.Round(s * 1e6))).UTC() }

// isoTime is the time_utc string of the instant t (to the microsecond).
func isoTime(t time.Time) string {
	return timeOf(unixSeconds(t)).Format("2006-01-02T15:04:05.999999Z")
}
