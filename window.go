//go:build cgo

package main

import (
	"os"

	"github.com/prismaudio/prism/ui/desktop"
)

// runWindow opens the desktop window when args are the window's.
func runWindow(args []string) (int, bool) { return desktop.Main(args, icon, os.Stderr) }
