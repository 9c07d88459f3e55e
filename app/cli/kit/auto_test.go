package kit

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
)

// TestAutoEngine: auto's choice on the measured thresholds — one file to
// analyze is the CPU's whatever its length, a batch the GPU's from 70
// channel-minutes, filter from 40, spectrum and bands from 240 — and a
// choice that is not auto is kept.
func TestAutoEngine(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		w    AutoWork
		want string
	}{
		{"analyze", AutoWork{ChannelMinutes: 120, Files: 1}, engine.CPU},
		{"analyze", AutoWork{ChannelMinutes: 60, Files: 3}, engine.CPU},
		{"analyze", AutoWork{ChannelMinutes: 400, Files: 20}, engine.Auto},
		{"filter", AutoWork{ChannelMinutes: 20, Files: 1}, engine.CPU},
		{"filter", AutoWork{ChannelMinutes: 120, Files: 1}, engine.Auto},
		{"spectrum", AutoWork{ChannelMinutes: 120, Files: 1}, engine.CPU},
		{"bands", AutoWork{ChannelMinutes: 300, Files: 1}, engine.Auto},
		{"ir", AutoWork{ChannelMinutes: 600, Files: 1}, engine.CPU},
	} {
		if got, why := AutoEngine(c.cmd, engine.Auto, c.w); got != c.want || why == "" {
			t.Errorf("%s %+v: %q (%s), want %q", c.cmd, c.w, got, why, c.want)
		}
	}
	if got, _ := AutoEngine("analyze", engine.GPU, AutoWork{Files: 1}); got != engine.GPU {
		t.Errorf("--engine gpu became %q", got)
	}
}

// TestWorkOf: the channel-minutes come from the files' headers (a
// stereo 3-s and a mono 6-s file: 0.2 channel-minutes); a file that does
// not open counts as none; ChooseEngine says its choice when verbose.
func TestWorkOf(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav")
	apptest.WriteWAV(t, a, 8000, [][]float32{make([]float32, 24000), make([]float32, 24000)})
	apptest.WriteWAV(t, b, 8000, [][]float32{make([]float32, 48000)})
	w := WorkOf([]string{a, b, filepath.Join(dir, "missing.wav")})
	if w.Files != 3 || w.ChannelMinutes < 0.1999 || w.ChannelMinutes > 0.2001 {
		t.Errorf("work %+v, want 3 files, 0.2 channel-minutes", w)
	}
	var msg bytes.Buffer
	if got := ChooseEngine("analyze", engine.Auto, []string{a}, true, &msg); got != engine.CPU || !strings.Contains(msg.String(), "prism: analyze: --engine auto: the CPU engine") {
		t.Errorf("%q, said %q", got, msg.String())
	}
}
