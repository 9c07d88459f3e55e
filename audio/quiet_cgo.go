//go:build cgo && linux

package audio

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

// ALSA's error handler type is variadic; this one drops everything.
static void prism_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {}
static void prism_jack_quiet(const char *msg) {}

typedef int (*alsa_set_fn)(void *);
typedef void (*jack_set_fn)(void (*)(const char *));

// prism_quiet installs (quiet != 0) or removes the handlers in the ALSA
// and JACK libraries the process has loaded (PortAudio's), looked up at
// run time so Prism has no link-time dependency on either. It returns
// a bit mask of what it found: 1 ALSA, 2 JACK.
static int prism_quiet(int quiet) {
	int found = 0;
	alsa_set_fn alsa = (alsa_set_fn)dlsym(RTLD_DEFAULT, "snd_lib_error_set_handler");
	if (alsa != NULL) {
		alsa(quiet ? (void *)prism_alsa_quiet : NULL);
		found |= 1;
	}
	jack_set_fn jerr = (jack_set_fn)dlsym(RTLD_DEFAULT, "jack_set_error_function");
	jack_set_fn jinfo = (jack_set_fn)dlsym(RTLD_DEFAULT, "jack_set_info_function");
	if (jerr != NULL && jinfo != NULL && quiet) {
		jerr(prism_jack_quiet);
		jinfo(prism_jack_quiet);
		found |= 2;
	}
	return found;
}

typedef int (*alsa_open_fn)(void **, const char *, int, int);
typedef int (*alsa_close_fn)(void *);

// prism_alsa_open_bogus opens an ALSA PCM that does not exist, which
// makes ALSA report through its error handler ("Unknown PCM …"); −1000:
// no ALSA loaded.
static int prism_alsa_open_bogus(const char *name) {
	alsa_open_fn open = (alsa_open_fn)dlsym(RTLD_DEFAULT, "snd_pcm_open");
	alsa_close_fn close = (alsa_close_fn)dlsym(RTLD_DEFAULT, "snd_pcm_close");
	if (open == NULL || close == NULL) {
		return -1000;
	}
	void *pcm = NULL;
	int err = open(&pcm, name, 1, 0);
	if (err == 0 && pcm != NULL) {
		close(pcm);
	}
	return err;
}
*/
import "C"

import (
	"os"
	"unsafe"
)

// init silences ALSA's and JACK's own messages (PortAudio's device scans
// make ALSA print about 160 lines of "ALSA lib pcm_…" and JACK "Cannot
// connect to server socket" to stderr) unless PRISM_VERBOSE is set or the
// command line has --verbose (or -verbose). Prism reports what failed
// itself, through its errors.
func init() {
	verbose := os.Getenv("PRISM_VERBOSE") != ""
	for _, a := range os.Args[1:] {
		verbose = verbose || a == "--verbose" || a == "-verbose"
	}
	SetLibraryLogging(verbose)
}

// SetLibraryLogging lets ALSA print its own diagnostics to stderr (on) or
// silences ALSA's error handler and JACK's error and info handlers (off,
// the default at start). JACK keeps no way to restore its default
// handlers, so on leaves them as they are. It reports which libraries it
// found loaded: "alsa", "jack".
func SetLibraryLogging(on bool) []string {
	q := C.int(1)
	if on {
		q = 0
	}
	found := C.prism_quiet(q)
	var libs []string
	if found&1 != 0 {
		libs = append(libs, "alsa")
	}
	if found&2 != 0 {
		libs = append(libs, "jack")
	}
	return libs
}

// alsaOpenBogus opens the ALSA PCM `name`, which should not exist, and
// returns ALSA's error code (−1000: ALSA is not loaded). Tests use it to
// make ALSA report an error through its handler.
func alsaOpenBogus(name string) int {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return int(C.prism_alsa_open_bogus(cs))
}
