//go:build amd64 && !noasm

#include "textflag.h"

// Odd float32 lanes' sign bits: XOR negates the imaginary parts.
DATA signOdd<>+0(SB)/4, $0x00000000
DATA signOdd<>+4(SB)/4, $0x80000000
DATA signOdd<>+8(SB)/4, $0x00000000
DATA signOdd<>+12(SB)/4, $0x80000000
DATA signOdd<>+16(SB)/4, $0x00000000
DATA signOdd<>+20(SB)/4, $0x80000000
DATA signOdd<>+24(SB)/4, $0x00000000
DATA signOdd<>+28(SB)/4, $0x80000000
GLOBL signOdd<>(SB), RODATA|NOPTR, $32

// CMUL multiplies the 4 complex64 values in X by those in W (interleaved
// re, im), into X, using T1 and T2:
// (xr·wr − xi·wi, xi·wr + xr·wi) = (x·wr) ∓ (swap(x)·wi).
#define CMUL(X, W, T1, T2) \
	VMOVSLDUP W, T1 \
	VMOVSHDUP W, T2 \
	VMULPS T1, X, T1 \
	VPERMILPS $0xB1, X, X \
	VMULPS T2, X, T2 \
	VADDSUBPS T2, T1, X

// func radix4AVX2(o0, o1, o2, o3, i0, i1, i2, i3, w1, w2, w3 *complex64, n int)
// For k < n (n a multiple of 4): a_r = i_r[k]·w_r[k] (a_0 = i0[k]) through a
// 4-point DFT into o0[k] … o3[k].
TEXT ·radix4AVX2(SB), NOSPLIT, $0-96
	MOVQ o0+0(FP), DI
	MOVQ o1+8(FP), SI
	MOVQ o2+16(FP), R8
	MOVQ o3+24(FP), R9
	MOVQ i0+32(FP), R10
	MOVQ i1+40(FP), R11
	MOVQ i2+48(FP), R12
	MOVQ i3+56(FP), R13
	MOVQ w1+64(FP), R14
	MOVQ w2+72(FP), BX
	MOVQ w3+80(FP), DX
	MOVQ n+88(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
	VMOVUPS signOdd<>(SB), Y15
loop4:
	VMOVUPS (R10)(AX*1), Y0
	VMOVUPS (R11)(AX*1), Y1
	VMOVUPS (R12)(AX*1), Y2
	VMOVUPS (R13)(AX*1), Y3
	VMOVUPS (R14)(AX*1), Y4
	VMOVUPS (BX)(AX*1), Y5
	VMOVUPS (DX)(AX*1), Y6
	CMUL(Y1, Y4, Y7, Y8)
	CMUL(Y2, Y5, Y9, Y10)
	CMUL(Y3, Y6, Y11, Y12)
	VADDPS Y2, Y0, Y4            // t0 = a0 + a2
	VSUBPS Y2, Y0, Y5            // t1 = a0 − a2
	VADDPS Y3, Y1, Y6            // t2 = a1 + a3
	VSUBPS Y3, Y1, Y7            // a1 − a3
	VPERMILPS $0xB1, Y7, Y7
	VXORPS Y15, Y7, Y7           // t3 = −i·(a1 − a3)
	VADDPS Y6, Y4, Y8
	VADDPS Y7, Y5, Y9
	VSUBPS Y6, Y4, Y10
	VSUBPS Y7, Y5, Y11
	VMOVUPS Y8, (DI)(AX*1)
	VMOVUPS Y9, (SI)(AX*1)
	VMOVUPS Y10, (R8)(AX*1)
	VMOVUPS Y11, (R9)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT loop4
	VZEROUPPER
	RET

// func radix2AVX2(y0, y1, x0, x1, w *complex64, n int)
// For k < n (a multiple of 4): v = x1[k]·w[k]; y0[k] = x0[k] + v,
// y1[k] = x0[k] − v.
TEXT ·radix2AVX2(SB), NOSPLIT, $0-48
	MOVQ y0+0(FP), DI
	MOVQ y1+8(FP), SI
	MOVQ x0+16(FP), R8
	MOVQ x1+24(FP), R9
	MOVQ w+32(FP), R10
	MOVQ n+40(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
loop2:
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (R9)(AX*1), Y1
	VMOVUPS (R10)(AX*1), Y2
	CMUL(Y1, Y2, Y3, Y4)
	VADDPS Y1, Y0, Y5
	VSUBPS Y1, Y0, Y6
	VMOVUPS Y5, (DI)(AX*1)
	VMOVUPS Y6, (SI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT loop2
	VZEROUPPER
	RET
