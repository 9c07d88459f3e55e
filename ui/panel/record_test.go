package panel

import (
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/live"
)

// TestHistoryMessage: a history export's message says the columns, the
// bins, their spacing, the frames each folds and the geometry's file
// (the export of ui's TestExportHistory: 48 kHz, N=4096, hop 1024, three
// frames a column).
func TestHistoryMessage(t *testing.T) {
	geo := live.Geometry{Rate: 48000, FFT: 4096, Hop: 1024}
	cg := geo
	cg.Hop *= 3
	msg := historyMessage([]string{"h.npy"}, live.HistoryInfo{Geometry: geo, ColumnGeometry: cg, FramesPerColumn: 3, Columns: 10})
	if !strings.Contains(msg, "10 columns × 2049 bins") || !strings.Contains(msg, "one column every 64 ms") ||
		!strings.Contains(msg, "maximum of 3 frames") || !strings.Contains(msg, "h.npy.json") {
		t.Errorf("message %q", msg)
	}
}

// TestRecordMessage: a saved recording's message says its frames, bins
// and gap rows (the recording of ui's TestRecordToggle).
func TestRecordMessage(t *testing.T) {
	st := live.RecordStatus{Path: "rec.npy", Saved: true, Geometry: live.Geometry{Rate: 48000, FFT: 4096, Hop: 1024}, Frames: 42, Gaps: 2}
	if msg := recordMessage(st); !strings.Contains(msg, "42 frames × 2049 bins") || !strings.Contains(msg, "2 of them gap rows") {
		t.Errorf("message %q", msg)
	}
}
