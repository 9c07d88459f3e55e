package proc

import (
	"io"
	"os"
	"sync/atomic"
)

// fastExit says the process exits as soon as its command returns.
var fastExit atomic.Bool

// EnableFastExit tells the commands that the process exits when its
// command returns (main calls it), so a command whose outputs are all in
// place may leave its OpenCL engines to the exit instead of releasing
// them. $PRISM_EXIT_RELEASE=1 turns it off again (to measure what
// releasing costs, or should a driver mind). Tests, which run commands
// in their own process, leave it off.
func EnableFastExit() { fastExit.Store(!Env().KeepRelease) }

// FastExit says whether EnableFastExit is in effect.
func FastExit() bool { return fastExit.Load() }

// HoldArg is the hidden subcommand of the child HoldDevices starts; the
// command line answers it by calling Hold.
const HoldArg = "__hold-devices"

// Hold is the child's part of HoldDevices: it reads its standard input to
// the end (its parent's exit) and returns; the descriptors it inherited
// close as it exits.
func Hold() { io.Copy(io.Discard, os.Stdin) }
