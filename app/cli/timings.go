package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/prismaudio/prism/app/analysis"
)

// batchTimings is the last --timings line of a batch: how much of the
// batch's wall time each kind of work kept going (see analysis.Busy).
type batchTimings struct {
	Files int `json:"files"`
	// Wall: the first file's first span to the last file's last; Started:
	// the command's start (before the engines opened) to that end
	Wall    float64      `json:"wall_ms"`
	Started float64      `json:"since_start_ms"`
	Busy    []busyTiming `json:"busy"`
}

type busyTiming struct {
	Kind  analysis.SpanKind `json:"kind"`
	Union float64           `json:"union_ms"` // at least one file doing it
	Sum   float64           `json:"sum_ms"`   // all files' time on it together
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// printBatchTimings writes the busy summary of results' spans as
// "prism: timings {"batch":{…}}"; start is when the command started.
func printBatchTimings(w io.Writer, results []fileResult, start time.Time) {
	var spans []analysis.Span
	for _, r := range results {
		spans = append(spans, r.res.Stages.Spans...)
	}
	busy, first, last := analysis.BusyOf(spans)
	bt := batchTimings{Files: len(results), Busy: []busyTiming{}}
	if len(spans) > 0 {
		bt.Wall, bt.Started = ms(last.Sub(first)), ms(last.Sub(start))
	}
	for _, b := range busy {
		bt.Busy = append(bt.Busy, busyTiming{b.Kind, ms(b.Union), ms(b.Sum)})
	}
	line, _ := json.Marshal(struct {
		Batch batchTimings `json:"batch"`
	}{bt})
	fmt.Fprintf(w, "%s%s\n", timingsPrefix, line)
}
