//go:build !unix

package encode

import (
	"io/fs"
	"os"
)

// umask: outside Unix the mode is 0666 as given.
func umask() fs.FileMode { return 0 }

// renameOpen: outside Unix an open file may not be renamed or removed.
const renameOpen = false

// lockTemp: outside Unix temporary files are not locked.
func lockTemp(*os.File) bool { return true }

// removeIfDead: outside Unix no lock tells a dead writer's temporary file
// from a live one's, so none is removed.
func removeIfDead(string) {}

// writableByMode: outside Unix, the read-only attribute (no 0200 bit).
func writableByMode(st fs.FileInfo) bool { return st.Mode().Perm()&0o200 != 0 }
