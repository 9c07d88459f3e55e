package encode

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// ErrNotWritable is returned by Create and Commit, unless
// CreateOptions.Force, for an output path that exists and whose permission
// bits do not let the user write it (see writableByMode): the file is not
// replaced.
var ErrNotWritable = errors.New("not writable")

// Output writes a file through a temporary file beside it and renames it
// into place only on Commit, so a failure, an interrupt or a full disk
// never leaves a partial file: Discard (deferred) removes the temporary
// file unless Commit succeeded. The file gets the mode a plain create
// would (0666 less the umask).
type Output struct {
	path  string
	tmp   *os.File
	W     *bufio.Writer // buffered writes to the temporary file
	done  bool
	force bool
}

// A temporary file is named ".NAME.prism-RANDOM-CHECK.tmp": RANDOM 16 hex
// digits from crypto/rand, CHECK the first 8 hex digits of the SHA-256 of
// tempSalt, NAME and RANDOM. No name a person or another program writes
// fits that by chance, and its writer holds an advisory lock (flock) on it
// from creation to Commit or Discard. A later run removes such a file only
// when it can take that lock: its writer is gone, whatever host or PID
// namespace it ran in (a process id says nothing there). Files of older
// Prism versions (".NAME.prism-PID-RANDOM.tmp") are left alone.
const (
	tempMark   = ".prism-"
	tempRandom = 16 // hex digits
	tempCheck  = 8  // hex digits
	tempSalt   = "prism temporary file\x00"
)

// tempName is a fresh temporary file name for an output named base.
func tempName(base string) string {
	var r [tempRandom / 2]byte
	rand.Read(r[:])
	random := hex.EncodeToString(r[:])
	return "." + base + tempMark + random + "-" + tempChecksum(base, random) + ".tmp"
}

func tempChecksum(base, random string) string {
	sum := sha256.Sum256([]byte(tempSalt + base + "\x00" + random))
	return hex.EncodeToString(sum[:tempCheck/2])
}

// isTempName reports whether name is exactly a name tempName makes.
func isTempName(name string) bool {
	rest, ok := strings.CutSuffix(name, ".tmp")
	i := strings.LastIndex(rest, tempMark)
	if !ok || !strings.HasPrefix(rest, ".") || i < 1 {
		return false
	}
	base, tail := rest[1:i], rest[i+len(tempMark):]
	if len(tail) != tempRandom+1+tempCheck || tail[tempRandom] != '-' {
		return false
	}
	random, check := tail[:tempRandom], tail[tempRandom+1:]
	for _, c := range random + check {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return check == tempChecksum(base, random)
}

// open holds the temporary files being written, for RemoveTemps.
var open = struct {
	sync.Mutex
	files map[string]bool
}{files: map[string]bool{}}

// CreateOptions are Create's choices.
type CreateOptions struct {
	// Inputs are the paths the output must not be (ErrOutputIsInput).
	Inputs []string
	// Force replaces an existing output whose permissions forbid writing
	// it (ErrNotWritable otherwise).
	Force bool
}

// Create starts an output at path: CreateWith with the inputs it must not
// be and no Force.
func Create(path string, inputs ...string) (*Output, error) {
	return CreateWith(path, CreateOptions{Inputs: inputs})
}

// CreateWith starts an output at path. It refuses a path that is, or
// links to, one of opts.Inputs (ErrOutputIsInput), and, unless opts.Force,
// an existing file the user may not write (ErrNotWritable); and it first
// removes the temporary files that dead Prism runs left beside path.
func CreateWith(path string, opts CreateOptions) (*Output, error) {
	if err := checkNotInput(path, opts.Inputs); err != nil {
		return nil, err
	}
	if err := checkWritable(path, opts.Force); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	removeStaleTemps(dir)
	tmp, err := createTemp(dir, filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("create output: %w", err)
	}
	if err := tmp.Chmod(0o666 &^ umask()); err != nil {
		os.Remove(tmp.Name())
		tmp.Close()
		return nil, fmt.Errorf("create output: %w", err)
	}
	open.Lock()
	open.files[tmp.Name()] = true
	open.Unlock()
	return &Output{path: path, tmp: tmp, force: opts.Force, W: bufio.NewWriterSize(&writeback{f: tmp}, 1<<20)}, nil
}

// createTemp creates and locks a temporary file for base in dir. A
// cleaner of another run may take the lock of a file just created, before
// its writer does, and remove it: then the writer starts again with a new
// name.
func createTemp(dir, base string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, tempName(base))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			if errors.Is(err, fs.ErrExist) && try < 100 {
				continue
			}
			return nil, err
		}
		if lockTemp(f) && sameName(f, name) {
			return f, nil
		}
		f.Close() // a cleaner holds it, or has removed it
		if try >= 100 {
			return nil, fmt.Errorf("lock %s: taken by another process 100 times", name)
		}
	}
}

// sameName reports whether name still names the file f is open on.
func sameName(f *os.File, name string) bool {
	fst, err := f.Stat()
	if err != nil {
		return false
	}
	st, err := os.Lstat(name)
	return err == nil && os.SameFile(st, fst)
}

// checkWritable refuses, unless force, an existing file at path that the
// user may not write.
// CheckReplace says, before any work, whether CreateWith would refuse to
// replace path without force (ErrNotWritable): nil when there is no file,
// when force is set, or when its permission bits let the user write it.
func CheckReplace(path string, force bool) error { return checkWritable(path, force) }

func checkWritable(path string, force bool) error {
	st, err := os.Stat(path)
	if err != nil || force || !st.Mode().IsRegular() || writableByMode(st) {
		return nil // no file to protect (or not a file: the rename says why not)
	}
	return fmt.Errorf("%s: %w (mode %04o; use --force to replace it)", path, ErrNotWritable, st.Mode().Perm())
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

// removeStaleTemps removes dir's Prism temporary files whose writer is
// gone (killed, or dead of a fatal error, before it could clean up): those
// named exactly as tempName names them whose lock it can take.
func removeStaleTemps(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if isTempName(e.Name()) && e.Type().IsRegular() {
			removeIfDead(filepath.Join(dir, e.Name()))
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

// Commit flushes, syncs and renames the file into place; unless the
// output was created with Force, it refuses (ErrNotWritable) to replace a
// file that appeared meanwhile and that the user may not write. Where the
// platform allows it the file is renamed before it is closed, so it is
// locked for as long as it has its temporary name.
func (o *Output) Commit() error {
	if err := o.W.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err := o.tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if err := checkWritable(o.path, o.force); err != nil {
		return err
	}
	if !renameOpen {
		if err := o.tmp.Close(); err != nil {
			return fmt.Errorf("write %s: %w", o.path, err)
		}
	}
	if err := os.Rename(o.tmp.Name(), o.path); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	if renameOpen {
		if err := o.tmp.Close(); err != nil {
			return fmt.Errorf("write %s: %w", o.path, err)
		}
	}
	o.done = true
	o.forget()
	return nil
}

// Discard removes the temporary file unless Commit succeeded. Calling it
// twice, or after Commit, is harmless.
func (o *Output) Discard() {
	if !o.done {
		if renameOpen {
			os.Remove(o.tmp.Name()) // still locked: no cleaner touches it
			o.tmp.Close()
		} else {
			o.tmp.Close()
			os.Remove(o.tmp.Name())
		}
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
