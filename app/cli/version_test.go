package cli

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/prismaudio/prism/internal/version"
)

// `prism version --json` has the documented keys, the release of package
// version and this toolchain; --version's first line names the release.
func TestVersionCommand(t *testing.T) {
	code, stdout, msg := runOut("version", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "commit", "modified", "date", "go", "cgo", "os", "arch", "portaudio"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, stdout)
		}
	}
	if got["version"] != version.Version || got["go"] != runtime.Version() {
		t.Errorf("%s: want version %s, go %s", stdout, version.Version, runtime.Version())
	}
	code, stdout, _ = runOut("--version")
	if code != 0 || !strings.HasPrefix(stdout, "prism "+version.Version+" (commit ") {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
	if code, msg := runCLI("version", "extra"); code != ExitUsage || !strings.HasPrefix(msg, "prism: version: ") {
		t.Errorf("version extra: exit %d, %q", code, msg)
	}
}

// Describe reads every command's usage and flags without running it:
// nothing written, each command there with its own flags.
func TestDescribe(t *testing.T) {
	helps := Describe()
	if len(helps) != len(Commands()) {
		t.Fatalf("%d commands described, %d exist", len(helps), len(Commands()))
	}
	has := func(name, flag string) bool {
		for _, h := range helps {
			if h.Name == name {
				for _, f := range h.Flags {
					if f.Name == flag {
						return true
					}
				}
			}
		}
		return false
	}
	for _, c := range [][2]string{{"room", "fraction"}, {"transfer", "ref-channel"}, {"analyze", "fft"}, {"bench", "sizes"}, {"version", "json"}} {
		if !has(c[0], c[1]) {
			t.Errorf("prism %s: no --%s described", c[0], c[1])
		}
	}
	for _, h := range helps {
		if h.Name != "bench" && h.Name != "devices" && !strings.Contains(h.Usage, "prism "+h.Name) {
			t.Errorf("%s's usage %q does not show the command", h.Name, h.Usage)
		}
	}
	// a command run normally after Describe still parses its arguments
	if code, _ := runCLI("room"); code != ExitUsage {
		t.Errorf("prism room without a file after Describe: exit %d, want 2", code)
	}
}
