package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/gpufft"
)

// TestTransferRow: the transfer row parses, refuses bad entries, and
// measures the live path on the CPU engine: frames per call and per
// second consistent with the time per call (frames/call ÷ ms/call), the
// note and the table's line.
func TestTransferRow(t *testing.T) {
	c, err := ParseTransferCase("transfer:4096:512:2")
	if err != nil || c != (TransferCase{Size: 4096, Hop: 512, Channels: 2}) || !IsTransferCase(" transfer:1:2:3") {
		t.Fatalf("ParseTransferCase: %+v, %v", c, err)
	}
	for _, bad := range []string{"transfer:4000:512:2", "transfer:4096:0:2", "transfer:4096:512:0", "transfer:4096:512", "spectrogram:4096:512:2"} {
		if _, err := ParseTransferCase(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	b := Engines{Custom: []gpufft.BenchCase{}, Transfer: []TransferCase{c}, MinTime: 100 * time.Millisecond}
	b.transfer("CPU", cpu)
	if b.Failed || len(b.Rows) != 1 {
		t.Fatalf("rows %+v, failed %v", b.Rows, b.Failed)
	}
	r := b.Rows[0]
	gs := float64(r.Batch) * float64(c.Hop*(1+c.Channels)) / r.MsPerCall / 1e6
	if r.Plan != "transfer" || r.Batch < 1 || r.Calls < 3 || r.MsPerCall <= 0 || r.GSamplesSec/gs < 0.5 || r.GSamplesSec/gs > 2 {
		t.Errorf("row %+v (frames per call over time per call: %.4g Gsamples/s)", r, gs)
	}
	var out bytes.Buffer
	PrintRows(&out, b.Rows)
	if !strings.Contains(out.String(), "cpu transfer N=4096 hop 512: 2+1 channels:") || !strings.Contains(out.String(), "real time at 192000 Hz") {
		t.Errorf("table:\n%s", out.String())
	}
}
