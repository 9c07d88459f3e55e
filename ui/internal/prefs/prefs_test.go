package prefs

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

type sample struct {
	Name  string
	Count int
	Level float64
	On    bool
}

func (s *sample) rows() []Row {
	return []Row{String("name", &s.Name), Int("count", &s.Count), Float("level", &s.Level), Bool("on", &s.On)}
}

// TestRoundTrip: what Save writes, Load reads back under the same keys;
// keys never written leave the fields (the defaults) as they were.
func TestRoundTrip(t *testing.T) {
	p := test.NewTempApp(t).Preferences()
	def := sample{Name: "default", Count: 3, Level: -1.5, On: true}
	got := def
	Load(p, "x.", got.rows())
	if got != def {
		t.Fatalf("nothing saved: got %+v, want the defaults %+v", got, def)
	}
	want := sample{Name: "pink:-20", Count: 65536, Level: 0.9375, On: false}
	Save(p, "x.", want.rows())
	if v := p.String("x.name"); v != want.Name {
		t.Errorf("key x.name holds %q, want %q", v, want.Name)
	}
	got = def
	Load(p, "x.", got.rows())
	if got != want {
		t.Errorf("round trip: got %+v, want %+v", got, want)
	}
}
