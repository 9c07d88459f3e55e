// Package cli is Prism's command line: `prism analyze`, `bands`,
// `spectrum`, `levels`, `distortion`, `capture`, `devices`, `filter` and
// `bench` — their flags, usage text,
// progress bars, summaries and exit codes (ExitOK, ExitFailure for a
// runtime failure, ExitUsage for bad usage or bad input), each a thin
// function over packages analysis and live. Messages on stderr start with
// "prism:". Run is called from main's goroutine; a command's interrupt
// (SIGINT, SIGTERM) cancels its work through a context.
package cli
