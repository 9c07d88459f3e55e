//go:build !unix

package encode

import "io/fs"

// umask: outside Unix the mode is 0666 as given.
func umask() fs.FileMode { return 0 }

// processAlive: outside Unix, no stale temporary file is removed.
func processAlive(int) bool { return true }
