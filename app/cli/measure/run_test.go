package measure

import (
	"bytes"
	"io"

	"github.com/prismaudio/prism/internal/message"
)

// commands are this package's, by name, as package cli lists them.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{"sweep": Sweep, "ir": IR, "room": Room}

// runOut runs `prism NAME ARGS…` as package cli does (its stderr through
// message.SafeWriter) and returns the exit code and both outputs.
func runOut(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = commands[args[0]](args[1:], &out, message.NewSafeWriter(&errb, args))
	return code, out.String(), errb.String()
}

// runCLI is runOut without stdout.
func runCLI(args ...string) (code int, stderr string) {
	code, _, stderr = runOut(args...)
	return code, stderr
}
