package levellog

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/meter/soundlevel"
)

// TestFile: a 2.5-s stereo file (channel 1: 1 kHz at amplitude 0.25 for
// 1 s, then 0.5; channel 0 silent) logged every 0.5 s on channel 1 with
// a 94-dB offset: the header, rows starting at 0, 0.5 … 2 s, LAeq of a
// sine of amplitude a at 1 kHz (A gain 0 dB) 20·log10 a + 94, the
// sample peak 20·log10 a in dBFS (uncalibrated).
func TestFile(t *testing.T) {
	const rate = 48000
	n := rate * 5 / 2
	ch0, ch1 := make([]float32, n), make([]float32, n)
	for i := range n {
		a := 0.25
		if i >= rate {
			a = 0.5
		}
		ch1[i] = float32(a * math.Sin(2*math.Pi*1000*float64(i)/rate))
	}
	path := filepath.Join(t.TempDir(), "in.wav")
	apptest.WriteWAV(t, path, rate, [][]float32{ch0, ch1})
	var out bytes.Buffer
	if _, err := File(context.Background(), path, Options{Every: 500 * time.Millisecond, Channel: 1, OffsetDB: 94}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if lines[0] != soundlevel.CSVHeader || len(lines) != 6 {
		t.Fatalf("log:\n%s", out.String())
	}
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		start, _ := strconv.ParseFloat(f[0], 64)
		if start != 0.5*float64(i) {
			t.Errorf("row %d starts at %v s", i, start)
		}
		a := 0.25
		if i >= 2 {
			a = 0.5
		}
		laeq, _ := strconv.ParseFloat(f[1], 64)
		peak, _ := strconv.ParseFloat(f[6], 64)
		if i != 0 && math.Abs(laeq-(20*math.Log10(a)+94)) > 0.02 { // row 0: the filters' start-up
			t.Errorf("row %d LAeq %v, want %.2f", i, laeq, 20*math.Log10(a)+94)
		}
		if math.Abs(peak-20*math.Log10(a)) > 0.01 {
			t.Errorf("row %d sample peak %v dBFS, want %.2f", i, peak, 20*math.Log10(a))
		}
	}
}

func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.wav")
	if err := os.WriteFile(bad, []byte("not a wav file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.wav")
	apptest.WriteWAV(t, good, 8000, [][]float32{make([]float32, 800)})
	for _, c := range []struct {
		path string
		o    Options
		want string
	}{
		{filepath.Join(dir, "missing.wav"), Options{Every: time.Second}, "missing.wav"},
		{bad, Options{Every: time.Second}, "bad.wav"},
		{good, Options{Every: time.Second, Channel: 1}, "channel 1 of a 1-channel stream"},
		{good, Options{Every: time.Microsecond}, "shorter than a sample"},
	} {
		_, err := File(context.Background(), c.path, c.o, new(bytes.Buffer))
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, new(*analysis.InputError)) {
			t.Errorf("%s %+v: error %v, want an input error with %q", c.path, c.o, err, c.want)
		}
	}
}

func TestWriterAllocs(t *testing.T) {
	w, err := NewWriter(io.Discard, 48000, 2, Options{Every: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	block := make([]float32, 2*1024)
	for i := range block {
		block[i] = float32(math.Sin(float64(i)))
	}
	if n := testing.AllocsPerRun(20, func() { _ = w.Write(block) }); n != 0 {
		t.Fatalf("Write: %v allocs per block, want 0", n)
	}
}
