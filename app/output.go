package app

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// outputFile writes an output through a temporary file beside it and
// renames it into place only on Commit, so a failure, an interrupt or a
// full disk never leaves a partial file: Discard (deferred) removes the
// temporary file unless Commit succeeded.
type outputFile struct {
	path string
	tmp  *os.File
	w    *bufio.Writer
	done bool
}

func createOutput(path string) (*outputFile, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create output: %w", err)
	}
	return &outputFile{path: path, tmp: tmp, w: bufio.NewWriterSize(tmp, 1<<20)}, nil
}

// Commit flushes, syncs and renames the file into place.
func (o *outputFile) Commit() error {
	if err := o.w.Flush(); err != nil {
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

// Discard removes the temporary file unless Commit succeeded.
func (o *outputFile) Discard() {
	if !o.done {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}
}
