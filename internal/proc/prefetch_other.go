//go:build !linux

package proc

// Prefetch does nothing where posix_fadvise is not offered.
func Prefetch([]string) {}
