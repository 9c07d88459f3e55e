package panel

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// Notice is the window's one line of news, above the status bar: what
// just happened and, for a failure, the action to take, in a user's
// words; never a modal dialog. A failure keeps the error it came from
// behind a Details button (the Go error chain, for a bug report), or
// shows it inline under Verbose. A notice goes away by itself after
// NoticeFor (a failure after twice that), or with its ✕ button.
//
// All its methods run on the Fyne goroutine.
type Notice struct {
	Verbose bool // show the error chain inline ("--verbose")

	win     fyne.Window
	now     func() time.Time
	text    *widget.Label
	details *widget.Button
	close   *widget.Button
	box     *fyne.Container
	err     error     // the failure shown, nil for news
	until   time.Time // when it goes (Tick)
	shown   string    // the sentence shown ("" none)
	failed  bool
}

// NoticeFor is how long a notice of news stays.
const NoticeFor = 6 * time.Second

// NewNotice makes the notice line of win (hidden until there is news).
func NewNotice(win fyne.Window) *Notice {
	n := &Notice{win: win, now: time.Now}
	n.text = widget.NewLabel("")
	n.text.Truncation = fyne.TextTruncateEllipsis
	n.details = widget.NewButton("Details", n.showDetails)
	n.close = widget.NewButton("✕", n.Clear)
	n.box = container.NewBorder(nil, nil, nil, container.NewHBox(n.details, n.close), n.text)
	n.box.Hide()
	return n
}

// Object is the line, for the window's layout.
func (n *Notice) Object() fyne.CanvasObject { return n.box }

// Info shows news: one sentence saying what was done ("Saved …").
func (n *Notice) Info(sentence string) {
	n.show(sentence, nil, NoticeFor)
}

// Fail shows a failure: sentence says what happened and the action to
// take; err (optional) is the chain behind it, under Details.
func (n *Notice) Fail(sentence string, err error) {
	n.show(sentence, err, 2*NoticeFor)
}

// Error shows err as a failure in a user's words (Explain).
func (n *Notice) Error(err error) {
	n.Fail(Explain(err), err)
}

func (n *Notice) show(sentence string, err error, d time.Duration) {
	n.shown, n.err, n.failed = sentence, err, err != nil || d > NoticeFor
	text := sentence
	if err != nil && n.Verbose {
		text += " (" + err.Error() + ")"
	}
	n.text.SetText(text)
	n.text.Importance = widget.MediumImportance
	if n.failed {
		n.text.Importance = widget.DangerImportance
	}
	n.text.Refresh()
	if err != nil && !n.Verbose {
		n.details.Show()
	} else {
		n.details.Hide()
	}
	n.until = n.now().Add(d)
	n.box.Show()
}

// Text is the sentence shown ("" when none), Failed whether it tells of a
// failure.
func (n *Notice) Text() string { return n.shown }
func (n *Notice) Failed() bool { return n.shown != "" && n.failed }

// Tick hides the notice once its time is up (the window's status tick
// calls it).
func (n *Notice) Tick() {
	if n.shown != "" && n.now().After(n.until) {
		n.Clear()
	}
}

// Clear hides the notice.
func (n *Notice) Clear() {
	n.shown, n.err, n.failed = "", nil, false
	n.text.SetText("")
	n.box.Hide()
}

// showDetails shows the error chain behind the notice.
func (n *Notice) showDetails() {
	if n.err == nil || n.win == nil {
		return
	}
	msg := widget.NewLabel(n.err.Error())
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Details", "Close", msg, n.win)
	d.Resize(fyne.NewSize(560, 0))
	d.Show()
}

// Explainer turns a failure into one sentence for a user (what happened
// and what to do), or "" to pass. Packages add theirs with AddExplainer.
type Explainer func(err error) string

var explainers []Explainer

// AddExplainer adds a rule Explain tries (before the built-in ones). Call
// it at start-up (an init), not concurrently with Explain.
func AddExplainer(e Explainer) { explainers = append(explainers, e) }

// userPhrases are the failures the analysis reports and what they mean
// to a user: the first whose key the error's text holds wins.
var userPhrases = []struct{ key, sentence string }{
	{"no fundamental found", "No steady tone was found: play a tone (a calibrator's 1 kHz, or the generator's sine) and try again."},
	{"no output device", "There is no audio output device to play to: the analysis goes on without sound."},
	{"no such file or directory", "That file or folder does not exist: check the path and try again."},
	{"permission denied", "Prism may not write there: choose another folder."},
	{"no space left", "The disk is full: free some space or choose another disk, then try again."},
	{"already recording", "A recording is already running: stop it first."},
	{"record audio as .wav", "Audio is recorded as WAV or FLAC: give the file a .wav or .flac name."},
	{"record as .npy or .csv", "The analysis is recorded as NPY or CSV: give the file a .npy or .csv name."},
	{"as .csv or .npy", "The spectrum is exported as CSV or NPY: give the file a .csv or .npy name."},
	{"move the cursor over the file", "No spectrum yet: move the cursor over the file first."},
	{"no spectrum yet", "No spectrum yet: wait for the analysis to start, then export again."},
	{"not a WAV, FLAC or MP3", "Prism opens WAV, FLAC and MP3 files: choose one of those."},
}

// Explain is err as one sentence for a user: a rule's (AddExplainer), a
// known failure's, or else the innermost message of the chain, without
// the packages' prefixes, as a sentence.
func Explain(err error) string {
	if err == nil {
		return ""
	}
	for _, e := range explainers {
		if s := e(err); s != "" {
			return s
		}
	}
	text := err.Error()
	low := strings.ToLower(text)
	for _, p := range userPhrases {
		if strings.Contains(low, p.key) {
			return p.sentence
		}
	}
	return sentence(innermost(err))
}

// innermost is the message of the deepest error of err's chain that says
// something of its own: fmt.Errorf's "context: %w" wrappers are passed
// through, a typed error (an *os.PathError with its path) is kept whole.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if t := fmt.Sprintf("%T", err); next == nil || (t != "*fmt.wrapError" && t != "*fmt.wrapErrors") {
			break
		}
		err = next
	}
	text := err.Error()
	// chains built with %v rather than %w: strip the "pkg: " prefixes
	for {
		head, rest, ok := strings.Cut(text, ": ")
		if !ok || strings.ContainsAny(head, " /\\.") || rest == "" {
			break
		}
		text = rest
	}
	return text
}

// sentence starts s with a capital and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "Something went wrong."
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}
