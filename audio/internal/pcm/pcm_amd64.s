//go:build amd64 && !noasm

#include "textflag.h"

DATA int16Scale<>+0(SB)/4, $0x38000000 // 2^−15
GLOBL int16Scale<>(SB), RODATA|NOPTR, $4

// func int16ToFloatAVX2(dst *float32, src *byte, n int)
// dst[i] = int16(src[2i] | src[2i+1]<<8)·2^−15 for i < n (a multiple of
// 8): exact, as the Go loop's float32(v)/(1<<15).
TEXT ·int16ToFloatAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ int16Done
	VBROADCASTSS int16Scale<>(SB), Y2
int16Loop:
	VPMOVSXWD (SI), Y0
	VCVTDQ2PS Y0, Y0
	VMULPS Y2, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $16, SI
	ADDQ $32, DI
	DECQ CX
	JNZ int16Loop
	VZEROUPPER
int16Done:
	RET
