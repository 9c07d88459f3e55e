//go:build !linux

package pages

// populate does nothing where there is no MADV_POPULATE_WRITE: the pages
// fault in on use.
func populate([]byte) {}
