package message

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar is a progress bar of frames on a terminal; it draws nothing
// elsewhere, or when quiet.
type Bar struct {
	b       *progressbar.ProgressBar
	w       io.Writer
	name    string
	enabled bool
}

// NewBar is the bar of the file name on w (a SafeWriter or a file).
func NewBar(quiet bool, w io.Writer, name string) *Bar {
	return &Bar{w: w, name: name, enabled: !quiet && isTerminal(w)}
}

// Progress draws done of total frames (an analysis's Progress).
func (b *Bar) Progress(done, total int) {
	if !b.enabled {
		return
	}
	if b.b == nil {
		b.b = progressbar.NewOptions(total, progressbar.OptionSetWriter(RawWriter(b.w)),
			progressbar.OptionSetDescription(string(Escape([]byte(b.name)))), progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("frames"), progressbar.OptionShowIts(),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	b.b.Set(done)
}

// Finish clears the bar.
func (b *Bar) Finish() {
	if b.b != nil {
		b.b.Finish()
	}
}

// isTerminal says whether w (under a SafeWriter) is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := RawWriter(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
