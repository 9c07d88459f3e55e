package pages

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): populate the
// range's page tables writable, as writes would, without writing.
const madvPopulateWrite = 23

var pageSize = uintptr(unix.Getpagesize())

// populate asks the kernel to map in the pages b covers whole. Errors
// (an older kernel: EINVAL) leave the pages to fault in on use.
func populate(b []byte) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + pageSize - 1) &^ (pageSize - 1)
	end := (p + uintptr(len(b))) &^ (pageSize - 1)
	if end <= start {
		return
	}
	unix.Syscall(unix.SYS_MADVISE, start, end-start, madvPopulateWrite)
}
