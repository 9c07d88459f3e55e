package plot

import "testing"

// TestFrameColumnsExact: FrameColumns names exactly the columns whose
// ColumnFrames hold a frame, folding (more frames than columns) or not.
func TestFrameColumnsExact(t *testing.T) {
	for _, g := range [][2]int{{37, 260}, {7, 7}, {100, 33}, {1920, 720000 / 97}, {3, 1000}} {
		columns, frames := g[0], g[1]
		for f := range frames {
			first, last := FrameColumns(f, columns, frames)
			for c := max(0, first-2); c < min(columns, last+3); c++ {
				lo, hi := ColumnFrames(c, columns, frames)
				if in, want := c >= first && c <= last, lo <= f && f < hi; in != want {
					t.Fatalf("%d columns, %d frames: frame %d in column %d (frames %d…%d): %v, want %v", columns, frames, f, c, lo, hi-1, in, want)
				}
			}
		}
	}
}
