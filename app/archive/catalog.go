package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/prismaudio/prism/audio"
)

// File is one recording of an archive.
type File struct {
	Path     string
	Start    time.Time // the first sample's instant, UTC
	Rate     float64   // corrected sample rate, Hz: the nominal rate × the manifest's correction
	Frames   int64     // samples per channel
	Channels int
	// Int16 says the samples are 16-bit integer PCM (WAV), which the
	// engines take as they are (gpufft.Int16Executor).
	Int16 bool
	Size  int64 // bytes
	Cal   Calibration
	// Clock says where Start came from: "bext", "name" or "manifest".
	Clock string
}

// End is the instant just after the last sample.
func (f File) End() time.Time { return f.Start.Add(seconds(float64(f.Frames) / f.Rate)) }

// Duration is the file's length in time.
func (f File) Duration() time.Duration { return seconds(float64(f.Frames) / f.Rate) }

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// JoinTolerance is how far apart in time two files may be and still join
// without a seam: recorder names tick in whole seconds, so a file that
// follows the previous one's last sample within a second continues it
// (its samples are placed right after that last sample). A larger
// distance is a Gap or an Overlap.
const JoinTolerance = time.Second

// Gap is time between two files that no file covers.
type Gap struct {
	After, Before string    // the paths either side
	Start         time.Time // the end of After
	Length        time.Duration
}

// Overlap is time that two files both cover. The analyses read the
// overlapped span once, from the earlier file, and skip it in the later.
type Overlap struct {
	First, Second string
	Start         time.Time // the start of Second
	Length        time.Duration
}

// Skip is a file the catalogue could not use, and why.
type Skip struct {
	Path, Reason string
}

// Catalog is an archive in time order, with every gap and overlap between
// its files reported (never silently merged).
type Catalog struct {
	Files    []File // sorted by Start (then Path)
	Gaps     []Gap
	Overlaps []Overlap
	Skipped  []Skip
}

// NewCatalog sorts files by start time and finds the gaps and overlaps
// between consecutive files larger than JoinTolerance.
func NewCatalog(files []File) *Catalog {
	c := &Catalog{Files: append([]File(nil), files...)}
	sortFiles(c.Files)
	var end time.Time
	var last string
	for i, f := range c.Files {
		if i > 0 {
			switch d := f.Start.Sub(end); {
			case d > JoinTolerance:
				c.Gaps = append(c.Gaps, Gap{After: last, Before: f.Path, Start: end, Length: d})
			case d < -JoinTolerance:
				c.Overlaps = append(c.Overlaps, Overlap{First: last, Second: f.Path, Start: f.Start, Length: min(-d, f.Duration())})
			}
		}
		if e := f.End(); i == 0 || e.After(end) {
			end, last = e, f.Path
		}
	}
	return c
}

func sortFiles(files []File) {
	sort.SliceStable(files, func(i, j int) bool {
		if !files[i].Start.Equal(files[j].Start) {
			return files[i].Start.Before(files[j].Start)
		}
		return files[i].Path < files[j].Path
	})
}

// audioExt are the extensions Scan takes from folders.
var audioExt = map[string]bool{".wav": true, ".flac": true}

// Scan catalogues files and folders (searched recursively for .wav and
// .flac files). A file's start comes from its bext chunk when that has a
// time reference, else from its name (ParseName), else from the bext
// origination date and time. Files without a start or that do not decode
// are listed in Skipped, not fatal; an error is a path that does not
// exist or a catalogue with no usable file.
func Scan(paths []string) (*Catalog, error) {
	var files []File
	var skipped []Skip
	for _, p := range paths {
		names, err := listAudio(p)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			f, err := describe(name)
			if err != nil {
				skipped = append(skipped, Skip{Path: name, Reason: err.Error()})
				continue
			}
			if f.Start, f.Clock, err = startOf(name, f.Rate); err != nil {
				skipped = append(skipped, Skip{Path: name, Reason: err.Error()})
				continue
			}
			files = append(files, f)
		}
	}
	c := NewCatalog(files)
	c.Skipped = skipped
	if len(files) == 0 {
		return c, fmt.Errorf("archive: no usable recordings in %s", strings.Join(paths, ", "))
	}
	return c, nil
}

// listAudio returns path itself, or the audio files under a folder in
// lexical order.
func listAudio(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && audioExt[strings.ToLower(filepath.Ext(p))] && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return out, nil
}

// describe opens a recording for its format and size.
func describe(path string) (File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return File{}, err
	}
	d, err := audio.Open(path)
	if err != nil {
		return File{}, err
	}
	defer d.Close()
	fm := d.Format()
	if fm.Frames < 0 {
		return File{}, fmt.Errorf("archive: %s: unknown length", path)
	}
	raw, ok := d.(audio.RawPCM)
	pcm16 := ok && raw.RawFormat() == audio.RawFormat{BytesPerSample: 2}
	return File{Path: path, Rate: float64(fm.SampleRate), Frames: fm.Frames, Channels: fm.Channels, Int16: pcm16, Size: st.Size()}, nil
}

// startOf finds a file's start: bext with a time reference, the name,
// then bext's origination date and time.
func startOf(path string, rate float64) (time.Time, string, error) {
	b, berr := ReadBext(path)
	if berr == nil && b.TimeReference != 0 {
		if b.SampleRate == 0 {
			b.SampleRate = int(rate)
		}
		return b.Start(), "bext", nil
	}
	if t, ok := ParseName(path); ok {
		return t, "name", nil
	}
	if berr == nil {
		return b.Start(), "bext", nil
	}
	if !errors.Is(berr, errNoBext) {
		return time.Time{}, "", berr
	}
	return time.Time{}, "", fmt.Errorf("archive: %s: no start time (neither a recorder's name nor a bext chunk)", filepath.Base(path))
}
