// fft_common.cl - shared by every Prism FFT kernel: complex helpers, the
// radix-2 ... 32 butterflies in registers, and one Stockham stage.
//
// Data layout: complex values are float2 (re, im). Twiddles come from tables
// computed on the host in float64 and rounded once (fast native_sin/cos
// twiddles cost ~6x the error). The stage table tws is laid out so that the
// threads of a warp read consecutive entries: the stage combining
// sub-transforms of length Ns (Ns = RADIX^st, st >= 1) keeps
// W_{Ns*R}^{r*k} at tws[(Ns - RADIX) + (r-1)*Ns + k] for r = 1..R-1, k < Ns
// (R = RADIX, or LASTR for the last stage).
//
// Defines expected from the host (every kernel file):
//   LEN    transform length done by one work-group sequence (power of two)
//   RADIX  butterfly radix in registers: 2, 4, 8, 16 or 32 (RADIX <= LEN)
//   S      sequences (transforms) per work-group
//   SPLIT  1 when local memory holds one float component at a time
//   HALVES 1 when it holds half of one component at a time (S = 1, not
//          PAIRED; see exchange)
//   LOG2R, NFULL, LASTR  the stage plan (see fft_regs)
// Work-group shape: S*T work-items, T = LEN/RADIX per sequence; item lt works
// on sequence lt/T as thread t = lt%T.
//
// The exchange between stages goes through local memory stored as separate
// re/im float arrays with one pad word every RADIX words (PAD), which makes
// the stride-RADIX writes of the first stage conflict-free on 32-bank
// hardware.

#define T (LEN / RADIX)
#define PADLEN (LEN + LEN / RADIX)
#define PAD(i) ((i) + (i) / RADIX)

// PAIRED (real transforms, when the last stage has an even number PER of
// butterflies per thread): thread t does the last stage's butterflies j and
// NS - j, so it ends up holding both Z[k] and Z[LEN - k] that the real
// split combines, and no extra local-memory round trip is needed for the
// mirror. Slot m < PER/2 is butterfly t + m*T; slot PER/2 + m is NS - t -
// m*T, except in thread 0, whose slot PER/2 is NS/2 (its own mirror) and
// whose slot 0 is 0. Register v[q*PER + m] then holds Z[JOF(m) + q*NS].
#ifndef PAIRED
#define PAIRED 0
#endif
#ifndef HALVES
#define HALVES 0
#endif
// HALVES_PAIRED 1 lets HALVES go with PAIRED (0, the default: not): the
// exchange before the paired last stage reads register q*PER + m from
// JOF(m, t) + q*NS, which lies in the half q < LASTR/2 or the other, as
// t + r*T does for r < RADIX/2; with LASTR >= 2 the last full stage's
// writers also each write within one half (blocks of NS <= LEN/2).
#ifndef HALVES_PAIRED
#define HALVES_PAIRED 0
#endif
#if HALVES && ((PAIRED && !HALVES_PAIRED) || S != 1)
#error "HALVES takes one unpaired sequence per work-group"
#endif
#if HALVES && PAIRED && LASTR < 2
#error "HALVES_PAIRED needs a last stage of radix 2 or more"
#endif
#define NS (1 << (NFULL * LOG2R))
#define PER (RADIX / LASTR)
#define JOF(m, t) ((m) < PER / 2 ? (t) + (m) * T \
                   : ((t) == 0 && (m) == PER / 2) ? NS / 2 : NS - (t) - ((m) - PER / 2) * T)

inline float2 cmul(float2 a, float2 b) {
    return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
inline float2 conjf2(float2 a) { return (float2)(a.x, -a.y); }
// multiply by -i
inline float2 mul_mi(float2 a) { return (float2)(a.y, -a.x); }

#define M_SQRT1_2F 0.70710678118654752440f

inline void bfly2(float2 *a, float2 *b) {
    float2 t = *a;
    *a = t + *b;
    *b = t - *b;
}

// Forward DFTs of 4, 8, 16 points in registers, natural order in and out.
inline void dft4(float2 *v0, float2 *v1, float2 *v2, float2 *v3) {
    float2 t0 = *v0 + *v2, t1 = *v0 - *v2;
    float2 t2 = *v1 + *v3, t3 = mul_mi(*v1 - *v3);
    *v0 = t0 + t2;
    *v2 = t0 - t2;
    *v1 = t1 + t3;
    *v3 = t1 - t3;
}

// DFT_FMA (off by default; PRISM_OPENCL_TUNE=DFT_FMA=1 to measure): dft8,
// dft16 and dft32 combine their halves with bfly_wk (below) instead of a
// constant product then a sum and a difference, and dft32 splits as 2 x
// 16. Fewer instructions, but its rounding runs the other way from the
// CPU engine's, past the 0.01 dB the engines must agree to, for 1 % of
// the spectrogram's time (docs/gpufft-experiments.md).
#ifndef DFT_FMA
#define DFT_FMA 0
#endif
inline void bfly_wk(float2 *a, float2 *b, const int M, const int e);

inline void dft8(float2 *v) {
    float2 e0 = v[0], e1 = v[2], e2 = v[4], e3 = v[6];
    float2 o0 = v[1], o1 = v[3], o2 = v[5], o3 = v[7];
    dft4(&e0, &e1, &e2, &e3);
    dft4(&o0, &o1, &o2, &o3);
#if DFT_FMA
    bfly_wk(&e0, &o0, 8, 0);
    bfly_wk(&e1, &o1, 8, 1);
    bfly_wk(&e2, &o2, 8, 2);
    bfly_wk(&e3, &o3, 8, 3);
    v[0] = e0; v[4] = o0;
    v[1] = e1; v[5] = o1;
    v[2] = e2; v[6] = o2;
    v[3] = e3; v[7] = o3;
#else
    // W8^1 = (1 - i)/sqrt2, W8^2 = -i, W8^3 = (-1 - i)/sqrt2
    o1 = (float2)((o1.x + o1.y), (o1.y - o1.x)) * M_SQRT1_2F;
    o2 = mul_mi(o2);
    o3 = (float2)((o3.y - o3.x), -(o3.x + o3.y)) * M_SQRT1_2F;
    v[0] = e0 + o0; v[4] = e0 - o0;
    v[1] = e1 + o1; v[5] = e1 - o1;
    v[2] = e2 + o2; v[6] = e2 - o2;
    v[3] = e3 + o3; v[7] = e3 - o3;
#endif
}

// W64[e] = W_64^e = exp(-2 pi i e/64), e < 32. Every constant twiddle the
// kernels use is an entry of it or its negation: WK(M, e) is W_M^e for a
// power of two M <= 64 and any e, folded to an immediate when M and e are
// compile-time constants (they always are: the loops unroll).
__constant float2 W64[32] = {
    (float2)(1.00000000000000000000f, -0.00000000000000000000f),
    (float2)(0.99518472667219692873f, -0.09801714032956060363f),
    (float2)(0.98078528040323043058f, -0.19509032201612824808f),
    (float2)(0.95694033573220882438f, -0.29028467725446233105f),
    (float2)(0.92387953251128673848f, -0.38268343236508978178f),
    (float2)(0.88192126434835504956f, -0.47139673682599764204f),
    (float2)(0.83146961230254523567f, -0.55557023301960217765f),
    (float2)(0.77301045336273699338f, -0.63439328416364548779f),
    (float2)(0.70710678118654757274f, -0.70710678118654746172f),
    (float2)(0.63439328416364548779f, -0.77301045336273699338f),
    (float2)(0.55557023301960228867f, -0.83146961230254523567f),
    (float2)(0.47139673682599780857f, -0.88192126434835493853f),
    (float2)(0.38268343236508983729f, -0.92387953251128673848f),
    (float2)(0.29028467725446233105f, -0.95694033573220893540f),
    (float2)(0.19509032201612833135f, -0.98078528040323043058f),
    (float2)(0.09801714032956077016f, -0.99518472667219681771f),
    (float2)(0.00000000000000000000f, -1.00000000000000000000f),
    (float2)(-0.09801714032956064526f, -0.99518472667219692873f),
    (float2)(-0.19509032201612819257f, -0.98078528040323043058f),
    (float2)(-0.29028467725446216452f, -0.95694033573220893540f),
    (float2)(-0.38268343236508972627f, -0.92387953251128673848f),
    (float2)(-0.47139673682599769755f, -0.88192126434835504956f),
    (float2)(-0.55557023301960195560f, -0.83146961230254545772f),
    (float2)(-0.63439328416364537677f, -0.77301045336273710440f),
    (float2)(-0.70710678118654746172f, -0.70710678118654757274f),
    (float2)(-0.77301045336273699338f, -0.63439328416364548779f),
    (float2)(-0.83146961230254534669f, -0.55557023301960217765f),
    (float2)(-0.88192126434835493853f, -0.47139673682599786408f),
    (float2)(-0.92387953251128673848f, -0.38268343236508989280f),
    (float2)(-0.95694033573220882438f, -0.29028467725446238656f),
    (float2)(-0.98078528040323043058f, -0.19509032201612860891f),
    (float2)(-0.99518472667219681771f, -0.09801714032956082567f),
};
#define WIDX(M, e) ((((e) % (M)) * (64 / (M))))
#define WK(M, e) (WIDX(M, e) < 32 ? W64[WIDX(M, e)] : -W64[WIDX(M, e) - 32])

// mul_wk multiplies x by the constant W_M^e; the trivial powers 1, -i, -1
// and i cost no multiply.
inline float2 mul_wk(float2 x, const int M, const int e) {
    const int i = WIDX(M, e);
    if (i == 0) return x;
    if (i == 16) return mul_mi(x);
    if (i == 32) return -x;
    if (i == 48) return (float2)(-x.y, x.x);
    return cmul(x, WK(M, e));
}

// bfly_wk: (a, b) <- (a + w b, a - w b) for the constant w = W_M^e = c + is:
// with |c| >= |s|, w b = c u with u = b + i(s/c) b (two FMAs, s/c folded
// at compile time), then a +- c u (four FMAs): 6 instructions where the
// product, used twice, then the sum and the difference take 8 (a compiler
// fuses a product into one sum only). With |c| < |s|, w b = s u', u' =
// (c/s) b + i b. The trivial twiddles (1, -i, -1, i) take the 4 additions
// alone; for (+-1 +- i)/sqrt2, s/c = +-1 and u is two additions.
inline void bfly_wk(float2 *a, float2 *b, const int M, const int e) {
    const float2 x = *a;
    if ((WIDX(M, e) & 15) == 0) {
        const float2 y = mul_wk(*b, M, e);
        *a = x + y;
        *b = x - y;
        return;
    }
    const float2 w = WK(M, e), y = *b;
    float f;
    float2 u;
    if (fabs(w.x) >= fabs(w.y)) {
        const float r = w.y / w.x;
        u = (float2)(fma(-r, y.y, y.x), fma(r, y.x, y.y));
        f = w.x;
    } else {
        const float r = w.x / w.y;
        u = (float2)(fma(r, y.x, -y.y), fma(r, y.y, y.x));
        f = w.y;
    }
    *a = (float2)(fma(f, u.x, x.x), fma(f, u.y, x.y));
    *b = (float2)(fma(-f, u.x, x.x), fma(-f, u.y, x.y));
}

// dft_join (DFT_FMA): v's 2H-point DFT from the H-point DFTs of its even
// entries (e) and odd ones (o), combined by bfly_wk.
inline void dft_join(float2 *v, float2 *e, float2 *o, const int H) {
#pragma unroll
    for (int k = 0; k < H; k++) {
        bfly_wk(&e[k], &o[k], 2 * H, k);
        v[k] = e[k];
        v[k + H] = o[k];
    }
}

inline void dft16(float2 *v) {
    float2 e[8], o[8];
#pragma unroll
    for (int i = 0; i < 8; i++) { e[i] = v[2 * i]; o[i] = v[2 * i + 1]; }
    dft8(e);
    dft8(o);
#if DFT_FMA
    dft_join(v, e, o, 8);
#else
#pragma unroll
    for (int k = 0; k < 8; k++) {
        float2 w = mul_wk(o[k], 16, k);
        v[k] = e[k] + w;
        v[k + 8] = e[k] - w;
    }
#endif
}

// dft32 splits 32 = P*Q with P = 4, Q = 8 (n = Q*n1 + n2, k = k1 + P*k2):
// 4-point DFTs of the stride-8 columns, the constant twiddles W_32^(n2*k1),
// then 8-point DFTs whose outputs land at k1 + 4*k2 (a renaming of
// registers, free once unrolled).
inline void dft32(float2 *v) {
#if DFT_FMA
    float2 e[16], o[16];
#pragma unroll
    for (int i = 0; i < 16; i++) { e[i] = v[2 * i]; o[i] = v[2 * i + 1]; }
    dft16(e);
    dft16(o);
    dft_join(v, e, o, 16);
#else
    float2 u[32];
#pragma unroll
    for (int n2 = 0; n2 < 8; n2++) {
        float2 c0 = v[n2], c1 = v[8 + n2], c2 = v[16 + n2], c3 = v[24 + n2];
        dft4(&c0, &c1, &c2, &c3);
        u[n2] = c0;
        u[8 + n2] = mul_wk(c1, 32, n2);
        u[16 + n2] = mul_wk(c2, 32, 2 * n2);
        u[24 + n2] = mul_wk(c3, 32, 3 * n2);
    }
#pragma unroll
    for (int k1 = 0; k1 < 4; k1++) {
        dft8(u + 8 * k1);
#pragma unroll
        for (int k2 = 0; k2 < 8; k2++) v[k1 + 4 * k2] = u[8 * k1 + k2];
    }
#endif
}

// W2R(r) = W_(2*RADIX)^r, r < RADIX <= 32: with the thread's own twiddle it
// gives the real split's W_N^(t + r*T) = W_N^t * W_(2*RADIX)^r (N = 2*LEN,
// T = LEN/RADIX) with a compile-time constant, not a load.
#define W2R(r) WK(2 * RADIX, r)

// dftR: a forward DFT of R consecutive registers v[0..R).
inline void dft_r(float2 *v, int R) {
    if (R == 2) {
        bfly2(&v[0], &v[1]);
    } else if (R == 4) {
        dft4(&v[0], &v[1], &v[2], &v[3]);
    } else if (R == 8) {
        dft8(v);
    } else if (R == 16) {
        dft16(v);
    } else {
        dft32(v);
    }
}

// Stage twiddle W_{Ns*R}^{r*k} for butterfly position k (< Ns), 1 <= r < R.
#define STAGE_TW(tw, r, k, Ns) ((tw)[((Ns) - RADIX) + ((r) - 1) * (Ns) + (k)])

// twiddle multiplies x[r], 1 <= r < n, by W_{Ns*n'}^{r*k} (the stage's
// twiddles). Not every r is read from the table: up to n = 16 only the
// power-of-two r are, the others are products of two already at hand (w3 =
// w1*w2, w7 = w3*w4, w15 = w7*w8: at most three roundings deep, ~2e-7
// relative), which trades load instructions - the kernels' bottleneck on
// GPUs - for multiplies. For n = 32 the chains would get four deep, so
// there w[r] = w[8a + b] is w[8a] * w[b] from the loaded w[1..7] and
// w[8], w[16], w[24]: one rounding deep, 10 loads.
#define HIGHBIT(r) ((r) >= 8 ? 8 : (r) >= 4 ? 4 : (r) >= 2 ? 2 : 1)
inline void twiddle(float2 *x, const int n, __global const float2 *restrict tw, int k, int Ns) {
    float2 w[32];
#pragma unroll
    for (int r = 1; r < n; r++) {
        if (n <= 16) {
            if ((r & (r - 1)) == 0)
                w[r] = STAGE_TW(tw, r, k, Ns);
            else
                w[r] = cmul(w[r - HIGHBIT(r)], w[HIGHBIT(r)]);
        } else if (r < 8 || (r & 7) == 0) {
            w[r] = STAGE_TW(tw, r, k, Ns);
        } else {
            w[r] = cmul(w[r & ~7], w[r & 7]);
        }
        x[r] = cmul(x[r], w[r]);
    }
}

// Exchange the R registers of thread t of one sequence through local memory:
// write v[r] at position wr(r), read v[r] back from position t + r*T (the
// input positions of the next stage). lre/lim point at the sequence's region.
// Every work-item of the group must call it (it holds barriers).
// With paired set (the exchange before a PAIRED last stage) register r =
// q*PER + m is read from JOF(m, t) + q*NS instead.
#define READ_INDEX(r) (paired ? JOF((r) % PER, t) + ((r) / PER) * NS : t + (r) * T)
// PAD_BASE (on for the spectrogram kernel but on CPU devices, where the
// host turns it off (padBaseDefine); off elsewhere by default): the
// exchange's padded positions as one PAD per thread (per slot, for paired
// reads) plus compile-time offsets, instead of a signed division per
// position (~9 integer instructions each on NVIDIA; no gain on the
// R2C/C2C kernels: docs/gpufft-experiments.md). Exact for every position
// the stages use:
// writes wbase + r*wstride with wstride = 1 (wbase = t*RADIX, r < RADIX) or
// a multiple of RADIX; reads t + r*T (t < T: with T < RADIX, t plus r*T
// mod RADIX stays below RADIX; else RADIX divides r*T) and JOF + q*NS
// (RADIX divides NS). PADU is PAD of a non-negative index with one shift.
#ifndef PAD_BASE
#ifdef KERNEL_SPECTROGRAM
#define PAD_BASE 1
#else
#define PAD_BASE 0
#endif
#endif
#define PADU(i) ((i) + (int)((uint)(i) >> LOG2R))
#if PAD_BASE && !HALVES
#define WRITE_PAD(r) (PADU(wbase) + (r) * wstride + (r) * wstride / RADIX)
#define READ_PAD(r) (paired ? PADU(JOF((r) % PER, t)) + ((r) / PER) * NS + ((r) / PER) * NS / RADIX \
                     : PADU(t) + (r) * T + (r) * T / RADIX)
#else
#define WRITE_PAD(r) PAD(wbase + (r) * wstride)
#define READ_PAD(r) PAD(READ_INDEX(r))
#endif
// XCH_F2 (the single-pass kernels, on by default; XCH_F2=0 for the two
// arrays): the exchanges as one 64-bit access a value, re and im side by
// side in the sequence's 2*PADLEN floats from lre (fft_batch.cl's LRE),
// instead of two 32-bit ones in two arrays (the four-step passes keep
// theirs: their staging lays the sequences out by SSTRIDE). Half the
// local-memory instructions for the same bytes: faster on the H200 and
// on PoCL (docs/gpufft-experiments.md).
#ifndef XCH_F2
#define XCH_F2 1
#endif
#if XCH_F2 && !defined(KERNEL_PASS) && !SPLIT && !HALVES
#define XCH_F2_ON 1
#else
#define XCH_F2_ON 0
#endif
inline void exchange(float2 *v, __local float *lre, __local float *lim,
                     int wbase, int wstride, int t, const bool paired) {
#if HALVES
    // Four rounds (re, im; each in the halves [0, LEN/2) and [LEN/2, LEN)).
    // A thread's writes span one block of wstride*RADIX <= LEN/2 positions,
    // so they all fall in one half: in round h the threads of that half
    // write all their values and every thread reads its registers r with
    // t + r*T in it, r in [h*RADIX/2, (h+1)*RADIX/2).
    // The values read go to nv until both halves of a component are
    // through (round 1 still writes what round 0's reads replace).
    const int wh = wbase / (LEN / 2);
#pragma unroll
    for (int c = 0; c < 2; c++) {
        float nv[RADIX];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            if (wh == h) {
#pragma unroll
                for (int r = 0; r < RADIX; r++)
                    lre[PAD(wbase - h * (LEN / 2) + r * wstride)] = c ? v[r].y : v[r].x;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
            for (int r = h * (RADIX / 2); r < (h + 1) * (RADIX / 2); r++)
                nv[r] = lre[PAD(READ_INDEX(r) - h * (LEN / 2))]; // t + r*T unless paired (HALVES_PAIRED)
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#pragma unroll
        for (int r = 0; r < RADIX; r++) {
            if (c) v[r].y = nv[r]; else v[r].x = nv[r];
        }
    }
#elif SPLIT
#pragma unroll
    for (int r = 0; r < RADIX; r++) lre[WRITE_PAD(r)] = v[r].x;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int r = 0; r < RADIX; r++) v[r].x = lre[READ_PAD(r)];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int r = 0; r < RADIX; r++) lre[WRITE_PAD(r)] = v[r].y;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int r = 0; r < RADIX; r++) v[r].y = lre[READ_PAD(r)];
    barrier(CLK_LOCAL_MEM_FENCE);
#elif XCH_F2_ON
    __local float2 *l2 = (__local float2 *)lre;
#pragma unroll
    for (int r = 0; r < RADIX; r++) l2[WRITE_PAD(r)] = v[r];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int r = 0; r < RADIX; r++) v[r] = l2[READ_PAD(r)];
    barrier(CLK_LOCAL_MEM_FENCE);
#else
#pragma unroll
    for (int r = 0; r < RADIX; r++) {
        int i = WRITE_PAD(r);
        lre[i] = v[r].x;
        lim[i] = v[r].y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int r = 0; r < RADIX; r++) {
        int i = READ_PAD(r);
        v[r] = (float2)(lre[i], lim[i]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
}

// fft_regs computes a forward DFT of LEN points held by the T threads of a
// sequence: on entry thread t holds x[t + r*T] in v[r]; on exit it holds
// X[t + r*T] in v[r] (natural order: the Stockham formulation's last stage
// writes to position t + r*T). All stages but the last exchange through
// local memory; the result stays in registers so the caller chooses where it
// goes. Every work-item of the group must call it.
//
// The host passes the stage plan as defines so every loop unrolls and every
// register index is a compile-time constant (a dynamic index would put v[]
// in off-chip private memory): LOG2R = log2(RADIX), NFULL full radix stages
// that exchange, then one last stage of radix LASTR (a power of two <=
// RADIX), LEN = RADIX^NFULL * LASTR.
inline void fft_regs(float2 *v, __local float *lre, __local float *lim, int t,
                     __global const float2 *restrict tw) {
#pragma unroll
    for (int st = 0; st < NFULL; st++) {
        const int Ns = 1 << (st * LOG2R);
        const int k = t & (Ns - 1);
        if (Ns > 1) {
            twiddle(v, RADIX, tw, k, Ns);
        }
        dft_r(v, RADIX);
        exchange(v, lre, lim, (t >> (st * LOG2R)) * Ns * RADIX + k, Ns, t, PAIRED && st == NFULL - 1);
    }
    // Last stage: thread t does RADIX/LASTR butterflies j = t + m*T (< Ns,
    // so their twiddle index is j), whose inputs are v[q*(RADIX/LASTR) + m].
    // Output position of v[q*per + m] is j + q*Ns = t + (q*per + m)*T, the
    // natural order t + r*T.
    const int Ns = NS;
#pragma unroll
    for (int m = 0; m < PER; m++) {
        float2 u[LASTR];
        const int j = PAIRED ? JOF(m, t) : t + m * T;
#pragma unroll
        for (int q = 0; q < LASTR; q++) u[q] = v[q * PER + m];
#if NFULL > 0
        twiddle(u, LASTR, tw, j, Ns);
#endif
        dft_r(u, LASTR);
#pragma unroll
        for (int q = 0; q < LASTR; q++) v[q * PER + m] = u[q];
    }
}

// Cache hints for streaming global accesses, as compile-time choices (the
// single-pass kernels' LDHINT/STHINT in fft_batch.cl, the passes' P1_LD,
// P1_ST, P2_LD, P2_ST in fft_passes.cl). With NV_PTX (set by the host for
// NVIDIA's platform only: inline PTX) ld_hint's h picks the load's cache
// operator (1 ld.global.nc.L1::no_allocate, 2 ld.global.cs, 3
// ld.global.nc) and st_hint's h the store's (1 st.global.cs, evict-first);
// elsewhere, or at 0, plain loads and stores. (An L2 eviction priority,
// ld.global.L2::evict_first, is refused by ptxas on a .v2.f32 load: it
// takes .v8.b32 or .v4.b64 only.)
#ifndef NV_PTX
#define NV_PTX 0
#endif
inline float2 ld_hint(__global const float2 *p, const int h) {
    float2 x;
#if NV_PTX
    if (h == 1)
        asm("ld.global.nc.L1::no_allocate.v2.f32 {%0, %1}, [%2];" : "=f"(x.x), "=f"(x.y) : "l"(p));
    else if (h == 2)
        asm("ld.global.cs.v2.f32 {%0, %1}, [%2];" : "=f"(x.x), "=f"(x.y) : "l"(p));
    else if (h == 3)
        asm("ld.global.nc.v2.f32 {%0, %1}, [%2];" : "=f"(x.x), "=f"(x.y) : "l"(p));
    else
        x = *p;
#else
    x = *p;
#endif
    return x;
}
inline void st_hint(__global float2 *p, float2 x, const int h) {
#if NV_PTX
    if (h == 1)
        asm volatile("st.global.cs.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(x.x), "f"(x.y) : "memory");
    else
        *p = x;
#else
    *p = x;
#endif
}

// Real-input split: X[k] = E + W_N^k O with E = (Z[k] + conj(Z[-k]))/2 and
// O = -i (Z[k] - conj(Z[-k]))/2, where Z is the LEN-point transform of
// z[m] = x[2m] + i*x[2m+1]; k = LEN uses Z[0] and W_N^LEN = -1.
inline float2 r2c_bin(float2 zk, float2 zm, float2 w) {
    float2 c = conjf2(zm);
    float2 e = (zk + c) * 0.5f;
    float2 o = mul_mi(zk - c) * 0.5f;
    return e + cmul(w, o);
}

// r2c_bin2 is 2*r2c_bin (the halvings left out; callers fold them into
// their scale). SPLIT_FMA: the product and the sum as two FMAs per
// component (written as cmul plus a sum, NVIDIA's compiler keeps a
// multiply, an FMA and an add). On from LEN 2048, where it measured
// faster (docs/gpufft-experiments.md).
#ifndef SPLIT_FMA
#define SPLIT_FMA (LEN >= 2048)
#endif
inline float2 r2c_bin2(float2 zk, float2 zm, float2 w) {
    float2 c = conjf2(zm);
#if SPLIT_FMA
    const float2 e = zk + c, o = mul_mi(zk - c);
    return (float2)(fma(w.x, o.x, fma(-w.y, o.y, e.x)), fma(w.x, o.y, fma(w.y, o.x, e.y)));
#else
    return (zk + c) + cmul(w, mul_mi(zk - c));
#endif
}

// CEIL_DB is gpufft's CeilDB, 10*log10(2^128): the level of a power that
// overflows float, or is NaN (a non-finite sample reads as overload).
#define CEIL_DB 385.318394f

#ifdef OUTPUT
// db_lg2 is the one dB rule of the single-pass kernels: a power whose
// log2 is lg2p, times a gain whose dB is off, in dB (10*log10(2) = DB_LG2
// a doubling), capped at CEIL_DB and floored at -200 (gpufft's FloorDB),
// in that order, so a NaN (fmin's other operand wins) reads CEIL_DB.
// 2*DB_LG2 is 20*log10(2), an amplitude's doubling.
#define DB_LG2 3.01029995663981195f
inline float db_lg2(float lg2p, float off) { return fmax(fmin(fma(DB_LG2, lg2p, off), CEIL_DB), -200.0f); }

// level is the stored value of a bin X (or 2X from r2c_bin2) whose power
// is |X|^2 * g2: 0 dBFS floored at -200 dB (branch-free; the clamp below
// 1e-30 keeps a NaN), 1 and 3 the power itself. g2 carries the bin's
// scale and its BINGAIN gain. native_log2 errs by ~2^-22 (NVIDIA
// lg2.approx): ~1e-6 dB, far inside the 0.01 dB the engines must agree
// to, and much cheaper than log10.
inline float level(float2 X, float g2) {
    float p = (X.x * X.x + X.y * X.y) * g2;
#if OUTPUT == 0
    return db_lg2(native_log2(p < 1e-30f ? 1e-30f : p), 0.0f);
#else
    return p;
#endif
}

// SPLIT_LEN is the real transform's half length: LEN, except in the
// four-step pass that does the split (fft_passes.cl), where it is NTOT.
#ifndef SPLIT_LEN
#define SPLIT_LEN LEN
#endif

// store_bin writes bin k (0..SPLIT_LEN) of a real transform as OUTPUT asks:
// 0 dBFS = 10*log10(|X|^2 * (c_k*scale)^2) with c_k = 2 except at k = 0 and
// k = SPLIT_LEN, floored at -200 dB, capped at CEIL_DB; 1 |X|^2; 2 X itself;
// 3 |X|^2 * (c_k*scale)^2 (the dB level's argument, for image maxima).
// With BINGAIN the power is also multiplied by gain[k]: a band filter's
// response applied on the device after the FFT (not for complex output).
inline void store_bin(__global void *dstv, size_t idx, int k, float2 X, float scale,
                      __global const float *restrict gain) {
#if OUTPUT == 2
    ((__global float2 *)dstv)[idx] = X;
#else
    float g2 = 1.0f;
#if OUTPUT != 1
    const float g = (k == 0 || k == SPLIT_LEN) ? scale : 2.0f * scale;
    g2 = g * g;
#endif
#if BINGAIN
    g2 *= gain[k];
#endif
    ((__global float *)dstv)[idx] = level(X, g2);
#endif
}
#endif
