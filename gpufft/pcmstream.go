package gpufft

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
)

// The loops a file pipeline runs around the PCM plans: read raw PCM from r
// (a WAV's data chunk, say) straight into the plan's staging buffers,
// carry the N−H samples the next frames need from one batch to the next,
// and keep two batches in flight. ctx is checked before every batch.

// ReadPCMImage analyzes every whole sample frame r yields into p's image
// (see PCMImagePlan), numbering frames from 0, and returns the frame count
// and the sample frames read per channel. A trailing partial sample frame
// is ignored. Read errors other than io.EOF are returned, wrapped.
func ReadPCMImage(ctx context.Context, p PCMImagePlan, r io.Reader) (frames int, samples int64, err error) {
	err = readPCM(ctx, p.Staging, p.Format(), p.Config(), r, &samples, func(batch []byte) (int, error) {
		n, err := p.Add(batch, frames)
		frames += n
		return n, err
	})
	return frames, samples, err
}

// ReadPCMImages is ReadPCMImage spread over several plans of one
// configuration and format, on several engines (one per GPU): batch i
// goes to plans[i mod len(plans)]. Each batch is a segment of the stream
// that starts with the N−H samples the previous one ended with, so every
// frame is analyzed exactly once, by one plan, numbered as one plan would
// number it; while one device works on its batch the next is read into
// another plan's staging. MergeImages then gives the image one plan would
// have made, bit for bit where the devices compute the same per frame.
func ReadPCMImages(ctx context.Context, plans []PCMImagePlan, r io.Reader) (frames int, samples int64, err error) {
	if len(plans) == 0 {
		return 0, 0, fmt.Errorf("%w: ReadPCMImages with no plan", ErrInvalid)
	}
	cfg, f := plans[0].Config(), plans[0].Format()
	for _, p := range plans[1:] {
		if !sameConfig(p.Config(), cfg) || p.Format() != f {
			return 0, 0, fmt.Errorf("%w: ReadPCMImages over plans of different configurations", ErrInvalid)
		}
	}
	k := 0 // the plan of the batch being read
	staging := func() ([]byte, error) { return plans[k].Staging() }
	err = readPCM(ctx, staging, f, cfg, r, &samples, func(batch []byte) (int, error) {
		n, err := plans[k].Add(batch, frames)
		frames += n
		k = (k + 1) % len(plans)
		return n, err
	})
	return frames, samples, err
}

// sameConfig says whether two plans' configurations are equal.
func sameConfig(a, b SpectrogramConfig) bool {
	return a.Size == b.Size && a.Hop == b.Hop && a.Window == b.Window && a.Channels == b.Channels && a.Mix == b.Mix &&
		a.MaxSamples == b.MaxSamples && a.Output == b.Output && slices.Equal(a.BinGain, b.BinGain)
}

// MergeImages waits for every plan (of one configuration, filled by
// ReadPCMImages) and writes into dst (Columns×Rows) their images merged:
// each pixel the maximum of the plans' powers, then converted to dB once,
// as one plan's Image does.
func MergeImages(dst []float32, plans []PCMImagePlan) error {
	tmp := make([]float32, len(dst))
	for i, p := range plans {
		out := dst
		if i > 0 {
			out = tmp
		}
		pw, ok := p.(interface{ power([]float32) error })
		if !ok {
			return fmt.Errorf("%w: MergeImages of a %T", ErrInvalid, p)
		}
		if err := pw.power(out); err != nil {
			return err
		}
		if i > 0 {
			for j, v := range tmp {
				dst[j] = max(dst[j], v)
			}
		}
	}
	powerToDB(dst)
	return nil
}

// ReadPCMRows analyzes every whole sample frame r yields with p and hands
// each batch's output to fn in order (rows in Execute's layout, valid only
// during the call; first is the batch's first frame number), while the
// next batch is being analyzed. It returns the frame count and the sample
// frames read per channel; an error from fn stops it and is returned.
func ReadPCMRows(ctx context.Context, p PCMSpectrogramPlan, r io.Reader, fn func(rows []float32, first, frames int) error) (frames int, samples int64, err error) {
	done, inFlight := 0, 0 // frames handed to fn; batches submitted but not collected
	collect := func() error {
		rows, n, err := p.Rows()
		if err != nil {
			return err
		}
		inFlight--
		if err := fn(rows, done, n); err != nil {
			return err
		}
		done += n
		return nil
	}
	err = readPCM(ctx, p.Staging, p.Format(), p.Config(), r, &samples, func(batch []byte) (int, error) {
		if inFlight == 2 {
			if err := collect(); err != nil {
				return 0, err
			}
		}
		n, err := p.Submit(batch)
		if n > 0 {
			inFlight++
		}
		frames += n
		return n, err
	})
	for err == nil && inFlight > 0 {
		err = collect()
	}
	for inFlight > 0 { // after an error: drain, so the plan is reusable
		if _, _, e := p.Rows(); e != nil {
			break
		}
		inFlight--
	}
	return frames, samples, err
}

// readPCM fills staging buffers from r and passes each batch of whole
// sample frames to run, which returns the frames it analyzed; the samples
// after the last frame's hop are carried to the next batch. *samples
// counts the whole sample frames read.
func readPCM(ctx context.Context, staging func() ([]byte, error), f PCMFormat, cfg SpectrogramConfig, r io.Reader, samples *int64, run func([]byte) (int, error)) error {
	fb := f.FrameBytes()
	carry := make([]byte, 0, cfg.Size*fb)
	var read int64 // bytes
	defer func() { *samples = read / int64(fb) }()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf, err := staging()
		if err != nil {
			return err
		}
		have := copy(buf, carry) // whole frames: the buffer fills to whole frames or r ends
		m, err := io.ReadFull(r, buf[have:])
		read += int64(m)
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return fmt.Errorf("gpufft: read PCM: %w", err)
		}
		batch := buf[:(have+m)/fb*fb] // a trailing partial frame is dropped
		n, err := run(batch)
		if err != nil {
			return err
		}
		if eof || n == 0 {
			return nil
		}
		carry = append(carry[:0], batch[n*cfg.Hop*fb:]...)
	}
}
