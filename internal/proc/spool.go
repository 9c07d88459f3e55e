package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/prismaudio/prism/internal/message"
)

// A pipe or FIFO can be read once, but a PNG (and the bands) needs the
// file's length before its samples, which the analysis counts in a first
// pass when the header does not say (a WAV streamed into a pipe declares
// no length). Spool copies such an input into a temporary regular file
// first; messages still name the input.

// spools are the temporary copies in use, removed by an interrupt's exit
// too (watchSignals).
var spools struct {
	mu    sync.Mutex
	paths map[string]bool
}

// Spool returns in itself when it is a regular file (or cannot be
// examined: the analysis says why), else the path of a temporary copy of
// its bytes and the function that removes it. Cancelling ctx stops the
// copy between reads.
func Spool(ctx context.Context, in string) (string, func(), error) {
	if st, err := os.Stat(in); err != nil || st.Mode().IsRegular() || st.IsDir() {
		return in, func() {}, nil
	}
	src, err := os.Open(in)
	if err != nil {
		return in, func() {}, nil // the analysis reports it
	}
	defer src.Close()
	f, err := os.CreateTemp("", "prism-spool-*")
	if err != nil {
		return "", nil, fmt.Errorf("%s: copy of the stream: %w", message.Quote(in), err)
	}
	path := f.Name()
	spools.mu.Lock()
	if spools.paths == nil {
		spools.paths = map[string]bool{}
	}
	spools.paths[path] = true
	spools.mu.Unlock()
	remove := func() {
		os.Remove(path)
		spools.mu.Lock()
		delete(spools.paths, path)
		spools.mu.Unlock()
	}
	_, err = io.Copy(f, ctxReader{ctx, src})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		remove()
		if ctx.Err() != nil {
			return "", nil, ctx.Err()
		}
		return "", nil, fmt.Errorf("%s: copy of the stream: %w", message.Quote(in), err)
	}
	return path, remove, nil
}

// RemoveSpools removes every temporary copy (an interrupt's exit).
func RemoveSpools() {
	spools.mu.Lock()
	defer spools.mu.Unlock()
	for p := range spools.paths {
		os.Remove(p)
	}
}

// ctxReader stops reading once its context is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// named is an error (or warning) about a temporary copy told in the
// words of the input it copies.
type named struct {
	err       error
	copy, org string
}

func (n named) Error() string { return strings.ReplaceAll(n.err.Error(), n.copy, n.org) }
func (n named) Unwrap() error { return n.err }

// RenameAll replaces the copy's path by the input's in warnings.
func RenameAll(warnings []string, copy, in string) []string {
	for i, w := range warnings {
		warnings[i] = strings.ReplaceAll(w, copy, in)
	}
	return warnings
}

// Renamed is err with the copy's path replaced by the input's (nil for
// nil, err itself when there is no copy).
func Renamed(err error, copy, in string) error {
	if err == nil || copy == in {
		return err
	}
	return named{err, copy, in}
}
