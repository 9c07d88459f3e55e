package encode

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Format is an output format.
type Format string

// Output formats.
const (
	FormatNPY Format = "npy"
	FormatCSV Format = "csv"
	FormatPNG Format = "png"
)

// Output writes a file through a temporary file beside it and renames it
// into place only on Commit, so a failure, an interrupt or a full disk
// never leaves a partial file: Discard (deferred) removes the temporary
// file unless Commit succeeded.
type Output struct {
	path string
	tmp  *os.File
	W    *bufio.Writer // buffered writes to the temporary file
	done bool
}

// Create starts an output at path.
func Create(path string) (*Output, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create output: %w", err)
	}
	return &Output{path: path, tmp: tmp, W: bufio.NewWriterSize(tmp, 1<<20)}, nil
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
	return nil
}

// Discard removes the temporary file unless Commit succeeded. Calling it
// twice, or after Commit, is harmless.
func (o *Output) Discard() {
	if !o.done {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		o.done = true
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
