package ui

import (
	"testing"

	"github.com/prismaudio/prism/app/dsp"
)

// TestDefaultWeighting: the RTA starts Z-weighted, as prism bands.
func TestDefaultWeighting(t *testing.T) {
	if got := DefaultSettings().Weighting; got != dsp.DefaultWeighting {
		t.Errorf("window's default weighting %s, prism bands' %s", got, dsp.DefaultWeighting)
	}
	if d := DefaultSettings(); d.Weighting.String() != "Z" {
		t.Errorf("default weighting %s, want Z (as prism bands)", d.Weighting)
	}
}
