package proc

import "os"

// Switches are the process tricks' settings, from the environment. They
// exist to measure what each trick is worth.
type Switches struct {
	// KeepRelease ($PRISM_EXIT_RELEASE=1) turns fast exit off: engines
	// are released before the exit even in the prism process.
	KeepRelease bool
	// HoldDevices ($PRISM_EXIT_HOLD=1) hands the GPU device files to a
	// child at the exit (HoldDevices).
	HoldDevices bool
	// NoEarlyRelease ($PRISM_EARLY_RELEASE=0) turns the early release
	// off.
	NoEarlyRelease bool
	// ArenaMaxSet ($MALLOC_ARENA_MAX set) leaves glibc's malloc arenas
	// to that variable (see arenas_cgo.go).
	ArenaMaxSet bool
}

// Env reads the Switches from the environment: the one place this
// package reads it.
func Env() Switches {
	return Switches{
		KeepRelease:    os.Getenv("PRISM_EXIT_RELEASE") == "1",
		HoldDevices:    os.Getenv("PRISM_EXIT_HOLD") == "1",
		NoEarlyRelease: os.Getenv("PRISM_EARLY_RELEASE") == "0",
		ArenaMaxSet:    os.Getenv("MALLOC_ARENA_MAX") != "",
	}
}
