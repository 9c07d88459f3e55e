package cache

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/gpufft"
)

// writeWAV writes n samples of a float32 mono WAV at rate: a sine at hz.
func writeWAV(t *testing.T, path string, rate, n int, hz float64) {
	t.Helper()
	le := binary.LittleEndian
	var data []byte
	for i := range n {
		data = le.AppendUint32(data, math.Float32bits(float32(0.5*math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))))
	}
	h := append([]byte("RIFF"), le.AppendUint32(nil, uint32(36+len(data)))...)
	h = append(h, "WAVEfmt "...)
	h = le.AppendUint32(h, 16)
	h = le.AppendUint16(h, 3)
	h = le.AppendUint16(h, 1)
	h = le.AppendUint32(h, uint32(rate))
	h = le.AppendUint32(h, uint32(rate*4))
	h = le.AppendUint16(h, 4)
	h = le.AppendUint16(h, 32)
	h = append(h, "data"...)
	h = le.AppendUint32(h, uint32(len(data)))
	if err := os.WriteFile(path, append(h, data...), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestComputeKeepsAndReuses(t *testing.T) {
	dir, cdir := t.TempDir(), t.TempDir()
	writeWAV(t, filepath.Join(dir, "X_20210315_120000.wav"), 8000, 8000*4, 1000)
	writeWAV(t, filepath.Join(dir, "X_20210315_120004.wav"), 8000, 8000*4, 2000)
	cat, err := archive.Scan([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	e := gpufft.NewCPU(1)
	defer e.Close()
	req := Request{Files: cat.Files, Average: time.Second, FFT: 256}
	var last float64
	first, err := Compute(context.Background(), e, cdir, req, func(f float64) { last = f })
	if err != nil {
		t.Fatal(err)
	}
	if first.Cached || len(first.Rows) != 8 || last != 1 || first.Unit != "dBFS/Hz" || len(first.Freqs) != 129 {
		t.Fatalf("first: cached %v, %d rows, progress %v, unit %q", first.Cached, len(first.Rows), last, first.Unit)
	}
	again, err := Compute(context.Background(), e, cdir, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || !reflect.DeepEqual(again.Rows, first.Rows) || !reflect.DeepEqual(again.Freqs, first.Freqs) {
		t.Fatalf("again: cached %v, rows equal %v", again.Cached, reflect.DeepEqual(again.Rows, first.Rows))
	}
	// any parameter or input changes the key
	keys := map[string]bool{Key(req): true}
	for _, r := range []Request{
		{Files: req.Files, Average: 2 * time.Second, FFT: 256},
		{Files: req.Files, Average: time.Second, FFT: 512},
		{Files: req.Files, Average: time.Second, FFT: 256, From: cat.Files[1].Start},
		{Files: req.Files[:1], Average: time.Second, FFT: 256},
	} {
		keys[Key(r)] = true
	}
	if len(keys) != 5 {
		t.Errorf("%d distinct keys of 5 requests", len(keys))
	}
	k0 := Key(req)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(cat.Files[0].Path, later, later); err != nil {
		t.Fatal(err)
	}
	if Key(req) == k0 {
		t.Error("a file modified since keeps its key")
	}
}

func TestNiceAverage(t *testing.T) {
	cases := []struct {
		span    time.Duration
		columns int
		want    time.Duration
	}{
		{100 * time.Hour, 2000, 5 * time.Minute},
		{10 * time.Minute, 2000, 500 * time.Millisecond},
		{time.Second, 2000, 100 * time.Millisecond},
		{365 * 24 * time.Hour, 100, 24 * time.Hour},
	}
	for _, c := range cases {
		if got := NiceAverage(c.span, c.columns); got != c.want {
			t.Errorf("NiceAverage(%v, %d) = %v, want %v", c.span, c.columns, got, c.want)
		}
	}
}
