// reduce.cl - reductions of a batch of spectra on the device: reduce_max
// folds them into a spectrogram image by maximum, so a whole file's picture
// is built on the device and only the image is read back; sum_slices and
// sum_parts sum them per bin (see below). Needs fft_common.cl before it
// (for nothing but consistency of the build; it defines no helpers these
// kernels use).
//
// In:  db    float[n][bins]   the batch's spectra (frames f0 … f0+n−1), any
//             quantity whose maximum is wanted (Prism passes gained power)
//      rowLo, rowHi int[rows] bins [rowLo[r], rowHi[r]) feed image row r
// Out: img   float[cols][rows] max-accumulated in place
// Column c shows frames [lo, hi) with lo = c*total/cols and
// hi = max(lo+1, (c+1)*total/cols): the maximum over every frame it covers
// (so short events never vanish), or the nearest frame when there are
// fewer frames than columns. One work-item per (column, row) of the columns
// the batch touches: gid = (c − cFirst)*rowsPad + r; global size
// nCols*rowsPad. No extra defines beyond the common ones.
__kernel void reduce_max(__global const float *restrict db, __global float *restrict img,
                         __global const int *restrict rowLo, __global const int *restrict rowHi,
                         int bins, int rows, int rowsPad, long f0, int n, long total, int cols,
                         int cFirst) {
    const int gid = get_global_id(0);
    const int r = gid % rowsPad;
    const int c = cFirst + gid / rowsPad;
    if (r >= rows || c >= cols) return;
    const long lo = (long)c * total / cols;
    const long hi = max(lo + 1, (long)(c + 1) * total / cols);
    const long a = max(lo, f0), b = min(hi, f0 + n);
    if (a >= b) return;
    const int k0 = rowLo[r], k1 = rowHi[r];
    float m = img[(size_t)c * rows + r];
    for (long f = a; f < b; f++) {
        __global const float *row = db + (size_t)(f - f0) * bins;
        for (int k = k0; k < k1; k++) m = fmax(m, row[k]);
    }
    img[(size_t)c * rows + r] = m;
}

// sum_slices and sum_parts sum a batch's power spectra per bin over its
// frames (gpufft's PowerSum output: a Welch average's numerator), so only
// Bins values per channel are read back. Two stages, deterministic (no
// atomics) and as accurate as a pairwise sum of two levels: the frames
// are cut into `slices` contiguous slices, each summed by one work-item
// per (channel, slice, bin), adjacent bins in adjacent work-items (reads
// coalesced); then one work-item per (channel, bin) adds the slices.
//
// In:  pw    float[chans][frames][bins]  the batch's powers
// Out: part  float[chans][slices][bins]  slice s sums frames
//             [s*frames/slices, (s+1)*frames/slices) (0 when empty)
// gid = (c*slices + s)*binsPad + k; global size chans*slices*binsPad.
__kernel void sum_slices(__global const float *restrict pw, __global float *restrict part, int bins,
                         int binsPad, int frames, int slices) {
    const int gid = get_global_id(0);
    const int k = gid % binsPad;
    if (k >= bins) return;
    const int cs = gid / binsPad; // c*slices + s
    const int c = cs / slices, s = cs % slices;
    const int lo = (int)((long)s * frames / slices), hi = (int)((long)(s + 1) * frames / slices);
    __global const float *p = pw + ((size_t)c * frames + lo) * bins + k;
    float acc = 0;
    for (int f = lo; f < hi; f++, p += bins) acc += *p;
    part[(size_t)cs * bins + k] = acc;
}

// In:  part  float[chans][slices][bins]  sum_slices' output
// Out: sum   float[chans][bins]          the slices added in order
// One work-item per (channel, bin): gid = c*bins + k < count = chans*bins.
__kernel void sum_parts(__global const float *restrict part, __global float *restrict sum, int bins,
                        int slices, int count) {
    const int gid = get_global_id(0);
    if (gid >= count) return;
    const int c = gid / bins, k = gid % bins;
    __global const float *p = part + (size_t)c * slices * bins + k;
    float acc = 0;
    for (int s = 0; s < slices; s++, p += bins) acc += *p;
    sum[gid] = acc;
}
