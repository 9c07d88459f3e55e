package gpufft

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/prismaudio/prism/window"
)

// TestReadPCM: ReadPCMImage and ReadPCMRows over a reader that returns
// short reads, with a trailing partial sample frame, give exactly what one
// float plan call over all the host-converted samples gives (frames are
// independent of batch boundaries), on each engine; cancellation, read
// errors and writer errors stop them with that error.
func TestReadPCM(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	f := PCMFormat{Encoding: PCMInt16, Channels: 3, Select: PCMMix}
	const total = 23456
	raw := randomPCM(r, f.Encoding, total, f.Channels)
	planes := make([]float32, total)
	ConvertPCM(planes, raw, f)
	withTail := append(raw[:len(raw):len(raw)], 0x55, 0x66) // a partial frame at the end
	cfg := SpectrogramConfig{Size: 256, Hop: 100, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 3000, Output: DBFS}
	all := cfg
	all.MaxSamples = total
	ic := ImageConfig{Columns: 29, TotalFrames: cfg.Frames(total), RowLo: []int32{0, 5, 50}, RowHi: []int32{5, 50, 129}}
	ctx := context.Background()
	for _, e := range engines(t) {
		// references: one call over everything
		fi, err := e.NewImage(all, ic)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fi.Add(planes, 0); err != nil {
			t.Fatal(err)
		}
		wantImg := make([]float32, ic.Columns*ic.Rows())
		if err := fi.Image(wantImg); err != nil {
			t.Fatal(err)
		}
		fi.Close()
		fs, err := e.NewSpectrogram(all)
		if err != nil {
			t.Fatal(err)
		}
		wantRows := make([]float32, all.DstLen(total))
		if _, err := fs.Execute(wantRows, planes); err != nil {
			t.Fatal(err)
		}
		fs.Close()

		pi, err := NewPCMImage(e, f, cfg, ic)
		if err != nil {
			t.Fatal(err)
		}
		frames, samples, err := ReadPCMImage(ctx, pi, iotest.HalfReader(bytes.NewReader(withTail)))
		if err != nil || frames != cfg.Frames(total) || samples != total {
			t.Fatalf("%s: ReadPCMImage = %d frames, %d samples, %v; want %d, %d", e.Name(), frames, samples, err, cfg.Frames(total), total)
		}
		img := make([]float32, len(wantImg))
		if err := pi.Image(img); err != nil {
			t.Fatal(err)
		}
		sameBits(t, e.Name()+" image", img, wantImg, false)
		pi.Close()

		ps, err := NewPCMSpectrogram(e, f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var rows []float32
		next := 0
		frames, samples, err = ReadPCMRows(ctx, ps, iotest.HalfReader(bytes.NewReader(withTail)), func(out []float32, first, n int) error {
			if first != next {
				t.Errorf("%s: rows of frame %d, want %d", e.Name(), first, next)
			}
			next += n
			rows = append(rows, out...)
			return nil
		})
		if err != nil || frames != cfg.Frames(total) || samples != total {
			t.Fatalf("%s: ReadPCMRows = %d frames, %d samples, %v", e.Name(), frames, samples, err)
		}
		sameBits(t, e.Name()+" rows", rows, wantRows, false)

		// errors: the writer's, the reader's, cancellation; the plan stays usable
		stop := errors.New("disk full")
		calls := 0
		_, _, err = ReadPCMRows(ctx, ps, bytes.NewReader(raw), func([]float32, int, int) error {
			if calls++; calls == 2 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) {
			t.Errorf("%s: writer error: %v", e.Name(), err)
		}
		broken := errors.New("bad sector")
		_, _, err = ReadPCMRows(ctx, ps, io.MultiReader(bytes.NewReader(raw[:len(raw)/2]), iotest.ErrReader(broken)), func([]float32, int, int) error { return nil })
		if !errors.Is(err, broken) {
			t.Errorf("%s: read error: %v", e.Name(), err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, _, err := ReadPCMRows(cctx, ps, bytes.NewReader(raw), func([]float32, int, int) error { return nil }); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cancelled: %v", e.Name(), err)
		}
		rows = rows[:0]
		if _, _, err := ReadPCMRows(ctx, ps, bytes.NewReader(raw), func(out []float32, _, _ int) error { rows = append(rows, out...); return nil }); err != nil {
			t.Fatal(err)
		}
		sameBits(t, e.Name()+" rows after errors", rows, wantRows, false)
		ps.Close()
	}
}

// TestReadPCMImagesDevices: one stream spread over two plans on two
// OpenCL contexts (a second engine on the same device: what two GPUs are
// to the code), batch by batch, merges into the image one plan makes, bit
// for bit (the maths per frame is the same kernel); and over three plans,
// one of them on the CPU engine, within the engines' agreement. A plan
// Reset after one file makes the same image again. A second engine is
// opened the way `--device all` opens each GPU.
func TestReadPCMImagesDevices(t *testing.T) {
	g := requireGPU(t)
	g2, err := NewOpenCL(OpenCLOptions{Device: strconv.Itoa(g.Info().Index)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g2.Close() }) // after the plans' Cleanups (they run last first)
	r := rand.New(rand.NewPCG(21, 22))
	f := PCMFormat{Encoding: PCMInt24, Channels: 2, Select: PCMMix}
	const total = 40000
	raw := randomPCM(r, f.Encoding, total, f.Channels)
	// batches of 3000 samples: 14 batches, so each plan gets several, and
	// columns of about 9 frames straddle batch (and so device) boundaries
	cfg := SpectrogramConfig{Size: 512, Hop: 96, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 3000, Output: DBFS}
	ic := imageConfigFor(cfg, total, 45, 37)
	ctx := context.Background()
	newPlan := func(e Engine) PCMImagePlan {
		p, err := NewPCMImage(e, f, cfg, ic)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	one := newPlan(g)
	want := make([]float32, ic.Columns*ic.Rows())
	if _, _, err := ReadPCMImage(ctx, one, iotest.HalfReader(bytes.NewReader(raw))); err != nil {
		t.Fatal(err)
	}
	if err := one.Image(want); err != nil {
		t.Fatal(err)
	}
	// a reset plan makes the same image again
	if err := one.Reset(); err != nil {
		t.Fatal(err)
	}
	again := make([]float32, len(want))
	if _, _, err := ReadPCMImage(ctx, one, bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	if err := one.Image(again); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "after Reset", again, want, false)

	two := []PCMImagePlan{newPlan(g), newPlan(g2)}
	frames, samples, err := ReadPCMImages(ctx, two, iotest.HalfReader(bytes.NewReader(raw)))
	if err != nil || frames != cfg.Frames(total) || samples != total {
		t.Fatalf("ReadPCMImages = %d frames, %d samples, %v; want %d, %d", frames, samples, err, cfg.Frames(total), total)
	}
	got := make([]float32, len(want))
	if err := MergeImages(got, two); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "two contexts", got, want, false)
	for _, p := range two { // each plan did part of the file: neither alone is the image
		part := make([]float32, len(want))
		if err := p.Image(part); err != nil {
			t.Fatal(err)
		}
		if slices.Equal(part, want) {
			t.Errorf("one plan of two made the whole image: the stream was not split")
		}
	}

	// with the CPU engine as a third device: within the engines' agreement
	three := []PCMImagePlan{newPlan(g), newPlan(testCPU), newPlan(g2)}
	if _, _, err := ReadPCMImages(ctx, three, bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	if err := MergeImages(got, three); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		// 0.01 dB: the file pipeline's GPU-against-CPU contract (README)
		if want[i] > -120 && math.Abs(float64(got[i]-want[i])) > 0.01 {
			t.Fatalf("GPU+CPU+GPU pixel %d: %.4f dB, one GPU %.4f dB", i, got[i], want[i])
		}
	}

	// plans of different configurations are refused
	other := cfg
	other.Hop = 97
	po, err := NewPCMImage(g2, f, other, ImageConfig{Columns: ic.Columns, TotalFrames: other.Frames(total), RowLo: ic.RowLo, RowHi: ic.RowHi})
	if err != nil {
		t.Fatal(err)
	}
	defer po.Close()
	if _, _, err := ReadPCMImages(ctx, []PCMImagePlan{two[0], po}, bytes.NewReader(raw)); !errors.Is(err, ErrInvalid) {
		t.Errorf("plans of different hops: %v, want ErrInvalid", err)
	}
	if _, _, err := ReadPCMImages(ctx, nil, bytes.NewReader(raw)); !errors.Is(err, ErrInvalid) {
		t.Errorf("no plans: %v, want ErrInvalid", err)
	}
}
