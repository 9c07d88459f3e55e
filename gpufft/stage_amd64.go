//go:build amd64 && !noasm

package gpufft

import "golang.org/x/sys/cpu"

// The CPU engine's inner loops in AVX2 (stage_amd64.s), four complex64
// values per instruction: the first radix-4 stage (plain and windowed),
// the radix-4 stages (a whole stage per call, so the short early ones do
// not pay a call per block) and the radix-2 stage, the real transform's
// split to powers, and the power sums' widening accumulation. Go does
// not vectorize, and these loops are most of the CPU engine's time. The
// pure-Go loops (cpufft.go, powersum.go) remain the fallback and, with
// -tags noasm, the reference the tests also check bit for bit.
var haveAVX2 = cpu.X86.HasAVX2

//go:noescape
func radix4StageAVX2(y, x, wd *complex64, m, ns, blocks int)

//go:noescape
func radix2AVX2(y0, y1, x0, x1, wd *complex64, n int)

//go:noescape
func splitPowerAVX2(zk, zj *complex64, ws, lo, hi *float32, g2 float32, n, how int)

//go:noescape
func first4AVX2(y, x *complex64, m int)

//go:noescape
func first4wAVX2(y, x, w *complex64, m int)

//go:noescape
func first4wInt16AVX2(y *complex64, x *int16, w *complex64, m int)

//go:noescape
func addWidenAVX2(acc *float64, x *float32, n int)
