// spectral.cl - the spectral-kernel product (gpufft's spectral-kernel
// plan, Brown and Puckette's FFT-based constant-Q transform), chained
// after a Complex spectrogram on the same queue: the frames' bins never
// leave the device. Mirrors gpufft's applySpectralKernel
// (spectralkernel.go) operation for operation, in float.
// Needs fft_common.cl before it (built with post.cl's geometry defines)
// for level() and its dB rule.
//
// spectral_frames: copies the samples of one group's frames out of the
// loaded blocks, one work-item per sample, global size count =
// channels·need rounded up to the work-group (256 by the host):
// dst[c·need + i] = src[c·stride + start + i] for i < need, c = gid / need.
// In: src float[channels][stride]; Out: dst float[channels][need] (the
// spectrogram's input, its channel stride need).

__kernel void spectral_frames(__global const float* restrict src,
                              __global float* restrict dst,
                              const long stride, const int start,
                              const int need, const int count)
{
    const int gid = get_global_id(0);
    if (gid >= count) return;
    const int c = gid / need, i = gid - c * need;
    dst[gid] = src[(size_t)c * stride + start + i];
}

// spectral_kernel: one work-item per (sequence s, row r), global size
// sequences·rows rounded up to the work-group (64 by the host),
// gid = s·rows + r; a sequence is one frame of one channel, in the
// spectrogram's order (channel-major).
// In:   spec   float2[sequences][bins]  the spectrogram's output (Complex)
//       first  int[rows]                each row's first bin
//       offset int[rows+1]              row r's weights are offset[r]…offset[r+1]−1
//       wre, wim float2[offset[rows]]   weights of Re X and Im X
// Out:  out    float[base + sequences·rows]: out[base + gid] = level(y, 1): OUTPUT 0 dB (floored
//                                       at -200, capped at CEIL_DB), 1 |y|²
// where y = Σ_j Re X[first+j]·wre[o+j] + Im X[first+j]·wim[o+j], or with
// PACKED (real wre, imaginary wim: the host packs a = Re wre, b = Im wim
// into wre as (a, b) and leaves wim unread)
// y = (Σ_j Re X[first+j]·a[o+j], Σ_j Im X[first+j]·b[o+j]).
// Args: rows, bins (the spectrum's N/2+1), count = sequences·rows, base
//       (where this group's rows start in out).
// Defines: OUTPUT (0 or 1), PACKED (0 or 1), plus fft_common.cl's geometry.

__kernel void spectral_kernel(__global const float2* restrict spec,
                              __global float* restrict out,
                              __global const int* restrict first,
                              __global const int* restrict offset,
                              __global const float2* restrict wre,
                              __global const float2* restrict wim,
                              const int rows, const int bins, const int count,
                              const int base)
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
#if PACKED
        y += v * a[j];
#else
        y += v.x * a[j] + v.y * b[j];
#endif
    }
    out[base + gid] = level(y, 1.0f);
}
