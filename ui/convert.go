package ui

import (
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/plot"
)

// The window keeps its settings as the names the preferences store; these
// read them into the analysis packages' types at the one place each is
// used.

// newFreqAxis is the frequency axis named scale ("lin", "log", "mel").
func newFreqAxis(scale string, rate, n int) (plot.FreqAxis, error) {
	s, err := plot.ParseScale(scale)
	if err != nil {
		return plot.FreqAxis{}, err
	}
	return plot.NewFreqAxis(s, rate, n), nil
}

// colormapLUT is the table of the colormap named name.
func colormapLUT(name string) (*[256][3]uint8, error) {
	c, err := plot.ParseColormap(name)
	if err != nil {
		return nil, err
	}
	return c.LUT(), nil
}

// parseBand reads a band spec and checks it at rate Hz ("" is no band).
func parseBand(spec string, rate int) (dsp.BandSpec, error) {
	b, err := dsp.ParseBand(spec)
	if err != nil {
		return b, err
	}
	return b, b.Check(rate)
}
