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

// CMULD multiplies the 4 complex64 values in X by twiddles given as their
// duplicated real parts WR (wr, wr, …) and imaginary parts WI (wi, wi, …),
// into X, using T1 and T2. The same operations as CMUL (so the same bits),
// without its two shuffles of the twiddles.
#define CMULD(X, WR, WI, T1, T2) \
	VMULPS WR, X, T1 \
	VPERMILPS $0xB1, X, X \
	VMULPS WI, X, T2 \
	VADDSUBPS T2, T1, X

// func radix4StageAVX2(y, x, wd *complex64, m, ns, blocks int)
// One radix-4 Stockham stage (cfftStage.run) in a single call: for each
// block b < blocks (m = blocks·ns) and k < ns (a multiple of 4), a_q =
// x[b·ns + q·m + k]·w_q[k] (a_0 unmultiplied) through a 4-point DFT into
// y[4·b·ns + r·ns + k]. wd holds the twiddles as dupTwiddles lays them
// out: 192 bytes per group of 4 k. Looping over the blocks here rather
// than in Go keeps the short early stages (ns = 4, 16) from paying a call
// per block.
TEXT ·radix4StageAVX2(SB), NOSPLIT, $8-48
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), R10
	MOVQ wd+16(FP), DX
	MOVQ m+24(FP), AX
	MOVQ ns+32(FP), CX
	MOVQ blocks+40(FP), R11
	TESTQ R11, R11
	JZ stageDone
	MOVQ R11, left-8(SP)
	SHLQ $3, AX                  // m, in bytes
	LEAQ (R10)(AX*1), R11
	LEAQ (R11)(AX*1), R12
	LEAQ (R12)(AX*1), R13
	SHLQ $3, CX                  // ns, in bytes
	LEAQ (DI)(CX*1), SI
	LEAQ (SI)(CX*1), R8
	LEAQ (R8)(CX*1), R9
	VMOVUPS signOdd<>(SB), Y15
stageBlock:
	XORQ AX, AX
	MOVQ DX, BX
stageLoop:
	VMOVUPS (R10)(AX*1), Y0
	VMOVUPS (R11)(AX*1), Y1
	VMOVUPS (R12)(AX*1), Y2
	VMOVUPS (R13)(AX*1), Y3
	CMULD(Y1, 0(BX), 32(BX), Y7, Y8)
	CMULD(Y2, 64(BX), 96(BX), Y9, Y10)
	CMULD(Y3, 128(BX), 160(BX), Y11, Y12)
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
	ADDQ $192, BX
	ADDQ $32, AX
	CMPQ AX, CX
	JLT stageLoop
	ADDQ CX, R10                 // the next block's inputs: ns on
	ADDQ CX, R11
	ADDQ CX, R12
	ADDQ CX, R13
	LEAQ (DI)(CX*4), DI          // and outputs: 4·ns on
	LEAQ (SI)(CX*4), SI
	LEAQ (R8)(CX*4), R8
	LEAQ (R9)(CX*4), R9
	DECQ left-8(SP)
	JNZ stageBlock
	VZEROUPPER
stageDone:
	RET

// func radix2AVX2(y0, y1, x0, x1, wd *complex64, n int)
// For k < n (a multiple of 4): v = x1[k]·w[k]; y0[k] = x0[k] + v,
// y1[k] = x0[k] − v; wd holds w as dupTwiddles lays it out (64 bytes per
// group of 4 k).
TEXT ·radix2AVX2(SB), NOSPLIT, $0-48
	MOVQ y0+0(FP), DI
	MOVQ y1+8(FP), SI
	MOVQ x0+16(FP), R8
	MOVQ x1+24(FP), R9
	MOVQ wd+32(FP), R10
	MOVQ n+40(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
loop2:
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (R9)(AX*1), Y1
	CMULD(Y1, (R10)(AX*2), 32(R10)(AX*2), Y3, Y4)
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

// VPERMPS indices taking the mirrored bins' powers from the order the
// deinterleave leaves (bins 0, 1, 4, 5, 2, 3, 6, 7 of a block) to
// descending memory order (7 … 0).
DATA splitRev<>+0(SB)/4, $7
DATA splitRev<>+4(SB)/4, $6
DATA splitRev<>+8(SB)/4, $3
DATA splitRev<>+12(SB)/4, $2
DATA splitRev<>+16(SB)/4, $5
DATA splitRev<>+20(SB)/4, $4
DATA splitRev<>+24(SB)/4, $1
DATA splitRev<>+28(SB)/4, $0
GLOBL splitRev<>(SB), RODATA|NOPTR, $32

// func splitPowerAVX2(zk, zj *complex64, ws, lo, hi *float32, g2 float32, n, how int)
// n blocks of eight bins k … k+7 (k from 1) and their mirrors m−k−7 …
// m−k: zk → Z[k], zj → Z[m−k−3], ws → the block's twiddles (splitTwiddles'
// layout: 8 real parts, then 8 imaginary, in the deinterleaved order),
// lo → dst[k], hi → dst[m−k−7]; how is a combine (0 overwrite, 1 keep the
// maximum, 2 add). The complex values are split into real
// and imaginary vectors (VSHUFPS), so each step works on eight bins with
// no shuffles, in the operations and order of splitPair and splitPower
// (the same bits as the Go loop).
TEXT ·splitPowerAVX2(SB), NOSPLIT, $0-64
	MOVQ zk+0(FP), SI
	MOVQ zj+8(FP), DI
	MOVQ ws+16(FP), DX
	MOVQ lo+24(FP), R8
	MOVQ hi+32(FP), R9
	VBROADCASTSS g2+40(FP), Y14
	MOVQ n+48(FP), CX
	MOVQ how+56(FP), BX
	TESTQ CX, CX
	JZ splitDone
	VBROADCASTSS half<>(SB), Y13
	VMOVDQU splitRev<>(SB), Y12
splitLoop:
	VMOVUPS (SI), Y0             // Z[k…k+3]
	VMOVUPS 32(SI), Y1           // Z[k+4…k+7]
	VPERMPD $0x1B, (DI), Y2      // Z[m−k…m−k−3]
	VPERMPD $0x1B, -32(DI), Y3   // Z[m−k−4…m−k−7]
	VSHUFPS $0x88, Y1, Y0, Y4    // zk.r, bins 0 1 4 5 | 2 3 6 7
	VSHUFPS $0xDD, Y1, Y0, Y5    // zk.i
	VSHUFPS $0x88, Y3, Y2, Y6    // zj.r
	VSHUFPS $0xDD, Y3, Y2, Y7    // zj.i
	VADDPS Y6, Y4, Y8
	VMULPS Y13, Y8, Y8           // er = (zk.r + zj.r)·½
	VSUBPS Y7, Y5, Y9
	VMULPS Y13, Y9, Y9           // ei = (zk.i − zj.i)·½
	VADDPS Y7, Y5, Y10
	VMULPS Y13, Y10, Y10         // or = (zk.i + zj.i)·½
	VSUBPS Y4, Y6, Y11
	VMULPS Y13, Y11, Y11         // oi = (zj.r − zk.r)·½
	VMULPS (DX), Y10, Y0
	VMULPS 32(DX), Y11, Y1
	VSUBPS Y1, Y0, Y0            // tr = wr·or − wi·oi
	VMULPS (DX), Y11, Y2
	VMULPS 32(DX), Y10, Y3
	VADDPS Y3, Y2, Y2            // ti = wr·oi + wi·or
	VADDPS Y0, Y8, Y4            // xr = er + tr
	VADDPS Y2, Y9, Y5            // xi = ei + ti
	VSUBPS Y0, Y8, Y6            // yr = er − tr
	VSUBPS Y9, Y2, Y7            // yi = ti − ei
	VMULPS Y4, Y4, Y4
	VMULPS Y5, Y5, Y5
	VADDPS Y5, Y4, Y4
	VMULPS Y14, Y4, Y4           // |X_k|²·g²
	VMULPS Y6, Y6, Y6
	VMULPS Y7, Y7, Y7
	VADDPS Y7, Y6, Y6
	VMULPS Y14, Y6, Y6           // |X_{m−k}|²·g²
	VPERMPD $0xD8, Y4, Y4        // bins k … k+7
	VPERMPS Y6, Y12, Y6          // bins m−k−7 … m−k
	CMPQ BX, $1
	JLT splitStore
	JEQ splitMax
	VADDPS (R8), Y4, Y4          // dst + p
	VADDPS (R9), Y6, Y6
	JMP splitStore
splitMax:
	VMOVUPS (R8), Y0
	VMAXPS Y4, Y0, Y1            // old > new ? old : new (NaN: new)
	VCMPPS $3, Y0, Y0, Y2        // old is NaN
	VBLENDVPS Y2, Y0, Y1, Y4     // ... then old
	VMOVUPS (R9), Y0
	VMAXPS Y6, Y0, Y1
	VCMPPS $3, Y0, Y0, Y2
	VBLENDVPS Y2, Y0, Y1, Y6
splitStore:
	VMOVUPS Y4, (R8)
	VMOVUPS Y6, (R9)
	ADDQ $64, SI
	SUBQ $64, DI
	ADDQ $64, DX
	ADDQ $32, R8
	SUBQ $32, R9
	DECQ CX
	JNZ splitLoop
	VZEROUPPER
splitDone:
	RET

// FIRST4 is one 4-point DFT of Y0 … Y3 (a_0 … a_3, four columns j each)
// transposed so that each column's four outputs are adjacent, stored at
// (DI) … 96(DI): y[4j + r] for j … j+3. Y15 holds signOdd; Y4 … Y11 are
// scratch. The arithmetic is dft4's, in its order.
#define FIRST4 \
	VADDPS Y2, Y0, Y4 \
	VSUBPS Y2, Y0, Y5 \
	VADDPS Y3, Y1, Y6 \
	VSUBPS Y3, Y1, Y7 \
	VPERMILPS $0xB1, Y7, Y7 \
	VXORPS Y15, Y7, Y7 \
	VADDPS Y6, Y4, Y8 \
	VADDPS Y7, Y5, Y9 \
	VSUBPS Y6, Y4, Y10 \
	VSUBPS Y7, Y5, Y11 \
	VUNPCKLPD Y9, Y8, Y4 \
	VUNPCKHPD Y9, Y8, Y5 \
	VUNPCKLPD Y11, Y10, Y6 \
	VUNPCKHPD Y11, Y10, Y7 \
	VPERM2F128 $0x20, Y6, Y4, Y0 \
	VPERM2F128 $0x20, Y7, Y5, Y1 \
	VPERM2F128 $0x31, Y6, Y4, Y2 \
	VPERM2F128 $0x31, Y7, Y5, Y3 \
	VMOVUPS Y0, (DI) \
	VMOVUPS Y1, 32(DI) \
	VMOVUPS Y2, 64(DI) \
	VMOVUPS Y3, 96(DI)

// QUARTERS sets R11 … R13 to R10 + m, 2m, 3m and CX to m (in bytes; m
// in CX): the four quarters a first stage reads.
#define QUARTERS \
	SHLQ $3, CX \
	LEAQ (R10)(CX*1), R11 \
	LEAQ (R11)(CX*1), R12 \
	LEAQ (R12)(CX*1), R13

// LOAD4 loads the quarters' values at offset AX into Y0 … Y3.
#define LOAD4 \
	VMOVUPS (R10)(AX*1), Y0 \
	VMOVUPS (R11)(AX*1), Y1 \
	VMOVUPS (R12)(AX*1), Y2 \
	VMOVUPS (R13)(AX*1), Y3

// func first4AVX2(y, x *complex64, m int)
// The twiddle-free first stage (first4): for j < m (a multiple of 4),
// y[4j + r] = Σ_q x[j + q·m]·W_4^{qr}.
TEXT ·first4AVX2(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), R10
	MOVQ m+16(FP), CX
	QUARTERS
	XORQ AX, AX
	VMOVUPS signOdd<>(SB), Y15
first4Loop:
	LOAD4
	FIRST4
	ADDQ $128, DI
	ADDQ $32, AX
	CMPQ AX, CX
	JLT first4Loop
	VZEROUPPER
	RET

// func first4wAVX2(y, x, w *complex64, m int)
// first4 of x·w, element-wise on the real and imaginary parts (first4w).
TEXT ·first4wAVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), R10
	MOVQ w+16(FP), R14
	MOVQ m+24(FP), CX
	QUARTERS
	LEAQ (R14)(CX*1), BX
	LEAQ (BX)(CX*1), DX
	LEAQ (DX)(CX*1), SI
	XORQ AX, AX
	VMOVUPS signOdd<>(SB), Y15
first4wLoop:
	LOAD4
	VMULPS (R14)(AX*1), Y0, Y0
	VMULPS (BX)(AX*1), Y1, Y1
	VMULPS (DX)(AX*1), Y2, Y2
	VMULPS (SI)(AX*1), Y3, Y3
	FIRST4
	ADDQ $128, DI
	ADDQ $32, AX
	CMPQ AX, CX
	JLT first4wLoop
	VZEROUPPER
	RET

// func addWidenAVX2(acc *float64, x *float32, n int)
// acc[i] += float64(x[i]) for i < n (a multiple of 8): the power sums'
// accumulation, exact as Go's.
TEXT ·addWidenAVX2(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ addWidenDone
addWidenLoop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VADDPD (DI), Y0, Y0
	VADDPD 32(DI), Y1, Y1
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	ADDQ $32, SI
	ADDQ $64, DI
	DECQ CX
	JNZ addWidenLoop
	VZEROUPPER
addWidenDone:
	RET

// func first4wInt16AVX2(y *complex64, x *int16, w *complex64, m int)
// first4wAVX2 on 16-bit samples: the complex values x[j + q·m] are pairs
// of int16 (two per complex value), sign-extended and converted to
// float32 on the way in (exactly), then multiplied by the window w (which
// carries the 2^−15 scale) and through the twiddle-free first stage.
TEXT ·first4wInt16AVX2(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), R10
	MOVQ w+16(FP), R14
	MOVQ m+24(FP), CX
	SHLQ $2, CX                  // m complex values of int16 pairs, in bytes
	LEAQ (R10)(CX*1), R11
	LEAQ (R11)(CX*1), R12
	LEAQ (R12)(CX*1), R13
	SHLQ $1, CX                  // m complex64 values, in bytes
	LEAQ (R14)(CX*1), BX
	LEAQ (BX)(CX*1), DX
	LEAQ (DX)(CX*1), SI
	XORQ AX, AX                  // offset into w
	XORQ R8, R8                  // offset into x
	VMOVUPS signOdd<>(SB), Y15
first4wI16Loop:
	VPMOVSXWD (R10)(R8*1), Y0
	VPMOVSXWD (R11)(R8*1), Y1
	VPMOVSXWD (R12)(R8*1), Y2
	VPMOVSXWD (R13)(R8*1), Y3
	VCVTDQ2PS Y0, Y0
	VCVTDQ2PS Y1, Y1
	VCVTDQ2PS Y2, Y2
	VCVTDQ2PS Y3, Y3
	VMULPS (R14)(AX*1), Y0, Y0
	VMULPS (BX)(AX*1), Y1, Y1
	VMULPS (DX)(AX*1), Y2, Y2
	VMULPS (SI)(AX*1), Y3, Y3
	FIRST4
	ADDQ $128, DI
	ADDQ $16, R8
	ADDQ $32, AX
	CMPQ AX, CX
	JLT first4wI16Loop
	VZEROUPPER
	RET
