// reduce.cl - folds a batch of spectra into a spectrogram image by maximum,
// so a whole file's picture is built on the device and only the image is
// read back. Needs fft_common.cl before it (for nothing but consistency of
// the build; it defines no helpers this kernel uses).
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
