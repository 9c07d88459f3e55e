package cli

import (
	"flag"
	"io"
	"time"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/levellog"
)

// levelLogFlags are `prism levels`' level-log flags (package levellog).
type levelLogFlags struct {
	every   time.Duration
	csv     bool
	channel int
}

func (f *levelLogFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.every, "every", 0, "a level log: LAeq, LCeq, LAFmax, LASmax, LCpeak and peaks per interval DUR (with --csv)")
	fs.BoolVar(&f.csv, "csv", false, "write the level log as CSV (with --every)")
	fs.IntVar(&f.channel, "channel", 0, "the channel the level log measures")
}

func (f *levelLogFlags) asked() bool { return f.every != 0 || f.csv }

// run writes the level log of in to stdout.
func (f *levelLogFlags) run(in string, asJSON bool, cal calFlags, stdout, stderr io.Writer) int {
	usage := kit.UsageError("levels", stderr)
	switch {
	case !f.csv || f.every <= 0:
		return usage("a level log takes --every DUR (> 0) and --csv")
	case asJSON:
		return usage("--json and --csv: give one output format")
	}
	lc, err := cal.level(f.channel)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	ctx, stop := kit.WatchSignals(stderr, nil)
	defer stop()
	warn, err := levellog.File(ctx, in, levellog.Options{Every: f.every, Channel: f.channel, OffsetDB: lc.OffsetDB}, stdout)
	kit.Warn(stderr, warn)
	if err != nil {
		return kit.Failure(stderr, err)
	}
	return ExitOK
}
