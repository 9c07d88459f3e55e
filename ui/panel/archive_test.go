package panel

import (
	"strings"
	"testing"
	"time"

	"github.com/prismaudio/prism/app/archive"
)

func TestArchiveSummaryAndReport(t *testing.T) {
	t0 := time.Date(2021, 3, 15, 0, 0, 0, 0, time.UTC)
	f := func(name string, startMin float64) archive.File {
		return archive.File{Path: "/data/" + name, Start: t0.Add(time.Duration(startMin * float64(time.Minute))), Rate: 48000,
			Frames: 48000 * 600, Channels: 1, Size: 57_600_044}
	}
	cat := archive.NewCatalog([]archive.File{f("a.wav", 0), f("b.wav", 10), f("c.wav", 30), f("d.wav", 35)})
	cat.Skipped = []archive.Skip{{Path: "/data/notes.wav", Reason: "no start time"}}
	want := "4 files · 40 min of audio · 2021-03-15 00:00 – 2021-03-15 00:45 UTC · 48000 Hz · 0.2 GB · 1 gap · 1 overlap · 1 file skipped"
	if got := Summary(cat); got != want {
		t.Errorf("Summary:\n%s\nwant\n%s", got, want)
	}
	r := Report(cat)
	for _, w := range []string{"gap of 10 m 00 s from 2021-03-15 00:20:00.000 UTC, between b.wav and c.wav",
		"overlap of 5 m 00 s from 2021-03-15 00:35:00.000 UTC: d.wav starts inside c.wav", "skipped notes.wav: no start time"} {
		if !strings.Contains(r, w) {
			t.Errorf("Report lacks %q:\n%s", w, r)
		}
	}
	for d, w := range map[time.Duration]string{45 * time.Second: "45 s", 150 * time.Second: "2 min 30 s", 3*time.Hour + 40*time.Minute: "3 h 40 min", 50 * time.Hour: "2 d 2 h"} {
		if got := Span(d); got != w {
			t.Errorf("Span(%v) = %q, want %q", d, got, w)
		}
	}
}
