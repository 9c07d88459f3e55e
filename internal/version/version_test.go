package version

import (
	"os"
	"regexp"
	"testing"
)

// TestVersionMatchesFyneApp: the release version is FyneApp.toml's,
// which the Fyne tooling and the window's About read.
func TestVersionMatchesFyneApp(t *testing.T) {
	b, err := os.ReadFile("../../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Version = "([^"]+)"`).FindSubmatch(b)
	if m == nil || string(m[1]) != Version {
		t.Fatalf("FyneApp.toml's Version %q, package version's %q", m, Version)
	}
}

func TestShort(t *testing.T) {
	for _, c := range []struct {
		in   Info
		want string
	}{
		{Info{Commit: "0123456789abcdef0123"}, "0123456789ab"},
		{Info{Commit: "0123456789abcdef0123", Modified: true}, "0123456789ab-dirty"},
		{Info{Commit: "unknown"}, "unknown"},
	} {
		if got := c.in.Short(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.in, got, c.want)
		}
	}
}
