package tfr

import (
	"fmt"

	"github.com/prismaudio/prism/gpufft"
)

// reassignedMulti is the reassigned spectrogram on the multi-resolution
// grid: Reassigned with Sizes. Each size's three transforms (h, t·h, h′)
// of every frame and channel run in one engine call per size, its window
// centred on the frame's centre as MultiRes centres it; each size keeps
// MultiRes's band (exact band assignment, JoinBin) and moves energy only
// within it, in frequency to the band bin nearest the instantaneous
// frequency and (unless Squeeze) in time as the one-size transform does.
// The threshold is taken against the frame's strongest bin over every
// band. Levels follow the one-size rule in each band: powers divided by
// that size's window ENBW in bins, so a sine reads its level in every band
// and each bin's ENBW is rate/N of its size; a frame's total power is,
// band by band, the STFT's band power divided by that ENBW (exactly with
// Squeeze).
type reassignedMulti struct {
	cfg         Config
	sizes       []int
	subs        []*reassigned
	peak        []float32
	work        *workers
	freqs, enbw []float64
}

func newReassignedMulti(e gpufft.Engine, cfg Config) (Transform, error) {
	if cfg.ThresholdDB == 0 {
		cfg.ThresholdDB = DefaultThresholdDB
	}
	bands := &multiRes{cfg: cfg, sizes: append([]int(nil), cfg.Sizes...)}
	if err := bands.bands(); err != nil {
		return nil, fmt.Errorf("%w (reassigned on the multi-resolution grid)", err)
	}
	t := &reassignedMulti{cfg: cfg, sizes: bands.sizes}
	t.cfg.Sizes = t.sizes
	span := t.sizes[0]
	if cfg.MaxSamples < span {
		return nil, fmt.Errorf("tfr: reassigned: MaxSamples %d is less than one frame (%d): %w", cfg.MaxSamples, span, gpufft.ErrInvalid)
	}
	frames := (cfg.MaxSamples-span)/cfg.Hop + 1
	t.peak = make([]float32, cfg.Channels*frames)
	t.work = newWorkers(cfg.Channels)
	col := 0
	for j, n := range t.sizes {
		s, err := newReassignedSize(e, t.cfg, n, bands.lo[j], bands.hi[j], (frames-1)*cfg.Hop+n)
		if err != nil {
			t.Close()
			return nil, err
		}
		s.peak, s.work, s.col = t.peak, t.work, col
		col += bands.hi[j] - bands.lo[j]
		t.subs = append(t.subs, s)
		t.freqs = append(t.freqs, s.freqs...)
		t.enbw = append(t.enbw, s.enbw...)
	}
	for _, s := range t.subs {
		s.outBins = col
	}
	return t, nil
}

func (t *reassignedMulti) Config() Config   { return t.cfg }
func (t *reassignedMulti) Freqs() []float64 { return t.freqs }
func (t *reassignedMulti) ENBW() []float64  { return t.enbw }
func (t *reassignedMulti) Span() int        { return t.sizes[0] }

func (t *reassignedMulti) Close() error {
	t.work.stop()
	var first error
	for _, s := range t.subs {
		if err := s.closePlan(); err != nil && first == nil {
			first = err
		}
	}
	t.subs = nil
	return first
}

// Execute transforms every size (one engine call each), takes each
// frame's strongest bin over every band, then moves and writes each
// size's band.
func (t *reassignedMulti) Execute(dst, src []float32) (int, error) {
	ch, span := t.cfg.Channels, t.sizes[0]
	l, frames := frameCount("reassigned", t.cfg, span, len(t.freqs), dst, src)
	if frames == 0 {
		return 0, nil
	}
	for _, s := range t.subs {
		if err := s.forward(src[(span-s.n)/2:], l, frames); err != nil {
			return 0, err
		}
	}
	clear(t.peak[:ch*frames])
	for _, s := range t.subs {
		t.work.run(s, phasePeak, nil, l, frames)
	}
	for _, s := range t.subs {
		t.work.run(s, phaseMove, nil, l, frames)
		s.gather(frames)
		t.work.run(s, phaseDB, dst, l, frames)
	}
	return frames, nil
}
