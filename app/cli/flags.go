package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/app/plot"
	"github.com/prismaudio/prism/window"
)

// analysisFlags are the flags `prism analyze` and `prism capture` share.
type analysisFlags struct {
	fft, hop           int
	window, channel    string
	engine, device     string
	width, height      int
	freqScale, dbRange string
	colormap           string
	force              bool
}

// register adds the flags; openclFlag names the OpenCL device flag
// ("device" for analyze; capture's --device is the audio device).
func (a *analysisFlags) register(fs *flag.FlagSet, openclFlag string) {
	fs.IntVar(&a.fft, "fft", 4096, fmt.Sprintf("FFT size: a power of two, %d…%d", engine.MinFFT, engine.MaxFFT))
	fs.IntVar(&a.hop, "hop", 0, "hop between frames in samples, 1…N (default N/4)")
	fs.StringVar(&a.window, "window", "hann", "window: "+strings.Join(window.Names(), ", ")+" or kaiser:BETA")
	fs.StringVar(&a.channel, "channel", "mix", "channel: mix (mean of channels) or a 0-based index")
	kit.RegisterEngine(fs, &a.engine, &a.device, openclFlag)
	kit.RegisterForce(fs, &a.force)
	fs.IntVar(&a.width, "width", 1920, "PNG plot area width in pixels")
	fs.IntVar(&a.height, "height", 1080, "PNG plot area height in pixels")
	fs.StringVar(&a.freqScale, "freq-scale", "log", "PNG frequency axis: lin, log, mel")
	fs.StringVar(&a.dbRange, "db-range", "-120:0", "PNG colour range in dBFS, MIN:MAX")
	fs.StringVar(&a.colormap, "colormap", "viridis", "PNG colormap: "+strings.Join(plot.ColormapNames(), ", "))
}

// options validates the flags into AnalyzeOptions.
func (a *analysisFlags) options() (analysis.AnalyzeOptions, error) {
	o := analysis.AnalyzeOptions{FFT: a.fft, Hop: a.hop, Force: a.force}
	if o.Hop == 0 {
		o.Hop = a.fft / 4
	}
	if err := kit.CheckFFTFlags(a.fft, o.Hop); err != nil {
		return o, err
	}
	w, err := window.Parse(a.window)
	if err != nil {
		return o, fmt.Errorf("--window: %v", strings.TrimPrefix(err.Error(), "gpufft: "))
	}
	o.Window = w
	if o.Channel, err = kit.ParseChannel(a.channel); err != nil {
		return o, err
	}
	if err := engine.CheckChoice(a.engine); err != nil {
		return o, fmt.Errorf("--engine: %v", err)
	}
	o.Image, err = a.imageOptions()
	return o, err
}

func (a *analysisFlags) imageOptions() (plot.ImageOptions, error) {
	img := plot.ImageOptions{Width: a.width, Height: a.height}
	var err error
	if img.Scale, err = plot.ParseScale(a.freqScale); err != nil {
		return img, fmt.Errorf("--freq-scale: %v", err)
	}
	if img.Colormap, err = plot.ParseColormap(a.colormap); err != nil {
		return img, fmt.Errorf("--colormap: %v", err)
	}
	lo, hi, ok := strings.Cut(a.dbRange, ":")
	var err1, err2 error
	img.DBMin, err1 = strconv.ParseFloat(lo, 64)
	img.DBMax, err2 = strconv.ParseFloat(hi, 64)
	if !ok || errors.Join(err1, err2) != nil {
		return img, fmt.Errorf("--db-range %q: want MIN:MAX in dB with MIN < MAX, e.g. -120:0", a.dbRange)
	}
	if err := img.Check(); err != nil {
		return img, fmt.Errorf("--width/--height/--db-range: %v", err)
	}
	return img, nil
}
