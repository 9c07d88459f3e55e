package bench

import (
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
)

// soxCase is bench --e2e's reference row: sox drawing the same file's
// spectrogram (`sox IN -n spectrogram -x 1920 -y 1025 -o OUT.png`), the
// tool the CPU engine is measured against.
const soxCase = "sox spectrogram → PNG (reference)"

// soxRow times sox on in, if sox is on the PATH.
func (r *e2eRunner) soxRow(in string) (e2eRow, bool) {
	sox, err := exec.LookPath("sox")
	if err != nil {
		fmt.Fprintf(r.stderr, "prism: bench: no sox on the PATH: no reference row\n")
		return e2eRow{}, false
	}
	out := filepath.Join(r.dir, "sox.png")
	row := e2eRow{Case: soxCase, Engine: "sox", Files: 1, Seconds: r.median(func() error {
		return exec.Command(sox, in, "-n", "spectrogram", "-x", "1920", "-y", "1025", "-o", out).Run()
	})}
	row.PerFile = row.Seconds
	return row, true
}

// printSoxRatio says the CPU engine's PNG time as a share of sox's.
func printSoxRatio(w io.Writer, rows []e2eRow) {
	var sox, cpu float64
	for _, r := range rows {
		switch {
		case r.Case == soxCase:
			sox = r.Seconds
		case r.Engine == "cpu" && r.Case == pngWarmCase:
			cpu = r.Seconds
		}
	}
	if sox > 0 && cpu > 0 {
		fmt.Fprintf(w, "CPU engine → PNG: %.2f× sox's time\n", cpu/sox)
	}
}
