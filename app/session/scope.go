package session

import (
	"github.com/prismaudio/prism/app/pitch"
	"github.com/prismaudio/prism/app/scope"
)

// tapSeconds is how much input the scope's tap keeps: the slowest time
// base (10 divisions of 100 ms) with room to find a trigger before it,
// and what the pitch trace reads between two frames of a slow window.
const tapSeconds = 2

// ScopeSource is the live input's newest blocks (a scopetap.Tap of every
// block the analysis reads), for the oscilloscope and the pitch trace.
// Any goroutine may read it.
func (m *Session) ScopeSource() scope.Source { return m.tap }

// FileSamples are path's samples of channel ch (−1: the mix) and its
// rate (pitch.ReadFile), for the file view's scope. It blocks while the
// file is decoded.
func (m *Session) FileSamples(path string, ch int) ([]float32, int, error) {
	x, rate, _, err := pitch.ReadFile(path, ch)
	return x, rate, err
}

// FilePitch is path's f0 track (pitch.TrackFile, prism pitch's). It
// blocks while the file is decoded and tracked.
func (m *Session) FilePitch(path string, o pitch.FileOptions) ([]pitch.Point, error) {
	pts, _, err := pitch.TrackFile(path, o)
	return pts, err
}
