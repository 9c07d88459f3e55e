package transfer

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/draw"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
)

// The outputs of a measurement (prism transfer, prism capture --transfer):
// the CSV, NPY and PNG files and the summaries, one contract for both.

// Columns are the output's column names: freq_hz, then per
// channel magnitude_db, phase_deg, coherence, suffixed _chC when there
// are several channels.
func Columns(res Result) []string {
	cols := []string{"freq_hz"}
	for _, ch := range res.Channels {
		suffix := ""
		if len(res.Channels) > 1 {
			suffix = "_ch" + strconv.Itoa(ch.Index)
		}
		cols = append(cols, "magnitude_db"+suffix, "phase_deg"+suffix, "coherence"+suffix)
	}
	return cols
}

// WriteFile writes res to path as CSV, NPY or PNG (the contract of prism
// transfer's -o), through encode's temporary file: not over one of
// inputs, nor, without force, over a file its permissions protect.
func WriteFile(path string, format encode.Format, res Result, inputs []string, force bool) error {
	out, err := encode.CreateWith(path, encode.CreateOptions{Inputs: inputs, Force: force})
	if err != nil {
		return err
	}
	defer out.Discard()
	switch format {
	case encode.FormatCSV:
		fmt.Fprintln(out.W, strings.Join(Columns(res), ","))
		for k, hz := range res.FreqHz {
			fmt.Fprint(out.W, strconv.FormatFloat(hz, 'f', -1, 64))
			for _, ch := range res.Channels {
				fmt.Fprintf(out.W, ",%s,%s,%s", strconv.FormatFloat(ch.MagnitudeDB[k], 'f', 4, 64),
					strconv.FormatFloat(ch.PhaseDeg[k], 'f', 3, 64), strconv.FormatFloat(ch.Coherence[k], 'f', 6, 64))
			}
			fmt.Fprintln(out.W)
		}
	case encode.FormatNPY:
		cols := 1 + 3*len(res.Channels)
		if _, err := out.W.Write(encode.NPYHeader(len(res.FreqHz), cols)); err != nil {
			return err
		}
		row := make([]byte, 4*cols)
		put := func(i int, v float64) { binary.LittleEndian.PutUint32(row[4*i:], math.Float32bits(float32(v))) }
		for k, hz := range res.FreqHz {
			put(0, hz)
			for c, ch := range res.Channels {
				put(1+3*c, ch.MagnitudeDB[k])
				put(2+3*c, ch.PhaseDeg[k])
				put(3+3*c, ch.Coherence[k])
			}
			if _, err := out.W.Write(row); err != nil {
				return err
			}
		}
	case encode.FormatPNG:
		if err := encode.PNG(out.W, Plot(res, filepath.Base(path))); err != nil {
			return err
		}
	default:
		return fmt.Errorf("-o %s: unknown format", path)
	}
	return out.Commit()
}

// Plot stacks three line plots: magnitude (dB), phase (degrees)
// and coherence (γ²), one trace per channel.
func Plot(res Result, name string) *image.RGBA {
	var mag, phase, coh [][]float64
	var names []string
	for _, ch := range res.Channels {
		pct := make([]float64, len(ch.Coherence)) // in percent: the axis ticks read 0…100
		for k, v := range ch.Coherence {
			pct[k] = 100 * v
		}
		mag, phase, coh = append(mag, ch.MagnitudeDB), append(phase, ch.PhaseDeg), append(coh, pct)
		names = append(names, "ch"+strconv.Itoa(ch.Index))
	}
	lo, hi := magnitudeRange(res)
	title := name + ": magnitude; " + Summary(res, res.Channels[0])
	if len(res.Channels) > 1 {
		title = fmt.Sprintf("%s: magnitude; %d channels, %d frames of %d", name, len(res.Channels), res.Frames, res.FFT)
	}
	opts := func(lo, hi float64, unit, title string) plot.LineOptions {
		return plot.LineOptions{Width: 1200, Height: 280, Scale: plot.Log, DBMin: lo, DBMax: hi, Unit: unit, Title: title}
	}
	parts := []*image.RGBA{
		plot.Lines(opts(lo, hi, "dB", title), res.SampleRate, res.FFT, res.FreqHz, mag, names),
		plot.Lines(opts(-180, 180, "deg", "phase (wrapped, the delay taken out)"), res.SampleRate, res.FFT, res.FreqHz, phase, names),
		plot.Lines(opts(0, 100, "%", "coherence γ²"), res.SampleRate, res.FFT, res.FreqHz, coh, names),
	}
	h := 0
	for _, p := range parts {
		h += p.Bounds().Dy()
	}
	img := image.NewRGBA(image.Rect(0, 0, parts[0].Bounds().Dx(), h))
	y := 0
	for _, p := range parts {
		draw.Draw(img, p.Bounds().Add(image.Pt(0, y)), p, image.Point{}, draw.Src)
		y += p.Bounds().Dy()
	}
	return img
}

// magnitudeRange spans the magnitudes of the coherent bins the log axis
// shows (20 Hz up, γ² ≥ 0.5, or all when none is), in steps of 10 dB, at
// least 40 dB.
func magnitudeRange(res Result) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, pass := range []float64{0.5, -1} {
		for _, ch := range res.Channels {
			for k, v := range ch.MagnitudeDB {
				if ch.Coherence[k] >= pass && v > dsp.FloorDB && res.FreqHz[k] >= 20 {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
		if lo <= hi {
			break
		}
	}
	if !(lo <= hi) {
		return -40, 10
	}
	hi = math.Ceil(hi/10)*10 + 10
	lo = min(hi-40, math.Floor(lo/10)*10-10)
	return lo, hi
}

// Summary is one channel's line of prism transfer's summary.
func Summary(res Result, ch Channel) string {
	delay := "no delay found"
	if ch.Delay.Found {
		pol := "normal"
		switch {
		case ch.Delay.Polarity < 0:
			pol = "inverted"
		case ch.Delay.Polarity == 0:
			pol = "unknown (no clear peak)"
		}
		how := "found"
		if ch.Given {
			how = "given"
		}
		ms := ch.DelayMs(res.SampleRate)
		delay = fmt.Sprintf("delay %.4f ms (%.2f samples, %.3f m at %g m/s, %s), polarity %s", ms, ch.Delay.Samples,
			ch.Delay.Metres(float64(res.SampleRate), dual.SpeedOfSound), dual.SpeedOfSound, how, pol)
	}
	return fmt.Sprintf("channel %d: %s; mean coherence %.4f; %d frames of %d (hop %d)",
		ch.Index, delay, ch.MeanCoherence, res.Frames, res.FFT, res.Hop)
}

// JSON is prism transfer's --json summary: scalars for one channel, arrays in
// channel order (and "channels") for several.
func JSON(res Result) map[string]any {
	type one struct {
		ms, samples, polarity any
		coh                   float64
		found, given          bool
	}
	var rows []one
	for _, ch := range res.Channels {
		r := one{coh: round(ch.MeanCoherence, 6), found: ch.Delay.Found && !ch.Given, given: ch.Given}
		if ch.Delay.Found {
			r.ms, r.samples = round(ch.DelayMs(res.SampleRate), 6), round(ch.Delay.Samples, 4)
			if ch.Delay.Polarity != 0 {
				r.polarity = ch.Delay.Polarity
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 1 {
		r := rows[0]
		return map[string]any{"delay_ms": r.ms, "delay_samples": r.samples, "polarity": r.polarity,
			"mean_coherence": r.coh, "delay_found": r.found, "delay_given": r.given}
	}
	out := map[string]any{}
	var chans []int
	var ms, samples, pol, coh, found, given []any
	for i, r := range rows {
		chans = append(chans, res.Channels[i].Index)
		ms, samples, pol = append(ms, r.ms), append(samples, r.samples), append(pol, r.polarity)
		coh, found, given = append(coh, r.coh), append(found, r.found), append(given, r.given)
	}
	out["channels"], out["delay_ms"], out["delay_samples"], out["polarity"] = chans, ms, samples, pol
	out["mean_coherence"], out["delay_found"], out["delay_given"] = coh, found, given
	return out
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// Result is a live result in the file pipeline's terms: the
// tracked delay as found (none: no delay found), the mean coherence over
// 20 Hz…20 kHz as prism transfer reports it.
func (lr *LiveResult) Result() Result {
	g := lr.Geometry
	res := Result{SampleRate: g.Rate, FFT: g.FFT, Hop: g.Hop, Frames: lr.Averaged,
		FreqHz: make([]float64, g.Bins())}
	for k := range res.FreqHz {
		res.FreqHz[k] = float64(k) * g.BinHz()
	}
	for c, idx := range lr.Channels {
		ch := Channel{Index: idx, MagnitudeDB: lr.MagnitudeDB[c], PhaseDeg: lr.PhaseDeg[c],
			Coherence: lr.Coherence[c], Delay: lr.Delays[c].Delay}
		ch.MeanCoherence = meanCoherence(ch.Coherence, g.BinHz())
		res.Channels = append(res.Channels, ch)
	}
	return res
}
