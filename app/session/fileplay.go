package session

import (
	"context"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/playback"
	"github.com/prismaudio/prism/app/selection"
)

// OpenPlayer reads the file at path into a player to the output device
// ("" the default; a name from OutputDevices), band-filtered by band (the
// zero BandSpec: none) on the session's engines, as the playthrough
// filters the input.
func (m *Session) OpenPlayer(path string, band dsp.BandSpec, device string) (*playback.Player, error) {
	return playback.Open(path, playback.Config{Device: device, Band: band, Engines: m.engines})
}

// AnalyzeSelection measures the selection r of the file at path on the
// session's engines (selection.Analyze).
func (m *Session) AnalyzeSelection(ctx context.Context, path string, r selection.Range, o selection.Options) (selection.Result, error) {
	return selection.Analyze(ctx, path, r, o, m.engines)
}
