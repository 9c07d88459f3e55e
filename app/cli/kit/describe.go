package kit

import (
	"flag"
	"sync"
)

// Describing: a command's flags and usage read without running it (the
// man pages and completions of package cli's Describe). While Describe
// runs a command, its parse hands the flag set to the describer and
// stops, as -h would, without doing anything.

var (
	describeMu sync.Mutex
	describer  func(fs *flag.FlagSet, usage string) // set while Describe runs
	usages     = map[*flag.FlagSet]string{}
)

// Describe calls run (a command's Run) with fn receiving the command's
// flag set and usage text at its parse, instead of parsing.
func Describe(run func(), fn func(fs *flag.FlagSet, usage string)) {
	describeMu.Lock()
	defer describeMu.Unlock()
	describer = fn
	defer func() { describer = nil; clear(usages) }()
	run()
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
