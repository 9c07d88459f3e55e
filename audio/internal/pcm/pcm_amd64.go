//go:build amd64 && !noasm

package pcm

import "golang.org/x/sys/cpu"

// 16-bit PCM to float32 in AVX2 (pcm_amd64.s), eight samples per
// instruction. Int16's Go loop stays the fallback and, with -tags noasm,
// what runs.
var haveAVX2 = cpu.X86.HasAVX2

//go:noescape
func int16ToFloatAVX2(dst *float32, src *byte, n int)
