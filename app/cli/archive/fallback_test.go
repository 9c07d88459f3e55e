package archive

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	core "github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// failingGPU is an engine whose spectrogram plans cannot be made.
type failingGPU struct{ gpufft.Engine }

func (failingGPU) NewSpectrogram(gpufft.SpectrogramConfig) (gpufft.SpectrogramPlan, error) {
	return nil, errors.New("out of device memory")
}

// TestGPUFallback: a unit the GPU fails is redone on the CPU engine, its
// rows those of the CPU engine alone, the fall-back said on stderr and
// counted in the provenance's engine.
func TestGPUFallback(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in")
	mkdir(t, in)
	writeArchive(t, in, 8000, mergeArchive[:2])
	cat, err := core.Scan([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	cfg := core.LTSAConfig{Average: 10 * time.Second, FFT: 256, Window: window.Func{Kind: window.Hann}}
	collect := func(g *engines) []core.Row {
		var rows []core.Row
		if err := g.ltsa(context.Background(), cat.Files, cfg, func(r core.Row) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	cpu := gpufft.NewCPU(1)
	var stderr bytes.Buffer
	g := &engines{pref: failingGPU{cpu}, cpu: cpu, gpu: true, name: "gpu: test", stderr: &stderr}
	got, want := collect(g), collect(&engines{pref: cpu, cpu: cpu, name: "cpu"})
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d rows after the fall-back, %d on the CPU", len(got), len(want))
	}
	for i := range got {
		if !got[i].Start.Equal(want[i].Start) || got[i].Level[3] != want[i].Level[3] {
			t.Fatalf("row %d differs from the CPU engine's", i)
		}
	}
	if !strings.Contains(stderr.String(), "out of device memory") || !strings.Contains(g.engineName(), "1 on the cpu engine") {
		t.Errorf("stderr %q, engine %q", stderr.String(), g.engineName())
	}
}
