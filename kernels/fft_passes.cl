// fft_passes.cl - the hierarchical (four-step) path for transforms larger
// than one work-group holds, and the real-input split as separate passes.
// Needs fft_common.cl before it.
//
// A complex transform of NTOT = A*B points, n = a + A*b, k = c + B*d:
//   pass 1: for each a, a B-point DFT over b of x[a + A*b], times W_NTOT^(a*c),
//           stored at y[a + A*c]              (strided in and out)
//   pass 2: for each c, an A-point DFT over a of y[a + A*c],
//           stored at X[c + B*d]              (contiguous in, strided out)
// Kernel fft_pass does either: S sequences per work-group, each LEN long;
// element e of sequence q of item i sits at i*NTOT + q*SS + e*ES (separately
// for in and out). Global accesses are made coalesced by staging through
// local memory with the sequence index fastest when its stride is 1
// (LOAD_SEQ_FAST; stores always), so S consecutive sequences fill a whole
// memory transaction; pass 1, whose sequences have stride 1 on both sides,
// instead takes its work-items slot-fastest and stages nothing (SLOT_FAST).
//
// The real transforms' pre- and post-processing is folded into the passes,
// so a real transform or spectrogram costs two passes over global memory,
// like a complex one:
//   IN_MODE 0  complex input, float2[count][NTOT]
//           1  spectrogram frames read straight from the planar sample
//              buffer and windowed on load: z[m] = w[2m]x[2m] + i*w[2m+1]x[2m+1]
//              of frame f = item % frames, channel c = item / frames (defines
//              CHANNELS, MIX; aux = the window as float2 pairs)
//           2  C2R: the conjugate of Z[k] = E + i*O packed from the half
//              spectrum float2[count][NTOT+1], reading X[k] and X[NTOT-k]
//              (aux = W_(2*NTOT)^k); pass 2 then conjugates and scales
//   OUT_MODE 0 complex output, float2[count][NTOT]
//           1  R2C: the split into float2[count][NTOT+1] bins (pass 2 only)
//           2  the spectrogram's OUTPUT (dBFS, power, complex) per bin
//              with scale = 1/sum(w) and BINGAIN (pass 2 only)
// The split needs Z[k] and Z[NTOT-k]: for k = c + SEQS*d the mirror is in
// sequence SEQS - c (or c itself for c = 0 and SEQS/2), so with OUT_MODE a
// group does S/2 sequences and their S/2 mirrors (S >= 2, S <= SEQS) and
// combines them from local memory.
//
// Extra defines: KERNEL_PASS; SEQS (sequences per item, a multiple of S);
// NTOT; SS_IN, ES_IN, SS_OUT, ES_OUT; LOAD_SEQ_FAST (0/1); SLOT_FAST (0/1);
// SPLIT_TW (0/1, the split's twiddles from two table entries, see there);
// TWIDDLE4 (apply W_NTOT^(q*e) to outputs, table tw4 of NTOT entries
// followed by two-level tables, see there; TWLOG);
// tws is the stage table of fft_common.cl;
// CONJ_IN (conjugate on load), CONJ_OUT (conjugate and multiply by `scale`
// on store; with CONJ_IN on pass 1 this makes an inverse transform);
// IN_MODE, OUT_MODE (above; SPLIT_LEN=NTOT with OUT_MODE 2); SSTRIDE.
// Arguments unused by a mode are still set (any buffer, any value).
// Local memory: 2*S*SSTRIDE floats, SSTRIDE >= PADLEN being the distance
// between sequences' regions chosen by the host to keep the S sequences of
// a coalesced access in distinct banks (SPLIT is never used here).
// Work-group: S*T work-items; global size count*SEQS/S * S*T.
//
// KERNEL_R2C_POST / KERNEL_FRAMES / KERNEL_SPEC_POST are one-work-item-per-
// bin kernels around a complex transform of LEN = N/2 points, for devices
// whose pass-2 groups hold a single sequence (no pairing); see each.

#ifdef KERNEL_PASS
#ifndef IN_MODE
#define IN_MODE 0
#endif
#ifndef OUT_MODE
#define OUT_MODE 0
#endif
// The pass order, cache hints and a measuring aid. Pass 1 is the pass
// with TWIDDLE4, pass 2 the other. The host sets P2_REV and P1_ST (gpufft's
// passDefines: P2_REV for C2C and R2C on GPUs, P1_ST=1 for their first
// passes of 256 and 512 points on NVIDIA); the others are PRISM_OPENCL_TUNE
// defines. All 0 by default.
//   P_COPY   1 leaves the transform and the four-step twiddle out: the
//            pass's own loads, staging and stores, its memory floor
//   P2_REV   pass 2 takes its groups in reverse order, starting on the
//            items pass 1 wrote last, some of them still in L2
//   P1_LD, P1_ST, P2_LD, P2_ST  the cache hint (ld_hint, st_hint in
//            fft_common.cl) of pass 1's or pass 2's complex loads from
//            global memory (IN_MODE 0) and its stores to it
// P2_REV with P1_ST (256 and 512 points) is the rule that measured
// fastest; the hints elsewhere, other geometries, L2 prefetch sizes and
// both passes in one launch lost (docs/gpufft-experiments.md).
#ifndef P_COPY
#define P_COPY 0
#endif
#ifndef P2_REV
#define P2_REV 0
#endif
#ifndef P1_LD
#define P1_LD 0
#endif
#ifndef P1_ST
#define P1_ST 0
#endif
#ifndef P2_LD
#define P2_LD 0
#endif
#ifndef P2_ST
#define P2_ST 0
#endif
#if TWIDDLE4
#define PASS_LD P1_LD
#define PASS_ST P1_ST
#else
#define PASS_LD P2_LD
#define PASS_ST P2_ST
#endif

#if IN_MODE == 1
#define PASS_SRC_T float
#else
#define PASS_SRC_T float2
#endif

// Sequence of slot s (0 <= s < S) of group g within its item. With OUT_MODE
// 1 or 2 the slots are paired for the real split: slot s < S/2 does c = c0
// + s (c0 = g*S/2), slot s + S/2 its mirror SEQS - c, or SEQS/2 for c = 0;
// sequences 0 and SEQS/2 are their own mirrors.
#if OUT_MODE
#define SEQ_OF(s) ((s) < S / 2 ? c0 + (s) \
                   : c0 + (s) - S / 2 == 0 ? SEQS / 2 : SEQS - (c0 + (s) - S / 2))
#else
#define SEQ_OF(s) (c0 + (s))
#endif

// load_el returns input element pos (= q*SS_IN + e*ES_IN) of item `item`.
inline float2 load_el(__global const PASS_SRC_T *restrict src, size_t item, size_t pos,
                      __global const float2 *restrict aux, long chanStride, int hop, int frames) {
#if IN_MODE == 1
    // z[m] = (w[2m]x[2m], w[2m+1]x[2m+1]) of frame f of channel c, read as
    // one 64-bit load where the frame starts on an even sample (every
    // channel, for a mix), as the single-pass spectrogram does
    const size_t f = item % frames, c = item / frames;
    const size_t start = f * hop + (MIX ? 0 : c * chanStride);
    __global const float *p = src + start + 2 * pos;
#if MIX && CHANNELS > 1
    const bool even = ((start | (size_t)chanStride) & 1) == 0;
#else
    const bool even = (start & 1) == 0;
#endif
#define FRAME_PAIR(q) (even ? *(__global const float2 *)(q) : (float2)((q)[0], (q)[1]))
    float2 x = FRAME_PAIR(p);
#if MIX && CHANNELS > 1
    for (int ch = 1; ch < CHANNELS; ch++) x += FRAME_PAIR(p + (size_t)ch * chanStride);
    x *= (1.0f / CHANNELS);
#endif
    return x * aux[pos];
#elif IN_MODE == 2
    // the conjugate of Z[k] = E + i*O packed from half spectrum X (NTOT+1
    // bins per item); aux holds W_(2*NTOT)^k
    __global const float2 *x = src + item * (NTOT + 1);
    float2 xk = x[pos];
    float2 xm = conjf2(x[NTOT - pos]);
    if (pos == 0) xk.y = xm.y = 0.0f; // bins 0 and NTOT are real by the contract
    float2 e = (xk + xm) * 0.5f;
    float2 o = cmul(conjf2(aux[pos]), (xk - xm) * 0.5f);
    return conjf2(e + (float2)(-o.y, o.x));
#else
    return ld_hint(src + item * NTOT + pos, PASS_LD);
#endif
}

// Staging through local memory for coalesced global accesses: element j
// (< RADIX) of work-item lt is idx = lt + j*S*T, sequence slot idx % S
// (fastest) and element idx / S. (Staging one float component at a time,
// measured no faster: docs/gpufft-experiments.md.)
#define STAGE_RE(s2, e) lbuf[(s2) * SSTRIDE + PAD(e)]
#define STAGE_IM(s2, e) lbuf[(S + (s2)) * SSTRIDE + PAD(e)]

// SLOT_FAST (pass 1): work-item lt is thread t = lt / S of slot s = lt % S
// (slots fastest) instead of t = lt % T of slot s = lt / T. With sequences
// consecutive in memory on both sides, a warp's lanes then read and write
// S neighbouring sequences' elements straight from and to registers (S*8
// bytes per run, as the staging gave), and the two staging round trips
// through local memory and their barriers go: faster at every size
// measured; two slot-fast passes still lose to one work-group at 16384
// points (docs/gpufft-experiments.md).
#ifndef SLOT_FAST
#define SLOT_FAST 0
#endif
#ifndef SPLIT_TW
#define SPLIT_TW 0
#endif
#if SLOT_FAST && (SS_IN != 1 || SS_OUT != 1 || OUT_MODE != 0)
#error "SLOT_FAST takes sequences of stride 1 in and out, complex output"
#endif

__kernel __attribute__((reqd_work_group_size(S * T, 1, 1)))
void fft_pass(__global const PASS_SRC_T *restrict src, __global void *restrict dstv,
              __global const float2 *restrict tws, __global const float2 *restrict tw4,
              float scale, __global const float2 *restrict aux, __global const float *restrict gain,
              long chanStride, int hop, int frames) {
    __local float lbuf[2 * S * SSTRIDE];
    const int lt = get_local_id(0);
#if SLOT_FAST
    const int s = lt % S;
    const int t = lt / S;
#else
    const int s = lt / T;
    const int t = lt - s * T;
#endif
    const size_t grp = P2_REV && !TWIDDLE4 ? get_num_groups(0) - 1 - get_group_id(0) : get_group_id(0);
    const size_t item = grp / (SEQS / S);
    const int g = (int)(grp - item * (SEQS / S));
#if OUT_MODE
    const int c0 = g * (S / 2);
#else
    const int c0 = g * S;
#endif
    __local float *lre = lbuf + s * SSTRIDE;
    __local float *lim = lbuf + (S + s) * SSTRIDE;
    float2 v[RADIX];

#if LOAD_SEQ_FAST && !SLOT_FAST
    {
        float2 st[RADIX];
        #pragma unroll
        for (int j = 0; j < RADIX; j++) {
            const int idx = lt + j * S * T, s2 = idx % S, e = idx / S;
            st[j] = load_el(src, item, (size_t)SEQ_OF(s2) * SS_IN + (size_t)e * ES_IN, aux, chanStride, hop, frames);
        }
        #pragma unroll
        for (int j = 0; j < RADIX; j++) {
            const int idx = lt + j * S * T, s2 = idx % S, e = idx / S;
            STAGE_RE(s2, e) = st[j].x;
            STAGE_IM(s2, e) = st[j].y;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        #pragma unroll
        for (int r = 0; r < RADIX; r++) {
            v[r].x = lre[PAD(t + r * T)];
            v[r].y = lim[PAD(t + r * T)];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    #pragma unroll
    for (int r = 0; r < RADIX; r++)
        v[r] = load_el(src, item, (size_t)SEQ_OF(s) * SS_IN + (size_t)(t + r * T) * ES_IN, aux, chanStride, hop, frames);
#endif
#if CONJ_IN
    #pragma unroll
    for (int r = 0; r < RADIX; r++) v[r] = conjf2(v[r]);
#endif

#if !P_COPY
    fft_regs(v, lre, lim, t, tws);
#endif

#if TWIDDLE4 && !P_COPY
    // W_NTOT^(q*e) for e = t + r*T as W^(q*t) * W^(q*T*r): one scattered
    // load per work-item, and RADIX loads shared by the warp's lanes of one
    // sequence (one transaction each) instead of RADIX scattered ones.
    // The scattered one is itself the product of two entries of small
    // tables (2^TWLOG and NTOT/2^TWLOG entries after the first NTOT), which
    // stay in L1 where the full table of a large NTOT would not (H200: 1-2 %
    // faster from 65536 to 2^20 points than one load from the full table).
    // With SLOT_FAST every W^(q*e) is such a product (of two entries,
    // where wt times the full table's entry is a product of three).
#define TW4_SMALL(x) cmul(tw4[NTOT + ((x) & ((1 << TWLOG) - 1))], tw4[NTOT + (1 << TWLOG) + ((x) >> TWLOG)])
    const int q = SEQ_OF(s);
    const float2 wt = TW4_SMALL((q * t) & (NTOT - 1));
#endif
    #pragma unroll
    for (int r = 0; r < RADIX; r++) {
#if TWIDDLE4 && SLOT_FAST && !P_COPY
        v[r] = cmul(v[r], r > 0 ? TW4_SMALL((q * (t + r * T)) & (NTOT - 1)) : wt);
#elif TWIDDLE4 && !P_COPY
        if (r > 0) v[r] = cmul(v[r], cmul(wt, tw4[(q * T * r) & (NTOT - 1)]));
        else v[r] = cmul(v[r], wt);
#endif
#if CONJ_OUT
        v[r] = conjf2(v[r]) * scale;
#endif
    }

#if SLOT_FAST
    __global float2 *out = (__global float2 *)dstv + item * NTOT;
    #pragma unroll
    for (int r = 0; r < RADIX; r++) st_hint(out + (size_t)SEQ_OF(s) + (size_t)(t + r * T) * ES_OUT, v[r], PASS_ST);
#else
    // results to local memory
    #pragma unroll
    for (int r = 0; r < RADIX; r++) {
        lre[PAD(t + r * T)] = v[r].x;
        lim[PAD(t + r * T)] = v[r].y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

#if OUT_MODE
    // Real split (see fft_common.cl's r2c_bin): the bins k = c + SEQS*d of
    // slot s2 need Z[k] from the slot and Z[NTOT - k] from its mirror slot
    // ms, both here in local memory. Output rows are NTOT+1 bins (OUT_MODE
    // 1: float2 X; OUT_MODE 2: the spectrogram's OUTPUT); aux holds
    // W_(2*NTOT)^k.
#define MIRROR_SLOT(s2) ((c0 + ((s2) < S / 2 ? (s2) : (s2) - S / 2)) == 0 ? (s2) : (s2) ^ (S / 2))
#define MIRROR_EL(s2, d) (SEQ_OF(s2) == 0 ? (LEN - (d)) & (LEN - 1) : LEN - 1 - (d))
    float2 zk[RADIX], zm[RADIX];
    #pragma unroll
    for (int j = 0; j < RADIX; j++) {
        const int idx = lt + j * S * T, s2 = idx % S, d = idx / S;
        const int ms = MIRROR_SLOT(s2), md = MIRROR_EL(s2, d);
        zk[j].x = STAGE_RE(s2, d);
        zm[j].x = STAGE_RE(ms, md);
        zk[j].y = STAGE_IM(s2, d);
        zm[j].y = STAGE_IM(ms, md);
    }
    const size_t row = item * (NTOT + 1);
#if SPLIT_TW
    // SPLIT_TW (off by default; a PRISM_OPENCL_TUNE define): W_(2*NTOT)^k
    // for k = q + SEQS*d, d = lt/S + j*T (the slot lt % S is the same for
    // every j) as W^q * W^(SEQS*(lt/S)), two entries of aux per work-item,
    // times the constant W^(SEQS*T*j) = W_(2*RADIX)^j, instead of RADIX
    // loads of aux[k]: a win at 2^20 only, not adopted; the fused split
    // stage, 32 sequences and radix 16 lost (docs/gpufft-experiments.md).
    const float2 wq = cmul(aux[SEQ_OF(lt % S)], aux[(lt / S) * SEQS]);
#endif
    #pragma unroll
    for (int j = 0; j < RADIX; j++) {
        const int idx = lt + j * S * T, s2 = idx % S, d = idx / S;
        const int k = SEQ_OF(s2) + SEQS * d;
#if SPLIT_TW
        float2 X = r2c_bin(zk[j], zm[j], j == 0 ? wq : cmul(wq, W2R(j)));
#else
        float2 X = r2c_bin(zk[j], zm[j], aux[k]);
#endif
#if OUT_MODE == 1
        st_hint((__global float2 *)dstv + row + k, X, PASS_ST);
        if (k == 0) ((__global float2 *)dstv)[row + NTOT] = r2c_bin(zk[j], zk[j], (float2)(-1.0f, 0.0f));
#else
        store_bin(dstv, row + k, k, X, scale, gain);
        if (k == 0) store_bin(dstv, row + NTOT, NTOT, r2c_bin(zk[j], zk[j], (float2)(-1.0f, 0.0f)), scale, gain);
#endif
    }
#else
    // Element j of this work-item goes out in sequence-fastest order, S
    // consecutive sequences per memory transaction.
    __global float2 *out = (__global float2 *)dstv + item * NTOT;
    float2 st[RADIX];
    #pragma unroll
    for (int j = 0; j < RADIX; j++) {
        const int idx = lt + j * S * T, s2 = idx % S, e = idx / S;
        st[j].x = STAGE_RE(s2, e);
        st[j].y = STAGE_IM(s2, e);
    }
    #pragma unroll
    for (int j = 0; j < RADIX; j++) {
        const int idx = lt + j * S * T, s2 = idx % S, e = idx / S;
        st_hint(out + (size_t)SEQ_OF(s2) * SS_OUT + (size_t)e * ES_OUT, st[j], PASS_ST);
    }
#endif
#endif
}
#endif

#ifdef KERNEL_R2C_POST
// z: float2[count][LEN] (the complex transform of the packed real input);
// out: float2[count][LEN+1]. tw: W_N, N = 2*LEN entries. One work-item per
// output bin; global size count*(LEN+1).
__kernel void r2c_post(__global const float2 *restrict z, __global float2 *restrict out,
                       __global const float2 *restrict tw, int count) {
    size_t gid = get_global_id(0);
    if (gid >= (size_t)count * (LEN + 1)) return;
    size_t item = gid / (LEN + 1);
    int k = (int)(gid - item * (LEN + 1));
    __global const float2 *zi = z + item * LEN;
    out[gid] = r2c_bin(zi[k & (LEN - 1)], zi[(LEN - k) & (LEN - 1)], tw[k]);
}
#endif

#ifdef KERNEL_FRAMES
// Windowed frames of a planar sample buffer, packed as complex
// z[m] = w[2m]x[2m] + i*w[2m+1]x[2m+1]: out float2[outch*frames][LEN].
// Defines CHANNELS, MIX as for the spectrogram kernel. Global size
// outch*frames*LEN.
__kernel void frames(__global const float *restrict src, __global float2 *restrict out,
                     __global const float2 *restrict win, long chanStride, int hop, int frames) {
    size_t gid = get_global_id(0);
    size_t count = (size_t)frames * (MIX ? 1 : CHANNELS);
    if (gid >= count * LEN) return;
    size_t seq = gid / LEN;
    int m = (int)(gid - seq * LEN);
    size_t f = seq % frames, c = seq / frames;
    __global const float *in = src + f * hop + (MIX ? 0 : c * chanStride);
    float2 x;
#if MIX
    x = (float2)(0.0f);
    for (int ch = 0; ch < CHANNELS; ch++) {
        __global const float *p = in + (size_t)ch * chanStride;
        x += (float2)(p[2 * m], p[2 * m + 1]);
    }
    x *= (1.0f / CHANNELS);
#else
    x = (float2)(in[2 * m], in[2 * m + 1]);
#endif
    out[gid] = x * win[m];
}
#endif

#ifdef KERNEL_SPEC_POST
// z: float2[count][LEN] transforms of frames(); out as the spectrogram
// kernel's (OUTPUT 0 dBFS, 1 power, 2 complex). Global size count*(LEN+1).
__kernel void spec_post(__global const float2 *restrict z, __global void *restrict outv,
                        __global const float2 *restrict tw, int count, float scale,
                        __global const float *restrict gain) {
    size_t gid = get_global_id(0);
    if (gid >= (size_t)count * (LEN + 1)) return;
    size_t item = gid / (LEN + 1);
    int k = (int)(gid - item * (LEN + 1));
    __global const float2 *zi = z + item * LEN;
    float2 X = r2c_bin(zi[k & (LEN - 1)], zi[(LEN - k) & (LEN - 1)], tw[k]);
    store_bin(outv, gid, k, X, scale, gain);
}
#endif

#ifdef KERNEL_SPEC_MUL
// Multiplies count half spectra (float2[count][LEN+1]) in place by one
// filter response h (float2[LEN+1]): the frequency-domain step of FFT
// convolution. Global size count*(LEN+1).
__kernel void spec_mul(__global float2 *restrict x, __global const float2 *restrict h, int count) {
    size_t gid = get_global_id(0);
    if (gid >= (size_t)count * (LEN + 1)) return;
    x[gid] = cmul(x[gid], h[gid % (LEN + 1)]);
}
#endif
