package out

import (
	"fmt"

	"github.com/prismaudio/prism/app/encode"
)

// Writer takes an output's rows in time order and puts the file in place
// on Commit (nothing is in place before). Discard, deferred, removes what
// was not committed; calling it after Commit is harmless.
type Writer interface {
	Write(Row) error
	Commit() error
	Discard()
}

// Create starts an output at path, its format named by the extension
// (FormatOf). It must not be one of inputs.
func Create(path string, m Meta, inputs []string) (Writer, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	f, ok := FormatOf(path)
	if !ok {
		return nil, fmt.Errorf("out: %s: want .nc, .npy or .png", path)
	}
	o, err := encode.CreateWith(path, encode.CreateOptions{Inputs: inputs, Force: true})
	if err != nil {
		return nil, fmt.Errorf("out: %w", err)
	}
	switch f {
	case NPY:
		side, err := encode.CreateWith(SidecarPath(path), encode.CreateOptions{Inputs: inputs, Force: true})
		if err != nil {
			o.Discard()
			return nil, fmt.Errorf("out: %w", err)
		}
		w, err := newNPY(o, side, m)
		if err != nil {
			o.Discard()
			side.Discard()
		}
		return w, err
	case PNG:
		return newPNG(o, m), nil
	}
	w, err := newNetCDF(o, m)
	if err != nil {
		o.Discard()
		return nil, err
	}
	return w, nil
}

// CreateNetCDF starts a NetCDF output whose percentiles (Meta.Percentiles)
// are given before Commit.
func CreateNetCDF(path string, m Meta, inputs []string) (*NetCDFWriter, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	o, err := encode.CreateWith(path, encode.CreateOptions{Inputs: inputs, Force: true})
	if err != nil {
		return nil, fmt.Errorf("out: %w", err)
	}
	w, err := newNetCDF(o, m)
	if err != nil {
		o.Discard()
		return nil, err
	}
	return (*NetCDFWriter)(w), nil
}

// NetCDFWriter is a NetCDF Writer that also takes percentiles.
type NetCDFWriter ncWriter

// Write appends a row.
func (w *NetCDFWriter) Write(r Row) error { return (*ncWriter)(w).Write(r) }

// SetPercentiles gives len(Meta.Percentiles) rows of one level per
// column, written on Commit.
func (w *NetCDFWriter) SetPercentiles(levels [][]float32) { (*ncWriter)(w).SetPercentiles(levels) }

// Commit completes the file and puts it in place.
func (w *NetCDFWriter) Commit() error { return (*ncWriter)(w).Commit() }

// Discard removes the file unless committed.
func (w *NetCDFWriter) Discard() { w.o.Discard() }

func (w *ncWriter) Discard() { w.o.Discard() }
