package app

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/gpufft"
)

// BandSpec is a band filter: the kinds and syntax shared by the CLI and
// the UI.
type BandSpec struct {
	Kind   string  // "lowpass", "highpass", "bandpass", "bandstop"
	Lo, Hi float64 // edges in Hz (Lo unused by lowpass, Hi by highpass)
	Text   string  // as given
}

// ParseBand reads lowpass:F, highpass:F, bandpass:F1-F2, bandstop:F1-F2,
// octave:FC and third:FC (the IEC 61260-1 base-10 band centred on FC) and
// speech (bandpass 300–3400 Hz). Edges must be ordered and below Nyquist.
func ParseBand(s string, rate int) (BandSpec, error) {
	b := BandSpec{Text: s}
	kind, arg, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), ":")
	num := func(v string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("band %q: %q is not a positive frequency", s, v)
		}
		return f, nil
	}
	pair := func() (float64, float64, error) {
		a, c, ok := strings.Cut(arg, "-")
		if !ok {
			return 0, 0, fmt.Errorf("band %q: want F1-F2", s)
		}
		lo, err := num(a)
		if err != nil {
			return 0, 0, err
		}
		hi, err := num(c)
		if err != nil {
			return 0, 0, err
		}
		if lo >= hi {
			return 0, 0, fmt.Errorf("band %q: %g Hz is not below %g Hz", s, lo, hi)
		}
		return lo, hi, nil
	}
	var err error
	switch kind {
	case "lowpass":
		b.Kind = kind
		b.Hi, err = num(arg)
	case "highpass":
		b.Kind = kind
		b.Lo, err = num(arg)
	case "bandpass", "bandstop":
		b.Kind = kind
		b.Lo, b.Hi, err = pair()
	case "octave", "third":
		var fc float64
		if fc, err = num(arg); err == nil {
			frac := 1.0
			if kind == "third" {
				frac = 3
			}
			b.Kind = "bandpass"
			b.Lo, b.Hi = fc*math.Pow(octaveRatio, -1/(2*frac)), fc*math.Pow(octaveRatio, 1/(2*frac))
		}
	case "speech":
		b.Kind, b.Lo, b.Hi = "bandpass", 300, 3400
	default:
		return b, fmt.Errorf("band %q: want lowpass:F, highpass:F, bandpass:F1-F2, bandstop:F1-F2, octave:FC, third:FC or speech", s)
	}
	if err != nil {
		return b, err
	}
	if nyq := float64(rate) / 2; b.Hi >= nyq || b.Lo >= nyq {
		return b, fmt.Errorf("band %q: edges must be below Nyquist (%g Hz at %d Hz sampling)", s, nyq, rate)
	}
	return b, nil
}

// FIR design targets: the stop band holds 60 dB (designed for 65) from one
// transition width beyond each edge; the pass band ripples ≤ 0.1 dB (a
// Kaiser design for 65 dB ripples about 0.005 dB).
const (
	firAttenuationDB = 65
	maxTaps          = 1<<19 - 1
)

// DesignFIR returns an odd-length, linear-phase (symmetric) FIR for b at
// rate Hz: a Kaiser-windowed ideal response whose length gives the required
// attenuation over the narrowest transition, a transition being
// transitionOct octaves wide outside a pass band's edge (inside a stop
// band's edge, for bandstop). The delay is (len−1)/2 samples.
func DesignFIR(b BandSpec, rate int, transitionOct float64) ([]float64, error) {
	if !(transitionOct > 0 && transitionOct <= 2) {
		return nil, fmt.Errorf("transition %g octaves: want 0 < t ≤ 2", transitionOct)
	}
	up := func(f float64) float64 { return f * (math.Pow(2, transitionOct) - 1) }    // edge → higher
	down := func(f float64) float64 { return f * (1 - math.Pow(2, -transitionOct)) } // edge → lower
	fs := float64(rate)
	var widths []float64
	switch b.Kind {
	case "lowpass":
		widths = []float64{up(b.Hi)}
	case "highpass":
		widths = []float64{down(b.Lo)}
	case "bandpass":
		widths = []float64{down(b.Lo), up(b.Hi)}
	case "bandstop":
		widths = []float64{up(b.Lo), down(b.Hi)}
		if b.Lo+up(b.Lo) >= b.Hi-down(b.Hi) {
			return nil, fmt.Errorf("band %q: the stop band is narrower than two transitions of %g octave", b.Text, transitionOct)
		}
	default:
		return nil, fmt.Errorf("band kind %q", b.Kind)
	}
	dw := math.Inf(1)
	for _, w := range widths {
		dw = min(dw, w)
	}
	if b.Hi > 0 && b.Hi+dw >= fs/2 && b.Kind != "bandstop" && b.Kind != "highpass" {
		dw = min(dw, (fs/2-b.Hi)*0.999)
	}
	m := int(math.Ceil((firAttenuationDB-7.95)/(2.285*2*math.Pi*dw/fs))) + 1
	m |= 1
	if m > maxTaps {
		return nil, fmt.Errorf("band %q at %d Hz needs %d taps (at most %d): widen --transition or move the edge up", b.Text, rate, m, maxTaps)
	}
	d := float64(m-1) / 2
	lp := func(c float64, n int) float64 { // ideal lowpass at c Hz, centred
		x := float64(n) - d
		if x == 0 {
			return 2 * c / fs
		}
		return math.Sin(2*math.Pi*c*x/fs) / (math.Pi * x)
	}
	delta := func(n int) float64 {
		if float64(n) == d {
			return 1
		}
		return 0
	}
	half := dw / 2
	beta := 0.1102 * (firAttenuationDB - 8.7)
	win := gpufft.Window{Kind: gpufft.Kaiser, Beta: beta}.Values(m - 1) // periodic m−1 = symmetric m without its last point
	h := make([]float64, m)
	for n := range m {
		var v float64
		switch b.Kind {
		case "lowpass":
			v = lp(b.Hi+half, n)
		case "highpass":
			v = delta(n) - lp(b.Lo-half, n)
		case "bandpass":
			v = lp(b.Hi+half, n) - lp(b.Lo-half, n)
		case "bandstop":
			v = delta(n) - (lp(b.Hi-half, n) - lp(b.Lo+half, n))
		}
		w := win[0]
		if n < m-1 {
			w = win[n]
		}
		h[n] = v * w
	}
	return h, nil
}

// FIRResponse is |H(f)| of taps h at rate Hz, evaluated in float64.
func FIRResponse(h []float64, f float64, rate int) float64 {
	var re, im float64
	for n, v := range h {
		s, c := math.Sincos(2 * math.Pi * f * float64(n) / float64(rate))
		re += v * c
		im -= v * s
	}
	return math.Hypot(re, im)
}

// FilterOptions configure `prism filter`.
type FilterOptions struct {
	Band          string
	TransitionOct float64 // default 1/6
	KeepFormat    bool    // write the input's sample format, else float32
}

// FilterFile filters every channel of in with the band filter into out
// (WAV), by overlap-save FFT convolution on eng; the output has the input's
// length and the filter's delay compensated.
func FilterFile(ctx context.Context, in, out string, o FilterOptions, eng gpufft.Engine) (int64, error) {
	dec, err := audio.Open(in)
	if err != nil {
		return 0, &InputError{err}
	}
	defer dec.Close()
	f := dec.Format()
	band, err := ParseBand(o.Band, f.SampleRate)
	if err != nil {
		return 0, &InputError{err}
	}
	trans := o.TransitionOct
	if trans == 0 {
		trans = DefaultTransitionOct
	}
	h64, err := DesignFIR(band, f.SampleRate, trans)
	if err != nil {
		return 0, &InputError{err}
	}
	taps := make([]float32, len(h64))
	for i, v := range h64 {
		taps[i] = float32(v)
	}
	m := len(taps)
	size := 4096
	for size < 4*m {
		size *= 2
	}
	size = min(size, gpufft.MaxSize)
	ch := f.Channels
	blocksPerChannel := max(1, (1<<21)/size)
	conv, err := eng.NewConvolver(taps, size, blocksPerChannel*ch)
	if err != nil {
		return 0, &engineError{err}
	}
	defer conv.Close()
	step := conv.Step()

	of, err := createOutput(out)
	if err != nil {
		return 0, err
	}
	defer of.Discard()
	bits, float := 32, true
	if o.KeepFormat && f.Container == "WAV" && !strings.Contains(f.Encoding, "float") {
		bits, float = f.Bits, false
	} else if o.KeepFormat && strings.Contains(f.Encoding, "float") {
		bits = f.Bits
	}
	ww, err := newWAVWriter(of, f.SampleRate, ch, bits, float)
	if err != nil {
		return 0, err
	}

	// Per channel, hist holds the stream s (the input, then zeros) from
	// position produced−(m−1): m−1 samples of history, then new ones. A
	// block of size samples ending at s[p+step) yields the convolution
	// y[p, p+step). The output is z[n] = y[n + delay], n < input length:
	// the linear-phase delay compensated, the length kept.
	delay := (m - 1) / 2
	hist := make([][]float32, ch)
	for c := range hist {
		hist[c] = make([]float32, m-1, m-1+blocksPerChannel*step)
	}
	src := make([]float32, blocksPerChannel*ch*size)
	dst := make([]float32, blocksPerChannel*ch*step)
	tmp := make([]float32, 8192*ch)
	inter := make([]float32, blocksPerChannel*step*ch)
	want := m - 1 + blocksPerChannel*step
	var read, produced, written int64
	eof := false
	for {
		if err := ctx.Err(); err != nil {
			return written, err
		}
		for !eof && len(hist[0]) < want {
			k := min(len(tmp)/ch, want-len(hist[0]))
			got, err := dec.Read(tmp[:k*ch])
			for c := range ch {
				for i := range got {
					hist[c] = append(hist[c], tmp[i*ch+c])
				}
			}
			read += int64(got)
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return written, &InputError{err}
			}
		}
		end := int64(math.MaxInt64) // y index where output stops
		if eof {
			end = int64(delay) + read
			if produced >= end {
				break
			}
			// zeros after the input, up to what the output still needs,
			// rounded up to whole blocks
			newS := len(hist[0]) - (m - 1)
			needS := int(min(end-produced, int64(blocksPerChannel*step)))
			newS = (max(newS, needS) + step - 1) / step * step
			for c := range ch {
				hist[c] = append(hist[c], make([]float32, m-1+newS-len(hist[c]))...)
			}
		}
		blocks := (len(hist[0]) - (m - 1)) / step
		if blocks == 0 {
			break
		}
		for c := range ch {
			for b := range blocks {
				copy(src[(c*blocks+b)*size:(c*blocks+b+1)*size], padFront(hist[c][:m-1+(b+1)*step], size))
			}
		}
		if err := conv.Execute(dst[:blocks*ch*step], src[:blocks*ch*size]); err != nil {
			return written, &engineError{err}
		}
		// write y[max(produced, delay), min(produced+blocks·step, end))
		n := int64(blocks * step)
		lo := max(produced, int64(delay)) - produced
		hi := min(produced+n, end) - produced
		if hi > lo {
			for i := lo; i < hi; i++ {
				for c := range ch {
					inter[(i-lo)*int64(ch)+int64(c)] = dst[int64(c*blocks*step)+i]
				}
			}
			if err := ww.write(inter[:(hi-lo)*int64(ch)]); err != nil {
				return written, err
			}
			written += hi - lo
		}
		produced += n
		for c := range ch {
			hist[c] = append(hist[c][:0], hist[c][n:]...)
		}
	}
	if err := ww.finish(); err != nil {
		return written, err
	}
	return written, of.Commit()
}

// padFront returns the last size samples of x, zero-filled in front when x
// is shorter (the stream's start).
func padFront(x []float32, size int) []float32 {
	if len(x) >= size {
		return x[len(x)-size:]
	}
	out := make([]float32, size)
	copy(out[size-len(x):], x)
	return out
}

// wavWriter streams a WAV file (float32/64 or PCM 8…32 bits) and patches
// the sizes at the end; over 4 GiB it becomes RF64 (the reserved JUNK chunk
// turns into ds64). Float files carry the 18-byte fmt and the fact chunk
// the format requires.
type wavWriter struct {
	of       *outputFile
	ch       int
	bits     int
	float    bool
	dataSize int64
	headLen  int64 // bytes before the samples
	buf      []byte
}

func newWAVWriter(of *outputFile, rate, ch, bits int, float bool) (*wavWriter, error) {
	w := &wavWriter{of: of, ch: ch, bits: bits, float: float}
	h := w.header(rate)
	w.headLen = int64(len(h))
	if _, err := of.w.Write(h); err != nil {
		return nil, fmt.Errorf("write output: %w", err)
	}
	return w, nil
}

func (w *wavWriter) header(rate int) []byte {
	le := binary.LittleEndian
	h := []byte("RIFF\x00\x00\x00\x00WAVEJUNK")
	h = le.AppendUint32(h, 28)
	h = append(h, make([]byte, 28)...)
	tag, fmtLen := 1, 16
	if w.float {
		tag, fmtLen = 3, 18
	}
	ba := w.ch * w.bits / 8
	h = append(h, "fmt "...)
	h = le.AppendUint32(h, uint32(fmtLen))
	h = le.AppendUint16(h, uint16(tag))
	h = le.AppendUint16(h, uint16(w.ch))
	h = le.AppendUint32(h, uint32(rate))
	h = le.AppendUint32(h, uint32(rate*ba))
	h = le.AppendUint16(h, uint16(ba))
	h = le.AppendUint16(h, uint16(w.bits))
	if w.float {
		h = le.AppendUint16(h, 0)                // cbSize
		h = append(h, "fact\x04\x00\x00\x00"...) // sample frames, patched at the end
		h = le.AppendUint32(h, 0)
	}
	h = append(h, "data\x00\x00\x00\x00"...)
	return h
}

func (w *wavWriter) write(x []float32) error {
	bps := w.bits / 8
	if cap(w.buf) < len(x)*bps {
		w.buf = make([]byte, len(x)*bps)
	}
	b := w.buf[:len(x)*bps]
	for i, v := range x {
		switch {
		case w.float && w.bits == 64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(float64(v)))
		case w.float:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		default:
			q := math.Round(math.Max(-1, math.Min(1, float64(v))) * math.Exp2(float64(w.bits-1)))
			q = math.Min(q, math.Exp2(float64(w.bits-1))-1)
			switch w.bits {
			case 8:
				b[i] = byte(int(q) + 128)
			case 16:
				binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(q)))
			case 24:
				u := uint32(int32(q))
				b[3*i], b[3*i+1], b[3*i+2] = byte(u), byte(u>>8), byte(u>>16)
			default:
				binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(q)))
			}
		}
	}
	w.dataSize += int64(len(b))
	if _, err := w.of.w.Write(b); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

func (w *wavWriter) finish() error {
	if w.dataSize%2 == 1 {
		w.of.w.WriteByte(0)
	}
	if err := w.of.w.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	le := binary.LittleEndian
	riff := w.dataSize + w.headLen - 8 + w.dataSize%2
	frames := w.dataSize / int64(w.ch*w.bits/8)
	f := w.of.tmp
	if w.float {
		if _, err := f.WriteAt(le.AppendUint32(nil, uint32(min(frames, math.MaxUint32))), w.headLen-12); err != nil {
			return err
		}
	}
	if riff <= math.MaxUint32 {
		if _, err := f.WriteAt(le.AppendUint32(nil, uint32(riff)), 4); err != nil {
			return err
		}
		_, err := f.WriteAt(le.AppendUint32(nil, uint32(w.dataSize)), w.headLen-4)
		return err
	}
	// RF64: ds64 in place of JUNK, 32-bit sizes at 0xFFFFFFFF
	ds := append([]byte("ds64"), le.AppendUint32(nil, 28)...)
	ds = le.AppendUint64(ds, uint64(riff))
	ds = le.AppendUint64(ds, uint64(w.dataSize))
	ds = le.AppendUint64(ds, uint64(frames))
	ds = le.AppendUint32(ds, 0)
	for _, p := range []struct {
		off  int64
		data []byte
	}{{0, []byte("RF64\xff\xff\xff\xff")}, {12, ds}, {w.headLen - 4, []byte{0xff, 0xff, 0xff, 0xff}}} {
		if _, err := f.WriteAt(p.data, p.off); err != nil {
			return err
		}
	}
	return nil
}

// DefaultTransitionOct is the band filters' transition width beyond each
// edge, in octaves, unless `prism filter --transition` says otherwise.
const DefaultTransitionOct = 1.0 / 6

// bandFIR designs the taps of the band spec's filter at rate with the
// default transition: the filter the live display and the monitor output
// share.
func bandFIR(spec string, rate int) ([]float64, error) {
	b, err := ParseBand(spec, rate)
	if err != nil {
		return nil, err
	}
	return DesignFIR(b, rate, DefaultTransitionOct)
}

// bandGains returns |H(f_k)|² of the band's filter at the n-point FFT's bin
// centres: the per-bin power gains that show a spectrum as filtered.
func bandGains(spec string, rate, n int) ([]float32, error) {
	h, err := bandFIR(spec, rate)
	if err != nil {
		return nil, err
	}
	g := make([]float32, n/2+1)
	for k := range g {
		a := FIRResponse(h, float64(k)*float64(rate)/float64(n), rate)
		g[k] = float32(a * a)
	}
	return g, nil
}
