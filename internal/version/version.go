// Package version says which Prism this is: its release version, the
// commit and time it was built from, the Go toolchain and whether cgo
// (and with it PortAudio capture) is in — what `prism --version` prints
// and the packages are named after. The commit and time come from the
// build information the go command records from the repository; a build
// outside one says "unknown".
package version

import (
	"runtime"
	"runtime/debug"
)

// Version is the release: FyneApp.toml's Version (a test keeps them
// equal), the Debian package's version.
const Version = "0.1.0"

// Info describes a build.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`   // the VCS revision, "unknown" outside a repository
	Modified bool   `json:"modified"` // built from a working tree with changes
	Date     string `json:"date"`     // the commit's time (RFC 3339), "unknown" without one
	Go       string `json:"go"`
	Cgo      bool   `json:"cgo"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// Get reads the running binary's build information.
func Get() Info {
	in := Info{Version: Version, Commit: "unknown", Date: "unknown", Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return in
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Commit = s.Value
		case "vcs.time":
			in.Date = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		case "CGO_ENABLED":
			in.Cgo = s.Value == "1"
		}
	}
	return in
}

// Short is the commit's first 12 hex digits (or "unknown"), with
// "-dirty" for a modified tree.
func (i Info) Short() string {
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Modified {
		c += "-dirty"
	}
	return c
}
