package ui

import (
	"fmt"
	"strconv"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/ui/view"
	"github.com/prismaudio/prism/window"
)

// The controls' option tables: each entry a label, what choosing it
// does to the settings and whether the settings select it.

// labeled is an option's label and value.
type labeled struct {
	label string
	val   float64
}

var (
	overlaps = []labeled{{"0 %", 0}, {"50 %", 0.5}, {"75 %", 0.75}, {"87.5 %", 0.875}, {"93.75 %", 0.9375}}
	holds    = []labeled{{"Off", 0}, {"2 s", 2}, {"10 s", 10}, {"Infinite", -1}}
	spans    = []labeled{{"5 s", 5}, {"10 s", 10}, {"30 s", 30}, {"60 s", 60}}
	// the averaging presets: exponential time constants, linear frame counts
	expSeconds = []float64{0.25, 1, 4}
	linFrames  = []float64{8, 32}
)

var averagingOptions = []option{
	{label: "Off", apply: func(s *Settings) { s.Averaging = view.AvgOff }, selected: func(s *Settings) bool { return s.Averaging == view.AvgOff }},
	expOption("Exponential 0.25 s", 0), expOption("Exponential 1 s", 1), expOption("Exponential 4 s", 2),
	linOption("Linear 8 frames", 0), linOption("Linear 32 frames", 1),
	{label: "Long-term (since reset)", apply: func(s *Settings) { s.Averaging = view.AvgLong }, selected: func(s *Settings) bool { return s.Averaging == view.AvgLong }},
}

var scaleOptions = []option{
	{label: "log", apply: func(s *Settings) { s.FreqScale = plot.Log }, selected: func(s *Settings) bool { return s.FreqScale == plot.Log }},
	{label: "lin", apply: func(s *Settings) { s.FreqScale = plot.Lin }, selected: func(s *Settings) bool { return s.FreqScale == plot.Lin }},
	{label: "mel", apply: func(s *Settings) { s.FreqScale = plot.Mel }, selected: func(s *Settings) bool { return s.FreqScale == plot.Mel }},
	{label: "note", apply: func(s *Settings) { s.FreqScale = plot.Note }, selected: func(s *Settings) bool { return s.FreqScale == plot.Note }},
}

var weightingOptions = []option{
	{label: "A", apply: func(s *Settings) { s.Weighting = dsp.WeightA }, selected: func(s *Settings) bool { return s.Weighting == dsp.WeightA }},
	{label: "C", apply: func(s *Settings) { s.Weighting = dsp.WeightC }, selected: func(s *Settings) bool { return s.Weighting == dsp.WeightC }},
	{label: "Z", apply: func(s *Settings) { s.Weighting = dsp.WeightZ }, selected: func(s *Settings) bool { return s.Weighting == dsp.WeightZ }},
}

var lowerOptions = []option{
	{label: "Waterfall", apply: func(s *Settings) { s.Lower = "waterfall" }, selected: func(s *Settings) bool { return s.Lower == "waterfall" }},
	{label: "RTA bars", apply: func(s *Settings) { s.Lower = "rta" }, selected: func(s *Settings) bool { return s.Lower == "rta" }},
	{label: "Scope", apply: func(s *Settings) { s.Lower = "scope" }, selected: func(s *Settings) bool { return s.Lower == "scope" }},
	{label: "Pitch", apply: func(s *Settings) { s.Lower = "pitch" }, selected: func(s *Settings) bool { return s.Lower == "pitch" }},
}

var channelsOptions = append([]option{
	{label: "Mix", apply: func(s *Settings) { s.Channels = "mix" }, selected: func(s *Settings) bool { return s.Channels != "all" && singleChannel(s.Channels) < 0 }},
	{label: "All channels", apply: func(s *Settings) { s.Channels = "all" }, selected: func(s *Settings) bool { return s.Channels == "all" }},
}, singleChannelOptions()...)

// singleChannelOptions show one input channel alone: "Ch 1 (L)" … "Ch 8".
func singleChannelOptions() []option {
	var opts []option
	for c := range 8 {
		label := fmt.Sprintf("Ch %d", c+1)
		if c < 2 {
			label += [2]string{" (L)", " (R)"}[c]
		}
		id := fmt.Sprintf("ch%d", c+1)
		opts = append(opts, option{label: label, apply: func(s *Settings) { s.Channels = id }, selected: func(s *Settings) bool { return s.Channels == id }})
	}
	return opts
}

// bandPresets are the band filter's presets between None and Custom….
var bandPresets = []string{"speech", "lowpass:1000", "highpass:100", "bandpass:500-2000", "bandstop:1000-4000", "octave:1000", "third:1000"}

func expOption(label string, i int) option {
	return option{label: label,
		apply:    func(s *Settings) { s.Averaging, s.AvgSeconds = view.AvgExp, expSeconds[i] },
		selected: func(s *Settings) bool { return s.Averaging == view.AvgExp && nearest(expSeconds, s.AvgSeconds) == i }}
}

func linOption(label string, i int) option {
	return option{label: label,
		apply: func(s *Settings) { s.Averaging, s.AvgFrames = view.AvgLin, int(linFrames[i]) },
		selected: func(s *Settings) bool {
			return s.Averaging == view.AvgLin && nearest(linFrames, float64(s.AvgFrames)) == i
		}}
}

// intOptions are options whose labels are the integer values of field
// ("Default" and other words: 0).
func intOptions(labels []string, field func(s *Settings) *int) []option {
	opts := make([]option, len(labels))
	for i, l := range labels {
		v, _ := strconv.Atoi(l)
		opts[i] = option{label: l, apply: func(s *Settings) { *field(s) = v }, selected: func(s *Settings) bool { return *field(s) == v }}
	}
	return opts
}

// nearestOptions are options of field's values; the one nearest the
// setting is selected.
func nearestOptions(vals []labeled, field func(s *Settings) *float64) []option {
	xs := make([]float64, len(vals))
	for i, v := range vals {
		xs[i] = v.val
	}
	opts := make([]option, len(vals))
	for i, v := range vals {
		opts[i] = option{label: v.label, apply: func(s *Settings) { *field(s) = v.val }, selected: func(s *Settings) bool { return nearest(xs, *field(s)) == i }}
	}
	return opts
}

// dbOptions set the dB axis's top (top) or floor, as long as it stays
// above the floor (below the top).
func dbOptions(vals []float64, top bool) []option {
	opts := make([]option, len(vals))
	for i, v := range vals {
		opts[i] = option{label: dbLabel(v),
			apply: func(s *Settings) {
				switch {
				case top && v > s.DBMin:
					s.DBMax = v
				case !top && v < s.DBMax:
					s.DBMin = v
				}
			},
			selected: func(s *Settings) bool { return top && s.DBMax == v || !top && s.DBMin == v }}
	}
	return opts
}

func windowOptions() []option {
	var opts []option
	for _, name := range window.Names() {
		w, err := window.Parse(name)
		if err != nil {
			panic(err) // the names it lists
		}
		opts = append(opts, option{label: name, apply: func(s *Settings) { s.Window = w }, selected: func(s *Settings) bool { return s.Window == w }})
	}
	return opts
}

func colormapOptions() []option {
	var opts []option
	for _, c := range plot.Colormaps {
		opts = append(opts, option{label: c.String(), apply: func(s *Settings) { s.Colormap = c }, selected: func(s *Settings) bool { return s.Colormap == c }})
	}
	return opts
}

func fractionOptions() []option {
	var opts []option
	for _, n := range []int{1, 3, 6, 12, 24, 48} {
		opts = append(opts, option{label: "1/" + strconv.Itoa(n), apply: func(s *Settings) { s.Fraction = n }, selected: func(s *Settings) bool { return s.Fraction == n }})
	}
	return opts
}

// bandOptions are None, the presets, and Custom… (which runs custom: the
// band entry takes any spec).
func bandOptions(custom func()) []option {
	opts := []option{{label: "None", apply: func(s *Settings) { s.Band = dsp.BandSpec{} }, selected: func(s *Settings) bool { return s.Band.IsZero() }}}
	for _, p := range bandPresets {
		b, err := dsp.ParseBand(p)
		if err != nil {
			panic(err) // a preset that does not read
		}
		opts = append(opts, option{label: p, apply: func(s *Settings) { s.Band = b }, selected: func(s *Settings) bool { return s.Band == b }})
	}
	return append(opts, option{label: "Custom…", do: custom, selected: func(s *Settings) bool { return !s.Band.IsZero() }})
}

// checkedBand reads a band spec and checks it at rate Hz ("" is no band).
func checkedBand(spec string, rate int) (dsp.BandSpec, error) {
	if spec == "" {
		return dsp.BandSpec{}, nil
	}
	b, err := dsp.ParseBand(spec)
	if err != nil {
		return b, err
	}
	return b, b.Check(rate)
}
