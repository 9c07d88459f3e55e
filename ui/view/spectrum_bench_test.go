package view

import "testing"

// BenchmarkFrame is one display frame of the live views at 800×600:
// pulling three spectra, four columns and the band levels, and drawing.
func BenchmarkFrame(b *testing.B) {
	b.ReportAllocs()
	step := liveFrame(b)
	for b.Loop() {
		step()
	}
}
