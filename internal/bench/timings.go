package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/analysis"
)

// TimingsPrefix begins every --timings line on stderr; the JSON object
// follows it on the same line.
const TimingsPrefix = "prism: timings "

// Line is one --timings line: EnginesOpen, EngineOpen, FileTimings,
// BatchLine, EarlyRelease or ExitLine.
type Line interface{ timingsLine() }

// EnginesOpen is the time from the command's start to its engines being
// open (a batch on several GPUs: to the first being ready to start).
type EnginesOpen struct {
	Ms float64 `json:"engines_open_ms"`
}

// EngineOpen is one GPU of several opened, since the command's start.
type EngineOpen struct {
	Engine int     `json:"engine"`
	Ms     float64 `json:"engine_open_ms"`
}

// FileTimings is one file's line: milliseconds per stage of the pipeline
// (analysis.Stages).
type FileTimings struct {
	File    string  `json:"file"`
	OK      bool    `json:"ok"`
	Devices int     `json:"devices"`
	Reused  bool    `json:"plan_reused"`
	Total   float64 `json:"total_ms"`
	Setup   float64 `json:"setup_ms"`
	Analyze float64 `json:"analyze_ms"`
	Fetch   float64 `json:"fetch_ms"`
	Render  float64 `json:"render_ms"`
	Encode  float64 `json:"encode_ms"`
	Commit  float64 `json:"commit_ms"`
}

// FileTimingsOf is the line of file, analyzed (ok) or not, from its
// result.
func FileTimingsOf(file string, ok bool, res analysis.AnalyzeResult) FileTimings {
	st := res.Stages
	return FileTimings{File: file, OK: ok, Devices: res.Devices, Reused: st.Reused,
		Total: Ms(res.Elapsed), Setup: Ms(st.Setup), Analyze: Ms(st.Analyze), Fetch: Ms(st.Fetch),
		Render: Ms(st.Render), Encode: Ms(st.Encode), Commit: Ms(st.Commit)}
}

// BatchLine is a batch's last line: how much of its wall time each kind
// of work kept going (analysis.BusyOf).
type BatchLine struct {
	Batch BatchTimings `json:"batch"`
}

// BatchTimings is the busy summary of a batch.
type BatchTimings struct {
	Files int `json:"files"`
	// Wall: the first file's first span to the last file's last; Started:
	// the command's start (before the engines opened) to that end
	Wall    float64      `json:"wall_ms"`
	Started float64      `json:"since_start_ms"`
	Busy    []BusyTiming `json:"busy"`
}

// BusyTiming is one kind of work of a batch.
type BusyTiming struct {
	Kind  analysis.SpanKind `json:"kind"`
	Union float64           `json:"union_ms"` // at least one file doing it
	Sum   float64           `json:"sum_ms"`   // all files' time on it together
}

// BatchTimingsOf is the summary of the files' stages; start is when the
// command started.
func BatchTimingsOf(stages []analysis.Stages, start time.Time) BatchTimings {
	var spans []analysis.Span
	for _, st := range stages {
		spans = append(spans, st.Spans...)
	}
	busy, first, last := analysis.BusyOf(spans)
	bt := BatchTimings{Files: len(stages), Busy: []BusyTiming{}}
	if len(spans) > 0 {
		bt.Wall, bt.Started = Ms(last.Sub(first)), Ms(last.Sub(start))
	}
	for _, b := range busy {
		bt.Busy = append(bt.Busy, BusyTiming{b.Kind, Ms(b.Union), Ms(b.Sum)})
	}
	return bt
}

// EarlyRelease is how long the early release of the GPU engines took.
type EarlyRelease struct {
	Ms float64 `json:"early_release_ms"`
}

// ExitLine is the line a command prints as it ends.
type ExitLine struct {
	Exit ExitTimings `json:"exit"`
}

// ExitTimings says how long ending the engines took, and for each OpenCL
// engine its release and its context's (zero when left to the exit);
// UnixNS is the wall clock then, so a caller that times the whole process
// sees what the exit took.
type ExitTimings struct {
	Fast           bool      `json:"fast"`
	Close          float64   `json:"close_ms"`
	Release        []float64 `json:"release_ms"`
	ReleaseContext []float64 `json:"context_release_ms"`
	Held           int       `json:"held_files"`
	Hold           float64   `json:"hold_ms"` // handing them off (starting the child)
	UnixNS         int64     `json:"unix_ns"`
	// each OpenCL engine's start-up (gpufft.OpenCLStats): loading the
	// library, the queries, the context and queue; programs obtained, of
	// them from the program cache, entries written; compiling from source
	// and building cached binaries (summed over builds that overlap)
	Start []EngineStart `json:"engines,omitempty"`
}

// EngineStart is one OpenCL engine's start-up.
type EngineStart struct {
	Load        float64 `json:"load_ms"`
	Query       float64 `json:"query_ms"`
	Context     float64 `json:"context_ms"`
	Programs    int     `json:"programs"`
	CacheHits   int     `json:"cache_hits"`
	CacheWrites int     `json:"cache_writes"`
	BuildSource float64 `json:"build_source_ms"`
	BuildCached float64 `json:"build_cached_ms"`
}

func (EnginesOpen) timingsLine()  {}
func (EngineOpen) timingsLine()   {}
func (FileTimings) timingsLine()  {}
func (BatchLine) timingsLine()    {}
func (EarlyRelease) timingsLine() {}
func (ExitLine) timingsLine()     {}

// WriteLine writes l as TimingsPrefix and its JSON on one line.
func WriteLine(w io.Writer, l Line) {
	js, _ := json.Marshal(l)
	fmt.Fprintf(w, "%s%s\n", TimingsPrefix, js)
}

// Ms is d in milliseconds, to the microsecond.
func Ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// lines calls f with the JSON of each --timings line of out.
func lines(out string, f func(js []byte)) {
	for _, line := range strings.Split(out, "\n") {
		if js, ok := strings.CutPrefix(line, TimingsPrefix); ok {
			f([]byte(js))
		}
	}
}

// FileLines is the file lines of --timings output out.
func FileLines(out string) []FileTimings {
	var fts []FileTimings
	lines(out, func(js []byte) {
		var ft FileTimings
		if json.Unmarshal(js, &ft) == nil && ft.File != "" { // "": another line
			fts = append(fts, ft)
		}
	})
	return fts
}

// MeanTimings averages the file lines of out (nil if none); Reused
// counts as true if any file reused a plan, Devices is the most.
func MeanTimings(out string) *FileTimings {
	fts := FileLines(out)
	if len(fts) == 0 {
		return nil
	}
	var m FileTimings
	for _, ft := range fts {
		m.Total += ft.Total
		m.Setup += ft.Setup
		m.Analyze += ft.Analyze
		m.Fetch += ft.Fetch
		m.Render += ft.Render
		m.Encode += ft.Encode
		m.Commit += ft.Commit
		m.Reused = m.Reused || ft.Reused
		m.Devices = max(m.Devices, ft.Devices)
	}
	for _, v := range []*float64{&m.Total, &m.Setup, &m.Analyze, &m.Fetch, &m.Render, &m.Encode, &m.Commit} {
		*v /= float64(len(fts))
	}
	m.File = fmt.Sprintf("mean of %d files", len(fts))
	m.OK = true
	return &m
}

// EnginesOpenMs is the engines_open_ms of out (0 if none).
func EnginesOpenMs(out string) float64 {
	v := 0.0
	lines(out, func(js []byte) {
		var o struct {
			Open *float64 `json:"engines_open_ms"`
		}
		if v == 0 && json.Unmarshal(js, &o) == nil && o.Open != nil {
			v = *o.Open
		}
	})
	return v
}

// BatchBusy is the batch line of out (nil if none).
func BatchBusy(out string) *BatchTimings {
	var bt *BatchTimings
	lines(out, func(js []byte) {
		var probe struct {
			Batch *BatchTimings `json:"batch"`
		}
		if bt == nil && json.Unmarshal(js, &probe) == nil && probe.Batch != nil {
			bt = probe.Batch
		}
	})
	return bt
}
