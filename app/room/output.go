package room

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/draw"
	"math"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
)

// ResponseColumns is the header of the frequency response's CSV (and
// the NPY's columns).
var ResponseColumns = []string{"freq_hz", "magnitude_db", "phase_deg", "group_delay_ms"}

// WriteResponse writes r to path as CSV or NPY through encode's
// temporary file (not over one of inputs; without force, not over a file
// its permissions protect).
func WriteResponse(path string, format encode.Format, r Response, inputs []string, force bool) error {
	out, err := encode.CreateWith(path, encode.CreateOptions{Inputs: inputs, Force: force})
	if err != nil {
		return err
	}
	defer out.Discard()
	cols := [][]float64{r.FreqHz, r.MagnitudeDB, r.PhaseDeg, r.GroupDelayMs}
	switch format {
	case encode.FormatCSV:
		fmt.Fprintln(out.W, strings.Join(ResponseColumns, ","))
		for k := range r.FreqHz {
			fmt.Fprintf(out.W, "%s,%s,%s,%s\n", strconv.FormatFloat(r.FreqHz[k], 'f', -1, 64),
				strconv.FormatFloat(r.MagnitudeDB[k], 'f', 4, 64), strconv.FormatFloat(r.PhaseDeg[k], 'f', 3, 64),
				strconv.FormatFloat(r.GroupDelayMs[k], 'f', 5, 64))
		}
	case encode.FormatNPY:
		if _, err := out.W.Write(encode.NPYHeader(len(r.FreqHz), len(cols))); err != nil {
			return err
		}
		row := make([]byte, 4*len(cols))
		for k := range r.FreqHz {
			for c, col := range cols {
				binary.LittleEndian.PutUint32(row[4*c:], math.Float32bits(float32(col[k])))
			}
			if _, err := out.W.Write(row); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("-o %s: the frequency response is written as .csv or .npy", path)
	}
	return out.Commit()
}

// WriteDecayPlot writes the decay PNG to path: the energy–time curve
// over the first Δ seconds, and the Schroeder decays (broadband and the
// octave bands: every band of an octave analysis, the octave-centred
// ones of a third-octave one) with their truncation points.
func WriteDecayPlot(path string, res Result, etc []float64, inputs []string, force bool) error {
	out, err := encode.CreateWith(path, encode.CreateOptions{Inputs: inputs, Force: force})
	if err != nil {
		return err
	}
	defer out.Discard()
	if err := encode.PNG(out.W, DecayPlot(res, etc)); err != nil {
		return err
	}
	return out.Commit()
}

// DecayPlot draws the ETC (from the onset) over the Schroeder decays.
func DecayPlot(res Result, etc []float64) *image.RGBA {
	fs := float64(res.Rate)
	onset := int(math.Round(res.OnsetS * fs))
	span := 0.0
	for _, p := range append([]Params{res.Broadband}, res.Bands...) {
		if !math.IsNaN(p.CrossS) {
			span = max(span, p.CrossS)
		}
	}
	span = max(0.05, 1.1*span)
	// the ETC decimated to its maximum per millisecond (a decay's peaks are the curve)
	var et, ev []float64
	step := max(1, int(fs/1000))
	for i := onset; i < len(etc) && float64(i-onset)/fs <= span; i += step {
		m := math.Inf(-1)
		for _, v := range etc[i:min(i+step, len(etc))] {
			m = max(m, v)
		}
		et, ev = append(et, float64(i-onset)/fs), append(ev, m)
	}
	opts := plot.LineOptions{Width: 1200, Height: 300, DBMin: -100, DBMax: 0, Unit: "dB"}
	opts.Title = fmt.Sprintf("energy–time curve (re peak), from the onset at %.2f ms", 1000*res.OnsetS)
	top := plot.TimeLines(opts, span, et, [][]float64{ev}, nil)
	var (
		levels [][]float64
		names  []string
	)
	add := func(name string, p Params) {
		if len(p.Decay) > 0 {
			levels, names = append(levels, p.Decay), append(names, name)
		}
	}
	add("broadband", res.Broadband)
	for _, b := range res.Bands {
		if octaveCentre(b.CenterHz) {
			add(strconv.FormatFloat(b.CenterHz, 'g', -1, 64)+" Hz", b)
		}
	}
	dt := make([]float64, 0)
	longest := 0
	for _, l := range levels {
		longest = max(longest, len(l))
	}
	for i := range longest {
		dt = append(dt, float64(i)*DecayStep)
	}
	opts.Title = "Schroeder decay (Lundeby truncation and compensation)"
	opts.DBMin = -70
	bottom := plot.TimeLines(opts, span, dt, levels, names)
	img := image.NewRGBA(image.Rect(0, 0, top.Bounds().Dx(), top.Bounds().Dy()+bottom.Bounds().Dy()))
	draw.Draw(img, top.Bounds(), top, image.Point{}, draw.Src)
	draw.Draw(img, bottom.Bounds().Add(image.Pt(0, top.Bounds().Dy())), bottom, image.Point{}, draw.Src)
	return img
}

// octaveCentre says whether a band's nominal frequency is an octave
// band's (31.5, 63, 125 … 16k).
func octaveCentre(hz float64) bool {
	for _, c := range []float64{31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000} {
		if hz == c {
			return true
		}
	}
	return false
}

// JSON is `prism room --json`'s object: {"sample_rate", "onset_ms",
// "fraction", "bands": [{center_hz, edt_s, t20_s, t30_s, c50_db, c80_db,
// d50_percent, r_t20, r_t30, inr_db}], "broadband": {the same keys}}; a
// value the decay does not support is null.
func JSON(res Result, fraction int) map[string]any {
	bands := make([]map[string]any, len(res.Bands))
	for i, b := range res.Bands {
		bands[i] = paramsJSON(b)
	}
	return map[string]any{"sample_rate": res.Rate, "onset_ms": round(1000*res.OnsetS, 3), "fraction": fraction,
		"bands": bands, "broadband": paramsJSON(res.Broadband)}
}

func paramsJSON(p Params) map[string]any {
	return map[string]any{"center_hz": p.CenterHz, "edt_s": num(p.EDT, 3), "t20_s": num(p.T20, 3), "t30_s": num(p.T30, 3),
		"c50_db": num(p.C50, 2), "c80_db": num(p.C80, 2), "d50_percent": num(p.D50, 1),
		"r_t20": num(p.RT20, 4), "r_t30": num(p.RT30, 4), "inr_db": num(p.INR, 1)}
}

// num is v rounded, or nil (JSON null) when it is not a number.
func num(v float64, digits int) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return round(v, digits)
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// Table is the plain-text summary: a row per band and one broadband.
func Table(res Result) string {
	s := fmt.Sprintf("%-10s %7s %7s %7s %7s %7s %6s %8s %8s %6s\n", "band", "EDT s", "T20 s", "T30 s", "C50 dB", "C80 dB", "D50 %", "r T20", "r T30", "INR dB")
	row := func(name string, p Params) {
		f := func(v float64, prec int) string {
			if math.IsNaN(v) {
				return "—"
			}
			return strconv.FormatFloat(v, 'f', prec, 64)
		}
		s += fmt.Sprintf("%-10s %7s %7s %7s %7s %7s %6s %8s %8s %6s\n", name, f(p.EDT, 3), f(p.T20, 3), f(p.T30, 3),
			f(p.C50, 2), f(p.C80, 2), f(p.D50, 1), f(p.RT20, 4), f(p.RT30, 4), f(p.INR, 1))
	}
	for _, b := range res.Bands {
		row(strconv.FormatFloat(b.CenterHz, 'g', -1, 64)+" Hz", b)
	}
	row("broadband", res.Broadband)
	return s
}
