package view

import (
	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/app/plot"
)

// NewFreqAxis is the frequency axis named scale ("lin", "log", "mel").
func NewFreqAxis(scale string, rate, n int) (plot.FreqAxis, error) {
	s, err := plot.ParseScale(scale)
	if err != nil {
		return plot.FreqAxis{}, err
	}
	return plot.NewFreqAxis(s, rate, n), nil
}

// ColormapLUT is the table of the colormap named name.
func ColormapLUT(name string) (*[256][3]uint8, error) {
	c, err := plot.ParseColormap(name)
	if err != nil {
		return nil, err
	}
	return c.LUT(), nil
}

// ParseBand reads a band spec and checks it at rate Hz ("" is no band).
func ParseBand(spec string, rate int) (dsp.BandSpec, error) {
	b, err := dsp.ParseBand(spec)
	if err != nil {
		return b, err
	}
	return b, b.Check(rate)
}
