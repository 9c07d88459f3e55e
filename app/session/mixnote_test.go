package session

import (
	"strings"
	"testing"
)

// TestMixNoiseNote: the generator's noise in the mix view is explained
// (2 independent channels: 3.0 dB lower, 8: 9.0 dB); tones, one channel
// and the per-channel view need no note.
func TestMixNoiseNote(t *testing.T) {
	s := SourceSpec{Kind: SourceGenerator, Generator: "pink:-20"}
	if n := s.MixNoiseNote(2, false); !strings.Contains(n, "-20 dBFS RMS per channel") || !strings.Contains(n, "3.0 dB lower") {
		t.Errorf("2 channels: %q", n)
	}
	if n := s.MixNoiseNote(8, false); !strings.Contains(n, "9.0 dB lower") {
		t.Errorf("8 channels: %q", n)
	}
	for _, c := range []struct {
		gen string
		all bool
		ch  int
	}{{"sine:1000:-6", false, 2}, {"pink:-20", false, 1}, {"white:-20", true, 2}} {
		s.Generator = c.gen
		if n := s.MixNoiseNote(c.ch, c.all); n != "" {
			t.Errorf("%+v: note %q", c, n)
		}
	}
}
