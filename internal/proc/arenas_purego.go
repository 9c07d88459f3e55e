//go:build !cgo && linux

package proc

import "github.com/ebitengine/purego"

// A build without cgo (the GPU machines' bench binary) still loads glibc
// and the OpenCL driver (purego): the same limit as arenas_cgo.go,
// through mallopt found at run time, as the process starts. Go's own
// threads, started before this, have not allocated through malloc yet,
// and a thread takes its arena at its first malloc.
func init() {
	if Env().ArenaMaxSet {
		return
	}
	lib, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return // not glibc: nothing to limit
	}
	if mallopt, err := purego.Dlsym(lib, "mallopt"); err == nil {
		const mArenaMax = -8 // M_ARENA_MAX in <malloc.h>
		purego.SyscallN(mallopt, uintptr(mArenaMax&0xffffffff), 2)
	}
}
