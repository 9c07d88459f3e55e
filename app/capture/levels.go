package capture

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/levellog"
	"github.com/prismaudio/prism/app/live"
)

// LevelsPath is where a capture to out writes its level log: beside it,
// its extension replaced by ".levels.csv".
func LevelsPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".levels.csv"
}

// levelsTee is a capture's level log (Options.LevelsEvery): a live.Tee
// in slot live.TeeLevels writing package levellog's CSV into a temporary
// output committed beside the capture's. Write runs on the engine
// goroutine; the first write error is kept and ends the logging.
type levelsTee struct {
	o        *encode.Output
	w        *levellog.Writer
	channels int
	err      error
}

// startLevels starts the level log of the capture's channel (channel 0
// for the mix) on l, or returns nil when none is asked for.
func startLevels(l *live.Live, channels, rate int, opts Options) (*levelsTee, error) {
	if opts.LevelsEvery <= 0 {
		return nil, nil
	}
	o, err := encode.CreateWith(LevelsPath(opts.Out), encode.CreateOptions{Force: opts.Force})
	if err != nil {
		return nil, err
	}
	w, err := levellog.NewWriter(o.W, rate, channels, levellog.Options{Every: opts.LevelsEvery, Channel: max(0, opts.Channel)})
	if err != nil {
		o.Discard()
		return nil, err
	}
	t := &levelsTee{o: o, w: w, channels: channels}
	l.SetTeeAt(live.TeeLevels, t)
	return t, nil
}

func (t *levelsTee) Channels() int { return t.channels }

func (t *levelsTee) Write(p []float32, _ time.Time) {
	if t.err == nil {
		t.err = t.w.Write(p)
	}
}

// finish stops the tee and commits the log (its last interval however
// short); discard drops it. Either may follow the other; a nil tee does
// nothing.
func (t *levelsTee) finish(l *live.Live) error {
	if t == nil {
		return nil
	}
	l.SetTeeAt(live.TeeLevels, nil)
	if t.err != nil {
		return t.err
	}
	if err := t.w.Close(); err != nil {
		return err
	}
	return t.o.Commit()
}

func (t *levelsTee) discard() {
	if t != nil {
		t.o.Discard()
	}
}
