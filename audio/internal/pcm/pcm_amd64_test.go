//go:build amd64 && !noasm

package pcm

import "testing"

// TestInt16AVX2 runs TestInt16's checks on the Go loop too, so both paths
// are held to the formula on a machine with AVX2.
func TestInt16AVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
	haveAVX2 = false
	defer func() { haveAVX2 = true }()
	TestInt16(t)
}
