//go:build !linux

package cli

// prefetch does nothing where posix_fadvise is not offered.
func prefetch([]string) {}
