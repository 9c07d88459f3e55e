package analysis

import (
	"slices"
	"time"
)

// Stages is where one file's time went (`prism analyze --timings`). The
// stages follow each other on the file's goroutine; other files in flight
// overlap them. Spans keeps each stage's interval, and within Analyze the
// intervals spent reading the file, waiting for a staging buffer and
// submitting batches to the engine, so that a batch's Busy can say how
// much of its wall time each kind of work kept going.
type Stages struct {
	Setup   time.Duration // opening the input and the output, making the plan (or taking one from the pool)
	Analyze time.Duration // reading the file with the engine's work overlapped; NPY/CSV rows are written here too
	Fetch   time.Duration // waiting for the engine and copying its image back (PNG)
	Render  time.Duration // colouring and decorating the image (PNG)
	Encode  time.Duration // encoding and writing the PNG
	Commit  time.Duration // closing the output and renaming it into place
	Reused  bool          // the plan came from the batch's pool
	Spans   []Span
}

// Span is one interval of a file's work.
type Span struct {
	Kind       SpanKind
	Start, End time.Time
}

// SpanKind names what a Span was spent on.
type SpanKind string

// The kinds of Span: the stages, and inside Analyze the file pipeline's
// own steps on the GPU-resident path.
const (
	SpanSetup   SpanKind = "setup"
	SpanAnalyze SpanKind = "analyze"
	SpanFetch   SpanKind = "fetch"
	SpanRender  SpanKind = "render"
	SpanEncode  SpanKind = "encode"
	SpanCommit  SpanKind = "commit"
	// SpanRead: reading the file's bytes (into pinned staging on a GPU)
	SpanRead SpanKind = "read"
	// SpanStaging: waiting until the engine is done with a staging buffer
	// (its upload), or allocating it the first time
	SpanStaging SpanKind = "staging"
	// SpanSubmit: queueing a batch's upload and kernels
	SpanSubmit SpanKind = "submit"
	// SpanRows: waiting for a batch's dB rows to come back (NPY, CSV)
	SpanRows SpanKind = "rows"
	// SpanWrite: handing a batch's rows to the output's writer (NPY, CSV)
	SpanWrite SpanKind = "write"
)

// mark adds the time since *t to d, keeps it as a span of kind k, and
// moves *t to now.
func (s *Stages) mark(d *time.Duration, k SpanKind, t *time.Time) {
	now := time.Now()
	*d += now.Sub(*t)
	s.Spans = append(s.Spans, Span{k, *t, now})
	*t = now
}

// span keeps the interval from start to now as a span of kind k (none
// on a nil s).
func (s *Stages) span(k SpanKind, start time.Time) {
	if s == nil { // a pipeline that keeps no timings
		return
	}
	s.Spans = append(s.Spans, Span{k, start, time.Now()})
}

// Busy is how much of a batch's wall time one kind of work took: Union is
// the time at least one file was doing it, Sum the time all files spent
// on it together (Sum/Union is how many did it at once, on average, while
// any did).
type Busy struct {
	Kind       SpanKind
	Union, Sum time.Duration
}

// BusyOf sums spans by kind, in the order of the kinds' first spans, and
// returns the interval they cover together (first start to last end).
func BusyOf(spans []Span) (busy []Busy, first, last time.Time) {
	byKind := map[SpanKind][]Span{}
	var kinds []SpanKind
	for _, s := range spans {
		if first.IsZero() || s.Start.Before(first) {
			first = s.Start
		}
		if s.End.After(last) {
			last = s.End
		}
		if _, ok := byKind[s.Kind]; !ok {
			kinds = append(kinds, s.Kind)
		}
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	for _, k := range kinds {
		busy = append(busy, unionOf(k, byKind[k]))
	}
	return busy, first, last
}

// unionOf is the Busy of spans of one kind (sorted here by start).
func unionOf(k SpanKind, spans []Span) Busy {
	slices.SortFunc(spans, func(a, b Span) int { return a.Start.Compare(b.Start) })
	b := Busy{Kind: k}
	var end time.Time // the end of the merged run so far
	for _, s := range spans {
		if s.End.Before(s.Start) {
			continue
		}
		b.Sum += s.End.Sub(s.Start)
		switch {
		case end.IsZero() || s.Start.After(end):
			b.Union += s.End.Sub(s.Start)
			end = s.End
		case s.End.After(end):
			b.Union += s.End.Sub(end)
			end = s.End
		}
	}
	return b
}
