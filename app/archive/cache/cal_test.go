package cache

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/gpufft"
)

// TestComputeCalibrated: a request's calibration is part of its key (a
// calibrated LTSA is never the uncalibrated one read back) and shifts
// every level by the calibration's offset, in its unit.
func TestComputeCalibrated(t *testing.T) {
	dir, cdir := t.TempDir(), t.TempDir()
	writeWAV(t, filepath.Join(dir, "X_20210315_120000.wav"), 8000, 8000*2, 1000)
	cat, err := archive.Scan([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	e := gpufft.NewCPU(1)
	defer e.Close()
	plain := Request{Files: cat.Files, Average: time.Second, FFT: 256}
	cal := plain
	cal.Cal = archive.Calibration{Transducer: archive.Hydrophone, SensitivityDB: -170, GainDB: 10, FullScaleV: 2}
	if Key(plain) == Key(cal) {
		t.Fatal("the calibration is not in the key")
	}
	a, err := Compute(context.Background(), e, cdir, plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compute(context.Background(), e, cdir, cal, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 20·log10(2 V) + 170 − 10 dB, analytic
	off := 20*math.Log10(2) + 170 - 10
	if b.Cached || b.Unit != "dB re 1 µPa²/Hz" || len(b.Rows) != len(a.Rows) {
		t.Fatalf("calibrated: cached %v, unit %q, %d rows (plain %d)", b.Cached, b.Unit, len(b.Rows), len(a.Rows))
	}
	for i, r := range b.Rows {
		for k, x := range r.Level {
			if d := float64(x) - float64(a.Rows[i].Level[k]); math.Abs(d-off) > 1e-3 {
				t.Fatalf("row %d bin %d: %.4f dB above the plain level, want %.4f", i, k, d, off)
			}
		}
	}
}
