//go:build amd64 && !noasm

package gpufft

import "golang.org/x/sys/cpu"

// The radix-4 and radix-2 Stockham stages and the real transform's split
// to powers in AVX2 (stage_amd64.s), four complex64 values per
// instruction: Go does not vectorize, and these loops are most of the CPU
// engine's time. The pure-Go stages (cpufft.go) remain
// the fallback and, with -tags noasm, the reference the tests also check.
var haveAVX2 = cpu.X86.HasAVX2

//go:noescape
func radix4AVX2(o0, o1, o2, o3, i0, i1, i2, i3, w1, w2, w3 *complex64, n int)

//go:noescape
func radix2AVX2(y0, y1, x0, x1, w *complex64, n int)

//go:noescape
func splitPowerAVX2(zk, zj, w *complex64, lo, hi *float32, g2 float32, n int, keepMax bool)
