// spectral.cl - the spectral-kernel product (gpufft's spectral-kernel
// plan, Brown and Puckette's FFT-based constant-Q transform), chained
// after a Complex spectrogram on the same queue: the frames' bins never
// leave the device. Mirrors gpufft's applySpectralKernel
// (spectralkernel.go) operation for operation, in float.
// Needs fft_common.cl before it (built with post.cl's geometry defines)
// for level() and its dB rule.
//
// spectral_kernel: one work-item per (sequence s, row r), global size
// sequences·rows rounded up to the work-group (64 by the host),
// gid = s·rows + r; a sequence is one frame of one channel, in the
// spectrogram's order (channel-major).
// In:   spec   float2[sequences][bins]  the spectrogram's output (Complex)
//       first  int[rows]                each row's first bin
//       offset int[rows+1]              row r's weights are offset[r]…offset[r+1]−1
//       wre, wim float2[offset[rows]]   weights of Re X and Im X
// Out:  out    float[sequences][rows]   level(y, 1): OUTPUT 0 dB (floored
//                                       at -200, capped at CEIL_DB), 1 |y|²
// where y = Σ_j Re X[first+j]·wre[o+j] + Im X[first+j]·wim[o+j].
// Args: rows, bins (the spectrum's N/2+1), count = sequences·rows.
// Defines: OUTPUT (0 or 1), plus fft_common.cl's geometry.

__kernel void spectral_kernel(__global const float2* restrict spec,
                              __global float* restrict out,
                              __global const int* restrict first,
                              __global const int* restrict offset,
                              __global const float2* restrict wre,
                              __global const float2* restrict wim,
                              const int rows, const int bins, const int count)
{
    const int gid = get_global_id(0);
    if (gid >= count) return;
    const int s = gid / rows, r = gid - s * rows;
    __global const float2* x = spec + (size_t)s * bins + first[r];
    const int o0 = offset[r], n = offset[r + 1] - o0;
    __global const float2* a = wre + o0;
    __global const float2* b = wim + o0;
    float2 y = (float2)(0.0f, 0.0f);
    for (int j = 0; j < n; j++) {
        const float2 v = x[j];
        y += v.x * a[j] + v.y * b[j];
    }
    out[gid] = level(y, 1.0f);
}
