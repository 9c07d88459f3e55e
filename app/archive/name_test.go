package archive

import (
	"path/filepath"
	"testing"
	"time"
)

func TestParseName(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name string
		want time.Time
		ok   bool
	}{
		{"5783.210315143000.wav", time.Date(2021, 3, 15, 14, 30, 0, 0, time.UTC), true},                 // SoundTrap
		{"/data/st/671399467.191231235959.wav", time.Date(2019, 12, 31, 23, 59, 59, 0, time.UTC), true}, // SoundTrap, long serial
		{"20210315_143000.WAV", time.Date(2021, 3, 15, 14, 30, 0, 0, time.UTC), true},                   // AudioMoth
		{"SM4_20210315_143001.wav", time.Date(2021, 3, 15, 14, 30, 1, 0, time.UTC), true},               // Wildlife Acoustics
		{"S4A12345_20200229_000000.wav", time.Date(2020, 2, 29, 0, 0, 0, 0, time.UTC), true},            // Song Meter, leap day
		{"PAM_20210315_143000_250.wav", time.Date(2021, 3, 15, 14, 30, 0, 250*int(ms), time.UTC), true}, // PAMGuard
		{"HYD01_20210315T143000Z.flac", time.Date(2021, 3, 15, 14, 30, 0, 0, time.UTC), true},           // ISO basic
		{"site 2021-03-15_14-30-00.wav", time.Date(2021, 3, 15, 14, 30, 0, 0, time.UTC), true},          // ISO extended
		{"20210231_120000.wav", time.Time{}, false},                                                     // no 31 February
		{"5783.211315143000.wav", time.Time{}, false},                                                   // month 13
		{"recording.wav", time.Time{}, false},
		{"take 12.wav", time.Time{}, false},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.name), func(t *testing.T) {
			got, ok := ParseName(c.name)
			if ok != c.ok || !got.Equal(c.want) {
				t.Errorf("ParseName(%q) = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestReadBext(t *testing.T) {
	dir := t.TempDir()
	x := [][]float32{make([]float32, 100)}
	// 14:30:00.5 as samples since midnight at 48 kHz
	ref := uint64((14*3600+30*60)*48000 + 24000)
	cases := []struct {
		name string
		b    bextSpec
		want time.Time
	}{
		{"timeref", bextSpec{"2021-03-15", "14:29:59", ref}, time.Date(2021, 3, 15, 14, 30, 0, 5e8, time.UTC)},
		{"colons", bextSpec{"2021:03:15", "14:29:59", ref}, time.Date(2021, 3, 15, 14, 30, 0, 5e8, time.UTC)},
		{"origination", bextSpec{"2021-03-15", "14:29:59", 0}, time.Date(2021, 3, 15, 14, 29, 59, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// the name says another instant: bext with a time reference wins,
			// without one the name does
			path := filepath.Join(dir, c.name+"_20200101_000000.wav")
			writeWAV(t, path, 48000, x, &c.b)
			b, err := ReadBext(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.Start(); !got.Equal(c.want) {
				t.Errorf("Start = %v, want %v", got, c.want)
			}
			cat, err := Scan([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			want, clock := c.want, "bext"
			if c.b.timeRef == 0 {
				want, clock = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "name"
			}
			if f := cat.Files[0]; !f.Start.Equal(want) || f.Clock != clock || f.Frames != 100 || f.Rate != 48000 {
				t.Errorf("Scan: %+v, want start %v from %s", f, want, clock)
			}
		})
	}
	plain := filepath.Join(dir, "plain.wav")
	writeWAV(t, plain, 48000, x, nil)
	if _, err := ReadBext(plain); err == nil {
		t.Error("ReadBext of a WAV without bext: no error")
	}
}

func TestScanReportsGapsAndOverlaps(t *testing.T) {
	dir := t.TempDir()
	const rate = 1000
	write := func(name string, secs float64) {
		writeWAV(t, filepath.Join(dir, name), rate, [][]float32{make([]float32, int(secs*rate))}, nil)
	}
	write("A_20210315_120000.wav", 10)   // 12:00:00–12:00:10
	write("A_20210315_120010.wav", 10.4) // follows: joined, no report
	write("A_20210315_120030.wav", 10)   // 9.6 s after the last: a gap
	write("A_20210315_120035.wav", 10)   // 5 s inside the previous: an overlap
	write("notes.wav", 1)                // no clock: skipped, reported
	cat, err := Scan([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Files) != 4 || len(cat.Skipped) != 1 || filepath.Base(cat.Skipped[0].Path) != "notes.wav" {
		t.Fatalf("files %d, skipped %+v", len(cat.Files), cat.Skipped)
	}
	if len(cat.Gaps) != 1 || cat.Gaps[0].Length != 9600*time.Millisecond || !cat.Gaps[0].Start.Equal(at(20.4)) ||
		filepath.Base(cat.Gaps[0].Before) != "A_20210315_120030.wav" {
		t.Errorf("gaps %+v, want one of 9.6 s at 12:00:20.4", cat.Gaps)
	}
	if len(cat.Overlaps) != 1 || cat.Overlaps[0].Length != 5*time.Second || filepath.Base(cat.Overlaps[0].Second) != "A_20210315_120035.wav" {
		t.Errorf("overlaps %+v, want one of 5 s", cat.Overlaps)
	}
	runs := runsOf(cat.Files)
	if len(runs) != 2 || runs[0].frames != 20400 || runs[1].frames != 15000 || runs[1].parts[1].skip != 5000 {
		t.Errorf("runs: %d, frames %d %d", len(runs), runs[0].frames, runs[len(runs)-1].frames)
	}
}
