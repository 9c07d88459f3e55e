package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/live"
)

// TestCaptureMode: `prism capture --mode multires --stats` runs the mode
// live on the generator and prints its statistics: about rate/hop frames
// a second (the mode's span, its first frame, less), none dropped; -o
// and another mode's flags are refused.
func TestCaptureMode(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run([]string{"capture", "--mode", "multires", "--sizes", "4096,1024", "--hop", "512", "--window", "flattop",
		"--generator", "sine:1000:-6", "--rate", "48000", "--channels", "2", "--engine", "cpu", "--seconds", "1.5", "--stats", "--quiet"}, &out, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var st live.Stats
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	// 1.5 s at hop 512: 140 frames less the 4096-sample span's 8; the
	// machine may start the run late, not lose input
	if st.FFT != 4096 || st.Hop != 512 || st.Frames < 60 || st.Frames > 141 || st.DroppedFrames != 0 {
		t.Errorf("stats: span %d, hop %d, %d frames, %d dropped", st.FFT, st.Hop, st.Frames, st.DroppedFrames)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capture", "--mode", "vqt", "-o", "x.npy", "--generator", "sine:1000:-6"}, "writes no file"},
		{[]string{"capture", "--mode", "vqt", "--sizes", "4096,1024", "--generator", "sine:1000:-6"}, "--sizes applies to --mode multires or reassigned only"},
		{[]string{"capture", "--mode", "wavelet", "--generator", "sine:1000:-6"}, "unknown mode"},
	} {
		code, stderr := runCLI(c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, stderr, ExitUsage, c.want)
		}
	}
}
