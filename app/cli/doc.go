// Package cli is Prism's command line: `prism analyze`, `bands`,
// `spectrum`, `levels`, `distortion`, `capture`, `devices`, `filter` and
// `bench` — their flags, usage text,
// progress bars, summaries and exit codes (ExitOK, ExitFailure for a
// runtime failure, ExitUsage for bad usage or bad input), each a thin
// function over packages analysis and live. Messages on stderr start with
// "prism:", one line per message (later lines of one are indented under
// it), names with control characters quoted (safe.go). Run is called from
// main's goroutine; a command's interrupt (SIGINT, SIGTERM, SIGHUP)
// cancels its work through a context. In the prism process (main calls
// proc.EnableFastExit), `prism analyze` (and filter, spectrum, bands)
// leaves its OpenCL engines to the exit once every output is in place,
// and with $PRISM_EXIT_HOLD=1 hands the GPU device files to a child that
// keeps them until the process has exited (internal/proc; the driver's
// teardown then runs after the caller has seen the exit); tests, which
// call Run in their own process, close everything. The bench --e2e
// harness and the --timings lines live in internal/bench.
package cli
