// list kept between sessions: with Options.ReferenceDir set, every
// reference stored or loaded (spectrum or transfer function) is also
// written there, as the file Save writes (its unit and how it was
// measured, then the values), in a file named after its order and name
// ("003 bench A.csv"); deleting it removes the file, and the next window
// loads them back in that order.

package panel

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/ui/view"
)

// refFileName is the file that keeps the seq-th reference named name:
// "003 NAME.csv", with the characters a file name cannot hold on some
// system (path separators, : * ? " < > |, control characters) and % itself
// written as %XX, so refNameOf gives the name back exactly.
func refFileName(seq int, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%03d ", seq)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(`%/\:*?"<>|`, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	b.WriteString(".csv")
	return b.String()
}

// refNameOf is the order and name of a file refFileName named (ok false
// for any other name).
func refNameOf(file string) (seq int, name string, ok bool) {
	base, isCSV := strings.CutSuffix(file, ".csv")
	num, rest, found := strings.Cut(base, " ")
	if !isCSV || !found || rest == "" {
		return 0, "", false
	}
	seq, err := strconv.Atoi(num)
	if err != nil || seq < 1 {
		return 0, "", false
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		if rest[i] != '%' {
			b.WriteByte(rest[i])
			continue
		}
		if i+2 >= len(rest) {
			return 0, "", false
		}
		v, err := strconv.ParseUint(rest[i+1:i+3], 16, 8)
		if err != nil {
			return 0, "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return seq, b.String(), true
}

// writeTrace writes t to path as CSV through a temporary file renamed
// into place.
func writeTrace(t *dsp.Trace, path string) error {
	o, err := encode.Create(path)
	if err != nil {
		return err
	}
	defer o.Discard()
	if err := t.WriteCSV(o.W); err != nil {
		return err
	}
	return o.Commit()
}

// add adds t to the references and keeps it in the reference
// directory. A reference that could not be kept is still added (for this
// session): the error says so.
func (p *References) add(t *dsp.Trace) error {
	if err := p.set.Add(t); err != nil {
		return err
	}
	p.changed()
	return p.keep(p.set.Refs()[len(p.set.Refs())-1])
}

// keep writes r into the reference directory (none: nothing),
// after every file already there.
func (p *References) keep(r *view.Reference) error {
	dir := p.dir
	if dir == "" {
		return nil
	}
	fail := func(err error) error {
		return fmt.Errorf("prism: reference %q is stored for this session only: %w", r.Trace.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	path := filepath.Join(dir, refFileName(p.seq+1, r.Trace.Name))
	if err := writeTrace(r.Trace, path); err != nil {
		return fail(err)
	}
	p.seq++
	r.File = path
	return nil
}

// forget removes r's file from the reference directory, if it has one.
func (p *References) forget(r *view.Reference) error {
	if r.File == "" {
		return nil
	}
	if err := os.Remove(r.File); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("prism: reference %q: %w", r.Trace.Name, err)
	}
	return nil
}

// keptFile is a file of the reference directory.
type keptFile struct {
	seq        int
	name, path string
}

// LoadKept loads the references kept in the reference directory
// (its files of refFileName's form, in their order; other files are left
// alone). A directory that does not exist yet holds none; a file that
// does not read, or more than view.MaxReferences, is skipped and said in the
// status bar.
func (p *References) LoadKept() {
	dir := p.dir
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			p.host.AddNotice(fmt.Sprintf("prism: kept references: %v", err))
		}
		return
	}
	var files []keptFile
	for _, e := range entries {
		if seq, name, ok := refNameOf(e.Name()); ok && e.Type().IsRegular() {
			files = append(files, keptFile{seq, name, filepath.Join(dir, e.Name())})
		}
	}
	slices.SortFunc(files, func(a, b keptFile) int { return a.seq - b.seq })
	var skipped []string
	for _, f := range files {
		p.seq = max(p.seq, f.seq)
		t, err := dsp.ReadTraceFile(f.path)
		if err == nil {
			t.Name = f.name
			err = p.set.Add(t)
		}
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s (%v)", filepath.Base(f.path), err))
			continue
		}
		p.set.Refs()[len(p.set.Refs())-1].File = f.path
	}
	if len(skipped) > 0 {
		p.host.AddNotice(fmt.Sprintf("prism: kept references not loaded from %s: %s", dir, strings.Join(skipped, "; ")))
	}
	if len(p.set.Refs()) > 0 {
		p.changed()
	}
}
