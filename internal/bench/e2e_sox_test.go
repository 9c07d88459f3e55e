package bench

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ESox: bench --e2e's reference row runs sox on the file and draws
// its spectrogram (a PNG of sox's own size), and the summary states the
// CPU engine's PNG time as a share of sox's.
func TestE2ESox(t *testing.T) {
	if _, err := exec.LookPath("sox"); err != nil {
		if os.Getenv("PRISM_REQUIRE_AUDIO") == "1" { // the README's set-up installs sox with the audio stack
			t.Fatal("sox required (PRISM_REQUIRE_AUDIO=1)")
		}
		t.Skip("no sox")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	if err := writeE2EFile(in, 2); err != nil {
		t.Fatal(err)
	}
	r := e2eRunner{dir: dir, repeat: 1, stderr: io.Discard}
	row, ok := r.soxRow(in)
	if !ok || !(row.Seconds > 0) || row.Engine != "sox" || row.Case != soxCase {
		t.Fatalf("sox row %+v, %v", row, ok)
	}
	if st, err := os.Stat(filepath.Join(dir, "sox.png")); err != nil || st.Size() < 10000 {
		t.Fatalf("sox's PNG: %v, %v", st, err)
	}
	var out bytes.Buffer
	printSoxRatio(&out, []e2eRow{row, {Case: pngWarmCase, Engine: "cpu", Seconds: 0.3 * row.Seconds},
		{Case: pngWarmCase, Engine: "gpu", Seconds: 9 * row.Seconds}})
	if got := out.String(); !strings.Contains(got, "CPU engine → PNG: 0.30× sox's time") {
		t.Errorf("summary %q", got)
	}
}
