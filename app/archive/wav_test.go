package archive

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// bextSpec is a bext chunk for writeWAV.
type bextSpec struct {
	date, clock string // "2021-03-15", "14:30:00"
	timeRef     uint64
}

// writeWAV writes a 32-bit float WAV of interleaved channels ch[c][i],
// with a bext chunk before fmt when b is not nil (as BWF recorders do).
func writeWAV(t testing.TB, path string, rate int, ch [][]float32, b *bextSpec) {
	t.Helper()
	le := binary.LittleEndian
	frames := len(ch[0])
	var data []byte
	for i := range frames {
		for c := range ch {
			data = le.AppendUint32(data, math.Float32bits(ch[c][i]))
		}
	}
	var body []byte
	body = append(body, "WAVE"...)
	if b != nil {
		raw := make([]byte, 602)
		copy(raw[bextDate:], b.date)
		copy(raw[bextTime:], b.clock)
		le.PutUint64(raw[bextTimeRef:], b.timeRef)
		body = append(body, "bext"...)
		body = le.AppendUint32(body, uint32(len(raw)))
		body = append(body, raw...)
	}
	body = append(body, "fmt "...)
	body = le.AppendUint32(body, 16)
	body = le.AppendUint16(body, 3)
	body = le.AppendUint16(body, uint16(len(ch)))
	body = le.AppendUint32(body, uint32(rate))
	body = le.AppendUint32(body, uint32(rate*4*len(ch)))
	body = le.AppendUint16(body, uint16(4*len(ch)))
	body = le.AppendUint16(body, 32)
	body = append(body, "data"...)
	body = le.AppendUint32(body, uint32(len(data)))
	body = append(body, data...)
	out := append([]byte("RIFF"), le.AppendUint32(nil, uint32(len(body)))...)
	if err := os.WriteFile(path, append(out, body...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// noise is n samples of seeded white noise of amplitude amp plus a sine
// of amplitude tone at hz.
func noise(seed uint64, n, rate int, amp, tone, hz float64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp*(2*rng.Float64()-1) + tone*math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
	}
	return x
}

// at is a test instant: 2021-03-15 12:00:00 UTC plus s seconds.
func at(s float64) time.Time {
	return time.Date(2021, 3, 15, 12, 0, 0, 0, time.UTC).Add(seconds(s))
}
