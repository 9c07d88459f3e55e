package tfrfile

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/internal/apptest"
	"github.com/prismaudio/prism/app/tfr"
	"github.com/prismaudio/prism/gpufft"
)

// TestStreamedModesMatchOneCall: a stereo file streamed in decoder blocks
// of 1000 samples and cut into transform calls of a few frames (with
// each mode's history and margins) gives, in every mode, the frames of
// one call over the whole mix held in memory (the mean of the channels,
// computed here), within 0.01 dB above −100 dBFS.
func TestStreamedModesMatchOneCall(t *testing.T) {
	const rate, n = 8000, 24000
	dir := t.TempDir()
	in := filepath.Join(dir, "in.wav")
	l, r := apptest.Tone(n, rate, 700, 0.5), apptest.Tone(n, rate, 2300, 0.1)
	for i := range l {
		tt := float64(i) / rate
		l[i] += float32(0.3 * math.Sin(2*math.Pi*(100*tt+250*tt*tt)))
		if i%5000 == 17 {
			r[i] += 0.8
		}
	}
	apptest.WriteWAV(t, in, rate, [][]float32{l, r})
	mix := make([]float32, n)
	for i := range mix {
		mix[i] = (l[i] + r[i]) / 2
	}
	defer func(v, b int) { chunkValues, blockSamples = v, b }(chunkValues, blockSamples)
	blockSamples = 1000
	cpu := cpuPair(t)
	for _, cfg := range []tfr.Config{
		{Mode: tfr.STFT, Hop: 100, Size: 1024, Window: hann},
		{Mode: tfr.MultiRes, Hop: 128, Sizes: []int{2048, 1024, 512}, Window: hann},
		{Mode: tfr.VQT, Hop: 128, BinsPerOctave: 24, FMin: 50},
		{Mode: tfr.Reassigned, Hop: 64, Size: 512, Window: hann},
		{Mode: tfr.Reassigned, Hop: 64, Sizes: []int{1024, 512, 256}, Window: hann},
	} {
		whole, span, bins := oneCall(t, cpu.CPU, cfg, mix)
		chunkValues = 7 * max(bins, tfr.FrameValues(cfg, span)) // 7 frames a call
		out := filepath.Join(dir, cfg.Mode.String()+".npy")
		res, err := AnalyzeFile(context.Background(), in, out, encode.FormatNPY, Options{Transform: cfg, Channel: -1}, cpu)
		if err != nil {
			t.Fatalf("%v: %v", cfg.Mode, err)
		}
		rows, _, got := apptest.ReadNPY(t, out)
		if rows != res.Frames || rows < 4*7 || len(got) != len(whole) || res.Samples != n {
			t.Fatalf("%v sizes %v: %d values (%d rows), %d samples; one call gives %d values", cfg.Mode, cfg.Sizes, len(got), rows, res.Samples, len(whole))
		}
		for i := range whole {
			if max(whole[i], got[i]) > -100 && math.Abs(float64(whole[i]-got[i])) > 0.01 {
				t.Fatalf("%v sizes %v: value %d: %.3f dB in one call, %.3f streamed", cfg.Mode, cfg.Sizes, i, whole[i], got[i])
			}
		}
	}
}

// oneCall is cfg's transform over the whole of x in one Execute, its
// span and bins.
func oneCall(t *testing.T, e gpufft.Engine, cfg tfr.Config, x []float32) ([]float32, int, int) {
	t.Helper()
	cfg.Rate, cfg.Channels, cfg.MaxSamples = rate8k, 1, len(x)
	tr, err := tfr.New(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	frames := (len(x)-tr.Span())/cfg.Hop + 1
	dst := make([]float32, frames*len(tr.Freqs()))
	if n, err := tr.Execute(dst, x); err != nil || n != frames {
		t.Fatalf("%v: Execute: %d frames, %v; want %d", cfg.Mode, n, err, frames)
	}
	return dst, tr.Span(), len(tr.Freqs())
}

const rate8k = 8000

// TestSourceDecodesAhead: the decoder prepares a call's samples
// (aheadSamples: here the whole file of 24 blocks) without the caller
// asking, and the ranges are then the mix of the file's channels.
func TestSourceDecodesAhead(t *testing.T) {
	const n = 24000
	defer func(b int) { blockSamples = b }(blockSamples)
	blockSamples = 1000
	in := filepath.Join(t.TempDir(), "in.wav")
	l, r := apptest.Tone(n, rate8k, 700, 0.5), apptest.Tone(n, rate8k, 2300, 0.1)
	apptest.WriteWAV(t, in, rate8k, [][]float32{l, r})
	s, err := openSource(in, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for deadline := time.Now().Add(10 * time.Second); len(s.blocks) < n/1000; {
		if time.Now().After(deadline) {
			t.Fatalf("%d blocks decoded ahead, want %d", len(s.blocks), n/1000)
		}
		time.Sleep(time.Millisecond) // polling the condition
	}
	x, err := s.samples(0, n)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		if want := (float64(l[i]) + float64(r[i])) / 2; math.Abs(float64(v)-want) > 1e-7 {
			t.Fatalf("sample %d: %g, want the mix %g", i, v, want)
		}
	}
}
