package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/audio"
	"github.com/prismaudio/prism/internal/version"
)

const versionUsage = `  prism version [--json]   (also prism --version)
  The release, the commit and time it was built from, the Go toolchain,
  and whether cgo and PortAudio (live capture) are in this build.
  --json prints {"version","commit","modified","date","go","cgo","os",
  "arch","portaudio"} ("portaudio" is the library's version text, "" when
  the build has none).
`

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := kit.NewFlags("version", versionUsage, stderr)
	asJSON := fs.Bool("json", false, "print the build description as JSON")
	pos, code, ok := kit.ParseCommand(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return kit.UsageError("version", stderr)("takes no arguments")
	}
	in := version.Get()
	pa := audio.PortAudio()
	if *asJSON {
		b, err := json.Marshal(struct {
			version.Info
			PortAudio string `json:"portaudio"`
		}{in, pa})
		if err != nil {
			fmt.Fprintf(stderr, "prism: version: %v\n", err)
			return ExitFailure
		}
		fmt.Fprintln(stdout, string(b))
		return ExitOK
	}
	capture := "no live capture (built without cgo)"
	if pa != "" {
		capture = pa
	}
	cgo := "off"
	if in.Cgo {
		cgo = "on"
	}
	fmt.Fprintf(stdout, "prism %s (commit %s, %s)\n%s %s/%s, cgo %s; %s\n", in.Version, in.Short(), in.Date, in.Go, in.OS, in.Arch, cgo, capture)
	return ExitOK
}
