package archive

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// writePCM16 writes a mono 16-bit WAV of secs seconds of noise, in 1 MiB
// writes (an archive's usual format).
func writePCM16(tb testing.TB, path string, rate int, secs float64) {
	tb.Helper()
	n := int(secs * float64(rate))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	le := binary.LittleEndian
	if _, err := f.Write(pcm16Header(rate, n)); err != nil {
		tb.Fatal(err)
	}
	x := noise(3, 1<<19, rate, 0.3, 0.1, 1000)
	buf := make([]byte, 0, 1<<20)
	for i := 0; i < n; i++ {
		buf = le.AppendUint16(buf, uint16(int16(x[i%len(x)]*32767)))
		if len(buf) == cap(buf) || i == n-1 {
			if _, err := f.Write(buf); err != nil {
				tb.Fatal(err)
			}
			buf = buf[:0]
		}
	}
}

// pcm16Header is the header of a mono 16-bit WAV of n samples.
func pcm16Header(rate, n int) []byte {
	le := binary.LittleEndian
	h := append([]byte("RIFF"), le.AppendUint32(nil, uint32(36+2*n))...)
	h = append(h, "WAVEfmt "...)
	h = le.AppendUint32(h, 16)
	h = le.AppendUint16(h, 1) // PCM
	h = le.AppendUint16(h, 1)
	h = le.AppendUint32(h, uint32(rate))
	h = le.AppendUint32(h, uint32(2*rate))
	h = le.AppendUint16(h, 2)
	h = le.AppendUint16(h, 16)
	h = append(h, "data"...)
	return le.AppendUint32(h, uint32(2*n))
}

// BenchmarkLTSA reads 10 minutes of 48 kHz 16-bit mono in two files (an
// LTSA of 5-s bins, 4096-point frames) beside the plain read of the same
// files; bytes/s is file bytes. The read runs first in each iteration,
// so both see the page cache.
func BenchmarkLTSA(b *testing.B) {
	dir := b.TempDir()
	var files []File
	for i := range 2 {
		path := filepath.Join(dir, "b"+string(rune('0'+i))+".wav")
		writePCM16(b, path, 48000, 300)
		f, err := describe(path)
		if err != nil {
			b.Fatal(err)
		}
		f.Start = at(float64(300 * i))
		files = append(files, f)
	}
	size := files[0].Size + files[1].Size
	b.Run("read", func(b *testing.B) {
		b.SetBytes(size)
		buf := make([]float32, prefetchSamples)
		for b.Loop() {
			for _, f := range files {
				d, err := audio.Open(f.Path)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if n, _ := d.Read(buf); n == 0 {
						break
					}
				}
				d.Close()
			}
		}
	})
	b.Run("ltsa/cpu", func(b *testing.B) {
		e := gpufft.NewCPU(0)
		defer e.Close()
		b.SetBytes(size)
		cfg := LTSAConfig{Average: 5 * time.Second, FFT: 4096, Window: window.Func{Kind: window.Hann}}
		for b.Loop() {
			if _, err := LTSA(context.Background(), e, files, cfg, func(Row) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
}
