package kit

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/audio"
)

// The automatic engine of the file commands: --engine auto picks the CPU
// engine for the work the GPU would not finish sooner, and the GPU for the
// rest. A GPU starts with its driver (about 0.3 s on an H200 host) and a
// file command is mostly reading, decoding and writing, which both engines
// do on the same cores; the GPU wins only where its start-up is spread
// over enough transforms. Measured side by side on the H200 host (16-core
// CPU engine; stereo 48-kHz files; seconds, CPU / GPU):
//
//	analyze PNG, one 10-min file 0.117 / 0.446; one 60-min file 0.445 / 0.519
//	analyze NPY, 10 min 0.276 / 0.538; 60 min 1.138 / 1.511
//	spectrum,    10 min 0.187 / 0.496; 60 min 0.682 / 0.843
//	bands,       10 min 0.219 / 0.629; 60 min 1.097 / 1.467
//	filter,      10 min 1.294 / 1.443; 60 min 7.754 / 7.160
//	analyze PNG, a batch of 20 10-min files: the GPU 2.5× faster (files
//	             in flight overlap its transforms with the host's work)
//
// From these, the thresholds below: the amount of audio (channel-minutes)
// from which the GPU's time (start-up plus its rate) falls below the CPU
// engine's. They are this host's; another's differ by its CPU and GPU,
// which is why --engine gpu and cpu stay.

// AutoWork is what a file command will process: the inputs' total
// channel-minutes and their number.
type AutoWork struct {
	ChannelMinutes float64
	Files          int
}

// GPU thresholds of AutoEngine, in channel-minutes.
const (
	autoAnalyzeBatch = 70  // a batch of files (two or more): about 3.5 stereo 10-min files
	autoFilter       = 40  // one file through the FIR (overlap-save on the engine)
	autoSpectrum     = 240 // one file's Welch spectrum or band levels
)

// AutoEngine resolves choice for command on work: anything but auto as
// it is; auto to engine.CPU or engine.Auto (the GPU if usable) by the
// thresholds above, with the reason.
func AutoEngine(command, choice string, work AutoWork) (string, string) {
	if choice != engine.Auto {
		return choice, ""
	}
	limit := 0.0
	switch command {
	case "analyze":
		if work.Files < 2 {
			return engine.CPU, fmt.Sprintf("one file of %.0f channel-minutes: the CPU engine finishes before a GPU would have started and caught up", work.ChannelMinutes)
		}
		limit = autoAnalyzeBatch
	case "ir":
		// one deconvolution: a few large transforms planned once (H200
		// host, every result: 10 s at 48 kHz 0.10 s on its CPU engine,
		// 0.88 s on the GPU; 30 s at 192 kHz 0.28 s and 0.59 s)
		return engine.CPU, "one deconvolution: the GPU's start-up and plans outweigh its speed"
	case "filter":
		limit = autoFilter
	case "spectrum", "bands":
		limit = autoSpectrum
	default:
		return choice, ""
	}
	if work.ChannelMinutes < limit {
		return engine.CPU, fmt.Sprintf("%.0f channel-minutes, under the %.0f from which the GPU is faster", work.ChannelMinutes, limit)
	}
	return engine.Auto, fmt.Sprintf("%.0f channel-minutes, at least the %.0f from which the GPU is faster", work.ChannelMinutes, limit)
}

// WorkOf reads the inputs' lengths from their headers (a file whose
// length is not known counts as none).
func WorkOf(inputs []string) AutoWork {
	w := AutoWork{Files: len(inputs)}
	for _, in := range inputs {
		d, err := audio.Open(in)
		if err != nil {
			continue
		}
		f := d.Format()
		if f.Frames > 0 && f.SampleRate > 0 {
			w.ChannelMinutes += float64(f.Frames) * float64(f.Channels) / float64(f.SampleRate) / 60
		}
		d.Close()
	}
	return w
}

// ChooseEngine is AutoEngine on the inputs, saying the choice on w when
// verbose.
func ChooseEngine(command, choice string, inputs []string, verbose bool, w io.Writer) string {
	if choice != engine.Auto {
		return choice
	}
	got, why := AutoEngine(command, choice, WorkOf(inputs))
	if verbose && why != "" {
		name := "the CPU engine"
		if got != engine.CPU {
			name = "the GPU (if usable)"
		}
		fmt.Fprintf(w, "prism: %s: --engine auto: %s: %s\n", command, name, why)
	}
	return got
}

// verbose is the global --verbose (cli.Run sets it): commands say more.
var verbose atomic.Bool

// SetVerbose records the global --verbose.
func SetVerbose(on bool) { verbose.Store(on) }

// Verbose says whether --verbose was given.
func Verbose() bool { return verbose.Load() }
