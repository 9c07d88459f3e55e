package audio

import (
	"time"
)

// FileSource plays a decoded file into the live pipeline at real-time pace
// (or as fast as read, unpaced): a Source like a sound card. At the end of
// the file Read returns the decoder's io.EOF, which a Recorder treats like
// a device error: it reopens the source, so the file loops.
type FileSource struct {
	dec   Decoder
	name  string
	paced bool
	block int
	pos   int64
	start time.Time
}

// OpenFileSource opens path (WAV, FLAC, MP3) as a live source.
func OpenFileSource(path string, paced bool) (*FileSource, error) {
	d, err := Open(path)
	if err != nil {
		return nil, err
	}
	f := d.Format()
	return &FileSource{dec: d, name: "file " + path, paced: paced, block: max(1, f.SampleRate/200)}, nil
}

func (s *FileSource) Name() string    { return s.name }
func (s *FileSource) SampleRate() int { return s.dec.Format().SampleRate }
func (s *FileSource) Channels() int   { return s.dec.Format().Channels }
func (s *FileSource) Close() error    { return s.dec.Close() }

// Read implements Source: at most 5 ms of frames, delivered when real time
// reaches their end.
func (s *FileSource) Read(dst []float32) (int, time.Time, error) {
	ch := s.Channels()
	frames := len(dst) / ch
	if s.paced {
		frames = min(frames, s.block)
		if s.start.IsZero() {
			s.start = time.Now()
		}
	}
	n, err := s.dec.Read(dst[:frames*ch])
	if err != nil {
		return 0, time.Time{}, err
	}
	s.pos += int64(n)
	if s.paced {
		due := s.start.Add(time.Duration(float64(s.pos) / float64(s.SampleRate()) * float64(time.Second)))
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
	}
	return n, time.Now(), nil
}
