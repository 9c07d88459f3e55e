// pcm.cl - raw interleaved little-endian PCM bytes to planar float32
// samples, on the device, equal bit for bit to Prism's host decoder
// (audio/wav.go) and its channel mix (the mean: the channels summed in
// order in float32, then times INV = 1/CHANNELS rounded to float32).
// Built after fft_common.cl (which it does not use) like every program.
//
// Defines: ENCODING 1 int16, 2 int24 packed (3 bytes), 3 int32, 4 float32;
//          CHANNELS interleaved channels in raw;
//          PICK     -1 the mix (one plane), -2 every channel (CHANNELS
//                   planes), c >= 0 channel c alone (one plane).
// In:  raw   uchar[L][CHANNELS][bytes per sample], L sample frames
// Out: dst   float[planes][L], plane p at dst + p*L
// One work-item per sample frame; global size L rounded up to the group.
//
// Scaling: int16 v/2^15, int24 v/2^23, int32 float(v)/2^31, each a
// conversion rounded to nearest (OpenCL's default for int to float) and an
// exact power-of-two scaling, as on the host; float32 is copied as bits
// (denormals survive, a NaN or ±Inf reads as +0; only the mix does
// arithmetic).
#pragma OPENCL FP_CONTRACT OFF

#if ENCODING == 1
#define LOAD(i) ((float)((__global const short *)raw)[i] * 0x1p-15f)
#elif ENCODING == 2
inline float load24(__global const uchar *raw, long i) {
    __global const uchar *b = raw + 3 * i;
    int v = (int)(((uint)b[0] << 8) | ((uint)b[1] << 16) | ((uint)b[2] << 24)) >> 8;
    return (float)v * 0x1p-23f;
}
#define LOAD(i) load24(raw, i)
#elif ENCODING == 3
#define LOAD(i) ((float)((__global const int *)raw)[i] * 0x1p-31f)
#elif ENCODING == 4
// a NaN or ±Inf sample reads as +0, as the host decoders read it
inline uint finite_bits(uint b) { return (b & 0x7f800000u) == 0x7f800000u ? 0u : b; }
#define LOAD(i) as_float(finite_bits(((__global const uint *)raw)[i]))
#else
#error "ENCODING must be 1, 2, 3 or 4"
#endif

// STORE copies sample j of raw to dst[idx]: float32 as bits.
#if ENCODING == 4
#define STORE(idx, j) ((__global uint *)dst)[idx] = finite_bits(((__global const uint *)raw)[j])
#else
#define STORE(idx, j) dst[idx] = LOAD(j)
#endif

__kernel void pcm_planar(__global const uchar *restrict raw, __global float *restrict dst, long frames, float inv) {
    const long i = get_global_id(0);
    if (i >= frames) return;
    const long base = i * CHANNELS;
#if PICK >= 0
    STORE(i, base + PICK);
#elif PICK == -2
    for (int c = 0; c < CHANNELS; c++) STORE(c * frames + i, base + c);
#elif CHANNELS == 1
    STORE(i, base);
#else
    float sum = LOAD(base);
    for (int c = 1; c < CHANNELS; c++) sum += LOAD(base + c);
    dst[i] = sum * inv;
#endif
}
