package panel

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// TestExplain: failures read as one sentence for a user, with the action
// to take: the calibration chain, a missing output device, a
// wrong extension; an unknown chain gives its innermost message without
// the packages' prefixes, as a sentence.
func TestExplain(t *testing.T) {
	base := errors.New("dsp: distortion: no fundamental found")
	cal := fmt.Errorf("calibration from the input: %w", fmt.Errorf("live: dsp: calibrator recording: %w", base))
	for _, c := range []struct {
		err  error
		want string
	}{
		{cal, "No steady tone was found: play a tone (a calibrator's 1 kHz, or the generator's sine) and try again."},
		{fmt.Errorf("audio: playthrough: %w", errors.New("audio: no output device")), "There is no audio output device to play to: the analysis goes on without sound."},
		{errors.New("live: record audio: a.npy: record audio as .wav or .flac"), "Audio is recorded as WAV or FLAC: give the file a .wav or .flac name."},
		{fmt.Errorf("ui: open: %w", &os.PathError{Op: "open", Path: "/x", Err: errors.New("is locked")}), "Open /x: is locked."},
		{errors.New("live: engine: the plan failed"), "The plan failed."},
	} {
		if got := Explain(c.err); got != c.want {
			t.Errorf("Explain(%q) = %q, want %q", c.err, got, c.want)
		}
	}
	if Explain(nil) != "" {
		t.Error("Explain(nil) is not empty")
	}
}

// TestNoticeFades: news shows at once and goes after NoticeFor, a failure
// stays twice as long and keeps its chain under Details (inline only
// when Verbose); ✕ clears it.
func TestNoticeFades(t *testing.T) {
	test.NewTempApp(t)
	now := time.Unix(1000, 0)
	n := NewNotice(nil)
	n.now = func() time.Time { return now }
	n.Info("Saved x.png.")
	if !n.Object().Visible() || n.Text() != "Saved x.png." || n.Failed() || n.details.Visible() {
		t.Fatalf("news: shown %v, text %q, failed %v, details %v", n.Object().Visible(), n.Text(), n.Failed(), n.details.Visible())
	}
	now = now.Add(NoticeFor + time.Millisecond)
	n.Tick()
	if n.Object().Visible() || n.Text() != "" {
		t.Error("news did not fade")
	}
	err := errors.New("live: record: write output: no space left on device")
	n.Error(err)
	now = now.Add(NoticeFor + time.Millisecond)
	n.Tick()
	if !n.Failed() || n.Text() != "The disk is full: free some space or choose another disk, then try again." || !n.details.Visible() || n.text.Text != n.Text() {
		t.Errorf("failure: failed %v, %q, details %v, shown %q", n.Failed(), n.Text(), n.details.Visible(), n.text.Text)
	}
	now = now.Add(NoticeFor)
	n.Tick()
	if n.Text() != "" {
		t.Error("a failure did not fade after twice NoticeFor")
	}
	n.Verbose = true
	n.Error(err)
	if n.details.Visible() || n.text.Text != n.Text()+" ("+err.Error()+")" {
		t.Errorf("verbose: details %v, shown %q", n.details.Visible(), n.text.Text)
	}
	n.close.OnTapped()
	if n.Object().Visible() {
		t.Error("✕ did not clear it")
	}
}

// TestProposedName: the save dialogs propose the source's name and the
// time, never a fixed name, made safe for a file name.
func TestProposedName(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 4, 5, 0, time.Local)
	for _, c := range []struct{ src, kind, ext, want string }{
		{"/music/My Song.flac", "spectrum", ".csv", "My-Song_2026-11-27_120405_spectrum.csv"},
		{"sine:1000:-6", "audio", ".wav", "sine-1000--6_2026-11-27_120405_audio.wav"},
		{"", "plots", ".png", "2026-11-27_120405_plots.png"},
	} {
		if got := ProposedName(c.src, c.kind, c.ext, at); got != c.want {
			t.Errorf("ProposedName(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}
