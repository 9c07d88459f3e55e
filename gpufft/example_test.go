package gpufft_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// The usual way in: the GPU engine where OpenCL works, the CPU engine
// otherwise, behind one contract.
func ExampleAuto() {
	e, why := gpufft.Auto("", 0)
	if why != nil {
		fmt.Println("no OpenCL:", why) // analysis goes on, on the CPU
	}
	defer e.Close()
	p, err := e.NewReal(1024, 1)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	x := make([]float32, 1024)
	for i := range x {
		x[i] = float32(math.Cos(2 * math.Pi * 10 * float64(i) / 1024))
	}
	X := make([]complex64, 513)
	if err := p.Forward(X, x); err != nil {
		panic(err)
	}
	fmt.Printf("|X[10]| = %.1f, |X[11]| < 1e-3: %v\n", math.Hypot(float64(real(X[10])), float64(imag(X[10]))),
		math.Hypot(float64(real(X[11])), float64(imag(X[11]))) < 1e-3)
}

// A whole file's spectrogram image from raw PCM, as a file pipeline drives
// it: each batch of interleaved int16 bytes is read straight into the
// plan's staging buffer (pinned memory on the GPU, uploaded while the next
// batch is read), converted, mixed, transformed and folded on the engine;
// only the image comes back. Consecutive batches overlap by N−H samples
// (the frames that straddle the boundary), carried by copying the tail.
func ExampleNewPCMImage() {
	e, _ := gpufft.Auto("", 0) // the CPU engine where OpenCL is absent
	defer e.Close()

	const rate, seconds, n, hop = 48000, 3, 4096, 1024
	pcm := make([]byte, rate*seconds*4) // stand-in for a WAV's data chunk: 16-bit stereo
	for i := range rate * seconds {
		v := int16(8000 * math.Sin(2*math.Pi*4500*float64(i)/rate)) // 4.5 kHz on both channels
		for c := range 2 {
			binary.LittleEndian.PutUint16(pcm[4*i+2*c:], uint16(v))
		}
	}

	f := gpufft.PCMFormat{Encoding: gpufft.PCMInt16, Channels: 2, Select: gpufft.PCMMix}
	cfg := gpufft.SpectrogramConfig{Size: n, Hop: hop, Window: window.Func{Kind: window.Hann},
		Channels: f.Planes(), Mix: true, MaxSamples: n + 31*hop, Output: gpufft.DBFS}
	total := cfg.Frames(rate * seconds)
	// 8 rows of 256 bins each (3 kHz per row), 16 columns
	ic := gpufft.ImageConfig{Columns: 16, TotalFrames: total}
	for r := range 8 {
		ic.RowLo = append(ic.RowLo, int32(256*r))
		ic.RowHi = append(ic.RowHi, int32(256*r+256))
	}
	ic.RowHi[7]++ // bin N/2
	p, err := gpufft.NewPCMImage(e, f, cfg, ic)
	if err != nil {
		panic(err)
	}
	defer p.Close()

	fb := f.FrameBytes()
	src := bytes.NewReader(pcm) // the file
	var carry []byte
	for first := 0; first < total; {
		buf, err := p.Staging()
		if err != nil {
			panic(err)
		}
		have := copy(buf, carry)
		m, _ := io.ReadFull(src, buf[have:])
		batch := buf[:(have+m)/fb*fb]
		frames, err := p.Add(batch, first)
		if err != nil {
			panic(err)
		}
		if frames == 0 {
			break
		}
		first += frames
		carry = append(carry[:0], batch[frames*hop*fb:]...) // the next frames' head
	}
	img := make([]float32, ic.Columns*ic.Rows())
	if err := p.Image(img); err != nil {
		panic(err)
	}
	loudest := 0
	for r := range ic.Rows() {
		if img[5*ic.Rows()+r] > img[5*ic.Rows()+loudest] {
			loudest = r
		}
	}
	fmt.Printf("column 5: the tone is in row %d (%.0f dBFS)\n", loudest, img[5*ic.Rows()+loudest])
	// Output: column 5: the tone is in row 1 (-12 dBFS)
}

// Every frame's dB row of raw PCM, as an NPY or CSV writer wants them.
// ReadPCMRows reads the PCM into the plan's staging buffers, carries the
// overlap between batches and keeps two batches in flight: the callback
// writes one batch's rows while the engine analyzes the next.
func ExampleReadPCMRows() {
	e, _ := gpufft.Auto("", 0)
	defer e.Close()

	const rate, n, hop = 8000, 256, 64
	pcm := make([]byte, 2*rate) // one second of mono int16: a 1 kHz tone
	for i := range rate {
		binary.LittleEndian.PutUint16(pcm[2*i:], uint16(int16(16384*math.Sin(2*math.Pi*1000*float64(i)/rate))))
	}
	f := gpufft.PCMFormat{Encoding: gpufft.PCMInt16, Channels: 1, Select: gpufft.PCMMix}
	cfg := gpufft.SpectrogramConfig{Size: n, Hop: hop, Window: window.Func{Kind: window.Hann},
		Channels: f.Planes(), Mix: true, MaxSamples: n + 15*hop, Output: gpufft.DBFS}
	p, err := gpufft.NewPCMSpectrogram(e, f, cfg)
	if err != nil {
		panic(err)
	}
	defer p.Close()

	peakBin := 0
	frames, samples, err := gpufft.ReadPCMRows(context.Background(), p, bytes.NewReader(pcm), func(rows []float32, first, frames int) error {
		for i := range frames { // the row writer: here it finds the peak
			row := rows[i*cfg.Bins() : (i+1)*cfg.Bins()]
			for k := range row {
				if row[k] > row[peakBin] {
					peakBin = k
				}
			}
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d samples, %d rows, peak at %.0f Hz\n", samples, frames, float64(peakBin)*rate/n)
	// Output: 8000 samples, 122 rows, peak at 1000 Hz
}
