// Package cache computes the LTSAs the window shows of an archive, with
// progress, and keeps them on disk under the user's cache directory, keyed
// by the inputs (each file's path, size, modification time, start, rate
// and calibration) and the parameters, so that opening an archive again,
// or going back to a zoom already seen, reads the result instead of the
// archive; and it describes an LTSA as `prism ltsa` writes it (Meta), so
// the window's exports equal the command's. It knows nothing of the
// window; the session hands it an engine.
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/gpufft"
	"github.com/prismaudio/prism/window"
)

// Request is one LTSA the window wants.
type Request struct {
	Files    []archive.File // sorted by start
	From, To time.Time      // the span shown (zero: the whole archive)
	Average  time.Duration
	FFT      int
	Channel  int
	// Cal calibrates the levels (uncalibrated: the files' own, from a
	// manifest), as archive.LTSAConfig's.
	Cal archive.Calibration
}

// LTSA is a computed long-term spectral average, as the window draws it.
type LTSA struct {
	Average time.Duration
	Freqs   []float64 // Hz, one per level
	Unit    string
	Rows    []archive.Row // bins with audio, in time order (gaps have none)
	Engine  string        // the engine that computed it
	Cached  bool          // read from the cache, not computed
	Kept    bool          // in the cache (a cache that cannot be written is no failure)
}

// hann is the LTSA's window, as Triton's and PAMGuard's.
var hann = window.Func{Kind: window.Hann}

// formatVersion changes when the cache's contents or their meaning do.
const formatVersion = 2

// Key is the request's cache key: a hash of every input and parameter.
func Key(r Request) string {
	h := sha256.New()
	fmt.Fprintf(h, "prism ltsa v%d\n%d %d %d %d %d %s %+v\n", formatVersion, r.From.UnixNano(), r.To.UnixNano(),
		r.Average, r.FFT, r.Channel, hann, r.Cal)
	for _, f := range r.Files {
		var mod int64
		if st, err := os.Stat(f.Path); err == nil {
			mod = st.ModTime().UnixNano()
		}
		fmt.Fprintf(h, "%q %d %d %d %s %d %d %+v\n", f.Path, f.Size, mod, f.Start.UnixNano(),
			strconv.FormatFloat(f.Rate, 'g', -1, 64), f.Frames, f.Channels, f.Cal)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Dir is where the LTSAs are kept: prism/ltsa under os.UserCacheDir.
func Dir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	return filepath.Join(d, "prism", "ltsa"), nil
}

// Compute returns the LTSA of r: from dir when kept there (dir empty: no
// cache), else computed on e and kept there (Kept says whether it was).
// progress, when not nil, is called with the fraction of the span done
// (0…1), from the calling goroutine.
func Compute(ctx context.Context, e gpufft.Engine, dir string, r Request, progress func(float64)) (*LTSA, error) {
	key := Key(r)
	if dir != "" {
		if l, err := load(filepath.Join(dir, key+".gob")); err == nil {
			l.Cached = true
			return l, nil
		}
	}
	cal, err := archive.CalibrationOf(r.Files, r.Cal)
	if err != nil {
		return nil, err
	}
	from, to := span(r)
	l := &LTSA{Average: r.Average, Unit: cal.Unit(), Engine: e.Name()}
	cfg := archive.LTSAConfig{Average: r.Average, FFT: r.FFT, Channel: r.Channel, Window: hann, Cal: r.Cal, From: r.From, To: r.To}
	l.Freqs, err = archive.LTSA(ctx, e, r.Files, cfg, func(row archive.Row) error {
		l.Rows = append(l.Rows, row)
		if progress != nil && to.After(from) {
			progress(min(1, float64(row.Start.Add(r.Average).Sub(from))/float64(to.Sub(from))))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.Kept = dir != "" && save(dir, key, l) == nil
	return l, nil
}

// span is the time the request covers.
func span(r Request) (from, to time.Time) {
	from, to = r.From, r.To
	if len(r.Files) > 0 {
		if from.IsZero() {
			from = r.Files[0].Start
		}
		if to.IsZero() {
			for _, f := range r.Files {
				if e := f.End(); e.After(to) {
					to = e
				}
			}
		}
	}
	return from, to
}

func load(path string) (*LTSA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var l LTSA
	if err := gob.NewDecoder(f).Decode(&l); err != nil {
		return nil, err
	}
	return &l, nil
}

// save writes l by temp file and rename, so a reader never sees half.
func save(dir, key string, l *LTSA) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	tmp, err := os.CreateTemp(dir, key+".*.tmp")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	err = gob.NewEncoder(tmp).Encode(l)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, key+".gob"))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// NiceAverage is the average for columns bins over span: the shortest of
// the usual steps (0.1 s … 1 day) that gives at most columns bins.
func NiceAverage(span time.Duration, columns int) time.Duration {
	for _, s := range averages {
		if span/s <= time.Duration(columns) {
			return s
		}
	}
	return averages[len(averages)-1]
}

var averages = []time.Duration{
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}
