package view

import (
	"math"
	"strconv"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/app/tfrview"
)

// This file shows a file in an analysis mode (package tfrview: multi-
// resolution, variable-Q, reassigned): the overview and its detail carry
// their bins' centre frequencies, and drawing, the cursor's level, the
// spectrum under the cursor and its peak go through that table, as the
// live views' do (modes.go); so do lanes analysed in the mode
// (SetModeLanes).

// SetModeFile shows a file's overview in a mode, as SetFile shows an
// STFT's.
func (v *FileView) SetModeFile(s *tfrview.Spectrogram) {
	v.fsMode = s
	v.SetFile(&s.FileSpectrogram)
}

// SetModeDetail shows a region's analysis in the overview's mode where
// it covers the view, as SetDetail does an STFT's.
func (v *FileView) SetModeDetail(s *tfrview.Spectrogram) {
	v.detailMode = s
	v.SetDetail(&s.FileSpectrogram)
}

// SetModeLanes is SetLanes for lanes analysed in the overview's mode.
func (v *FileView) SetModeLanes(lanes []*tfrview.Spectrogram) {
	v.laneModes = lanes
	fs := make([]*analysis.FileSpectrogram, len(lanes))
	for i, l := range lanes {
		fs[i] = &l.FileSpectrogram
	}
	v.SetLanes(fs)
}

// ModeFile is the overview in a mode (nil: the overview, if any, is an
// STFT's).
func (v *FileView) ModeFile() *tfrview.Spectrogram { return v.fsMode }

// ModeDetail is the region's analysis in a mode shown over the overview
// (nil: none).
func (v *FileView) ModeDetail() *tfrview.Spectrogram { return v.detailMode }

// modeOf is src's mode spectrogram when src is the overview or the
// detail in a mode (nil: uniform bins).
func (v *FileView) modeOf(src *analysis.FileSpectrogram) *tfrview.Spectrogram {
	switch {
	case src == nil:
		return nil
	case v.fsMode != nil && src == &v.fsMode.FileSpectrogram:
		return v.fsMode
	case v.detailMode != nil && src == &v.detailMode.FileSpectrogram:
		return v.detailMode
	}
	for _, l := range v.laneModes {
		if src == &l.FileSpectrogram {
			return l
		}
	}
	return nil
}

// dropStaleModes forgets the mode spectrograms that are no longer the
// overview or the detail shown.
func (v *FileView) dropStaleModes() {
	if v.fsMode != nil && v.fs != &v.fsMode.FileSpectrogram {
		v.fsMode = nil
	}
	if v.detailMode != nil && v.detail != &v.detailMode.FileSpectrogram {
		v.detailMode = nil
	}
}

// sameBins says whether d's bins are the overview's: both an STFT's
// of one size, or both a mode's of one table.
func (v *FileView) sameBins(d *analysis.FileSpectrogram) bool {
	dm, fm := v.modeOf(d), v.fsMode
	if (dm == nil) != (fm == nil) {
		return false
	}
	if dm == nil {
		return d.FFT == v.fs.FFT
	}
	if len(dm.Freqs) != len(fm.Freqs) {
		return false
	}
	for k, f := range dm.Freqs {
		if f != fm.Freqs[k] {
			return false
		}
	}
	return true
}

// levelIn is src's column col's level at f (interpolated between bins).
func (v *FileView) levelIn(src *analysis.FileSpectrogram, col []float32, f float64) float64 {
	if s := v.modeOf(src); s != nil {
		return levelOf(col, 0, s.Freqs, f)
	}
	return levelAt(col, src.BinHz(), f)
}

// describe says what src is: its mode's label, or "N=4096 hop 1024".
func (v *FileView) describe(src *analysis.FileSpectrogram) string {
	if s := v.modeOf(src); s != nil {
		return s.Label()
	}
	return "N=" + strconv.Itoa(src.FFT) + " hop " + strconv.Itoa(src.Hop)
}

// setCursorBins gives the cursor's spectrum src's bins and its peak.
func (v *FileView) setCursorBins(src *analysis.FileSpectrogram) {
	if s := v.modeOf(src); s != nil {
		v.cur.BinHz, v.cur.Freqs, v.cur.ENBW = 0, s.Freqs, s.ENBW
		v.cur.Peak = s.Peak(v.cur.Current)
		return
	}
	v.cur.BinHz, v.cur.Freqs, v.cur.ENBW = src.BinHz(), nil, nil
	v.cur.Peak = src.Peak(v.cur.Current)
}

// renderModeRows draws a mode's visible region into H rows of v.plot
// from y0: per pixel the maximum of the columns it covers, each column
// mapped onto the rows by the bins' table (newFreqsBinMap's rule).
func (v *FileView) renderModeRows(s *tfrview.Spectrogram, y0, H int) {
	src := &s.FileSpectrogram
	W := v.area.Dx()
	m := newFreqsBinMap(v.axis, H, s.Freqs)
	sh := plot.NewShaderLUT(v.lut, v.dbMin, v.dbMax)
	n := len(src.Columns)
	for x := range W {
		c0, c1 := v.pixelColumns(src, x, W, n)
		for y := range H {
			r := H - 1 - y // row 0 of the map is the low end
			px := float32(math.Inf(-1))
			for c := c0; c < c1; c++ {
				px = max(px, m.value(r, src.Columns[c]))
			}
			sh.Put(v.plot.Pix[v.plot.PixOffset(x, y0+y):], px)
		}
	}
}

// pixelColumns are the columns [c0, c1) of src that pixel column x of W
// covers (at least the one nearest its centre).
func (v *FileView) pixelColumns(src *analysis.FileSpectrogram, x, W, n int) (c0, c1 int) {
	ta := v.t0 + float64(x)/float64(W)*(v.t1-v.t0)
	tb := v.t0 + float64(x+1)/float64(W)*(v.t1-v.t0)
	c0, c1 = int(math.Ceil(src.TimeColumn(ta))), int(math.Ceil(src.TimeColumn(tb)))
	c0, c1 = max(0, c0), min(n, c1)
	if c1 <= c0 {
		c0 = min(n-1, max(0, int(math.Round(src.TimeColumn((ta+tb)/2)))))
		c1 = c0 + 1
	}
	return c0, c1
}
