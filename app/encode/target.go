package encode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/prismaudio/prism/internal/message"
)

// Target is where a command of several inputs (`prism analyze`) writes:
// one file, or a directory of IN-base-name.FORMAT.
type Target struct {
	Out    string
	ToDir  bool
	Format Format
}

// ResolveTarget reads -o and --format for inputs inputs. Several inputs
// need a directory: one that exists, a name ending in "/", or a name
// without an output format's extension; a file name such as out.npy is
// refused rather than made a directory.
func ResolveTarget(out, format string, inputs int) (Target, error) {
	st, statErr := os.Stat(out)
	isDir := strings.HasSuffix(out, "/") || (statErr == nil && st.IsDir())
	if f, ok := FormatOf(out); ok && inputs > 1 && !isDir {
		return Target{}, fmt.Errorf("-o %s: several inputs need a directory (-o DIR/), not a .%s file", message.Quote(out), f)
	}
	t := Target{Out: out, ToDir: isDir || inputs > 1}
	if !t.ToDir {
		f, ok := FormatOf(out)
		if !ok {
			return t, fmt.Errorf("-o %s: unknown output format (want .png, .npy or .csv)", out)
		}
		if format != "" && Format(format) != f {
			return t, fmt.Errorf("--format %s disagrees with -o %s", format, out)
		}
		t.Format = f
		return t, nil
	}
	t.Format = Format(format)
	if format == "" {
		t.Format = FormatPNG
	}
	if t.Format != FormatPNG && t.Format != FormatNPY && t.Format != FormatCSV {
		return t, fmt.Errorf("--format %q: want png, npy or csv", format)
	}
	if statErr == nil && !st.IsDir() {
		return t, fmt.Errorf("-o %s: several inputs need a directory", out)
	}
	return t, nil
}

// Paths returns each input's output: DIR/NAME.FORMAT, or where two inputs
// share a NAME, DIR/NAME.EXT.FORMAT for each of them (said in notes). Two
// inputs that would still write one file (the same base name in two
// folders) are an error: nothing is analyzed.
func (t Target) Paths(inputs []string) (out []string, notes []string, err error) {
	if !t.ToDir {
		for range inputs {
			out = append(out, t.Out)
		}
		if len(inputs) > 1 {
			return nil, nil, fmt.Errorf("-o %s: several inputs need a directory", t.Out)
		}
		return out, nil, nil
	}
	short := func(in string) string { return strings.TrimSuffix(filepath.Base(in), filepath.Ext(in)) }
	count := map[string]int{}
	for _, in := range inputs {
		count[short(in)]++
	}
	owner := map[string]string{}
	for _, in := range inputs {
		name := short(in)
		if count[name] > 1 {
			name = filepath.Base(in)
		}
		dst := filepath.Join(t.Out, name+"."+string(t.Format))
		if prev, ok := owner[dst]; ok {
			return nil, nil, fmt.Errorf("%s and %s would both write %s: rename one or analyze them separately", message.Quote(prev), message.Quote(in), message.Quote(dst))
		}
		owner[dst] = in
		if count[short(in)] > 1 {
			notes = append(notes, fmt.Sprintf("%s → %s (inputs share the name %s)", message.Quote(in), message.Quote(dst), message.Quote(short(in))))
		}
		out = append(out, dst)
	}
	return out, notes, nil
}
