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

DATA half<>+0(SB)/4, $0.5
GLOBL half<>(SB), RODATA|NOPTR, $4

// VPERMPS indices: (x0, x1, y0, y1 | x2, x3, y2, y3) → (x0 … x3 | y3 … y0).
DATA splitOrder<>+0(SB)/4, $0
DATA splitOrder<>+4(SB)/4, $1
DATA splitOrder<>+8(SB)/4, $4
DATA splitOrder<>+12(SB)/4, $5
DATA splitOrder<>+16(SB)/4, $7
DATA splitOrder<>+20(SB)/4, $6
DATA splitOrder<>+24(SB)/4, $3
DATA splitOrder<>+28(SB)/4, $2
GLOBL splitOrder<>(SB), RODATA|NOPTR, $32

// func splitPowerAVX2(zk, zj, w *complex64, lo, hi *float32, g2 float32, n int, keepMax bool)
// n blocks of four bins k … k+3 (k from 1) and their mirrors m−k−3 … m−k:
// zk → Z[k], zj → Z[m−k−3], w → W^k, lo → dst[k], hi → dst[m−k−3], each
// moving one block per iteration (zj and hi downwards). splitPair's and
// splitPower's float32 operations, in their order:
// E = ((zk+zj).r, (zk−zj).i)·½, O = ((zk+zj).i, −(zk−zj).r)·½, T = O·W,
// X = E + T, Y = E − T (Y's imaginary part negated: the power is the
// same), p = (re² + im²)·g2, stored (or, with keepMax, Go's max: NaN
// kept) at dst[k] and dst[m−k].
TEXT ·splitPowerAVX2(SB), NOSPLIT, $0-57
	MOVQ zk+0(FP), SI
	MOVQ zj+8(FP), DI
	MOVQ w+16(FP), DX
	MOVQ lo+24(FP), R8
	MOVQ hi+32(FP), R9
	VBROADCASTSS g2+40(FP), Y14
	MOVQ n+48(FP), CX
	MOVBLZX keepMax+56(FP), BX
	TESTQ CX, CX
	JZ splitDone
	VBROADCASTSS half<>(SB), Y13
	VMOVDQU splitOrder<>(SB), Y12
	VMOVUPS signOdd<>(SB), Y15
splitLoop:
	VMOVUPS (SI), Y0             // Z[k…k+3]
	VPERMPD $0x1B, (DI), Y1      // Z[m−k…m−k−3]
	VMOVUPS (DX), Y2             // W^k…
	VADDPS Y1, Y0, Y3            // S = zk + zj
	VSUBPS Y1, Y0, Y4            // D = zk − zj
	VBLENDPS $0xAA, Y4, Y3, Y5   // (S.r, D.i)
	VMULPS Y13, Y5, Y5           // E
	VPERMILPS $0xB1, Y3, Y6      // (S.i, S.r)
	VPERMILPS $0xB1, Y4, Y7      // (D.i, D.r)
	VXORPS Y15, Y7, Y7           // (D.i, −D.r)
	VBLENDPS $0xAA, Y7, Y6, Y8   // (S.i, −D.r)
	VMULPS Y13, Y8, Y8           // O
	CMUL(Y8, Y2, Y9, Y10)        // T = O·W
	VADDPS Y8, Y5, Y9            // X
	VSUBPS Y8, Y5, Y10           // Y (imaginary negated)
	VMULPS Y9, Y9, Y9
	VMULPS Y10, Y10, Y10
	VHADDPS Y10, Y9, Y11         // (x0, x1, y0, y1 | x2, x3, y2, y3)
	VMULPS Y14, Y11, Y11
	VPERMPS Y11, Y12, Y11        // (x0 … x3 | y3 … y0)
	TESTQ BX, BX
	JZ splitStore
	VMOVUPS (R8), X3
	VINSERTF128 $1, (R9), Y3, Y3 // the old values, in the same order
	VMAXPS Y11, Y3, Y4           // old > new ? old : new (NaN: new)
	VCMPPS $3, Y3, Y3, Y5        // old is NaN
	VBLENDVPS Y5, Y3, Y4, Y11    // ... then old
splitStore:
	VMOVUPS X11, (R8)
	VEXTRACTF128 $1, Y11, (R9)
	ADDQ $32, SI
	SUBQ $32, DI
	ADDQ $32, DX
	ADDQ $16, R8
	SUBQ $16, R9
	DECQ CX
	JNZ splitLoop
	VZEROUPPER
splitDone:
	RET
