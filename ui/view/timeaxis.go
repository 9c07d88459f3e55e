package view

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The time axes' tick rule (the file view's, the waterfall's) and the
// human formats of times and durations. plot.TimeTicks steps only from
// 1 s up and plot.FormatSeconds rounds to whole seconds from two minutes
// on, which is what made a zoomed file view read "2:09 2:09 2:09"; this is
// the rule the window uses until app/plot takes it over.

// timeSteps are the tick steps, finest first: 1-2-5 from a millisecond up
// to 10 s, then clock steps (15 s, 30 s, minutes, hours).
var timeSteps = []float64{
	0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10,
	15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 18000, 36000,
}

// timeStep is the finest step whose ticks on t0…t1 drawn `pixels` long
// are at least minGap pixels apart.
func timeStep(t0, t1 float64, pixels, minGap int) float64 {
	span := t1 - t0
	if !(span > 0) || pixels < 1 {
		return timeSteps[len(timeSteps)-1]
	}
	for _, s := range timeSteps {
		if s*float64(pixels)/span >= float64(max(1, minGap)) {
			return s
		}
	}
	return timeSteps[len(timeSteps)-1]
}

// timeTicks are the multiples of timeStep within t0…t1.
func timeTicks(t0, t1 float64, pixels, minGap int) []float64 {
	return ticksEvery(t0, t1, timeStep(t0, t1, pixels, minGap))
}

// ticksEvery are the multiples of step within t0…t1.
func ticksEvery(t0, t1, step float64) []float64 {
	var ticks []float64
	for k := math.Ceil(t0/step - 1e-9); k*step <= t1+step*1e-9; k++ {
		ticks = append(ticks, k*step)
	}
	return ticks
}

// stepDecimals is how many decimals of a second a step needs.
func stepDecimals(step float64) int {
	d := 0
	for d < 3 && math.Abs(step*math.Pow10(d)-math.Round(step*math.Pow10(d))) > 1e-6 {
		d++
	}
	return d
}

// FormatTime writes time t (seconds ≥ 0) for an axis whose ticks are
// `step` apart and whose largest time is maxT: "2.5 s" under a minute,
// "2:09.150" (m:ss.fff) under an hour, "1:02:09" from an hour, with as
// many decimals as the step needs, so neighbouring labels always differ.
func FormatTime(t, step, maxT float64) string {
	d := stepDecimals(step)
	neg := t < 0
	t = math.Abs(t)
	var b []byte
	if neg {
		b = append(b, "−"...)
	}
	switch {
	case maxT < 60:
		b = strconv.AppendFloat(b, t, 'f', d, 64)
		b = append(b, " s"...)
	default:
		scale := math.Pow10(d)
		units := int64(math.Round(t * scale)) // in 10^-d s
		whole := units / int64(scale)
		frac := units % int64(scale)
		h, m, s := whole/3600, whole/60%60, whole%60
		if maxT >= 3600 {
			b = strconv.AppendInt(b, h, 10)
			b = append(b, ':')
			b = appendPad2(b, m)
		} else {
			b = strconv.AppendInt(b, whole/60, 10)
		}
		b = append(b, ':')
		b = appendPad2(b, s)
		if d > 0 {
			b = append(b, '.')
			f := strconv.AppendInt(nil, frac, 10)
			for range d - len(f) {
				b = append(b, '0')
			}
			b = append(b, f...)
		}
	}
	return string(b)
}

func appendPad2(b []byte, v int64) []byte {
	if v < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 10)
}

// FormatDuration writes a duration for people: "850 µs", "3.7 ms",
// "371 ms", "2.4 s", "1 m 05 s".
func FormatDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case d < 0:
		return "−" + FormatDuration(-d)
	case d < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + " ns"
	case d < time.Millisecond:
		return strconv.FormatFloat(s*1e6, 'f', 0, 64) + " µs"
	case d < 10*time.Millisecond:
		return strconv.FormatFloat(s*1e3, 'f', 1, 64) + " ms"
	case d < time.Second:
		return strconv.FormatFloat(s*1e3, 'f', 0, 64) + " ms"
	case d < 10*time.Second:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	case d < time.Minute:
		return strconv.FormatFloat(s, 'f', 0, 64) + " s"
	}
	whole := int64(math.Round(s))
	return strconv.FormatInt(whole/60, 10) + " m " + string(appendPad2(nil, whole%60)) + " s"
}

// goDuration matches a Go duration as time.Duration.String writes it.
var goDuration = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|us|ms|s|m|h)([0-9]+(\.[0-9]+)?(ns|µs|us|ms|s|m|h))*\b`)

// HumanDurations rewrites the Go durations in a message from the engine
// ("no data for 371.519272ms") into FormatDuration's ("no data for
// 371 ms"). The engine's messages should say it so themselves (the lead
// moves FormatDuration to where they are made); until then the status bar
// does.
func HumanDurations(msg string) string {
	if !strings.ContainsAny(msg, "0123456789") {
		return msg
	}
	return goDuration.ReplaceAllStringFunc(msg, func(s string) string {
		d, err := time.ParseDuration(s)
		if err != nil {
			return s
		}
		return FormatDuration(d)
	})
}
