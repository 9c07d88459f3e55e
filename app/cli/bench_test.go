package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prismaudio/prism/gpufft"
)

// TestBenchSizes: --sizes picks the rows (plan, size, hop) and a bad entry
// is a usage error that names it.
func TestBenchSizes(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run([]string{"bench", "--engine", "cpu", "--gonum=false", "--json", "--time", "1ms", "--cpu-samples", "8192",
		"--sizes", "256,c2c:128,spectrogram:512:128"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rows []gpufft.BenchResult
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := []struct {
		plan      string
		size, hop int
	}{{"r2c", 256, 0}, {"c2c", 128, 0}, {"spectrogram", 512, 128}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		if r.Plan != w.plan || r.Size != w.size || r.Hop != w.hop || r.MsPerCall <= 0 {
			t.Errorf("row %d: %s %d hop %d (%.3f ms), want %s %d hop %d", i, r.Plan, r.Size, r.Hop, r.MsPerCall, w.plan, w.size, w.hop)
		}
	}
	for _, bad := range []string{"x", "fft:1024", "spectrogram:1024", "spectrogram:1024:0", "spectrogram:1024:2048", "r2c:1024:3"} {
		code, msg := runCLI("bench", "--engine", "cpu", "--sizes", bad)
		if code != ExitUsage || !strings.Contains(msg, bad) {
			t.Errorf("--sizes %s: exit %d, %q; want %d naming it", bad, code, msg, ExitUsage)
		}
	}
}
