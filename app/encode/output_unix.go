//go:build unix

package encode

import (
	"errors"
	"io/fs"
	"os"
	"slices"
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

// renameOpen: Unix renames and removes open files.
const renameOpen = true

// lockTemp takes f's advisory lock without waiting: false when another
// open file holds it. On a file system without flock (some FUSE mounts)
// the file goes unlocked: no cleaner can take its lock either, so it is
// never removed by one.
func lockTemp(f *os.File) bool {
	return !errors.Is(syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB), syscall.EWOULDBLOCK)
}

// removeIfDead removes the temporary file at path if no one holds its lock
// (its writer is gone) and path still names the file locked. flock is
// shared by every process of the host, whatever its PID namespace, and
// Linux's NFS client maps it to the server's byte-range locks, which other
// hosts see.
func removeIfDead(path string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // held by a live writer, or locks unsupported: keep it
	}
	if sameName(f, path) {
		os.Remove(path)
	}
}

// writableByMode reports whether the permission bits of st let this
// process write it: the owner's bits if it owns the file, else the
// group's if it is in the file's group, else the others'. Root is held to
// the same bits (unlike access(2), and unlike cp run as root, which
// replaces a 0444 file; as sox refuses): a file no one may write, or
// another user's that only its owner may write, is protected from every
// account until --force.
func writableByMode(st fs.FileInfo) bool {
	perm := st.Mode().Perm()
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return perm&0o200 != 0
	}
	switch {
	case int(sys.Uid) == os.Geteuid():
		return perm&0o200 != 0
	case inGroup(int(sys.Gid)):
		return perm&0o020 != 0
	}
	return perm&0o002 != 0
}

// inGroup reports whether gid is the process's effective group or one of
// its supplementary groups.
func inGroup(gid int) bool {
	if gid == os.Getegid() {
		return true
	}
	groups, err := os.Getgroups()
	return err == nil && slices.Contains(groups, gid)
}
