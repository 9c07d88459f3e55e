package archive

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ManifestColumns are a manifest's columns, named in its header line (any
// order; only path is required):
//
//	path              the recording, relative to the manifest's folder or absolute
//	start_utc         its first sample's instant, RFC 3339 (2021-03-15T14:30:00.25Z);
//	                  empty: from bext or the name, as Scan does
//	rate_correction   true rate ÷ nominal rate (1.0000125 for a clock 12.5 ppm fast); empty: 1
//	transducer        none, hydrophone or microphone; empty: none
//	sensitivity_db    dB re 1 V/µPa (hydrophone) or dB re 1 V/Pa (microphone)
//	gain_db           preamplifier gain, dB; empty: 0
//	full_scale_v      volts at digital full scale; empty: 1
//	sensitivity_file  a sensitivity-versus-frequency file (ReadCurve), relative like path;
//	                  replaces sensitivity_db
//
// The columns are a fixed contract: new ones may be added, none renamed.
var ManifestColumns = []string{"path", "start_utc", "rate_correction", "transducer", "sensitivity_db", "gain_db", "full_scale_v", "sensitivity_file"}

// ReadManifest reads a CSV manifest (see ManifestColumns) into a catalogue.
// A row that names a missing or undecodable file, or a bad value, is an
// error naming its line: a manifest is written on purpose.
func ReadManifest(path string) (*Catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("archive: manifest: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("archive: manifest %s: header: %w", path, err)
	}
	col, err := manifestHeader(head)
	if err != nil {
		return nil, fmt.Errorf("archive: manifest %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	curves := map[string][]CurvePoint{}
	var files []File
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("archive: manifest %s: %w", path, err)
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		file, err := manifestRow(get, dir, curves)
		if err != nil {
			return nil, fmt.Errorf("archive: manifest %s:%d: %w", path, line, err)
		}
		files = append(files, file)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("archive: manifest %s: no recordings", path)
	}
	return NewCatalog(files), nil
}

func manifestHeader(head []string) (map[string]int, error) {
	known := map[string]bool{}
	for _, c := range ManifestColumns {
		known[c] = true
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !known[h] {
			return nil, fmt.Errorf("unknown column %q (want %s)", h, strings.Join(ManifestColumns, ","))
		}
		col[h] = i
	}
	if _, ok := col["path"]; !ok {
		return nil, errors.New("no path column")
	}
	return col, nil
}

func manifestRow(get func(string) string, dir string, curves map[string][]CurvePoint) (File, error) {
	p := get("path")
	if p == "" {
		return File{}, errors.New("empty path")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	f, err := describe(p)
	if err != nil {
		return File{}, err
	}
	if corr := get("rate_correction"); corr != "" {
		k, err := strconv.ParseFloat(corr, 64)
		if err != nil || !(k > 0.5 && k < 2) {
			return File{}, fmt.Errorf("rate_correction %q: want a factor near 1", corr)
		}
		f.Rate *= k
	}
	if s := get("start_utc"); s != "" {
		if f.Start, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return File{}, fmt.Errorf("start_utc %q: want RFC 3339 (2021-03-15T14:30:00Z)", s)
		}
		f.Start, f.Clock = f.Start.UTC(), "manifest"
	} else if f.Start, f.Clock, err = startOf(p, f.Rate); err != nil {
		return File{}, err
	}
	f.Cal, err = manifestCal(get, dir, curves)
	return f, err
}

func manifestCal(get func(string) string, dir string, curves map[string][]CurvePoint) (Calibration, error) {
	var c Calibration
	switch t := strings.ToLower(get("transducer")); t {
	case "", "none":
		return c, nil
	case "hydrophone":
		c.Transducer = Hydrophone
	case "microphone":
		c.Transducer = Microphone
	default:
		return c, fmt.Errorf("transducer %q: want none, hydrophone or microphone", t)
	}
	for _, v := range []struct {
		col string
		dst *float64
	}{{"sensitivity_db", &c.SensitivityDB}, {"gain_db", &c.GainDB}, {"full_scale_v", &c.FullScaleV}} {
		if s := get(v.col); s != "" {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return c, fmt.Errorf("%s %q: not a number", v.col, s)
			}
			*v.dst = x
		}
	}
	if s := get("sensitivity_file"); s != "" {
		if !filepath.IsAbs(s) {
			s = filepath.Join(dir, s)
		}
		if curves[s] == nil {
			pts, err := ReadCurve(s)
			if err != nil {
				return c, err
			}
			curves[s] = pts
		}
		c.Curve, c.Source = curves[s], s
	} else if get("sensitivity_db") == "" {
		return c, errors.New("a calibrated transducer needs sensitivity_db or sensitivity_file")
	}
	return c, c.Check()
}
