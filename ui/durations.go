package ui

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// formatDuration writes a duration for people: "850 µs", "3.7 ms",
// "371 ms", "2.4 s", "1 m 05 s".
func formatDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case d < 0:
		return "−" + formatDuration(-d)
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

// humanDurations rewrites the Go durations in a message from the engine
// ("no data for 371.519272ms") into formatDuration's ("no data for
// 371 ms"). The engine's messages should say it so themselves (the lead
// moves formatDuration to where they are made); until then the status bar
// does.
func humanDurations(msg string) string {
	if !strings.ContainsAny(msg, "0123456789") {
		return msg
	}
	return goDuration.ReplaceAllStringFunc(msg, func(s string) string {
		d, err := time.ParseDuration(s)
		if err != nil {
			return s
		}
		return formatDuration(d)
	})
}

func appendPad2(b []byte, v int64) []byte {
	if v < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 10)
}
