package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// needTools skips (or fails under PRISM_REQUIRE_TOOLS=1) without the
// packaging tools scripts/setup.sh installs.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
				t.Fatalf("%s required (PRISM_REQUIRE_TOOLS=1; scripts/setup.sh installs it): %v", tool, err)
			}
			t.Skipf("no %s: %v", tool, err)
		}
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestDist: `make dist` (scripts/dist.sh) builds a Debian package and a
// tarball. The package's desktop entry and AppStream metadata pass
// desktop-file-validate and appstreamcli; its Depends are Debian's
// runtime libraries (PortAudio, GL, X, the OpenCL ICD loader), each
// installed on this machine; installed with dpkg into a fresh root (an
// empty dpkg database, as a new system's), its prism says its version,
// lists the devices and analyzes a file, its man pages render with man
// and describe each command's flags, its bash completion completes
// commands and flags; removed, it leaves nothing. The tarball's prism
// runs too.
func TestDist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the packages")
	}
	needTools(t, "dpkg-deb", "dpkg-shlibdeps", "desktop-file-validate", "appstreamcli", "man", "bash")
	if os.Geteuid() != 0 {
		if os.Getenv("PRISM_REQUIRE_TOOLS") == "1" {
			t.Fatal("installing into a root with dpkg needs root (PRISM_REQUIRE_TOOLS=1)")
		}
		t.Skip("installing into a root with dpkg needs root")
	}
	dir := t.TempDir()
	paths := strings.Fields(run(t, "scripts/dist.sh", dir))
	if len(paths) != 2 || !strings.HasSuffix(paths[0], ".deb") || !strings.HasSuffix(paths[1], ".tar.gz") {
		t.Fatalf("dist.sh printed %q", paths)
	}
	deb := paths[0]

	info := run(t, "dpkg-deb", "--field", deb, "Depends")
	for _, want := range []string{"libportaudio2", "libgl1", "ocl-icd-libopencl1"} {
		if !strings.Contains(info, want) {
			t.Errorf("Depends %q lacks %s", info, want)
		}
	}
	for _, dep := range strings.Split(strings.TrimSpace(info), ",") {
		pkg := strings.Fields(strings.Split(dep, "|")[0])[0]
		if out, err := exec.Command("dpkg-query", "-W", "-f=${Status}", pkg).Output(); err != nil || !strings.Contains(string(out), "ok installed") {
			t.Errorf("dependency %s is not a package installed here (%q, %v)", pkg, out, err)
		}
	}

	// a fresh root: an empty dpkg database
	root := filepath.Join(dir, "root")
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"var/lib/dpkg/status", "var/lib/dpkg/available"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the libraries come from this machine: the root holds no packages,
	// so their dependencies are forced (checked above instead)
	run(t, "dpkg", "--root="+root, "--force-depends", "--force-script-chrootless", "-i", deb)
	usr := filepath.Join(root, "usr")
	bin := filepath.Join(usr, "bin", "prism")

	var v struct{ Version, Commit string }
	if err := json.Unmarshal([]byte(run(t, bin, "version", "--json")), &v); err != nil || v.Version == "" {
		t.Errorf("installed prism version --json: %+v, %v", v, err)
	}
	if out := run(t, bin, "--version"); !strings.HasPrefix(out, "prism "+v.Version+" ") {
		t.Errorf("prism --version: %q", out)
	}
	run(t, bin, "devices")
	wav := filepath.Join(dir, "tone.wav")
	writeTone(t, wav, 1, 2)
	png := filepath.Join(dir, "tone.png")
	run(t, bin, "analyze", wav, "-o", png, "--engine", "cpu")
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("installed prism analyze wrote no PNG: %v", err)
	}

	share := filepath.Join(usr, "share")
	run(t, "desktop-file-validate", filepath.Join(share, "applications", "io.github.prismaudio.prism.desktop"))
	run(t, "appstreamcli", "validate", "--no-net", filepath.Join(share, "metainfo", "io.github.prismaudio.prism.metainfo.xml"))
	for page, want := range map[string]string{"prism.1.gz": "COMMANDS", "prism-room.1.gz": "--fraction", "prism-transfer.1.gz": "--ref-channel"} {
		cmd := exec.Command("man", "-l", filepath.Join(share, "man", "man1", page))
		cmd.Env = append(os.Environ(), "MANWIDTH=100", "MAN_KEEP_FORMATTING=0", "PAGER=cat")
		raw, err := cmd.CombinedOutput()
		out := regexp.MustCompile(".\x08").ReplaceAll(raw, nil) // grotty's overstrike (bold)
		if err != nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "NAME") {
			t.Errorf("man %s: %v, want NAME and %q in\n%.600s", page, err, want, out)
		}
	}
	comp := filepath.Join(share, "bash-completion", "completions", "prism")
	for line, want := range map[string]string{"prism ro": "room", "prism room --fr": "--fraction", "prism transfer --ref": "--ref-channel"} {
		words := strings.Fields(line)
		script := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _prism; echo "${COMPREPLY[@]}"`
		out := run(t, "bash", append([]string{"-c", script, "bash", comp}, words...)...)
		if !strings.Contains(out, want) {
			t.Errorf("completing %q: %q, want %s", line, out, want)
		}
	}

	run(t, "dpkg", "--root="+root, "--force-script-chrootless", "-r", "prism")
	left := 0
	filepath.Walk(usr, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			left++
			t.Errorf("left after removal: %s", p)
		}
		return nil
	})

	tarDir := filepath.Join(dir, "tar")
	os.MkdirAll(tarDir, 0o755)
	run(t, "tar", "-C", tarDir, "-xzf", paths[1])
	tbin, _ := filepath.Glob(filepath.Join(tarDir, "prism-*", "bin", "prism"))
	if len(tbin) != 1 {
		t.Fatalf("tarball's bin/prism: %v", tbin)
	}
	if out := run(t, tbin[0], "--version"); !strings.HasPrefix(out, "prism "+v.Version) {
		t.Errorf("tarball's prism --version: %q", out)
	}
}
