package desktop

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestReferenceDir: the references are kept under the user's
// configuration directory (XDG_CONFIG_HOME on Linux), in prism/references;
// without one, nowhere.
func TestReferenceDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CONFIG_HOME is Linux's")
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	if got, want := ReferenceDir(), filepath.Join(home, "prism", "references"); got != want {
		t.Errorf("ReferenceDir %q, want %q", got, want)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	if got := ReferenceDir(); got != "" {
		t.Errorf("without a configuration directory: %q", got)
	}
}
