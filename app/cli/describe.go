package cli

import (
	"flag"
	"io"
	"strings"

	"github.com/prismaudio/prism/app/cli/kit"
)

// Describing: a command's flags and usage read without running it, for
// the man pages and shell completions the packages ship (package dist):
// kit.Describe runs each command with its parse handing over the flag
// set instead of parsing.

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

// Describe returns every command's help, in Commands order.
func Describe() []CommandHelp {
	var out []CommandHelp
	for _, c := range Commands() {
		h := CommandHelp{Name: c.Name, Summary: c.Summary}
		kit.Describe(func() { c.Run(nil, io.Discard, io.Discard) }, func(fs *flag.FlagSet, usage string) {
			d := HelpOf(fs, usage, c.Summary)
			h.Usage, h.Flags = d.Usage, d.Flags
		})
		out = append(out, h)
	}
	return out
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
