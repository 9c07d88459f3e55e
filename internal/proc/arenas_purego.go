//go:build !cgo && linux

package proc

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// A build without cgo (the GPU machines' bench binary) still loads glibc
// and the OpenCL driver (purego), but has no constructor to limit the
// malloc arenas before its threads start (arenas_cgo.go), and a mallopt
// at init comes too late: Go's threads have their arenas by then. Under
// an address-space limit it runs itself again with MALLOC_ARENA_MAX=2,
// which glibc reads as the process starts, and refuses a limit below
// 1 GiB with one line and exit 1. Without a limit nothing is done.
func init() {
	var r unix.Rlimit
	if Env().ArenaMaxSet || unix.Getrlimit(unix.RLIMIT_AS, &r) != nil || r.Cur == unix.RLIM_INFINITY {
		return
	}
	const minAS = 1 << 30 // as arenas_cgo.go's PRISM_MIN_AS
	if r.Cur < minAS {
		fmt.Fprintf(os.Stderr, "prism: the address-space limit (ulimit -v) is %d MiB; Prism needs at least %d MiB\n", r.Cur>>20, minAS>>20)
		os.Exit(1)
	}
	syscall.Exec("/proc/self/exe", os.Args, append(os.Environ(), "MALLOC_ARENA_MAX=2"))
	// on failure: run as we are
}
