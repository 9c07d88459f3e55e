// Command prism is a real-time audio spectrum analyzer whose FFTs run in
// OpenCL kernels on the GPU, with a CPU engine beside them.
//
// Without arguments (or with only window flags such as --generator) it
// opens the desktop window; with an audio file it opens the window on that
// file; with a subcommand it runs that command (see `prism help`).
package main

import (
	_ "embed"
	"os"
	"runtime/debug"

	"github.com/prismaudio/prism/app/cli"
	"github.com/prismaudio/prism/internal/proc"
)

//go:embed assets/icon.png
var icon []byte

func main() {
	// A death (a fatal runtime error such as running out of address space,
	// an unrecovered panic) ends by SIGABRT, never with exit status 2,
	// which the commands keep for bad usage and bad input.
	debug.SetTraceback("crash")
	args := os.Args[1:]
	cli.EnableProbe()
	proc.EnableFastExit()
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		os.Exit(cli.Run(args, os.Stdout, os.Stderr))
	}
	if code, ok := runWindow(args); ok {
		os.Exit(code)
	}
	os.Exit(cli.Run(args, os.Stdout, os.Stderr))
}
