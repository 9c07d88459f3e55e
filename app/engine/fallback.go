package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/prismaudio/prism/gpufft"
)

// Error is a failure of the engine (so that the CPU may succeed
// where the GPU failed), as opposed to an input or output problem.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// FallbackNotice is what every pipeline says when the GPU fails and the
// CPU takes over.
func FallbackNotice(err error) string {
	return fmt.Sprintf("GPU failed: %v — using the CPU", err)
}

// WithFallback runs fn on the preferred engine and, when it fails with an
// Error on the GPU (and ctx is not done, and the engines are not
// Strict), once more on the CPU engine; the notice then says so
// (FallbackNotice). It is the one GPU→CPU retry of every file pipeline.
func WithFallback[T any](ctx context.Context, e Pair, fn func(gpufft.Engine) (T, error)) (T, string, error) {
	res, err := fn(e.Preferred)
	var ee *Error
	if err == nil || !e.HasGPU() || e.Strict || ctx.Err() != nil || !errors.As(err, &ee) {
		return res, "", err
	}
	notice := FallbackNotice(err)
	res, err = fn(e.CPU)
	return res, notice, err
}
