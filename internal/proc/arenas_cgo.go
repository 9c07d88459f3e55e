//go:build cgo && linux

package proc

// Under an address-space limit (ulimit -v, as batch schedulers set) glibc's
// malloc is what fails first: each thread that allocates in C (the OpenCL
// driver, PortAudio, the window's GL) gets an arena of its own, and each
// arena reserves 64 MiB of address space, up to eight per core — a
// process of 150 MB resident died at start below ~3 GB on 16 cores
// (pthread_create failed, SIGABRT). Two arenas (what MALLOC_ARENA_MAX=2
// gives) let every command run under a 1 GiB limit. The constructor runs
// as the executable is loaded, before the Go runtime or any library has
// started a thread; MALLOC_ARENA_MAX, when set, still decides.
//
// Below about 800 MiB (2 cores; more with more threads) the Go runtime
// cannot even start: it dies before main with exit status 2, which the
// commands keep for bad input. So a limit below 1 GiB (PRISM_MIN_AS,
// which every command was measured to work in) is refused here, before the runtime starts, with one line and exit 1.

/*
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#define PRISM_MIN_AS (1024UL << 20)

__attribute__((constructor)) static void prism_arena_max(void) {
	struct rlimit r;
	if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < PRISM_MIN_AS) {
		fprintf(stderr, "prism: the address-space limit (ulimit -v) is %lu MiB; Prism needs at least %lu MiB\n",
			(unsigned long)(r.rlim_cur >> 20), PRISM_MIN_AS >> 20);
		_exit(1);
	}
	if (getenv("MALLOC_ARENA_MAX") == NULL) {
		mallopt(M_ARENA_MAX, 2);
	}
}
*/
import "C"
