package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/live/rowsink"
	"github.com/prismaudio/prism/app/plot"
)

// HistoryInfo says what a history export holds: the frames' geometry,
// the columns' (their Hop is the time between columns) and how many
// frames each column folds by maximum (1 up to 500 frames/s), the
// columns' count and the number of the oldest one since the settings
// were last applied.
type HistoryInfo struct {
	Geometry        Geometry
	ColumnGeometry  Geometry
	FramesPerColumn int
	Columns         int
	FirstColumn     uint64
}

// historySidecar is the JSON written beside an exported history
// (PATH.json): what the NPY's shape and the CSV's times do not say.
type historySidecar struct {
	Source          string  `json:"source"`
	Channel         string  `json:"channel"`
	Unit            string  `json:"unit"`
	SampleRate      int     `json:"sample_rate"`
	FFT             int     `json:"fft"`
	Hop             int     `json:"hop"`
	FramesPerColumn int     `json:"frames_per_column"`
	ColumnSeconds   float64 `json:"column_seconds"`
	Columns         int     `json:"columns"`
	Bins            int     `json:"bins"`
	BinHz           float64 `json:"bin_hz"`
	FirstColumn     uint64  `json:"first_column"`
	Fold            string  `json:"fold"`
}

// ExportHistory writes the spectrogram history's kept columns of output
// channels chans (c = Channels for the mix) to paths (one each, the
// format by the extension: NPY rows × bins float32, CSV `time_s,` then
// the bins' frequencies, one row per column at its first frame's centre
// time from the oldest kept, or PNG, drawn as `prism capture` draws with
// img's size, scale, range and colormap), each through a temporary file,
// with PATH.json beside it saying the geometry, the columns' spacing and
// the frames each column folds. The columns of every channel are the
// same ones, read at once. Any goroutine may call it; it copies the
// history (allocating) and writes on the caller's goroutine, never
// holding the engine's lock while writing.
func (l *Live) ExportHistory(paths []string, chans []int, img plot.ImageOptions) (HistoryInfo, error) {
	if len(paths) != len(chans) || len(paths) == 0 {
		return HistoryInfo{}, fmt.Errorf("live: history: %d paths for %d channels", len(paths), len(chans))
	}
	formats := make([]encode.Format, len(paths))
	for i, p := range paths {
		f, ok := encode.FormatOf(p)
		if !ok {
			return HistoryInfo{}, fmt.Errorf("live: history: %s: export as .npy, .csv or .png", filepath.Base(p))
		}
		formats[i] = f
	}
	cols, info, err := l.pub.snapshotHistory(chans)
	if err != nil {
		return info, err
	}
	source := l.stats.source()
	for i, p := range paths {
		name := l.channelName(chans[i])
		if err := writeHistory(p, formats[i], cols[i], info, img, source, name); err != nil {
			return info, err
		}
	}
	return info, nil
}

// channelName names output channel c of the current source, counting
// from 1 as the files' names (NAME.ch1 …) and the window do.
func (l *Live) channelName(c int) string {
	l.pub.mu.Lock()
	defer l.pub.mu.Unlock()
	if c == len(l.pub.hist)-1 {
		return "mix"
	}
	return fmt.Sprintf("channel %d", c+1)
}

// writeHistory writes one channel's columns and their sidecar.
func writeHistory(path string, format encode.Format, cols [][]float32, info HistoryInfo, img plot.ImageOptions, source, channel string) error {
	o, err := encode.Create(path)
	if err != nil {
		return fmt.Errorf("live: history: %w", err)
	}
	defer o.Discard()
	g, n := info.ColumnGeometry, len(cols)
	var rw encode.RowWriter
	switch format {
	case encode.FormatNPY:
		rw, err = encode.NewNPYRows(o, g.Bins())
	case encode.FormatCSV:
		rw, err = encode.NewCSVRows(o, g.FFT, g.Hop, g.Rate)
	default:
		img.Title = fmt.Sprintf("live history: %s   N=%d  hop=%d × %d  %s", source, g.FFT, info.Geometry.Hop, info.FramesPerColumn, channel)
		rw = rowsink.NewImage(o, plot.NewSpectrogram(img, plot.Geometry{Rate: g.Rate, FFT: g.FFT, Hop: g.Hop, Frames: n}), n)
	}
	if err != nil {
		return fmt.Errorf("live: history: %w", err)
	}
	for i, row := range cols {
		if err := rw.Rows(i, row); err != nil {
			return fmt.Errorf("live: history: %w", err)
		}
	}
	if err := errors.Join(rw.Finish(n), o.Commit()); err != nil {
		return fmt.Errorf("live: history: %w", err)
	}
	return writeSidecar(path+".json", historySidecar{Source: source, Channel: channel, Unit: "dBFS",
		SampleRate: g.Rate, FFT: g.FFT, Hop: info.Geometry.Hop, FramesPerColumn: info.FramesPerColumn,
		ColumnSeconds: g.HopSeconds(), Columns: n, Bins: g.Bins(), BinHz: g.BinHz(), FirstColumn: info.FirstColumn,
		Fold: "each column is the per-bin maximum of its frames"})
}

// writeSidecar writes v as indented JSON to path (temporary file, then
// renamed).
func writeSidecar(path string, v any) error {
	o, err := encode.Create(path)
	if err != nil {
		return fmt.Errorf("live: history: %w", err)
	}
	defer o.Discard()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("live: history: %w", err)
	}
	if _, err := o.W.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("live: history: write %s: %w", filepath.Base(path), err)
	}
	if err := o.Commit(); err != nil {
		return fmt.Errorf("live: history: %w", err)
	}
	return nil
}
