package encode

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback starts writing n bytes of f at off to the disk, without
// waiting for them.
func startWriteback(f *os.File, off, n int64) {
	unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
