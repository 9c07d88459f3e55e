package bench

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/prismaudio/prism/app/dual"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/transfer"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// The live transfer row (`prism bench --sizes transfer:N:HOP:CHANNELS`):
// the whole live dual-channel path of transfer.Live, fed from memory
// (transfer.NewLiveFeed) as fast as it goes: 1 reference + CHANNELS
// measurement channels at N and HOP, Hann, a complex FIFO average of
// TransferBenchFrames frames, the delay tracked after every batch
// (transfer.LiveSettings.TrackEvery 1: every channel's impulse-response
// peak found on the engine and placed by dual.DelayFinder.Refine), the
// averages read back each batch, in the batches the live analyzer sizes
// (on a GPU at most 25 ms of input at TransferBenchRate). Its row's Batch
// is the frames per channel per call, GSamplesSec counts every channel's input,
// and Note says the frames/s per channel and the real-time factor at
// TransferBenchRate.

// TransferCase is one live transfer row.
type TransferCase struct {
	Size, Hop, Channels int
}

// TransferBenchFrames is the row's FIFO length; TransferBenchRate the
// sample rate its real-time factor is stated at.
const (
	TransferBenchFrames = 64
	TransferBenchRate   = 192000
)

// IsTransferCase says whether a --sizes entry is a transfer row.
func IsTransferCase(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "transfer:") }

// ParseTransferCase reads transfer:N:HOP:CHANNELS.
func ParseTransferCase(s string) (TransferCase, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	var c TransferCase
	if len(parts) != 4 || parts[0] != "transfer" {
		return c, fmt.Errorf("%q: want transfer:N:HOP:CHANNELS", s)
	}
	var err error
	if c.Size, err = strconv.Atoi(parts[1]); err != nil || engine.CheckFFT(c.Size, 1) != nil {
		return c, fmt.Errorf("%q: size %q: want a power of two in %d…%d", s, parts[1], engine.MinFFT, engine.MaxFFT)
	}
	if c.Hop, err = strconv.Atoi(parts[2]); err != nil || c.Hop < 1 || c.Hop > c.Size {
		return c, fmt.Errorf("%q: hop %q: want 1…%d", s, parts[2], c.Size)
	}
	if c.Channels, err = strconv.Atoi(parts[3]); err != nil || c.Channels < 1 || c.Channels > 63 {
		return c, fmt.Errorf("%q: channels %q: want 1…63 measurement channels", s, parts[3])
	}
	return c, nil
}

// BenchTransfer measures c on eng (no fallback) for at least minTime.
func BenchTransfer(eng gpufft.Engine, c TransferCase, minTime time.Duration) (gpufft.BenchResult, error) {
	r := gpufft.BenchResult{Engine: eng.Name(), Device: eng.Device(), Plan: "transfer", Size: c.Size, Hop: c.Hop}
	inputs := 1 + c.Channels
	s := transfer.LiveSettings{FFT: c.Size, Hop: c.Hop, Window: window.Func{Kind: window.Hann},
		Average: dual.AverageComplex, Frames: TransferBenchFrames, Track: true, TrackEvery: 1}
	pair := engine.Pair{Preferred: eng, Strict: true}
	if eng.Name() == "cpu" {
		pair.CPU = eng // the CPU's batch size
	}
	tr, err := transfer.NewLiveFeed(TransferBenchRate, inputs, pair, s)
	if err != nil {
		return r, err
	}
	defer tr.Close()
	// one second of input, the measurement channels a delayed, scaled
	// copy of the reference plus noise: coherent, with a delay to track
	const delay = 96
	n := TransferBenchRate
	rng := rand.New(rand.NewPCG(1, 1))
	ref := make([]float32, n)
	for i := range ref {
		ref[i] = float32(0.1 * rng.NormFloat64())
	}
	in := make([]float32, inputs*n)
	for i := range n {
		in[i*inputs] = ref[i]
		for ch := 1; ch < inputs; ch++ {
			in[i*inputs+ch] = 0.5*ref[(i-delay+n)%n] + float32(0.001*rng.NormFloat64())
		}
	}
	// a call is what one batch takes: the batch's new input
	step := inputs * tr.BatchFrames() * c.Hop
	feed := func(from int) (int, int, error) {
		from %= len(in)
		k := min(step, len(in)-from)
		f, err := tr.Feed(in[from : from+k])
		return f, from + k, err
	}
	pos := 0
	for range 3 { // warm up: plans, kernels, the delay found
		if _, pos, err = feed(pos); err != nil {
			return r, err
		}
	}
	var frames, calls int
	start := time.Now()
	for time.Since(start) < minTime || calls < 3 {
		var f int
		if f, pos, err = feed(pos); err != nil {
			return r, err
		}
		frames += f
		calls++
	}
	el := time.Since(start).Seconds()
	r.Calls, r.Batch = calls, frames/calls
	r.Samples = r.Batch * c.Hop * inputs
	r.MsPerCall = el * 1e3 / float64(calls)
	r.GSamplesSec = float64(frames) * float64(c.Hop*inputs) / el / 1e9
	fps := float64(frames) / el
	r.Note = fmt.Sprintf("%d+1 channels: %.0f frames/s per channel, %.2f× real time at %d Hz (%.0f frames/s)",
		c.Channels, fps, fps/(float64(TransferBenchRate)/float64(c.Hop)), TransferBenchRate, float64(TransferBenchRate)/float64(c.Hop))
	return r, nil
}
