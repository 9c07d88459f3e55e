// Package pages makes large buffers whose memory is mapped in at once:
// the one rule for the big, freshly allocated buffers of a file's
// analysis (raw staging, converted samples, the image of powers, the
// RGBA raster, the PNG's filtered rows).
//
// A fresh page costs a page fault on first touch. On this project's CI
// machines (Firecracker VMs) that is about 12 µs a page: touching 64 MiB
// of fresh make() memory took 200 ms there, and a 10-minute file's
// analysis to PNG touched about 78 MiB (19,000 faults, a third of its CPU
// time). Asking the kernel to populate the whole range in one system call
// (madvise MADV_POPULATE_WRITE, Linux 5.14 and later) took 55 ms for the
// same 64 MiB. Elsewhere, or where the call fails, the memory faults in
// page by page as before: the call changes no contents, only when the
// pages are mapped.
//
// It imports only the standard library and golang.org/x/sys.
package pages

import "unsafe"

// Threshold is the size from which Make populates a buffer: below it a
// system call costs more than the few faults it saves.
const Threshold = 1 << 20

// Make returns make([]T, n) with its pages populated when it spans at
// least Threshold bytes. T must hold no pointers (the buffers are
// numbers); the contents are zero, as make's.
func Make[T any](n int) []T {
	s := make([]T, n)
	var zero T
	if size := uintptr(n) * unsafe.Sizeof(zero); n > 0 && size >= Threshold {
		populate(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), size))
	}
	return s
}

// Populate maps in the pages of b that it covers whole, ahead of use.
func Populate(b []byte) {
	if len(b) >= Threshold {
		populate(b)
	}
}
