// Package proc holds Prism's process tricks, the things a command does
// to its own process rather than to audio: leaving the engines to the
// exit (fast exit), handing the GPU device files to a child that outlives
// the process (Linux), asking the kernel to read inputs ahead (prefetch),
// releasing engines early once every file is done with them, and copying
// a pipe or FIFO into a temporary file that an interrupt's exit removes
// (spool.go).
//
// It knows nothing of audio, engines or commands: a release is handed
// the functions that close what it releases. Settings (Switches) are read
// from the environment in one place, env.go. It imports only the standard
// library, golang.org/x/sys and internal/message (and cgo for glibc's
// mallopt, where built with it).
package proc
