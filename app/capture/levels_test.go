package capture

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/meter/soundlevel"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// TestCaptureLevels: a 2.2-s capture of the generator's 1-kHz sine at
// −20 dBFS with LevelsEvery 1 s writes cap.levels.csv beside cap.npy:
// the level log's header and rows from 0 s a second apart, LAeq −20.00
// (A is 0 dB at 1 kHz) once the weighting filters have settled.
func TestCaptureLevels(t *testing.T) {
	cpu := gpufft.NewCPU(0)
	defer cpu.Close()
	rec := apptest.StartGenerator(t, "sine:1000:-20", 48000, 2)
	out := filepath.Join(t.TempDir(), "cap.npy")
	opts := Options{FFT: 1024, Hop: 512, Window: window.Func{Kind: window.Hann}, Channel: 1,
		Seconds: 2.2, Out: out, Format: encode.FormatNPY, LevelsEvery: time.Second}
	if _, err := Run(context.Background(), rec, engine.Pair{Preferred: cpu, CPU: cpu}, opts); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(out), "cap.levels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 4 || lines[0] != soundlevel.CSVHeader {
		t.Fatalf("level log:\n%s", b)
	}
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		start, _ := strconv.ParseFloat(f[0], 64)
		laeq, _ := strconv.ParseFloat(f[1], 64)
		if start != float64(i) {
			t.Errorf("row %d starts at %v s", i, start)
		}
		if i == 1 && math.Abs(laeq+20) > 0.05 {
			t.Errorf("row %d LAeq %v, want −20.00", i, laeq)
		}
	}
}
