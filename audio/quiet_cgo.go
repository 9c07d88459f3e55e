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

// PortAudio's ALSA host API prints its failed calls with vfprintf(stderr)
// ("Expression '…' failed in 'src/hostapi/alsa/pa_linux_alsa.c', line: …"),
// through no handler that can be replaced. prism_filter_stderr makes the C
// library's stderr a stream that drops such lines and ALSA's and JACK's
// own and writes every other line to file descriptor 2 at once; Go's own
// writes (Prism's messages, the runtime's panics) never pass through it.
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static FILE *prism_orig_stderr;
static FILE *prism_filtered_stderr;

// A line longer than this is passed on in pieces, unfiltered.
#define PRISM_LINE_MAX 2048
static char prism_line[PRISM_LINE_MAX];
static size_t prism_line_len;

static void prism_write_all(const char *p, size_t n) {
	while (n > 0) {
		ssize_t w = write(2, p, n);
		if (w <= 0) {
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

// prism_noise reports whether the line p[0:n] is one of the libraries'
// own: PortAudio's failed expressions, ALSA's and JACK's messages.
static int prism_noise(const char *p, size_t n) {
	static const char *const prefixes[] = {
		"Expression '", "ALSA lib ", "Cannot connect to server",
		"jack server is not running", "JackShmReadWritePtr",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t k = strlen(prefixes[i]);
		if (n >= k && memcmp(p, prefixes[i], k) == 0) {
			return 1;
		}
	}
	return memmem(p, n, "src/hostapi/", 12) != NULL;
}

static void prism_flush_line(void) {
	if (prism_line_len > 0 && !prism_noise(prism_line, prism_line_len)) {
		prism_write_all(prism_line, prism_line_len);
	}
	prism_line_len = 0;
}

// prism_cookie_write is the stream's write function; the stream's lock
// serialises calls to it.
static ssize_t prism_cookie_write(void *cookie, const char *buf, size_t size) {
	for (size_t i = 0; i < size; i++) {
		if (prism_line_len == PRISM_LINE_MAX) {
			prism_write_all(prism_line, prism_line_len);
			prism_line_len = 0;
		}
		prism_line[prism_line_len++] = buf[i];
		if (buf[i] == '\n') {
			prism_flush_line();
		}
	}
	return (ssize_t)size;
}

// prism_filter_stderr swaps the C library's stderr for the filtering
// stream (on != 0) or back to the original. It returns 0, or −1 where the
// filtering stream could not be made.
static int prism_filter_stderr(int on) {
	if (prism_orig_stderr == NULL) {
		prism_orig_stderr = stderr;
	}
	if (!on) {
		stderr = prism_orig_stderr;
		return 0;
	}
	if (prism_filtered_stderr == NULL) {
		cookie_io_functions_t io = {NULL, prism_cookie_write, NULL, NULL};
		FILE *f = fopencookie(NULL, "w", io);
		if (f == NULL) {
			return -1;
		}
		setvbuf(f, NULL, _IOLBF, 0);
		prism_filtered_stderr = f;
	}
	stderr = prism_filtered_stderr;
	return 0;
}

// prism_c_stderr writes s to the C library's stderr as PortAudio does.
static void prism_c_stderr(const char *s) {
	fprintf(stderr, "%s", s);
	fflush(stderr);
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
// itself, through its errors. It also drops PortAudio's own lines from
// what C code writes to stderr (see SetLibraryLogging).
func init() {
	verbose := envVerbose
	for _, a := range os.Args[1:] {
		verbose = verbose || a == "--verbose" || a == "-verbose"
	}
	SetLibraryLogging(verbose)
}

// SetLibraryLogging lets ALSA and PortAudio print their own diagnostics
// to stderr (on) or silences ALSA's error handler and JACK's error and
// info handlers and drops their lines and PortAudio's from what C code
// writes to stderr, passing every other line on (off, the default at
// start). JACK keeps no way to restore its default
// handlers, so on leaves them as they are. It reports which libraries it
// found loaded: "alsa", "jack".
func SetLibraryLogging(on bool) []string {
	q := C.int(1)
	if on {
		q = 0
	}
	found := C.prism_quiet(q)
	C.prism_filter_stderr(q)
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

// cStderr writes s to the C library's stderr (as PortAudio's messages are
// written). Tests use it.
func cStderr(s string) {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	C.prism_c_stderr(cs)
}
