//go:build unix

package encode

import (
	"errors"
	"io/fs"
	"sync"
	"syscall"
)

// umask is the process's file mode creation mask, read once (reading it
// means setting it: done before any output is written).
var umask = sync.OnceValue(func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
})

// processAlive says whether process pid exists (signal 0 reaches it, or
// it exists but belongs to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
