package encode

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Format is an output format.
type Format string

// Output formats.
const (
	FormatNPY Format = "npy"
	FormatCSV Format = "csv"
	FormatPNG Format = "png"
)

// ErrOutputIsInput is returned by Create for an output path that is, or
// links to, one of the inputs: writing it would destroy the input.
var ErrOutputIsInput = errors.New("the output is the input")

// Output writes a file through a temporary file beside it and renames it
// into place only on Commit, so a failure, an interrupt or a full disk
// never leaves a partial file: Discard (deferred) removes the temporary
// file unless Commit succeeded. The file gets the mode a plain create
// would (0666 less the umask).
type Output struct {
	path string
	tmp  *os.File
	W    *bufio.Writer // buffered writes to the temporary file
	done bool
}

// tempMark names Prism's temporary files: ".NAME.prism-PID-RANDOM.tmp", so
// a later run can tell its own stale ones (their process is gone) from
// anything else.
const tempMark = ".prism-"

// open holds the temporary files being written, for RemoveTemps.
var open = struct {
	sync.Mutex
	files map[string]bool
}{files: map[string]bool{}}

// Create starts an output at path. It refuses a path that is, or links
// to, one of inputs (ErrOutputIsInput), and first removes stale temporary
// files that earlier Prism runs left beside path when they were killed.
func Create(path string, inputs ...string) (*Output, error) {
	if err := checkNotInput(path, inputs); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	removeStaleTemps(dir)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+tempMark+strconv.Itoa(os.Getpid())+"-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create output: %w", err)
	}
	if err := tmp.Chmod(0o666 &^ umask()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("create output: %w", err)
	}
	open.Lock()
	open.files[tmp.Name()] = true
	open.Unlock()
	return &Output{path: path, tmp: tmp, W: bufio.NewWriterSize(&writeback{f: tmp}, 1<<20)}, nil
}

// checkNotInput refuses out when it names the same file as an input (the
// same path, a link to it, or a hard link).
func checkNotInput(out string, inputs []string) error {
	ost, err := os.Stat(out)
	if err != nil {
		return nil // no such file yet: it cannot be an input
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(ost, ist) {
			return fmt.Errorf("-o %s: %w (%s); choose another output", out, ErrOutputIsInput, in)
		}
	}
	return nil
}

// removeStaleTemps removes dir's Prism temporary files whose process is
// gone (killed, or dead of a fatal error, before it could clean up).
func removeStaleTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		i := strings.LastIndex(name, tempMark)
		if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") || i < 0 || !e.Type().IsRegular() {
			continue
		}
		pid, _, ok := strings.Cut(name[i+len(tempMark):], "-")
		if n, err := strconv.Atoi(pid); err == nil && ok && !processAlive(n) {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// RemoveTemps removes the temporary files of every Output not yet
// committed or discarded: for an exit that cannot wait for them (a second
// interrupt). Any goroutine may call it.
func RemoveTemps() {
	open.Lock()
	defer open.Unlock()
	for name := range open.files {
		os.Remove(name)
	}
	clear(open.files)
}

func (o *Output) forget() {
	open.Lock()
	delete(open.files, o.tmp.Name())
	open.Unlock()
}

// WriteAt writes p at offset off of the file, after flushing what is
// buffered (for headers completed at the end).
func (o *Output) WriteAt(p []byte, off int64) error {
	if err := o.W.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	if _, err := o.tmp.WriteAt(p, off); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Commit flushes, syncs and renames the file into place.
func (o *Output) Commit() error {
	if err := o.W.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err := o.tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err := o.tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	o.done = true
	o.forget()
	return nil
}

// Discard removes the temporary file unless Commit succeeded. Calling it
// twice, or after Commit, is harmless.
func (o *Output) Discard() {
	if !o.done {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.done = true
		o.forget()
	}
}

// FormatOf returns the output format named by a path's extension.
func FormatOf(path string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return FormatNPY, true
	case ".csv":
		return FormatCSV, true
	case ".png":
		return FormatPNG, true
	}
	return "", false
}
