package analysis

import "fmt"

// InputError is bad input (exit code 2): a file that cannot be decoded, a
// channel it does not have, fewer samples than one frame.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}
