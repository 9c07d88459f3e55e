// fft_batch.cl - one work-group per transform (S transforms per group): the
// single-pass batched kernels. Needs fft_common.cl before it.
//
// Extra defines: exactly one of KERNEL_C2C, KERNEL_R2C, KERNEL_C2R,
// KERNEL_SPECTROGRAM; INVERSE (0/1) for C2C.
// Work-group: S*T work-items (see fft_common.cl); global size is
// ceil(count/S)*S*T, or fewer groups that loop with PERSIST (below);
// sequences past count compute garbage they never store.
// Local memory: S regions of PADLEN floats for re (and im unless SPLIT);
// with HALVES (S = 1, never PAIRED) PADLEN/2 floats.
//
// Layouts (frame = one sequence; all contiguous, row after row):
//   C2C          in  float2[count][LEN]         out float2[count][LEN]
//   R2C          in  float[count][2*LEN]        out float2[count][LEN+1]
//   C2R          in  float2[count][LEN+1]       out float[count][2*LEN]
//   SPECTROGRAM  in  float[CHANNELS][L] planar  out [OUTCH][frames][LEN+1]
//                of float (dBFS or |X|^2) or float2 (complex).
// Real transforms of N = 2*LEN points run as a LEN-point complex transform
// of z[m] = x[2m] + i*x[2m+1] plus the split post-/pre-processing, which
// reads W_N^k (k = t + r*T) as twr[t] * W_(2*RADIX)^r (one load and a
// constant). tws is the stage table.

// (16-byte aligned: r2c_store_staged reads it as float4.)
#if HALVES
#define LOCAL_DECL __local float lbuf[PADLEN / 2] __attribute__((aligned(16)));
#define LRE lbuf
#define LIM lbuf
#elif SPLIT
#define LOCAL_DECL __local float lbuf[S * PADLEN] __attribute__((aligned(16)));
#define LRE (lbuf + s * PADLEN)
#define LIM (lbuf + s * PADLEN)
#elif XCH_F2_ON
#define LOCAL_DECL __local float lbuf[2 * S * PADLEN] __attribute__((aligned(16)));
#define LRE (lbuf + 2 * s * PADLEN)
#define LIM (LRE + PADLEN)
#else
#define LOCAL_DECL __local float lbuf[2 * S * PADLEN] __attribute__((aligned(16)));
#define LRE (lbuf + s * PADLEN)
#define LIM (lbuf + (S + s) * PADLEN)
#endif

// PERSIST (C2C, R2C, C2R): the host launches no more groups than the
// device holds at once (gpufft's persistGroups per compute unit) and each
// group loops over group indices grp, grp + groups, ... (a grid-stride
// loop). gpufft turns it on only where it measured faster (persistGroups;
// docs/gpufft-experiments.md: elsewhere the loop lost).
#ifndef PERSIST
#define PERSIST 0
#endif
#if PERSIST
#define GROUP_LOOP for (int grp = get_group_id(0); grp * S < count; grp += get_num_groups(0))
#else
#define GROUP_LOOP for (int grp = get_group_id(0), once_ = 1; once_; once_ = 0)
#endif

#define SEQ_SETUP                                   \
    const int lt = get_local_id(0);                 \
    const int s = lt / T;                           \
    const int t = lt - s * T;                       \
    const int seq = grp * S + s;                    \
    const bool valid = seq < count;

// Streaming accesses of the C2C and R2C kernels' inputs and outputs:
// LDHINT and STHINT are the load's and the store's cache hint (ld_hint and
// st_hint in fft_common.cl; 0 plain, the default).
// COPY_ONLY (a measuring aid, never a result): 1 leaves the transform out
// (the same loads, split and stores: the kernel's memory floor), 2 also
// stores R2C rows LEN apart without bin LEN (16-byte aligned rows).
//
// STHINT=1 pays for R2C in halves only; LDHINT, staged stores and R2C
// 16384 in other geometries lost (docs/gpufft-experiments.md).
#ifndef LDHINT
#define LDHINT 0
#endif
#ifndef STHINT
#define STHINT 0
#endif
#ifndef COPY_ONLY
#define COPY_ONLY 0
#endif
// (ld_hint and st_hint: fft_common.cl)
inline float2 ld_stream(__global const float2 *p) { return ld_hint(p, LDHINT); }
inline void st_stream(__global float2 *p, float2 x) { st_hint(p, x, STHINT); }
#if COPY_ONLY
#define FFT_REGS(v, lre, lim, t, tws)
#else
#define FFT_REGS(v, lre, lim, t, tws) fft_regs(v, lre, lim, t, tws)
#endif

// load_seq reads thread t's RADIX values of sequence seq (zeros past
// count), conjugated with conj.
inline void load_seq(float2 *v, __global const float2 *restrict src, int seq, int count, int t,
                     const bool conj) {
    const bool valid = seq < count;
    __global const float2 *in = src + (size_t)seq * LEN;
    #pragma unroll
    for (int r = 0; r < RADIX; r++) {
        float2 x = valid ? ld_stream(in + t + r * T) : (float2)(0.0f);
        v[r] = conj ? conjf2(x) : x;
    }
}

#ifdef KERNEL_C2C
inline void c2c_store(const float2 *v, __global float2 *restrict dst, int seq, int count, int t) {
    if (seq >= count) return;
    __global float2 *out = dst + (size_t)seq * LEN;
    #pragma unroll
    for (int r = 0; r < RADIX; r++)
        st_stream(out + t + r * T, INVERSE ? conjf2(v[r]) * (1.0f / LEN) : v[r]);
}

__kernel __attribute__((reqd_work_group_size(S * T, 1, 1)))
void fft_c2c(__global const float2 *restrict src, __global float2 *restrict dst,
             __global const float2 *restrict tws, int count) {
    LOCAL_DECL
    const int lt = get_local_id(0);
    const int s = lt / T;
    const int t = lt - s * T;
    float2 v[RADIX];
    GROUP_LOOP {
        load_seq(v, src, grp * S + s, count, t, INVERSE);
        FFT_REGS(v, LRE, LIM, t, tws); // ends past its last barrier: local memory free again
        c2c_store(v, dst, grp * S + s, count, t);
    }
}
#endif

#if defined(KERNEL_R2C) || defined(KERNEL_SPECTROGRAM)
// The split needs Z[k] and Z[(LEN - k) mod LEN]; the second lives in another
// thread. publish() makes every Z visible in local memory; MIRROR(r) then
// reads the partner of k = t + r*T. With SPLIT (one component at a time)
// the partners are gathered into mirror[] in two rounds instead; with
// HALVES one half at a time by gather_half.
#define MIRROR_INDEX(r) PAD((LEN - (t + (r) * T)) & (LEN - 1))
#if HALVES
// gather_half: two rounds (re, im) with half h of Z in local memory: every
// thread publishes its registers there and gathers the mirrors found there,
// those of registers r = (1-h)*RADIX/2 + i into m[i]. The mirror of k = t +
// r*T lies in the other half but for k = 0 and LEN/2 (t = 0), which are
// their own. The kernels split each half's registers as soon as its
// mirrors are in (all RADIX mirrors at once spilled: 128 registers).
inline void gather_half(const float2 *v, float2 *m, __local float *l, int t, const int h) {
#pragma unroll
    for (int c = 0; c < 2; c++) {
#pragma unroll
        for (int r = h * (RADIX / 2); r < (h + 1) * (RADIX / 2); r++)
            l[PAD(t + r * T - h * (LEN / 2))] = c ? v[r].y : v[r].x;
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int i = 0; i < RADIX / 2; i++) {
            const int r = (1 - h) * (RADIX / 2) + i;
            const float x = l[PAD((LEN - (t + r * T) - h * (LEN / 2)) & (LEN / 2 - 1))];
            if (c) m[i].y = x; else m[i].x = x;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0) m[0] = v[(1 - h) * (RADIX / 2)];
}
#define MIRROR_DECL
#elif SPLIT
#define MIRROR_DECL float2 mirror[RADIX];
#define MIRROR(r) mirror[r]
inline void publish(const float2 *v, float2 *mirror, __local float *lre, __local float *lim, int t) {
#pragma unroll
    for (int r = 0; r < RADIX; r++) lre[PAD(t + r * T)] = v[r].x;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int r = 0; r < RADIX; r++) mirror[r].x = lre[MIRROR_INDEX(r)];
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int r = 0; r < RADIX; r++) lre[PAD(t + r * T)] = v[r].y;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int r = 0; r < RADIX; r++) mirror[r].y = lre[MIRROR_INDEX(r)];
}
#define PUBLISH(v) publish(v, mirror, LRE, LIM, t)
#else
#define MIRROR_DECL
#define MIRROR(r) ((float2)(LRE[MIRROR_INDEX(r)], LIM[MIRROR_INDEX(r)]))
inline void publish(const float2 *v, __local float *lre, __local float *lim, int t) {
#pragma unroll
    for (int r = 0; r < RADIX; r++) {
        int i = PAD(t + r * T);
        lre[i] = v[r].x;
        lim[i] = v[r].y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#define PUBLISH(v) publish(v, LRE, LIM, t)
#endif
#endif

#if PAIRED
// Bin of register r, and its mirror register (LEN - bin), with PAIRED.
#define PK(r) (JOF((r) % PER, t) + ((r) / PER) * NS)
#define PMIRROR(r) ((t == 0 && (r) % PER == 0) ? v[((LASTR - (r) / PER) % LASTR) * PER] \
                    : (t == 0 && (r) % PER == PER / 2) ? v[(LASTR - 1 - (r) / PER) * PER + PER / 2] \
                    : v[(LASTR - 1 - (r) / PER) * PER + ((r) % PER + PER / 2) % PER])
#endif

#ifdef KERNEL_R2C
#if PAIRED
// r2c_store_paired splits and stores thread t's bins of sequence seq. The
// split's W_N^k for k = j + q*NS (N = 2*LEN = 2*LASTR*NS) is twr[j] *
// W_(2*LASTR)^q: one load per slot and a constant, not one load per bin.
// Faster than a load per bin at every size measured (docs/gpufft-experiments.md).
inline void r2c_store_paired(const float2 *v, __global float2 *restrict dst,
                             __global const float2 *restrict twr, int seq, int count, int t) {
    if (seq >= count) return;
    __global float2 *out = dst + (size_t)seq * (COPY_ONLY == 2 ? LEN : LEN + 1);
    float2 wj[PER];
    #pragma unroll
    for (int m = 0; m < PER; m++) wj[m] = twr[JOF(m, t)];
    #pragma unroll
    for (int r = 0; r < RADIX; r++)
        st_stream(out + PK(r), r2c_bin(v[r], PMIRROR(r), mul_wk(wj[r % PER], 2 * LASTR, r / PER)));
    if (t == 0 && COPY_ONLY != 2) st_stream(out + LEN, r2c_bin(v[0], v[0], (float2)(-1.0f, 0.0f)));
}
#endif

// STAGE_ST (PAIRED, S = 1: a group stores one row; a tuning variant, off
// by default): the row's bins go through local memory and are stored in
// 16-byte pieces that start at the 32-byte boundaries of the output,
// whatever the row's offset: rows are LEN+1 bins long, so straight from
// registers most warps' stores straddle one 32-byte sector more than
// their bytes need, and rows share sectors with the neighbouring rows.
// Where local memory cannot hold the row (SPLIT), two rounds, the
// registers of the lower half of q first (bins of register q*PER + m lie
// in [q*NS, (q+1)*NS)). Measured slower and dropped: the local round trip
// costs more than the aligned rows save (docs/gpufft-experiments.md).
#ifndef STAGE_ST
#define STAGE_ST 0
#endif
// Elsewhere (S > 1, not PAIRED, or in HALVES, whose local memory holds
// less than half a row) it is ignored.
#define ST_FLOATS ((SPLIT ? 1 : 2) * PADLEN)
#define ST_ROUNDS (2 * (LEN + 6) <= ST_FLOATS ? 1 : 2)
#define ST_USE (STAGE_ST && PAIRED && S == 1 && !HALVES)
#if ST_USE && (LEN + 12 > ST_FLOATS || LASTR % ST_ROUNDS != 0)
#error "STAGE_ST: local memory holds less than half a row"
#endif
#if ST_USE
#define ST_SPAN (LEN / ST_ROUNDS + 4) // bins a round covers from its 32-byte boundary, at most
inline void r2c_store_staged(const float2 *v, __global float2 *restrict dst, __global const float2 *restrict twr,
                             __local float *lbuf, int seq, int count, int t) {
    const size_t base = (size_t)seq * (LEN + 1);
    __global float2 *out = dst + base;
    __local float2 *l2 = (__local float2 *)lbuf;
    float2 wj[PER];
    #pragma unroll
    for (int m = 0; m < PER; m++) wj[m] = twr[JOF(m, t)];
    #pragma unroll
    for (int h = 0; h < ST_ROUNDS; h++) {
        const int lo = h * (LEN / ST_ROUNDS);
        const int hi = h == ST_ROUNDS - 1 ? LEN + 1 : lo + LEN / ST_ROUNDS;
        const int k0 = lo - (int)((base + lo) & 3); // the bin at the 32-byte boundary at or before lo
        #pragma unroll
        for (int r = 0; r < RADIX; r++) {
            if (r / PER >= h * (LASTR / ST_ROUNDS) && r / PER < (h + 1) * (LASTR / ST_ROUNDS))
                l2[PK(r) - k0] = r2c_bin(v[r], PMIRROR(r), mul_wk(wj[r % PER], 2 * LASTR, r / PER));
        }
        if (t == 0 && h == ST_ROUNDS - 1) l2[LEN - k0] = r2c_bin(v[0], v[0], (float2)(-1.0f, 0.0f));
        barrier(CLK_LOCAL_MEM_FENCE);
        if (seq < count) {
            #pragma unroll
            for (int j = 0; j < (ST_SPAN + 2 * T - 1) / (2 * T); j++) {
                const int k = k0 + 2 * (t + j * T); // even from k0: 16-byte aligned in dst
                if (k + 1 < hi && k >= lo) {
                    *(__global float4 *)(out + k) = ((__local float4 *)lbuf)[(k - k0) / 2];
                } else {
                    if (k >= lo && k < hi) out[k] = l2[k - k0];
                    if (k + 1 >= lo && k + 1 < hi) out[k + 1] = l2[k + 1 - k0];
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); // local memory free for the next round or sequence
    }
}
#endif

__kernel __attribute__((reqd_work_group_size(S * T, 1, 1)))
void fft_r2c(__global const float2 *restrict src, __global float2 *restrict dst,
             __global const float2 *restrict tws, __global const float2 *restrict twr, int count) {
    LOCAL_DECL
    GROUP_LOOP {
    SEQ_SETUP
    float2 v[RADIX];
    MIRROR_DECL
    load_seq(v, src, seq, count, t, false);
    FFT_REGS(v, LRE, LIM, t, tws);
#if ST_USE
    r2c_store_staged(v, dst, twr, lbuf, seq, count, t);
#elif PAIRED
    r2c_store_paired(v, dst, twr, seq, count, t);
#elif HALVES
    __global float2 *out = dst + (size_t)seq * (LEN + 1);
    const float2 wt = twr[t];
    #pragma unroll
    for (int h = 0; h < 2; h++) {
        float2 m[RADIX / 2];
        gather_half(v, m, LRE, t, h);
        if (valid) {
            #pragma unroll
            for (int i = 0; i < RADIX / 2; i++) {
                const int r = (1 - h) * (RADIX / 2) + i;
                st_stream(out + t + r * T, r2c_bin(v[r], m[i], cmul(wt, W2R(r))));
            }
        }
    }
    if (valid && t == 0) out[LEN] = r2c_bin(v[0], v[0], (float2)(-1.0f, 0.0f));
#else
    PUBLISH(v);
    if (valid) {
        __global float2 *out = dst + (size_t)seq * (LEN + 1);
        const float2 wt = twr[t];
        #pragma unroll
        for (int r = 0; r < RADIX; r++) {
            int k = t + r * T;
            st_stream(out + k, r2c_bin(v[r], MIRROR(r), cmul(wt, W2R(r))));
        }
        if (t == 0) out[LEN] = r2c_bin(v[0], v[0], (float2)(-1.0f, 0.0f));
    }
    if (PERSIST) barrier(CLK_LOCAL_MEM_FENCE); // the mirrors were read from local memory
#endif
    }
}
#endif

#ifdef KERNEL_C2R
__kernel __attribute__((reqd_work_group_size(S * T, 1, 1)))
void fft_c2r(__global const float2 *restrict src, __global float2 *restrict dst,
             __global const float2 *restrict tws, __global const float2 *restrict twr, int count) {
    LOCAL_DECL
    GROUP_LOOP {
    SEQ_SETUP
    float2 v[RADIX];
    __global const float2 *in = src + (size_t)seq * (LEN + 1);
    const float2 wt = twr[t];
    #pragma unroll
    for (int r = 0; r < RADIX; r++) {
        int k = t + r * T;
        float2 xk = valid ? in[k] : (float2)(0.0f);
        float2 xm = conjf2(valid ? in[LEN - k] : (float2)(0.0f));
        if (k == 0) xk.y = xm.y = 0.0f; // bins 0 and LEN are real by the contract
        float2 e = (xk + xm) * 0.5f;
        float2 o = cmul(conjf2(cmul(wt, W2R(r))), (xk - xm) * 0.5f);
        float2 z = e + (float2)(-o.y, o.x); // E + i*O
        v[r] = conjf2(z);
    }
    fft_regs(v, LRE, LIM, t, tws);
    if (valid) {
        __global float2 *out = dst + (size_t)seq * LEN;
        #pragma unroll
        for (int r = 0; r < RADIX; r++) out[t + r * T] = conjf2(v[r]) * (1.0f / LEN);
    }
    }
}
#endif

#ifdef KERNEL_SPECTROGRAM
// Extra defines: CHANNELS (input channels), MIX (1: one output channel, the
// mean of all; 0: one output per channel), OUTPUT (0 dBFS, 1 power |X|^2,
// 2 complex X). win holds the N = 2*LEN window samples; scale = 1/sum(win).
// Frame f of output channel c covers samples [f*hop, f*hop + N) of channel c
// (or of every channel, for MIX); sequence seq = c*frames + f.
// FPG (with S = 1): each work-group does FPG consecutive sequences one after
// another, so overlapping frames find most of their samples in the SM's L1
// cache instead of reading them again from L2 (which, at 75 % overlap, cost
// 40 % of the kernel's time). The host now sets 1 (gpufft's framesPerGroup,
// where the numbers are); FPG > 1 stays as a tuning variant.
// (Staging the samples in a local ring instead, so each is read once per
// group, measured slower on the H100: docs/gpufft-experiments.md.)
#ifndef FPG
#define FPG 1
#endif
// SPEC_TWC (PAIRED): the split's twiddles as r2c_store_paired takes them,
// one load per slot times a constant, instead of one load per bin. Off:
// mixed (docs/gpufft-experiments.md); PRISM_OPENCL_TUNE=SPEC_TWC=1 to measure.
#ifndef SPEC_TWC
#define SPEC_TWC 0
#endif
// The spectrogram kernel is bound by instruction issue, not bytes: a change
// pays when it removes instructions. SPEC_LEVEL and SPEC_PAIRS are on,
// DFT_FMA (fft_common.cl) off (its 1 % costs the engines' 0.01 dB
// agreement); the variants measured and dropped, with where the time
// goes, are in docs/gpufft-experiments.md.

// SPEC_LEVEL (OUTPUT 0 without BINGAIN): the dB level as 3.0103*lg2(p)
// plus a per-thread offset 10*log10(g2) (one per thread, from scale)
// instead of the power times g2 clamped at 1e-30 before its logarithm:
// p = |2X|^2 is floored by the fmax after the logarithm alone (lg2 of 0
// is -inf). With NV_PTX the logarithm is lg2.approx.ftz.f32, one
// MUFU.LG2 (PTX's lg2.approx.f32 that native_log2 becomes flushes
// denormals by a test, a scaling and a correction per bin); elsewhere
// native_log2 of p clamped to the normal range (FLT_MIN: -379 dB before
// the offset, below the floor for any g2 < 1e17; g2 = (c_k*scale)^2/4
// <= 1 here). A few instructions a bin where the clamp before the
// logarithm took 10 (docs/gpufft-experiments.md).
#ifndef SPEC_LEVEL
#define SPEC_LEVEL 1
#endif
#define SPEC_LEVEL_ON (SPEC_LEVEL && OUTPUT == 0 && !BINGAIN)
inline float spec_lg2(float p) {
#if NV_PTX
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(p));
    return r;
#else
    return native_log2(p < 1.17549435e-38f ? 1.17549435e-38f : p); // keeps a NaN for db_lg2
#endif
}
// spec_level is level()'s dBFS for 2X with 10*log10(g2) = off.
inline float spec_level(float2 X2, float off) {
    return db_lg2(spec_lg2(X2.x * X2.x + X2.y * X2.y), off);
}

// SPEC_PAIRS (PAIRED with PER = 2, both slots' butterflies j and NS - j
// in one thread): the split of bin k and of its mirror LEN - k from one
// sum and one difference, e = Z[k] + conj(Z[-k]) and D = -i(Z[k] -
// conj(Z[-k])): 2X[k] = e + W^k D and 2X[-k] = conj(e) + W^-k conj(D),
// 4 additions and 8 FMAs a pair where r2c_bin2 takes 8 a bin, and one
// twiddle load a pair (W_N^(LEN-k) = -conj(W_N^k), N = 2*LEN). Thread 0
// (butterflies 0 and NS/2, each its own mirror) pairs within its slots;
// it takes its operands from the other slot in the operation's half that
// differs (one select per operation and value, half of PMIRROR's), and
// bins 0 and LEN in its own branch (spec_store_pairs). Times above.
#ifndef SPEC_PAIRS
#define SPEC_PAIRS 1
#endif
#if PAIRED && PER == 2
#define SPEC_PAIRS_ON SPEC_PAIRS
#else
#define SPEC_PAIRS_ON 0
#endif
#if SPEC_PAIRS_ON
#if OUTPUT == 2
#define SPEC_OUT __global float2
#else
#define SPEC_OUT __global float
#endif
// spec_put stores the bin at o (gain at gn) from 2X: its level, power or X.
inline void spec_put(SPEC_OUT *o, __global const float *restrict gn, float2 X2, float gs, float offs) {
#if OUTPUT == 2
    *o = X2 * 0.5f;
#elif SPEC_LEVEL_ON
    *o = spec_level(X2, offs);
#else
    float g2 = gs;
#if BINGAIN
    g2 *= *gn;
#endif
    *o = level(X2, g2);
#endif
}

// spec_store_pairs splits and stores the thread's 2*LASTR bins of the row
// at dst[row]. Operation q pairs register (q, 0) (bin j0 + q*NS) with (L-1-q,
// 1) (bin j1 + (L-1-q)*NS), L = LASTR, v[2q + m] = register (q, m). Thread
// 0 (j0 = 0, j1 = NS/2) pairs (q, 1) with (L-1-q, 1) for q < L/2 and (q,
// 0) with (L-q, 0) for q >= L/2 (q = L/2: bin LEN/2 with itself, stored
// twice alike). One base per side and half (bins ka + q*NS, kb + ...).
inline void spec_store_pairs(const float2 *v, __global void *restrict dstv, __global const float2 *restrict twr,
                             __global const float *restrict gain, size_t row, int t, float scale) {
#if OUTPUT == 1
    const float gs = 0.25f;
#else
    const float gs = scale * scale;
#endif
    const float offs = 2.0f * DB_LG2 * native_log2(scale); // 10*log10(gs), for SPEC_LEVEL
    const int j0 = JOF(0, t), j1 = JOF(1, t);
    const int ka = t == 0 ? j1 : j0, kb = t == 0 ? j0 + NS : j1;
    SPEC_OUT *o = (SPEC_OUT *)dstv + row;
    #pragma unroll
    for (int q = 0; q < LASTR; q++) {
        const bool lo = q < LASTR / 2;
        float2 za = v[2 * q], zb = v[2 * (LASTR - 1 - q) + 1];
        if (lo) za = t == 0 ? v[2 * q + 1] : za;
        else zb = t == 0 ? v[2 * (LASTR - q)] : zb;
        const int a = lo ? ka : j0, b = lo ? j1 : kb; // + q*NS, + (L-1-q)*NS
        const float2 w = (twr + a)[q * NS]; // the mirror's W^-k is -conj(w)
        const float ex = za.x + zb.x, ey = za.y - zb.y, dx = za.y + zb.y, dy = zb.x - za.x;
        spec_put((o + a) + q * NS, (gain + a) + q * NS,
                 (float2)(fma(w.x, dx, fma(-w.y, dy, ex)), fma(w.x, dy, fma(w.y, dx, ey))), gs, offs);
        spec_put((o + b) + (LASTR - 1 - q) * NS, (gain + b) + (LASTR - 1 - q) * NS,
                 (float2)(fma(-w.x, dx, fma(w.y, dy, ex)), fma(w.y, dx, fma(w.x, dy, -ey))), gs, offs);
    }
    if (t == 0) {
        store_bin(dstv, row, 0, r2c_bin(v[0], v[0], (float2)(1.0f, 0.0f)), scale, gain);
        store_bin(dstv, row + LEN, LEN, r2c_bin(v[0], v[0], (float2)(-1.0f, 0.0f)), scale, gain);
    }
}
#endif

// load_frame reads the thread's RADIX sample pairs of sequence seq (zeros
// past count). Pairs are read as one 64-bit load where the frame starts on
// an even sample (every channel, for MIX), the common case of an even hop.
#define PAIR64(p, m) (((__global const float2 *)(p))[m])
#define PAIR32(p, m) ((float2)((p)[2 * (m)], (p)[2 * (m) + 1]))
#if MIX && CHANNELS > 1
#define LOAD_PAIRS(PAIR)                                              \
    for (int r = 0; r < RADIX; r++) {                                 \
        float2 a = PAIR(in, t + r * T);                               \
        for (int ch = 1; ch < CHANNELS; ch++)                         \
            a += PAIR(in + (size_t)ch * chanStride, t + r * T);       \
        x[r] = a * (1.0f / CHANNELS);                                 \
    }
#else
#define LOAD_PAIRS(PAIR) for (int r = 0; r < RADIX; r++) x[r] = PAIR(in, t + r * T);
#endif
inline void load_frame(float2 *x, __global const float *restrict src, int seq, int count,
                       int frames, long chanStride, int hop, int t) {
    const bool valid = seq < count;
#if MIX || CHANNELS == 1
    // one output channel: count = frames, so seq is the frame (no division)
    const int f = valid ? seq : 0, c = 0;
#else
    const int f = valid ? seq % frames : 0;
    const int c = valid ? seq / frames : 0;
#endif
    const size_t start = (size_t)f * hop + (MIX ? 0 : (size_t)c * chanStride);
    __global const float *in = src + start;
#if MIX && CHANNELS > 1
    const bool even = ((start | (size_t)chanStride) & 1) == 0;
#else
    const bool even = (start & 1) == 0;
#endif
    if (!valid) {
        #pragma unroll
        for (int r = 0; r < RADIX; r++) x[r] = (float2)(0.0f);
    } else if (even) {
        #pragma unroll
        LOAD_PAIRS(PAIR64)
    } else {
        #pragma unroll
        LOAD_PAIRS(PAIR32)
    }
}

#if PAIRED
// spec_store_slots splits and stores the thread's bins of the row at
// dst[row] one at a time, with PMIRROR's partner (SPEC_PAIRS off, or PER
// other than 2).
inline void spec_store_slots(const float2 *v, __global void *restrict dstv, __global const float2 *restrict twr,
                             __global const float *restrict gain, size_t row, int t, float scale) {
    // Slot m of this thread holds bins j + q*NS (j = JOF(m, t)):
    // one pointer per slot, and constant offsets q*NS from it.
#if OUTPUT == 1
    const float gs = 0.25f, g0 = gs;
#else
    const float gs = scale * scale, g0 = t == 0 ? 0.25f * gs : gs; // c_k = 1 at bin 0
#endif
#if SPEC_LEVEL_ON
    // 20*log10(scale) and, for bin 0, 6.02 dB less (c_k = 1)
    const float offs = 2.0f * DB_LG2 * native_log2(scale);
    const float off0 = t == 0 ? offs - 2.0f * DB_LG2 : offs;
#endif
    #pragma unroll
    for (int m = 0; m < PER; m++) {
        const int j = JOF(m, t);
#if SPEC_TWC
        const float2 wj = twr[j]; // bin j + q*NS's split twiddle is wj * W_(2*LASTR)^q (r2c_store_paired)
#else
        __global const float2 *tw = twr + j;
#endif
#if BINGAIN
        __global const float *gn = gain + j;
#endif
#if OUTPUT == 2
        __global float2 *o = (__global float2 *)dstv + row + j;
#else
        __global float *o = (__global float *)dstv + row + j;
#endif
        #pragma unroll
        for (int q = 0; q < LASTR; q++) {
            const int r = q * PER + m;
#if SPEC_TWC
            float2 X2 = r2c_bin2(v[r], PMIRROR(r), mul_wk(wj, 2 * LASTR, q));
#else
            float2 X2 = r2c_bin2(v[r], PMIRROR(r), tw[q * NS]);
#endif
#if OUTPUT == 2
            o[q * NS] = X2 * 0.5f;
#elif SPEC_LEVEL_ON
            o[q * NS] = spec_level(X2, (m == 0 && q == 0) ? off0 : offs);
#else
            float g2 = (m == 0 && q == 0) ? g0 : gs;
#if BINGAIN
            g2 *= gn[q * NS];
#endif
            o[q * NS] = level(X2, g2);
#endif
        }
    }
    if (t == 0) store_bin(dstv, row + LEN, LEN, r2c_bin(v[0], v[0], (float2)(-1.0f, 0.0f)), scale, gain);
}
#endif

__kernel __attribute__((reqd_work_group_size(S * T, 1, 1)))
void spectrogram(__global const float *restrict src, __global void *restrict dstv,
                 __global const float2 *restrict tws, __global const float2 *restrict twr,
                 __global const float2 *restrict win,
                 long chanStride, int hop, int frames, float scale,
                 __global const float *restrict gain) {
    LOCAL_DECL
    const int count = frames * (MIX ? 1 : CHANNELS);
    const int lt = get_local_id(0);
    const int s = lt / T;
    const int t = lt - s * T;
    // one frame after another: unrolled, the frames' loads and transforms
    // interleave and need 255 registers (0.61 ms against 0.51)
    #pragma unroll 1
    for (int it = 0; it < FPG; it++) {
        const int seq = (get_group_id(0) * FPG + it) * S + s;
        const bool valid = seq < count;
        if (FPG > 1 && (get_group_id(0) * FPG + it) * S >= count) return; // the whole group, and every later sequence
        float2 v[RADIX];
        MIRROR_DECL
        load_frame(v, src, seq, count, frames, chanStride, hop, t);
        #pragma unroll
        for (int r = 0; r < RADIX; r++) v[r] *= win[t + r * T];
        fft_regs(v, LRE, LIM, t, tws);
#if PAIRED
        if (valid) {
            const size_t row = (size_t)seq * (LEN + 1);
#if SPEC_PAIRS_ON
            spec_store_pairs(v, dstv, twr, gain, row, t, scale);
#else
            spec_store_slots(v, dstv, twr, gain, row, t, scale);
#endif
        }
#elif HALVES
        const size_t row = (size_t)seq * (LEN + 1);
        const float2 wt = twr[t];
        #pragma unroll
        for (int h = 0; h < 2; h++) {
            float2 m[RADIX / 2];
            gather_half(v, m, LRE, t, h); // ends with a barrier: local memory free for the next frame
            if (valid) {
                #pragma unroll
                for (int i = 0; i < RADIX / 2; i++) {
                    const int k = t + ((1 - h) * (RADIX / 2) + i) * T;
                    store_bin(dstv, row + k, k, r2c_bin(v[(1 - h) * (RADIX / 2) + i], m[i], cmul(wt, W2R((1 - h) * (RADIX / 2) + i))), scale, gain);
                }
            }
        }
        if (valid && t == 0) store_bin(dstv, row + LEN, LEN, r2c_bin(v[0], v[0], (float2)(-1.0f, 0.0f)), scale, gain);
#else
        PUBLISH(v);
        if (valid) {
            const size_t row = (size_t)seq * (LEN + 1);
            const float2 wt = twr[t];
            #pragma unroll
            for (int r = 0; r <= RADIX; r++) {
                int k;
                float2 X;
                if (r < RADIX) {
                    k = t + r * T;
                    X = r2c_bin(v[r], MIRROR(r), cmul(wt, W2R(r)));
                } else {
                    if (t != 0) break;
                    k = LEN;
                    X = r2c_bin(v[0], v[0], (float2)(-1.0f, 0.0f));
                }
                store_bin(dstv, row + k, k, X, scale, gain);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); // the next sequence reuses local memory
#endif
    }
}
#endif
