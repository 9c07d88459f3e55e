package cli

import (
	"flag"
	"io"
	"strings"
	"sync"
)

// Describing: a command's flags and usage read without running it, for
// the man pages and shell completions the packages ship (package dist).
// While Describe runs, each command's parse hands its flag set to the
// describer and stops, as -h would, without doing anything.

// CommandHelp is one command's own help.
type CommandHelp struct {
	Name, Summary string
	Usage         string // the usage text `prism NAME -h` prints, without the "Usage:" line
	Flags         []FlagHelp
}

// FlagHelp is one flag.
type FlagHelp struct {
	Name    string
	Arg     string // the value's name ("" for a boolean flag)
	Usage   string
	Default string // "" when the zero value
}

var (
	describeMu sync.Mutex
	describer  func(fs *flag.FlagSet, usage string) // set while Describe runs
	usages     = map[*flag.FlagSet]string{}
)

// Describe returns every command's help, in Commands order.
func Describe() []CommandHelp {
	describeMu.Lock()
	defer describeMu.Unlock()
	var out []CommandHelp
	for _, c := range Commands() {
		h := CommandHelp{Name: c.Name, Summary: c.Summary}
		describer = func(fs *flag.FlagSet, usage string) {
			d := HelpOf(fs, usage, c.Summary)
			h.Usage, h.Flags = d.Usage, d.Flags
		}
		c.Run(nil, io.Discard, io.Discard)
		out = append(out, h)
	}
	describer = nil
	clear(usages)
	return out
}

// noteUsage keeps a flag set's usage text while Describe runs.
func noteUsage(fs *flag.FlagSet, usage string) {
	if describer != nil {
		usages[fs] = usage
	}
}

// described hands fs to the describer, if one is set, and says so: the
// command then stops.
func described(fs *flag.FlagSet) bool {
	if describer == nil {
		return false
	}
	describer(fs, usages[fs])
	return true
}

// HelpOf describes a flag set with its usage text and summary (the
// window's flags use it too).
func HelpOf(fs *flag.FlagSet, usage, summary string) CommandHelp {
	h := CommandHelp{Name: strings.TrimPrefix(strings.TrimPrefix(fs.Name(), "prism"), " "), Summary: summary, Usage: usage}
	fs.VisitAll(func(f *flag.Flag) {
		arg, u := flag.UnquoteUsage(f)
		def := f.DefValue
		if def == "false" || def == "0" {
			def = ""
		}
		h.Flags = append(h.Flags, FlagHelp{Name: f.Name, Arg: arg, Usage: u, Default: def})
	})
	return h
}
