// transfer.cl - the dual-channel measurement's averages (gpufft's transfer
// plan), chained after a Complex spectrogram of 1+M channels on the same
// queue: the batch's bins never leave the device. Mirrors gpufft's
// cpuTransfer.update (transferplan.go) operation for operation; the
// host's arithmetic is the reference (it sums the FIFO in float64, this
// file in float: at most 256 terms, a relative difference of ~1e-6).
// Needs fft_common.cl before it only because every program is built that
// way (with the same geometry defines as post.cl, for fft_common.cl's
// sake); it uses none of its functions or defines.
//
// transfer_update: one work-item per (measurement channel c, bin k),
// global size M·bins rounded up to the work-group (any size, 256 by the
// host), gid = c·bins + k. For the batch's n frames in order, with
// X = spec[f·bins + k] (the reference, channel 0) and
// Y = spec[((1+c)·n + f)·bins + k]:
//     v = (Re conj(X)·Y, Im conj(X)·Y, |X|², |Y|²)
// In:    spec  float2[1+M][n][bins]   the spectrogram's output (Complex)
// State: ring  float[K][4][M][bins]   the last K frames' v, one plane per
//                                     component (FIFO; unused when K = 0)
//        avg   float4[M][bins]        the averages (the output Read copies)
// Args:  n, bins, M; K the FIFO length (0: exponential); next the ring
//        slot of the batch's first frame; count the frames in the ring
//        after the batch (≤ K); first 1 when no frame came before the
//        batch (the exponential average starts at its first frame);
//        alpha the exponential weight.
// FIFO: v goes to slot (next + f) mod K, then avg = Σ of the count
// slots / count, summed afresh (no running sum to drift).
// Exponential: avg += alpha·(v − avg), avg = v at the first frame.
// No defines of its own.

__kernel void transfer_update(__global const float2* restrict spec,
                              __global float* restrict ring,
                              __global float4* restrict avg,
                              const int n, const int bins, const int M,
                              const int K, const int next, const int count,
                              const int first, const float alpha)
{
    const int gid = get_global_id(0);
    if (gid >= M * bins) return;
    const int c = gid / bins;
    const int k = gid - c * bins;
    const size_t plane = (size_t)M * bins;
    __global const float2* xs = spec + k;
    __global const float2* ys = spec + (size_t)(1 + c) * n * bins + k;
    if (K == 0) {
        float4 a = avg[gid];
        for (int f = 0; f < n; f++) {
            const float2 x = xs[(size_t)f * bins];
            const float2 y = ys[(size_t)f * bins];
            const float4 v = (float4)(x.x * y.x + x.y * y.y, x.x * y.y - x.y * y.x,
                                      x.x * x.x + x.y * x.y, y.x * y.x + y.y * y.y);
            if (first && f == 0) {
                a = v;
            } else {
                a += alpha * (v - a);
            }
        }
        avg[gid] = a;
        return;
    }
    for (int f = 0; f < n; f++) {
        const float2 x = xs[(size_t)f * bins];
        const float2 y = ys[(size_t)f * bins];
        const size_t o = (size_t)((next + f) % K) * 4 * plane + gid;
        ring[o] = x.x * y.x + x.y * y.y;
        ring[o + plane] = x.x * y.y - x.y * y.x;
        ring[o + 2 * plane] = x.x * x.x + x.y * x.y;
        ring[o + 3 * plane] = y.x * y.x + y.y * y.y;
    }
    float4 s = (float4)(0.0f);
    for (int j = 0; j < count; j++) {
        const size_t o = (size_t)j * 4 * plane + gid;
        s += (float4)(ring[o], ring[o + plane], ring[o + 2 * plane], ring[o + 3 * plane]);
    }
    avg[gid] = s / (float)count;
}

// transfer_phat: the GCC-PHAT weighting of each channel's averaged
// cross-spectrum, the input of the delay finder's inverse transform
// (gpufft's TransferPlan.Peaks; cpuTransfer.peaks is the host's copy):
// w = Gxy/|Gxy|, 0 where |Gxy| = 0, and the imaginary parts of bins 0 and
// N/2 zeroed (a real signal's spectrum). One work-item per (channel c,
// bin k), gid = c·bins + k, global size M·bins rounded up to the
// work-group.
// In:   avg  float4[M][bins]  the averages (Gxy in .xy)
// Out:  w    float2[M][bins]  the weighted spectra (the C2R plan's input)
__kernel void transfer_phat(__global const float4* restrict avg,
                            __global float2* restrict w,
                            const int bins, const int M)
{
    const int gid = get_global_id(0);
    if (gid >= M * bins) return;
    const int k = gid % bins;
    float2 g = avg[gid].xy;
    if (k == 0 || k == bins - 1) g.y = 0.0f;
    const float a2 = g.x * g.x + g.y * g.y;
    w[gid] = a2 > 0.0f ? g * rsqrt(a2) : (float2)(0.0f);
}

// transfer_peak: each channel's impulse response's largest |value| (the
// first index of it on a tie), that value, and the sum of the squares.
// One work-group of PEAK_WG (256) work-items per channel: each item
// scans the samples i ≡ lid (mod 256) in order, then the group reduces
// in local memory (the largest |value|, the lower index on a tie; the
// sums pairwise).
// In:   ir    float[M][n]   the C2R plan's output (normalised by 1/n)
// Out:  peak  float4[M]     (index, value, Σ value², 0); index as a float
//                           (exact: n ≤ 2^24)
__kernel void transfer_peak(__global const float* restrict ir,
                            __global float4* restrict peak,
                            const int n)
{
    __local float lv[256];
    __local int li[256];
    __local float ls[256];
    const int lid = get_local_id(0);
    const int c = get_group_id(0);
    __global const float* x = ir + (size_t)c * n;
    float best = -1.0f, val = 0.0f, ss = 0.0f;
    int at = 0;
    for (int i = lid; i < n; i += 256) {
        const float v = x[i];
        ss += v * v;
        if (fabs(v) > best) {
            best = fabs(v);
            val = v;
            at = i;
        }
    }
    lv[lid] = val;
    li[lid] = at;
    ls[lid] = ss;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 128; s > 0; s >>= 1) {
        if (lid < s) {
            const float a = fabs(lv[lid]), b = fabs(lv[lid + s]);
            if (b > a || (b == a && li[lid + s] < li[lid])) {
                lv[lid] = lv[lid + s];
                li[lid] = li[lid + s];
            }
            ls[lid] += ls[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) peak[c] = (float4)((float)li[0], lv[0], ls[0], 0.0f);
}
