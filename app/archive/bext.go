package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Bext is what a Broadcast WAV file's bext chunk says about its start.
type Bext struct {
	// Origination is the OriginationDate and OriginationTime fields, read
	// as UTC (BWF writes the recorder's clock without a zone).
	Origination time.Time
	// TimeReference is the first sample's count of samples since midnight
	// of the origination date.
	TimeReference uint64
	// SampleRate is the fmt chunk's rate (Hz), the unit of TimeReference.
	SampleRate int
}

// Start is the instant of the file's first sample: midnight of the
// origination date plus TimeReference samples, or, when TimeReference is
// zero (recorders that do not set it), the origination date and time.
func (b Bext) Start() time.Time {
	if b.TimeReference == 0 || b.SampleRate <= 0 {
		return b.Origination
	}
	y, m, d := b.Origination.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	sec := b.TimeReference / uint64(b.SampleRate)
	rest := b.TimeReference % uint64(b.SampleRate)
	ns := time.Duration(sec)*time.Second + time.Duration(float64(rest)/float64(b.SampleRate)*1e9+0.5)
	return midnight.Add(ns)
}

// errNoBext is a WAV without a bext chunk (or not a WAV at all).
var errNoBext = errors.New("archive: no bext chunk")

// bext field offsets (EBU Tech 3285): Description 256, Originator 32,
// OriginatorReference 32, then the date, the time and the reference.
const (
	bextDate    = 320
	bextTime    = 330
	bextTimeRef = 338
	bextMin     = 346
)

// ReadBext reads the bext chunk of the RIFF, RF64 or BW64 WAV at path. It
// returns an error wrapping errNoBext when the file has none.
func ReadBext(path string) (Bext, error) {
	f, err := os.Open(path)
	if err != nil {
		return Bext{}, err
	}
	defer f.Close()
	var head [12]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return Bext{}, fmt.Errorf("%w: %s: short header", errNoBext, path)
	}
	riff := string(head[:4])
	if (riff != "RIFF" && riff != "RF64" && riff != "BW64") || string(head[8:12]) != "WAVE" {
		return Bext{}, fmt.Errorf("%w: %s: not a WAV file", errNoBext, path)
	}
	var b Bext
	var found bool
	for {
		var ch [8]byte
		if _, err := io.ReadFull(f, ch[:]); err != nil {
			break
		}
		id, size := string(ch[:4]), int64(binary.LittleEndian.Uint32(ch[4:]))
		switch {
		case id == "fmt " && size >= 8:
			var fm [8]byte
			if _, err := io.ReadFull(f, fm[:]); err != nil {
				return Bext{}, fmt.Errorf("archive: %s: fmt chunk: %w", path, err)
			}
			b.SampleRate = int(binary.LittleEndian.Uint32(fm[4:]))
			size -= 8
		case id == "bext" && size >= bextMin:
			raw := make([]byte, bextMin)
			if _, err := io.ReadFull(f, raw); err != nil {
				return Bext{}, fmt.Errorf("archive: %s: bext chunk: %w", path, err)
			}
			if b, err = parseBext(b, raw); err != nil {
				return Bext{}, fmt.Errorf("archive: %s: %w", path, err)
			}
			found = true
			size -= bextMin
		case id == "data" && (riff != "RIFF" || size == 0xFFFFFFFF):
			size = -1 // an RF64 data size lives in ds64: stop here
		}
		if found && b.SampleRate > 0 || size < 0 {
			break
		}
		if _, err := f.Seek(size+size&1, io.SeekCurrent); err != nil {
			break
		}
	}
	if !found {
		return Bext{}, fmt.Errorf("%w: %s", errNoBext, path)
	}
	return b, nil
}

// parseBext reads the origination date ("yyyy-mm-dd", any separators) and
// time ("hh:mm:ss") and the 64-bit time reference.
func parseBext(b Bext, raw []byte) (Bext, error) {
	date := strings.TrimRight(string(bytes.TrimRight(raw[bextDate:bextDate+10], "\x00")), " ")
	clock := strings.TrimRight(string(bytes.TrimRight(raw[bextTime:bextTime+8], "\x00")), " ")
	if len(date) != 10 || len(clock) != 8 {
		return b, fmt.Errorf("bext origination %q %q is not yyyy-mm-dd hh:mm:ss", date, clock)
	}
	norm := date[0:4] + "-" + date[5:7] + "-" + date[8:10] + "T" + clock[0:2] + ":" + clock[3:5] + ":" + clock[6:8] + "Z"
	t, err := time.Parse(time.RFC3339, norm)
	if err != nil {
		return b, fmt.Errorf("bext origination %q %q: %w", date, clock, err)
	}
	b.Origination = t
	b.TimeReference = binary.LittleEndian.Uint64(raw[bextTimeRef:])
	return b, nil
}
