//go:build !cgo

package main

import (
	"fmt"
	"os"

	"github.com/prismaudio/prism/app/cli"
)

// runWindow: a build without cgo (the GPU-machine bench binary) has no
// window (Fyne's driver needs cgo), only the commands.
func runWindow(args []string) (int, bool) {
	if len(args) > 0 {
		return 0, false
	}
	fmt.Fprintln(os.Stderr, "prism: this build has no desktop window (built without cgo); the commands:")
	fmt.Fprintln(os.Stderr)
	cli.Usage(os.Stderr)
	return cli.ExitFailure, true
}
