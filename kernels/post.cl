// post.cl - the live analyzer's post-processing, chained after the
// spectrogram on the same queue: the batch's |X|² never leaves the device.
// Mirrors gpufft's liveHost (post_cpu.go) operation for operation; the
// host's arithmetic is the reference. Needs fft_common.cl before it (built
// with the same geometry defines as reduce.cl; it uses none of them).
//
// Sums (linear and long-term averages, band sums) are in real_t: double
// where the device has cl_khr_fp64 (as the host's float64), else float.
// Float64 values cross as float2 (hi, lo) pairs, hi + lo, so the host
// need not know which. Without fp64 (or with PRISM_FLOAT_SUMS, which tests
// the path on a device that has it) the running sums of the linear and
// long-term averages are compensated float pairs (sum_t: Neumaier's
// summation), so their error stays a few float roundings of the current
// sum however long they run, instead of growing with every frame (a plain
// float long-term sum stops taking quiet frames after 2^24 loud ones, 23
// minutes at 12,000 frames/s). Both kinds of state take 8 bytes.
//
// live_update: one work-item per (output channel c, bin k), global size
// outC·bins rounded up to the work-group (any size). For the batch's n
// frames in order, with v = pw[(c·n + f)·bins + k]·gain2[k]:
// In:   pw     float[outC][n][bins]   the spectrogram's output (Power)
//       gain2  float[bins]
//       ents   int4[nEnts]  columns the batch touches (a, b, carryIn, carry):
//                            frames [a, b) of the batch; carryIn: start
//                            from the open column; carry: stays open
// State: tr    float[outC][6][bins]  current, exp, lin, long, peak, min
//        age   int[outC][bins]       frames since the peak was set
//        ring  float[L][outC][bins]  the last L frames' v
//        linSum, longSum sum_t[outC][bins]
//        carry float[outC][bins]     the open column's maximum
// Out:   cols  float[nEnts][colN][bins]  complete columns of output
//              channels col0…col0+colN−1, dBFS (PowerDB)
//
// live_bands: one work-group of 64 per (output channel c, band b),
// global size outC·nb·64. ms_f = norm·Σ w·pow (w, norm as float2 pairs),
// then the exponential average over the frames in order (item 0).
// In:   pw (pow), bandStart int[nb+1], bandBin int[], bandW float2[]
// State: bandPow real_t[outC][nb]; scratch ms real_t[outC][nb][maxF]
// Out:  bandOut float2[outC][nb]
// No defines beyond the common ones.

#if defined(cl_khr_fp64) && !defined(PRISM_FLOAT_SUMS)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real_t;
typedef double sum_t;
inline sum_t sum_add(sum_t s, float x) { return s + (double)x; }
inline sum_t sum_sub_add(sum_t s, float add, float sub) { return s + ((double)add - (double)sub); }
inline float sum_mean(sum_t s, double n) { return (float)(s / n); }
#else
typedef float real_t;
// (sum, compensation): Neumaier's summation in float
typedef float2 sum_t;
// The linear average's running sum is summed afresh from the ring each
// time the ring wraps: Neumaier's error grows with the magnitude of all it
// ever added and took away (1.5e-6 of a quiet sum after loud frames, on
// NVIDIA), a fresh sum's only with the window's.
#define REFRESH_LIN_SUM 1
inline sum_t sum_add(sum_t s, float x) {
    const float t = s.x + x;
    const float c = fabs(s.x) >= fabs(x) ? (s.x - t) + x : (x - t) + s.x;
    return (float2)(t, s.y + c);
}
inline sum_t sum_sub_add(sum_t s, float add, float sub) { return sum_add(sum_add(s, add), -sub); }
inline float sum_mean(sum_t s, float n) { return (s.x + s.y) / n; }
#endif

#define TRACES 6
#define FLOOR_DB (-200.0f)

// PowerDB's rule (gpufft/db.go): +inf and NaN read CEIL_DB (fft_common.cl).
inline float power_db(float p) { return p > 1e-20f ? fmin(10.0f * log10(p), CEIL_DB) : isnan(p) ? CEIL_DB : FLOOR_DB; }

inline float2 split_real(real_t x) {
    float hi = (float)x;
    return (float2)(hi, (float)(x - (real_t)hi));
}

__kernel void live_update(__global const float *restrict pw, __global const float *restrict gain2,
                          __global const int4 *restrict ents, int nEnts,
                          __global float *restrict tr, __global int *restrict age,
                          __global float *restrict ring, __global sum_t *restrict linSum,
                          __global sum_t *restrict longSum, __global float *restrict carry,
                          __global float *restrict cols, int n, int bins, int outC, int L,
                          int linNext, int linCount, long longCount, int first, float alpha,
                          int hold, float decay, int col0, int colN) {
    const int gid = get_global_id(0);
    if (gid >= outC * bins) return;
    const int c = gid / bins, k = gid - c * bins;
    const size_t base = (size_t)c * bins + k;
    __global float *t = tr + (size_t)c * TRACES * bins + k;
    const float g = gain2[k];
    __global const float *p = pw + (size_t)c * n * bins + k;
    float e = t[bins], pk = t[4 * bins], mn = t[5 * bins];
    int ag = age[base];
    sum_t sum = linSum[base], lsum = longSum[base];
    if (first) e = p[0] * g;
    float v = 0.0f;
    int j = 0;
    if (c < col0 || c >= col0 + colN) nEnts = 0; // no columns of this channel
    __global float *col = cols + (size_t)(c - col0) * bins + k;
    const size_t colStride = (size_t)colN * bins;
    float m = (nEnts > 0 && ents[0].z) ? carry[base] : 0.0f;
    int slot = linNext;
    for (int f = 0; f < n; f++) {
        v = p[(size_t)f * bins] * g;
        e += alpha * (v - e);
        __global float *r = ring + (size_t)slot * outC * bins + base;
        sum = sum_sub_add(sum, v, *r);
        *r = v;
        if (++slot == L) {
            slot = 0;
#ifdef REFRESH_LIN_SUM
            sum = (sum_t)(0.0f, 0.0f);
            for (int i = 0; i < L; i++) sum = sum_add(sum, ring[(size_t)i * outC * bins + base]);
#endif
        }
        lsum = sum_add(lsum, v);
        if (v >= pk) {
            pk = v;
            ag = 0;
        } else if (++ag > hold) {
            pk = fmax(v, pk * decay);
        }
        mn = fmin(mn, v);
        while (j < nEnts && ents[j].y <= f) {
            const int4 en = ents[j];
            if (en.w) carry[base] = m; else col[j * colStride] = power_db(m);
            const int same = j + 1 < nEnts && ents[j + 1].x == en.x && ents[j + 1].y == en.y && en.y > en.x;
            if (!same) m = 0.0f;
            j++;
        }
        m = fmax(m, v);
    }
    for (; j < nEnts; j++) {
        const int4 en = ents[j];
        if (en.w) carry[base] = m; else col[j * colStride] = power_db(m);
        const int same = j + 1 < nEnts && ents[j + 1].x == en.x && ents[j + 1].y == en.y && en.y > en.x;
        if (!same) m = 0.0f;
    }
    t[0] = v;
    t[bins] = e;
    t[2 * bins] = sum_mean(sum, (real_t)linCount);
    t[3 * bins] = sum_mean(lsum, (real_t)longCount);
    t[4 * bins] = pk;
    t[5 * bins] = mn;
    age[base] = ag;
    linSum[base] = sum;
    longSum[base] = lsum;
}

__kernel void live_bands(__global const float *restrict pw, __global const int *restrict bandStart,
                         __global const int *restrict bandBin, __global const float2 *restrict bandW,
                         __global real_t *restrict bandPow, __global real_t *restrict ms,
                         __global float2 *restrict bandOut, int n, int bins, int nb, int maxF,
                         float normHi, float normLo, float alpha, int first) {
    const int grp = get_group_id(0), lid = get_local_id(0);
    const int c = grp / nb, b = grp - c * nb;
    const int j0 = bandStart[b], j1 = bandStart[b + 1];
    const real_t norm = (real_t)normHi + (real_t)normLo;
    __global real_t *msb = ms + (size_t)grp * maxF;
    for (int f = lid; f < n; f += get_local_size(0)) {
        __global const float *row = pw + ((size_t)c * n + f) * bins;
        real_t s = 0;
        for (int j = j0; j < j1; j++) {
            const float2 w = bandW[j];
            s += (real_t)row[bandBin[j]] * ((real_t)w.x + (real_t)w.y);
        }
        msb[f] = s * norm;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (lid != 0) return;
    real_t avg = bandPow[grp];
    const real_t a = (real_t)alpha;
    for (int f = 0; f < n; f++) {
        if (first && f == 0) avg = msb[0];
        else avg += a * (msb[f] - avg);
    }
    bandPow[grp] = avg;
    bandOut[grp] = split_real(avg);
}
