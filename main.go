// Command prism is a real-time audio spectrum analyzer whose FFTs run in
// OpenCL kernels on the GPU, with a CPU engine beside them.
//
// With a subcommand it runs that command (see `prism help`); without one it
// will open the desktop app.
package main

import (
	"os"

	"github.com/prismaudio/prism/app"
)

func main() {
	os.Exit(app.Run(os.Args[1:], os.Stdout, os.Stderr))
}
