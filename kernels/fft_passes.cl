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
// (LOAD_SEQ_FAST / STORE_SEQ_FAST), so S consecutive sequences fill a whole
// memory transaction.
//
// Extra defines: KERNEL_PASS; SEQS (sequences per item, a multiple of S);
// NTOT; SS_IN, ES_IN, SS_OUT, ES_OUT; LOAD_SEQ_FAST, STORE_SEQ_FAST (0/1);
// TWIDDLE4 (apply W_NTOT^(q*e) to outputs, table tw4 of NTOT entries);
// tws is the stage table of fft_common.cl;
// CONJ_IN (conjugate on load), CONJ_OUT (conjugate and multiply by `scale`
// on store; with CONJ_IN on pass 1 this makes an inverse transform).
// Local memory: 2*S*PADLEN floats (SPLIT is never used here).
// Work-group: S*T work-items; global size count/S * S*T.
//
// KERNEL_R2C_POST / KERNEL_C2R_PRE / KERNEL_FRAMES / KERNEL_SPEC_POST are
// one-work-item-per-bin kernels around a complex transform of LEN = N/2
// points; see each.

#ifdef KERNEL_PASS
__kernel __attribute__((reqd_work_group_size(S * T, 1, 1)))
void fft_pass(__global const float2 *restrict src, __global float2 *restrict dst,
              __global const float2 *restrict tws, __global const float2 *restrict tw4,
              float scale) {
    __local float lbuf[2 * S * PADLEN];
    const int lt = get_local_id(0);
    const int s = lt / T;
    const int t = lt - s * T;
    const size_t seq0 = (size_t)get_group_id(0) * S; // first sequence of the group
    const size_t item = seq0 / SEQS;
    const int q0 = (int)(seq0 - item * SEQS);       // sequence index within its item
    __local float *lre = lbuf + s * PADLEN;
    __local float *lim = lbuf + (S + s) * PADLEN;
    __global const float2 *in = src + item * NTOT;
    __global float2 *out = dst + item * NTOT;
    float2 v[RADIX];

#if LOAD_SEQ_FAST
    for (int idx = lt; idx < S * LEN; idx += S * T) {
        int s2 = idx % S, e = idx / S;
        float2 x = in[(size_t)(q0 + s2) * SS_IN + (size_t)e * ES_IN];
        lbuf[s2 * PADLEN + PAD(e)] = x.x;
        lbuf[(S + s2) * PADLEN + PAD(e)] = x.y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll
    for (int r = 0; r < RADIX; r++) {
        int i = PAD(t + r * T);
        v[r] = (float2)(lre[i], lim[i]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    #pragma unroll
    for (int r = 0; r < RADIX; r++) v[r] = in[(size_t)(q0 + s) * SS_IN + (size_t)(t + r * T) * ES_IN];
#endif
#if CONJ_IN
    #pragma unroll
    for (int r = 0; r < RADIX; r++) v[r] = conjf2(v[r]);
#endif

    fft_regs(v, lre, lim, t, tws);

    #pragma unroll

    for (int r = 0; r < RADIX; r++) {
#if TWIDDLE4
        int e = t + r * T;
        v[r] = cmul(v[r], tw4[((q0 + s) * e) & (NTOT - 1)]);
#endif
#if CONJ_OUT
        v[r] = conjf2(v[r]) * scale;
#endif
    }

#if STORE_SEQ_FAST
    #pragma unroll
    for (int r = 0; r < RADIX; r++) {
        int i = PAD(t + r * T);
        lre[i] = v[r].x;
        lim[i] = v[r].y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int idx = lt; idx < S * LEN; idx += S * T) {
        int s2 = idx % S, e = idx / S;
        out[(size_t)(q0 + s2) * SS_OUT + (size_t)e * ES_OUT] =
            (float2)(lbuf[s2 * PADLEN + PAD(e)], lbuf[(S + s2) * PADLEN + PAD(e)]);
    }
#else
    #pragma unroll
    for (int r = 0; r < RADIX; r++) out[(size_t)(q0 + s) * SS_OUT + (size_t)(t + r * T) * ES_OUT] = v[r];
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

#ifdef KERNEL_C2R_PRE
// in: float2[count][LEN+1] half spectra; z: float2[count][LEN], receives the
// conjugate of Z = E + i*O so that a forward pass sequence with CONJ_OUT and
// scale 1/LEN yields the packed real output. Global size count*LEN.
__kernel void c2r_pre(__global const float2 *restrict in, __global float2 *restrict z,
                      __global const float2 *restrict tw, int count) {
    size_t gid = get_global_id(0);
    if (gid >= (size_t)count * LEN) return;
    size_t item = gid / LEN;
    int k = (int)(gid - item * LEN);
    __global const float2 *xi = in + item * (LEN + 1);
    float2 xk = xi[k];
    float2 xm = conjf2(xi[LEN - k]);
    float2 e = (xk + xm) * 0.5f;
    float2 o = cmul(conjf2(tw[k]), (xk - xm) * 0.5f);
    z[gid] = conjf2(e + (float2)(-o.y, o.x));
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
