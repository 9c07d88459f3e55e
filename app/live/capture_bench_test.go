package live

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/analysis"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/plot"
)

// BenchmarkCaptureSink times the capture sink per frame (row) at N=16384
// (8193 bins), queueing and writing (the dB conversion and the NPY, CSV
// or PNG writer, to a file in the test's temporary directory) with nothing
// dropped: its throughput is the writer goroutine's. At 48 kHz and hop 16
// a capture needs 3000 rows a second: 333 µs a row at most.
func BenchmarkCaptureSink(b *testing.B) {
	const fft, hop, rate, batch = 16384, 16, 48000, 64
	bins := fft/2 + 1
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]float32, 3*batch*bins) // 2 channels and the mix
	for i := range out {
		out[i] = rng.Float32()
	}
	gain := make([]float32, bins)
	for i := range gain {
		gain[i] = 1
	}
	for _, format := range []encode.Format{encode.FormatNPY, encode.FormatCSV, encode.FormatPNG} {
		b.Run(string(format), func(b *testing.B) {
			o, err := encode.Create(filepath.Join(b.TempDir(), "cap."+string(format)))
			if err != nil {
				b.Fatal(err)
			}
			defer o.Discard()
			opts := CaptureOptions{AnalyzeOptions: analysis.AnalyzeOptions{FFT: fft, Hop: hop, Channel: -1}, Format: format}
			opts.Image.Width, opts.Image.Height = 1920, 1080
			total := b.N * batch
			var rw encode.RowWriter
			switch format {
			case encode.FormatNPY:
				rw, err = encode.NewNPYRows(o, bins)
			case encode.FormatCSV:
				rw, err = encode.NewCSVRows(o, fft, hop, rate)
			default:
				rw = newImageRows(o, plot.NewSpectrogram(opts.Image, plot.Geometry{Rate: rate, FFT: fft, Hop: hop, Frames: total}), total)
			}
			if err != nil {
				b.Fatal(err)
			}
			s := newCaptureSink(rw, opts, 2, total)
			b.ResetTimer()
			for i := range b.N {
				s.batch(uint64(i*batch), batch, out, gain)
				for len(s.queue) > cap(s.queue)/2 { // keep up with the writer: nothing dropped
					time.Sleep(100 * time.Microsecond)
				}
			}
			s.close(total)
			if s.err != nil || s.dropped != 0 {
				b.Fatal(s.err, s.dropped)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(total), "µs/row")
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
