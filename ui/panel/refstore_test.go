package panel

import (
	"strings"
	"testing"
)

// TestRefFileNames: a reference's name survives its file name exactly,
// whatever it holds, and the file name has no separator or character a
// file system refuses; other names are not references.
func TestRefFileNames(t *testing.T) {
	for _, name := range []string{"bench A", "a/b\\c", "100% pink", `x:y*?"<>|`, "tab\there", "ünïcødé", "%41", "ref 12:03:04"} {
		f := refFileName(42, name)
		if strings.ContainsAny(f, `/\:*?"<>|`) || strings.ContainsFunc(f, func(r rune) bool { return r < 0x20 }) {
			t.Errorf("%q → file %q", name, f)
		}
		if seq, got, ok := refNameOf(f); !ok || seq != 42 || got != name {
			t.Errorf("%q → %q → %d %q %v", name, f, seq, got, ok)
		}
	}
	for _, f := range []string{"notes.csv", "bench.csv", "000 a.csv", "001 .csv", "001 a%2.csv", "001 a%zz.csv", "001 a.txt", "x1 a.csv"} {
		if _, _, ok := refNameOf(f); ok {
			t.Errorf("%q taken for a kept reference", f)
		}
	}
}
