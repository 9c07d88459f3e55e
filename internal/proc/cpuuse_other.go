//go:build !unix

package proc

import "time"

// ProcessCPU is the CPU time the process has used; not known here.
func ProcessCPU() (time.Duration, bool) { return 0, false }
