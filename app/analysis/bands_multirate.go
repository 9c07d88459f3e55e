package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/prismaudio/prism/app/dsp"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// The multirate bank: where the lowest band needs a longer transform than
// bandsMaxFFT at the file's rate (1/48 octave at 20 Hz above 48 kHz
// sampling), the bands below 0.4 of a decimated rate are measured on the
// signal low-pass filtered and decimated, where the same transform length
// resolves them.

// bandsMaxDecimation bounds the decimation (384 kHz → 24 kHz).
const bandsMaxDecimation = 16

// Decimation filter: the pass band reaches decimPass of the decimated rate
// and the stop band starts at 1 − decimPass of it, so what aliases lands
// above decimPass, where no band measured at that rate lies.
const decimPass = 0.4

// bandsDecimation is the power of two D (rate a multiple of it) by which
// the lowest band is measured: 1 when a transform of bandsMaxFFT points
// at rate resolves it, else the smallest D at which one does (or the
// largest allowed).
func bandsDecimation(lowest dsp.Band, rate int) int {
	d := 1
	for d < bandsMaxDecimation && rate%(2*d) == 0 && dsp.UnderResolved(lowest, float64(rate)/float64(d)/bandsMaxFFT) {
		d *= 2
	}
	return d
}

// decimator is one channel (or the mix) of a decoder, low-pass filtered by
// a linear-phase FIR (Kaiser design, ≥ 60 dB stop band, ≤ 0.01 dB pass-band
// ripple) and decimated by d: every d-th sample of the whole convolution,
// its tail flushed with zeros at the end, so the power of anything below
// decimPass·rate/d is the file's to the filter's ripple. It reads as a
// mono decoder at rate/d.
type decimator struct {
	audio.Decoder
	h       []float32
	d       int
	channel int       // −1: the mix
	ring    []float32 // the last len(ring) inputs, at pos−1, pos−2, …
	mask    int
	pos     int       // inputs so far (file and flush)
	in      []float32 // interleaved input block
	read    int64     // the file's samples per channel
	flush   int       // zeros still to feed once the file ended
	ended   bool
}

func newDecimator(dec audio.Decoder, h []float32, d, channel int) *decimator {
	size := 1
	for size < len(h) {
		size *= 2
	}
	return &decimator{Decoder: dec, h: h, d: d, channel: channel, ring: make([]float32, size), mask: size - 1,
		in: make([]float32, 1<<14*dec.Format().Channels)}
}

// Format is the decoder's, mono at rate/d, its length unknown.
func (m *decimator) Format() audio.Format {
	f := m.Decoder.Format()
	f.SampleRate /= m.d
	f.Channels = 1
	f.Frames = -1
	return f
}

// Read writes up to len(dst) decimated samples.
func (m *decimator) Read(dst []float32) (int, error) {
	ch := m.Decoder.Format().Channels
	out := 0
	for out < len(dst) {
		want := min(len(m.in)/ch, (len(dst)-out-1)*m.d+1)
		k, err := m.input(want, ch)
		if k == 0 {
			if out > 0 {
				return out, nil
			}
			return 0, err
		}
		for i := range k {
			m.ring[m.pos&m.mask] = m.in[i]
			m.pos++
			if (m.pos-1)%m.d == 0 {
				dst[out] = m.output()
				out++
			}
		}
	}
	return out, nil
}

// input puts up to want samples (the channel or the mix; zeros once the
// file ended and until the flush is done) at m.in[:k].
func (m *decimator) input(want, ch int) (int, error) {
	if m.ended {
		k := min(want, m.flush)
		clear(m.in[:k])
		m.flush -= k
		if k == 0 {
			return 0, io.EOF
		}
		return k, nil
	}
	k, err := m.Decoder.Read(m.in[:want*ch])
	m.read += int64(k)
	if errors.Is(err, io.EOF) {
		m.ended, m.flush = true, len(m.h)-1
		if k == 0 {
			return m.input(want, ch)
		}
	} else if err != nil && k == 0 {
		return 0, err
	}
	for i := range k {
		if m.channel >= 0 {
			m.in[i] = m.in[i*ch+m.channel]
			continue
		}
		s := float32(0)
		for _, v := range m.in[i*ch : (i+1)*ch] {
			s += v
		}
		m.in[i] = s / float32(ch)
	}
	return k, nil
}

// output is the convolution at the newest input, Σ h[k]·x[pos−1−k].
func (m *decimator) output() float32 {
	s := float32(0)
	for k, hk := range m.h {
		s += hk * m.ring[(m.pos-1-k)&m.mask]
	}
	return s
}

// bandsDecimated measures bands (all below decimPass·rate/d) of the file in
// on the signal decimated by d: a second decoder of the file, low-passed
// and decimated as it streams. It returns their levels and the transform
// length at rate/d.
func bandsDecimated(ctx context.Context, in string, bands []dsp.Band, d int, samples int64, o BandsOptions, eng gpufft.Engine, warnings *[]string) ([]dsp.BandLevel, int, error) {
	dec, err := openInput(in, o.Channel, 1)
	if err != nil {
		return nil, 0, err
	}
	defer func() { *warnings = dec.Warnings() }() // the file read to its end: a data chunk cut short, say
	defer dec.Close()
	rate := dec.Format().SampleRate
	spec, err := dsp.ParseBand(fmt.Sprintf("lowpass:%g", decimPass*float64(rate/d)))
	if err != nil {
		return nil, 0, err
	}
	taps, err := dsp.BandTaps(spec, rate, math.Log2((1-decimPass)/decimPass))
	if err != nil {
		return nil, 0, err
	}
	n := bandsFFT(o, bands[0], rate/d, samples/int64(d))
	levels, err := bandsPass(ctx, newDecimator(dec, taps, d, o.Channel), bands, n, rate/d, 0, d, o, eng)
	if errors.Is(err, errNoSamples) {
		err = inputErrorf("%s: no samples", in)
	}
	return levels, n, err
}
