package rowsink

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/gpufft"
)

// BenchmarkSink times the sink per frame (row) at N=16384
// (8193 bins), queueing and writing (the NPY or CSV writer, to a file in
// the test's temporary directory) with nothing dropped: its throughput is
// the writer goroutine's. At 48 kHz and hop 16 a capture needs 3000 rows a
// second: 333 µs a row at most. (A PNG capture gets its pixel columns
// folded on the engine: one spectrum per pixel column, not per frame.)
func BenchmarkSink(b *testing.B) {
	const fft, hop, rate, batch = 16384, 16, 48000, 64
	bins := fft/2 + 1
	rng := rand.New(rand.NewPCG(1, 2))
	out := sinkOutput(fft, 3, 2, batch) // 2 channels and the mix, the mix recorded
	for i := range out.Columns {
		out.Columns[i] = -120 * rng.Float32()
	}
	for _, format := range []encode.Format{encode.FormatNPY, encode.FormatCSV} {
		b.Run(string(format), func(b *testing.B) {
			o, err := encode.Create(filepath.Join(b.TempDir(), "cap."+string(format)))
			if err != nil {
				b.Fatal(err)
			}
			defer o.Discard()
			total := b.N * batch
			var rw encode.RowWriter
			if format == encode.FormatNPY {
				rw, err = encode.NewNPYRows(o, bins)
			} else {
				rw, err = encode.NewCSVRows(o, fft, hop, rate)
			}
			if err != nil {
				b.Fatal(err)
			}
			s := New(rw, -1, 2, bins, total)
			b.ResetTimer()
			for i := range b.N {
				for k := range batch {
					out.ColumnIDs[k] = int64(i*batch + k)
				}
				out.NumColumns = batch
				s.Batch(out)
				for len(s.queue) > cap(s.queue)/2 { // keep up with the writer: nothing dropped
					time.Sleep(100 * time.Microsecond)
				}
			}
			s.Close(total)
			if s.Err != nil || s.Dropped != 0 {
				b.Fatal(s.Err, s.Dropped)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(total), "µs/row")
			b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// sinkOutput is a live output of one recorded channel (ch of outCh) with
// room for maxCols columns of fft/2+1 bins, as the engine makes it for a
// capture sink.
func sinkOutput(fft, outCh, ch, maxCols int) *gpufft.LiveOutput {
	cfg := gpufft.LiveConfig{Spectrogram: gpufft.SpectrogramConfig{Size: fft, Channels: outCh}, Grid: gpufft.FixedColumns{Frames: 1},
		ColumnChannel: ch + 1, MaxColumns: maxCols}
	return cfg.NewOutput()
}

// setColumns fills out with the columns ids, their dB rows back to back.
func setColumns(out *gpufft.LiveOutput, ids []int64, db []float32) {
	copy(out.Columns, db)
	copy(out.ColumnIDs, ids)
	out.NumColumns = len(ids)
}
