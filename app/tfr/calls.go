package tfr

import "github.com/prismaudio/prism/gpufft"

// Shape is the span and bins of cfg's transform: a VQT's from its layout
// (its kernels cost as much as the real one's), another's learnt on e
// from the smallest one that accepts a MaxSamples of a power of two (one
// frame). The file and view analyses size their calls by it.
func Shape(e gpufft.Engine, cfg Config) (span, bins int, err error) {
	if cfg.Mode == VQT {
		return VQTShape(cfg)
	}
	for m := gpufft.MinSize; m <= 4*gpufft.MaxSize; m *= 2 {
		cfg.MaxSamples = m
		var tr Transform
		if tr, err = New(e, cfg); err == nil {
			span, bins = tr.Span(), len(tr.Freqs())
			return span, bins, tr.Close()
		}
	}
	return 0, 0, err
}

// FrameValues is the values a transform keeps per frame of a call beyond
// its output: a reassigned one's three spectra (of every size on the
// multi-resolution grid), a multi-resolution one's largest size's bins (a
// VQT bounds its own).
func FrameValues(cfg Config, span int) int {
	switch cfg.Mode {
	case Reassigned:
		n := span
		for _, s := range cfg.Sizes[min(1, len(cfg.Sizes)):] {
			n += s
		}
		return 3 * n
	case MultiRes:
		return span/2 + 1
	}
	return 0
}

// FramesPerCall is how many of total frames one Execute of cfg's
// transform (span, bins: Shape's) takes: as many as keep its output and
// per-frame values within maxValues and its input within maxSamples, at
// least one.
func FramesPerCall(cfg Config, span, bins, total, maxValues, maxSamples int) int {
	return max(1, min(total, maxValues/max(bins, FrameValues(cfg, span)), (maxSamples-span)/cfg.Hop+1))
}
