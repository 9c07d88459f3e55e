package gpufft

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/window"
)

// randomPCM returns frames×channels random samples of enc as raw bytes,
// with the extremes (most negative, −1, 0, +1, most positive; for float
// also ±0, ±Inf, NaN, denormals, ±MaxFloat32) spread through it.
func randomPCM(r *rand.Rand, enc PCMEncoding, frames, channels int) []byte {
	n := frames * channels
	raw := make([]byte, n*enc.Bytes())
	var extremes []uint32
	switch enc {
	case PCMInt16:
		extremes = []uint32{0x8000, 0xFFFF, 0, 1, 0x7FFF}
	case PCMInt24:
		extremes = []uint32{0x800000, 0xFFFFFF, 0, 1, 0x7FFFFF}
	case PCMInt32:
		extremes = []uint32{0x80000000, 0xFFFFFFFF, 0, 1, 0x7FFFFFFF, 0x7FFFFFC0, 0x40000001}
	case PCMFloat32:
		extremes = []uint32{0, 0x80000000, math.Float32bits(1), math.Float32bits(-1), 0x7F800000, 0xFF800000,
			0x7FC00001, 1, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, math.Float32bits(1.5)}
	}
	for i := range n {
		v := r.Uint32()
		if enc == PCMFloat32 && i%3 != 0 { // mostly ordinary audio levels
			v = math.Float32bits(float32(r.NormFloat64() * 0.3))
		}
		if i%97 < len(extremes) && i%2 == 0 {
			v = extremes[i%97]
		}
		b := raw[i*enc.Bytes():]
		switch enc {
		case PCMInt16:
			binary.LittleEndian.PutUint16(b, uint16(v))
		case PCMInt24:
			b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16)
		default:
			binary.LittleEndian.PutUint32(b, v)
		}
	}
	return raw
}

var pcmEncodings = []PCMEncoding{PCMInt16, PCMInt24, PCMInt32, PCMFloat32}

// wavOf wraps raw PCM in a WAV header (PCM or IEEE float tag).
func wavOf(raw []byte, enc PCMEncoding, channels int) []byte {
	var b bytes.Buffer
	tag, bits := uint16(1), uint16(8*enc.Bytes())
	if enc == PCMFloat32 {
		tag = 3
	}
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + len(raw)))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(tag)
	le(uint16(channels))
	le(uint32(48000))
	le(uint32(48000 * channels * enc.Bytes()))
	le(uint16(channels * enc.Bytes()))
	le(bits)
	b.WriteString("data")
	le(uint32(len(raw)))
	b.Write(raw)
	return b.Bytes()
}

// decodeWAV runs Prism's host decoder over a WAV held in memory and
// returns its interleaved samples.
func decodeWAV(t *testing.T, wav []byte, frames, channels int) []float32 {
	t.Helper()
	d, err := audio.NewWAV(bytes.NewReader(wav), "test.wav", int64(len(wav)))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, 0, frames*channels)
	buf := make([]float32, 4096*channels)
	for {
		n, err := d.Read(buf)
		out = append(out, buf[:n*channels]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) != frames*channels {
		t.Fatalf("decoder gave %d samples, want %d", len(out), frames*channels)
	}
	return out
}

// sameBits compares float32 slices bit for bit, except that any NaN equals
// any NaN when nanAny (a sum's NaN payload is not specified).
func sameBits(t *testing.T, what string, got, want []float32, nanAny bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		g, w := got[i], want[i]
		if math.Float32bits(g) == math.Float32bits(w) || (nanAny && g != g && w != w) {
			continue
		}
		if bad++; bad <= 5 {
			t.Errorf("%s: [%d] = %v (%#08x), want %v (%#08x)", what, i, g, math.Float32bits(g), w, math.Float32bits(w))
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values differ", what, bad)
	}
}

// expectPlanes makes ConvertPCM's expected output from the decoder's
// interleaved samples: the selected channel, every channel, or the mix as
// the host pipeline forms it (app/stream.go: summed in channel order, then
// times 1/channels).
func expectPlanes(dec []float32, channels, sel int) []float32 {
	frames := len(dec) / channels
	switch {
	case sel >= 0:
		out := make([]float32, frames)
		for i := range out {
			out[i] = dec[i*channels+sel]
		}
		return out
	case sel == PCMAll:
		out := make([]float32, frames*channels)
		for i := range frames {
			for c := range channels {
				out[c*frames+i] = dec[i*channels+c]
			}
		}
		return out
	}
	out := make([]float32, frames)
	inv := 1 / float32(channels)
	for i := range out {
		sum := dec[i*channels]
		for _, v := range dec[i*channels+1 : (i+1)*channels] {
			sum += v
		}
		if channels > 1 {
			sum *= inv
		}
		out[i] = sum
	}
	return out
}

type pcmCase struct {
	enc           PCMEncoding
	channels, sel int
}

func pcmCases() []pcmCase {
	var cs []pcmCase
	for _, enc := range pcmEncodings {
		cs = append(cs, pcmCase{enc, 1, PCMMix}, pcmCase{enc, 2, PCMMix}, pcmCase{enc, 3, PCMMix}, pcmCase{enc, 3, PCMAll}, pcmCase{enc, 3, 2})
	}
	return cs
}

// TestConvertPCMMatchesDecoder: the host conversion equals audio.NewWAV's
// decoding (and the host mix) bit for bit, for every encoding, with
// extremes.
func TestConvertPCMMatchesDecoder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range pcmCases() {
		frames := 1000 + c.channels
		raw := randomPCM(r, c.enc, frames, c.channels)
		dec := decodeWAV(t, wavOf(raw, c.enc, c.channels), frames, c.channels)
		f := PCMFormat{Encoding: c.enc, Channels: c.channels, Select: c.sel}
		got := make([]float32, f.Planes()*frames)
		if n := ConvertPCM(got, raw, f); n != frames {
			t.Fatalf("%+v: ConvertPCM = %d frames, want %d", c, n, frames)
		}
		sameBits(t, c.enc.String(), got, expectPlanes(dec, c.channels, c.sel), false)
	}
}

// TestPCMDeviceConversion: pcm_planar on the device writes exactly what
// the host decoder makes (bit for bit; a NaN from mixing may carry another
// payload), from Go memory and from a pinned staging buffer, for odd
// lengths.
func TestPCMDeviceConversion(t *testing.T) {
	g := requireGPU(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range pcmCases() {
		f := PCMFormat{Encoding: c.enc, Channels: c.channels, Select: c.sel}
		cfg := SpectrogramConfig{Size: 64, Hop: 16, Window: window.Func{Kind: window.Hann}, Channels: f.Planes(), MaxSamples: 5003, Output: DBFS}
		sp, err := NewPCMSpectrogram(g, f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		p := sp.(gpuPCMSpectrogram).gpuPCM
		for i, frames := range []int{1, 257, 5003} {
			raw := randomPCM(r, c.enc, frames, c.channels)
			dec := decodeWAV(t, wavOf(raw, c.enc, c.channels), frames, c.channels)
			if i == 2 { // through pinned staging
				st, err := p.Staging()
				if err != nil {
					t.Fatal(err)
				}
				raw = st[:copy(st, raw)]
			}
			if _, err := p.upload(raw); err != nil {
				t.Fatal(err)
			}
			got := make([]float32, f.Planes()*frames)
			if err := g.lib.Read(nil, p.sp.e.queue, p.sp.in, 0, 4*len(got), unsafe.Pointer(&got[0])); err != nil { // the plan's queue
				t.Fatal(err)
			}
			sameBits(t, c.enc.String(), got, expectPlanes(dec, c.channels, c.sel), c.sel == PCMMix)
		}
		p.Close()
	}
}

// TestPCMPlans: the PCM spectrogram and image plans give, on each engine,
// exactly what the float plans give for the host-converted samples, across
// batch boundaries (odd batch lengths, frames carried by re-sending the
// tail), with staging buffers and Go memory alternating; the GPU's image
// and rows agree with the CPU's within 0.01 dB above −120 dBFS.
func TestPCMPlans(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n, hop, total = 256, 96, 20011
	for _, enc := range pcmEncodings {
		f := PCMFormat{Encoding: enc, Channels: 2, Select: PCMMix}
		raw := randomPCM(r, enc, total, 2)
		if enc == PCMFloat32 { // finite audio for the spectra
			for i := 0; i < len(raw); i += 4 {
				binary.LittleEndian.PutUint32(raw[i:], math.Float32bits(float32(0.5*math.Sin(float64(i)*0.01)+0.1*r.NormFloat64())))
			}
		}
		planes := make([]float32, total)
		ConvertPCM(planes, raw, f)
		cfg := SpectrogramConfig{Size: n, Hop: hop, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 4000, Output: DBFS}
		ic := ImageConfig{Columns: 37, TotalFrames: cfg.Frames(total), RowLo: []int32{0, 3, 20, 60}, RowHi: []int32{3, 20, 60, 129}}
		var images, rowsOut [][]float32
		for _, e := range engines(t) {
			pi, err := NewPCMImage(e, f, cfg, ic)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := e.NewImage(cfg, ic)
			if err != nil {
				t.Fatal(err)
			}
			ps, err := NewPCMSpectrogram(e, f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := e.NewSpectrogram(cfg)
			if err != nil {
				t.Fatal(err)
			}
			fb := f.FrameBytes()
			var rows, want []float32
			dst := make([]float32, cfg.DstLen(cfg.MaxSamples))
			start, first := 0, 0
			for b := 0; start+n <= total; b++ {
				l := min(total-start, cfg.MaxSamples-b%3*7) // odd lengths
				chunk := raw[start*fb : (start+l)*fb]
				if b%2 == 0 {
					st, err := pi.Staging()
					if err != nil {
						t.Fatal(err)
					}
					chunk = st[:copy(st, chunk)]
				}
				k, err := pi.Add(chunk, first)
				if err != nil {
					t.Fatal(err)
				}
				if k2, err := fi.Add(planes[start:start+l], first); err != nil || k2 != k {
					t.Fatalf("float image: %d frames (%v), PCM %d", k2, err, k)
				}
				if k, err = ps.Execute(dst, raw[start*fb:(start+l)*fb]); err != nil {
					t.Fatal(err)
				}
				rows = append(rows, dst[:k*cfg.Bins()]...)
				if _, err = fs.Execute(dst, planes[start:start+l]); err != nil {
					t.Fatal(err)
				}
				want = append(want, dst[:k*cfg.Bins()]...)
				first += k
				start += k * hop
			}
			if first != cfg.Frames(total) {
				t.Fatalf("%s: %d frames, want %d", e.Name(), first, cfg.Frames(total))
			}
			img := make([]float32, ic.Columns*ic.Rows())
			wantImg := make([]float32, len(img))
			if err := pi.Image(img); err != nil {
				t.Fatal(err)
			}
			if err := fi.Image(wantImg); err != nil {
				t.Fatal(err)
			}
			sameBits(t, e.Name()+" "+enc.String()+" image", img, wantImg, false)
			sameBits(t, e.Name()+" "+enc.String()+" rows", rows, want, false)
			images, rowsOut = append(images, img), append(rowsOut, rows)
			for _, c := range []interface{ Close() error }{pi, fi, ps, fs} {
				c.Close()
			}
		}
		for i := 1; i < len(images); i++ {
			closeDB(t, enc.String()+" image", images[i], images[0])
			closeDB(t, enc.String()+" rows", rowsOut[i], rowsOut[0])
		}
	}
}

func closeDB(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range got {
		if max(got[i], want[i]) > -120 && math.Abs(float64(got[i]-want[i])) > 0.01 {
			t.Fatalf("%s: [%d] %.4f dB, CPU %.4f dB", what, i, got[i], want[i])
		}
	}
}

// TestPCMInvalid: bad formats and mismatched configs are ErrInvalid.
func TestPCMInvalid(t *testing.T) {
	cfg := SpectrogramConfig{Size: 64, Hop: 16, Window: window.Func{Kind: window.Hann}, Channels: 1, MaxSamples: 64, Output: DBFS}
	for _, f := range []PCMFormat{
		{Encoding: 0, Channels: 1}, {Encoding: 9, Channels: 1}, {Encoding: PCMInt16, Channels: 0},
		{Encoding: PCMInt16, Channels: 2000}, {Encoding: PCMInt16, Channels: 2, Select: 2},
		{Encoding: PCMInt16, Channels: 2, Select: -3}, {Encoding: PCMInt16, Channels: 2, Select: PCMAll},
	} {
		for _, e := range engines(t) {
			if _, err := NewPCMSpectrogram(e, f, cfg); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s %+v: %v, want ErrInvalid", e.Name(), f, err)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ConvertPCM of a partial frame did not panic")
		}
	}()
	ConvertPCM(make([]float32, 4), make([]byte, 5), PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix})
}

// TestPCMNoAllocs pins the PCM hot path: Execute, Submit and Rows, Add
// (from Go memory and from staging) and Staging allocate nothing once the
// plan has made its staging buffers.
func TestPCMNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race; make test runs this without it")
	}
	r := rand.New(rand.NewPCG(9, 10))
	f := PCMFormat{Encoding: PCMInt16, Channels: 2, Select: PCMMix}
	cfg := SpectrogramConfig{Size: 1024, Hop: 256, Window: window.Func{Kind: window.Hann}, Channels: 1, Mix: true, MaxSamples: 8192, Output: DBFS}
	ic := ImageConfig{Columns: 64, TotalFrames: 1000, RowLo: []int32{0, 100}, RowHi: []int32{100, 513}}
	raw := randomPCM(r, f.Encoding, cfg.MaxSamples, 2)
	dst := make([]float32, cfg.DstLen(cfg.MaxSamples))
	for _, e := range engines(t) {
		ps, err := NewPCMSpectrogram(e, f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		pi, err := NewPCMImage(e, f, cfg, ic)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []interface{ Staging() ([]byte, error) }{ps, pi} {
			for range 2 { // make both staging buffers
				st, err := p.Staging()
				if err != nil {
					t.Fatal(err)
				}
				copy(st, raw)
				if a, ok := p.(PCMImagePlan); ok {
					if _, err := a.Add(st[:len(raw)], 0); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		for name, fn := range map[string]func() error{
			"execute": func() error { _, err := ps.Execute(dst, raw); return err },
			"add":     func() error { _, err := pi.Add(raw, 0); return err },
			"submit and rows": func() error {
				st, err := ps.Staging()
				if err != nil {
					return err
				}
				if _, err := ps.Submit(st[:len(raw)]); err != nil {
					return err
				}
				_, _, err = ps.Rows()
				return err
			},
			"add staged": func() error {
				st, err := pi.Staging()
				if err != nil {
					return err
				}
				_, err = pi.Add(st[:len(raw)], 0)
				return err
			},
		} {
			if err := fn(); err != nil {
				t.Fatal(err)
			}
			if a := testing.AllocsPerRun(10, func() { _ = fn() }); a != 0 {
				t.Errorf("%s %s: %v allocs per call, want 0", e.Name(), name, a)
			}
		}
		ps.Close()
		pi.Close()
		pi.Close() // twice is harmless
	}
}

// TestPCMSubmitRows: with two batches in flight (Submit, Submit, then Rows
// after each further Submit), the rows come back in order and equal
// Execute's bit for bit, on each engine; a third batch in flight panics.
func TestPCMSubmitRows(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	f := PCMFormat{Encoding: PCMInt24, Channels: 2, Select: PCMAll}
	cfg := SpectrogramConfig{Size: 128, Hop: 48, Window: window.Func{Kind: window.Hann}, Channels: 2, MaxSamples: 1500, Output: DBFS}
	const total = 9001
	raw := randomPCM(r, f.Encoding, total, 2)
	fb := f.FrameBytes()
	for _, e := range engines(t) {
		p, err := NewPCMSpectrogram(e, f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var want, got []float32
		dst := make([]float32, cfg.DstLen(cfg.MaxSamples))
		collect := func() {
			rows, frames, err := p.Rows()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != cfg.OutChannels()*frames*cfg.Bins() {
				t.Fatalf("%s: Rows gave %d values for %d frames", e.Name(), len(rows), frames)
			}
			got = append(got, rows...)
		}
		inFlight := 0
		for start, b := 0, 0; start+cfg.Size <= total; b++ {
			l := min(total-start, cfg.MaxSamples-b%4*5)
			chunk := raw[start*fb : (start+l)*fb]
			k, err := p.Execute(dst, chunk)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, dst[:cfg.DstLen(l)]...)
			if inFlight == 2 {
				collect()
				inFlight--
			}
			st, err := p.Staging()
			if err != nil {
				t.Fatal(err)
			}
			if k2, err := p.Submit(st[:copy(st, chunk)]); err != nil || k2 != k {
				t.Fatalf("Submit: %d frames (%v), Execute %d", k2, err, k)
			}
			inFlight++
			start += k * cfg.Hop
		}
		for ; inFlight > 0; inFlight-- {
			collect()
		}
		if rows, n, err := p.Rows(); rows != nil || n != 0 || err != nil {
			t.Errorf("%s: Rows with nothing in flight = %d values, %d, %v", e.Name(), len(rows), n, err)
		}
		sameBits(t, e.Name()+" rows", got, want, false)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: a third Submit in flight did not panic", e.Name())
				}
			}()
			for range 3 {
				if _, err := p.Submit(raw[:cfg.MaxSamples*fb]); err != nil {
					t.Fatal(err)
				}
			}
		}()
		p.Close()
	}
}
