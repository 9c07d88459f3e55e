//go:build unix

package proc

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user + system) the process has used so far,
// for the status bar's CPU load; ok is false where the OS does not say.
func ProcessCPU() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
