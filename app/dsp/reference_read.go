// Reading traces: every spectrum or transfer function file Prism writes
// (the reference file, the window's spectrum export, `prism spectrum` and
// `prism transfer` CSVs) and REW's exported text, each error naming the
// line.

package dsp

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// TraceError is a trace file that does not read: the trace's name, the
// line (1-based; 0: the file as a whole) and the reason, in words a
// user can act on.
type TraceError struct {
	Name   string
	Line   int
	Reason string
}

func (e *TraceError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("dsp: trace %s line %d: %s", e.Name, e.Line, e.Reason)
	}
	return fmt.Sprintf("dsp: trace %s: %s", e.Name, e.Reason)
}

// ReadTraces reads every trace of a file Prism or REW writes: Prism's
// reference file (WriteCSV); the window's spectrum export (freq_hz, then
// current_U, average_U or long_term_average_U, peak_hold_U, U the unit:
// dbfs, dbfs_hz, dbspl), one trace per column, NAME current, …; `prism
// spectrum`'s CSV (level, or ch0, ch1, …: NAME ch0, …), unit not known;
// `prism transfer`'s (magnitude_db, phase_deg, coherence, suffixed _chC
// per channel: NAME chC), transfer functions in dB; REW's "Export
// measurement as text" ("*" comments, then frequency, SPL[, phase] apart
// by spaces, tabs, commas or semicolons), in dB SPL, a transfer function
// when it has the phase (such rows without REW's comments: unit not
// known). A file of one trace names it name. Errors are *TraceError.
func ReadTraces(r io.Reader, name string) ([]*Trace, error) {
	p := traceParser{name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		p.line++
		if err := p.take(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dsp: trace %s: %w", name, err)
	}
	return p.finish()
}

// ReadTrace reads the one trace of a file (ReadTraces); a file of several
// is an error naming them.
func ReadTrace(r io.Reader, name string) (*Trace, error) {
	ts, err := ReadTraces(r, name)
	return oneTrace(ts, name, err)
}

// ReadTraceFile reads the trace file at path (ReadTrace), named after the
// file: its base name without the extension.
func ReadTraceFile(path string) (*Trace, error) {
	ts, err := ReadTracesFile(path)
	return oneTrace(ts, traceName(path), err)
}

// ReadTracesFile reads every trace of the file at path (ReadTraces),
// named after the file as ReadTraceFile names it.
func ReadTracesFile(path string) ([]*Trace, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dsp: trace: %w", err)
	}
	defer r.Close()
	return ReadTraces(r, traceName(path))
}

func traceName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// oneTrace is the one trace of ts, or an error naming them.
func oneTrace(ts []*Trace, name string, err error) (*Trace, error) {
	if err != nil {
		return nil, err
	}
	if len(ts) == 1 {
		return ts[0], nil
	}
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return nil, &TraceError{Name: name, Reason: fmt.Sprintf("the file holds %d traces (%s): choose one", len(ts), strings.Join(names, ", "))}
}

// traceCols are one trace's columns in a row (−1: none).
type traceCols struct {
	label             string // after the file's name when it holds several
	unit              string // from the column's name ("": the file's)
	level, phase, coh int
	transfer          bool
}

// traceParser reads a trace file line by line.
type traceParser struct {
	name   string
	line   int
	info   *TraceInfo
	unit   string // the "# unit:" line's
	rew    bool   // REW's "*" comments seen
	headed bool   // a header (else rows separated by any space, comma or semicolon)
	width  int    // values in a row; 0: no header or row yet
	cols   []traceCols
	traces []*Trace
}

func (p *traceParser) fail(line int, format string, a ...any) error {
	return &TraceError{Name: p.name, Line: line, Reason: fmt.Sprintf(format, a...)}
}

// take reads one line.
func (p *traceParser) take(text string) error {
	if p.line == 1 {
		text = strings.TrimPrefix(text, "\ufeff")
	}
	s := strings.TrimSpace(text)
	switch {
	case s == "":
		return nil
	case p.width == 0 && s[0] == '#':
		return p.meta(strings.TrimSpace(s[1:]))
	case p.width == 0 && s[0] == '*':
		p.rew = p.rew || strings.Contains(s, "REW")
		return nil
	case p.width == 0:
		f := p.split(s)
		if _, err := strconv.ParseFloat(f[0], 64); err == nil {
			if err := p.rows(len(f)); err != nil {
				return err
			}
			return p.row(s)
		}
		p.headed = true
		return p.header(s, f)
	}
	return p.row(s)
}

// split cuts a row or header into its fields: at commas after a header,
// at any space, tab, comma or semicolon in rows without one (REW's).
func (p *traceParser) split(s string) []string {
	if p.headed {
		f := strings.Split(s, ",")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		return f
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) })
}

// meta reads a "# key: value" line (infoKeys); other comments are left
// alone.
func (p *traceParser) meta(s string) error {
	key, v, _ := strings.Cut(s, ":")
	key, v = strings.TrimSpace(key), strings.TrimSpace(v)
	switch {
	case s == refMarker && p.info == nil:
		p.info = &TraceInfo{}
	case key == "unit":
		p.unit = v
	case p.info != nil:
		for _, k := range infoKeys {
			if k.key != key {
				continue
			}
			switch f := k.field(p.info).(type) {
			case *string:
				*f = v
			case *float64, *int:
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || x != x {
					return p.fail(p.line, "%s %q is not a number", key, v)
				}
				if i, ok := f.(*int); ok {
					*i = int(x)
				} else {
					*f.(*float64) = x
				}
			}
		}
	}
	return nil
}

// rows sets up a file without a header from its first row's width: REW's
// frequency, SPL[, phase].
func (p *traceParser) rows(width int) error {
	switch width {
	case 2:
		p.cols = []traceCols{{level: 1, phase: -1, coh: -1}}
	case 3:
		p.cols = []traceCols{{level: 1, phase: 2, coh: -1, transfer: true}}
	default:
		return p.fail(p.line, "%d values in a row: want frequency and level, and phase if any", width)
	}
	if p.rew {
		p.cols[0].unit = UnitDBSPL
	}
	p.width = width
	return nil
}

var (
	exportCol   = regexp.MustCompile(`^(current|average|long_term_average|peak_hold)_(dbfs|dbfs_hz|dbspl)$`)
	channelCol  = regexp.MustCompile(`^ch[0-9]+$`)
	transferCol = regexp.MustCompile(`^(magnitude_db|phase_deg|coherence)(_ch[0-9]+)?$`)
	exportUnits = map[string]string{"dbfs": UnitDBFS, "dbfs_hz": UnitDBFSPerHz, "dbspl": UnitDBSPL}
)

// header reads the header line s (its fields f): which columns make which
// trace.
func (p *traceParser) header(s string, f []string) error {
	if f[0] == "time_s" {
		return p.fail(p.line, "this is a spectrogram (time_s, then a column per frequency), not a spectrum: export one spectrum (Ctrl+E) or store one as a reference")
	}
	if f[0] != "freq_hz" || len(f) < 2 {
		return p.fail(p.line, "header %q is not one Prism or REW writes (want \"freq_hz,level\", the spectrum export's or prism transfer's)", s)
	}
	byLabel := map[string]int{}
	get := func(label string, transfer bool) *traceCols {
		i, ok := byLabel[label]
		if !ok {
			i = len(p.cols)
			byLabel[label] = i
			p.cols = append(p.cols, traceCols{label: label, level: -1, phase: -1, coh: -1, transfer: transfer})
		}
		return &p.cols[i]
	}
	for i, c := range f[1:] {
		col := i + 1
		var dst *int
		switch {
		case c == "level":
			dst = &get("", false).level
		case channelCol.MatchString(c):
			dst = &get(c, false).level
		case exportCol.MatchString(c):
			m := exportCol.FindStringSubmatch(c)
			t := get(strings.ReplaceAll(m[1], "_", " "), false)
			t.unit, dst = exportUnits[m[2]], &t.level
		case transferCol.MatchString(c):
			m := transferCol.FindStringSubmatch(c)
			t := get(strings.TrimPrefix(m[2], "_"), true)
			dst = map[string]*int{"magnitude_db": &t.level, "phase_deg": &t.phase, "coherence": &t.coh}[m[1]]
		default:
			return p.fail(p.line, "column %q is not one Prism writes", c)
		}
		if *dst >= 0 {
			return p.fail(p.line, "column %q twice", c)
		}
		*dst = col
	}
	for _, t := range p.cols {
		if t.transfer && (t.level < 0 || t.phase < 0) {
			return p.fail(p.line, "a transfer function needs magnitude_db and phase_deg columns (channel %q has not both)", t.label)
		}
	}
	p.width = len(f)
	return nil
}

// row reads one row of values into the traces.
func (p *traceParser) row(s string) error {
	f := p.split(s)
	if len(f) != p.width {
		return p.fail(p.line, "%d values where %s %d (wrong number of fields)", len(f), map[bool]string{true: "the header has", false: "the first row has"}[p.headed], p.width)
	}
	var v [64]float64
	vals := v[:0]
	for _, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return p.fail(p.line, "%q is not a number", s)
		}
		vals = append(vals, x)
	}
	if p.traces == nil {
		p.traces = make([]*Trace, len(p.cols))
		for i := range p.traces {
			p.traces[i] = &Trace{}
		}
	}
	for i, c := range p.cols {
		t := p.traces[i]
		t.FreqHz = append(t.FreqHz, vals[0])
		t.Level = append(t.Level, vals[c.level])
		if err := checkTracePoint(t.FreqHz, len(t.FreqHz)-1, vals[c.level]); err != nil {
			return p.fail(p.line, "%v", err)
		}
		if !c.transfer {
			continue
		}
		t.PhaseDeg = append(t.PhaseDeg, vals[c.phase])
		if c.coh >= 0 {
			t.Coherence = append(t.Coherence, vals[c.coh])
		}
		if err := checkTransferPoint(t, len(t.FreqHz)-1); err != nil {
			return p.fail(p.line, "%v", err)
		}
	}
	return nil
}

// finish names the traces and gives them their unit and how they were
// measured.
func (p *traceParser) finish() ([]*Trace, error) {
	if p.width == 0 {
		return nil, p.fail(0, "no header and no rows (want a header such as \"freq_hz,level\")")
	}
	if len(p.traces) == 0 {
		return nil, p.fail(0, "no points")
	}
	for i, t := range p.traces {
		c := p.cols[i]
		t.Name = p.name
		if len(p.traces) > 1 {
			t.Name += " " + c.label
		}
		t.Unit = p.unit
		switch {
		case p.unit != "":
		case c.unit != "":
			t.Unit = c.unit
		case c.transfer && p.headed:
			t.Unit = UnitDB
		}
		if p.info != nil {
			in := *p.info
			t.Info = &in
		}
	}
	return p.traces, nil
}
