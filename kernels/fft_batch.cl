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
// loop). On by default for R2C at LEN 8192 only. Measured on the H200
// (2^26 samples per call, medians of 3 alternating runs, cuFFT in the same
// call): R2C 16384 0.213 ms against 0.228 (1 or 2 groups per SM alike);
// with r2c_store_paired's constant twiddles 0.210 against 0.226 (cuFFT
// 0.186). Everywhere else the loop lost, at the best of 1, 2, 4 and 6
// groups per SM: R2C 1024 0.166 against 0.150, 4096 0.194 against 0.156,
// 32768 (HALVES) 0.447 against 0.249; C2C 1024 0.150 against 0.143, 4096
// 0.220 against 0.142, 16384 (HALVES) 0.296 against 0.204 (4 per SM). The
// compiler keeps loop-invariant loads (twiddles) in registers across the
// iterations and the occupancy goes (NVIDIA -cl-nv-verbose, looping with
// the L2 prefetch below: R2C 1024 141 -> 255 registers, R2C 4096 72 ->
// 246, C2C 1024 84 -> 223; R2C 16384 looping alone 187 -> 255, 120 bytes
// spilled, and still faster: it held one group per SM before). Measured
// with it and dropped (same runs): prefetching the group's next sequences
// into L2 while this one is transformed (PTX prefetch.global.L2, one per
// 128-byte line, or OpenCL's prefetch()): R2C 1024 0.157 at best (8
// groups per SM), 4096 0.159, 16384 0.214, C2C 1024 0.151; and with it
// loading the next sequences into registers between this one's transform
// and its stores: R2C 4096 0.154 against 0.156 (within the noise; 242
// registers), R2C 1024 0.169, 16384 0.231, C2C 1024 0.147.
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
// Measured on the H200 (`prism bench`, 2^26 samples per call, data
// resident, host-timed, 2 alternating rounds; default first):
//   floor (COPY_ONLY=1): R2C 1024 0.142 ms / 0.143-0.145, 4096 0.148 /
//   0.151-0.153, 16384 0.208 / 0.173-0.175, 32768 0.248 / 0.147-0.149;
//   C2C 1024 0.143 / 0.141-0.145, 4096 0.142 / 0.142-0.144, 16384 0.201
//   / 0.141-0.142. So R2C 1024/4096 and C2C 1024/4096 run at their own
//   accesses' floor (the transform is free); R2C 16384 (0.034 ms), R2C
//   32768 and C2C 16384 (HALVES, 0.06-0.1 ms) are bound by the transform.
//   R2C 16384's floor is itself 0.03 ms above 1024's: one 256-item group
//   per SM (255 registers, looping) leaves 8 warps to keep loads in
//   flight, and no second group to overlap one sequence's transform with
//   another's traffic (registers cannot be capped without spills: see
//   gpufft's ptxcap.go). cuFFT takes 0.183 ms there (device events).
//   Aligned rows (COPY_ONLY=2): R2C 1024 0.143 (no gain: 8 rows per
//   group), 4096 0.143-0.144 against 0.151-0.153, 16384 0.158-0.162
//   against 0.173-0.175. Staging the stores to reach that (STAGE_ST,
//   below) lost.
//   Load hints: LDHINT=1 slower everywhere (R2C 1024 0.156, 4096 0.152,
//   16384 0.213-0.216; C2C 1024 0.147-0.148, 4096 0.145-0.146, 16384
//   0.206-0.209), with STHINT=1 too (R2C 1024 0.146, 4096 0.156).
//   Store hint STHINT=1: R2C in halves (32768) 0.241 against 0.248-0.249,
//   confirmed in 3 alternating rounds, 0.241-0.247 against 0.249-0.251
//   (device events: 0.234 against 0.243 ms; cuFFT 0.246): kept there
//   (gpufft's storeDefines). Elsewhere slower or equal: R2C 1024
//   0.147-0.148, 4096 0.151-0.153, 16384 0.209-0.210; C2C 1024 0.144,
//   4096 0.145, 16384 0.201.
// R2C 16384 (LEN 8192) in other geometries, measured on the H200
// (device events, 2^26 samples per call, 2 alternating rounds; the
// layout before, radix 32 in 256 items looping in one group per SM: 0.203-
// 0.205 ms, its COPY_ONLY floor 0.167; cuFFT 0.184):
//   512 items of 16 values (PRISM_OPENCL_RADIX=16: 8192 = 16*16*16*2,
//   three exchanges; 107 registers, one group per SM): 0.245 ms, 0.283
//   looping, 0.244 with STHINT; its COPY_ONLY floor 0.171 looping, 0.140
//   not (a copy with few registers and no exchanges fits several groups
//   per SM: not the kernel's occupancy). 1024 items of 8 (RADIX=8, 53
//   registers): 0.293 (floor 0.139 likewise).
//   Two groups per SM by a register budget (gpufft's ptxcap.go): 256
//   items at .maxnreg 128 (224 bytes spilled) 0.220-0.223, .minnctapersm
//   2 (128 registers, 224 bytes) 0.220-0.221, 120 (380 bytes) 0.245-
//   0.249, 112 (520) 0.272-0.274, 104 0.329-0.331; 512 items of 16 at 64
//   (184 bytes) 0.251-0.252, at 56 (420) 0.353. Looping in two groups per
//   SM took 2.5-3.4 times as long (120: 0.571, 112: 0.599, .minnctapersm
//   2: 0.519, 512 items at 56: 0.698), and at 128 registers without the
//   loop it ran as one group per SM (0.220, against 0.228-0.231 for one
//   group per SM without the loop, PERSIST above).
//   What kept the second group out is, by these numbers, the local memory
//   (H200, one call, device events,
//   2^26 samples, 3 alternating rounds; default 0.202-0.205 ms, cuFFT
//   0.185; ptxas registers, spill stores + loads in bytes per thread):
//   the same kernel exchanging in halves (PRISM_OPENCL_R2C_HALVES=1:
//   HALVES_PAIRED, 16912 bytes of local memory per group against 33808)
//   at .maxnreg 128 without the loop ran 0.179-0.180, faster than any
//   one-group variant and than the default in every round, while in
//   halves uncapped, looping in one group per SM (244 registers, no
//   spill), it ran 0.212-0.213: the halves cost, the second group gains.
//   The loops in two groups were slow by their spills, not by residency:
//   looping keeps loop-invariant values in registers, and capped the
//   loop spills 460 + 832 bytes at 128 (0.292-0.293 ms; .minnctapersm 2
//   the same, 0.292-0.294), 512 + 956 at 120 (0.306), in halves; 1380 +
//   1444 at 128 for the default layout. COPY_ONLY cannot tell residency:
//   it leaves the exchanges out and so has no local memory at all (ptxas:
//   no smem), and a copy is bound by bandwidth (one group uncapped 0.168;
//   two looping at 128, 0 spilled: 0.176-0.179, default layout 0.176; at
//   120 0.216-0.218, as measured before). Groups without the loop, 1, 2 and
//   4 per SM's worth (132, 264, 528 sequences; us, 2 rounds): default 12.5/
//   19.3/37.7, at 128 registers 14.1/21.0/39.3; halves 13.4/18.6/33.1, at
//   128 13.4/18.8/33.4: halves scale better at 4 waves, capped or not,
//   so halves without the loop may hold two groups uncapped as well.
//   It does (the lead's follow-up call, H200, device events, 2^26
//   samples, 3 alternating rounds): halves without the loop compiles to
//   128 registers uncapped, 0 spilled, 16912 bytes of local memory, and
//   ran 0.180-0.183 ms; at .maxnreg 128 (the same build) 0.178-0.180;
//   the default layout at .maxnreg 128 without the loop (224 + 264 bytes
//   spilled, 33808 bytes) 0.221-0.222; the default then 0.202-0.205;
//   cuFFT 0.185 (kern10's call). So R2C 16384 on GPUs now exchanges in
//   halves without the loop, uncapped (gpufft's r2cGeom, persistGroups;
//   PRISM_OPENCL_R2C_HALVES=0 for the layout above), and
//   TestRadixHalvesPaired passed on NVIDIA in that call.
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
// H200, medians of 3 alternating runs, against a load per bin: R2C 1024
// 0.143 ms against 0.151 (130 registers instead of 141), 4096 0.148
// against 0.152, 16384 0.210 against 0.214 (persistent, above); cuFFT
// 0.139, 0.142, 0.186 in the same call.
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
// in [q*NS, (q+1)*NS)). Measured on the H200 and dropped (3 alternating
// rounds, host-timed; device events): R2C 4096 0.149-0.150 ms against
// 0.146 (events 0.142 against 0.138), 16384 0.214 against 0.210-0.212
// (events 0.208 against 0.204), 0.230-0.232 without PERSIST: the local
// round trip and its barriers cost more than the aligned rows save
// (COPY_ONLY=2 above). 72 and 255 registers, as without it.
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
// group, measured slower: 0.76 against 0.59 ms on the H100.)
#ifndef FPG
#define FPG 1
#endif
// SPEC_TWC (PAIRED): the split's twiddles as r2c_store_paired takes them,
// one load per slot times a constant, instead of one load per bin. Off:
// mixed on the H200 (2^26 samples per call, 3 alternating rounds, off /
// on): 4096/1024 0.515-0.519 / 0.541-0.547 ms, 1024/256 0.418-0.422 /
// 0.409-0.414, 16384/4096 0.756-0.765 / 0.720-0.723. The frame's loads
// are not what bounds it (below); PRISM_OPENCL_TUNE=SPEC_TWC=1 to measure.
#ifndef SPEC_TWC
#define SPEC_TWC 0
#endif
// Measured on the H200 (4096/1024, 0.51 ms as it stands) and not kept:
// loading the next frame into registers during this one's transform
// (0.63), the window kept in registers across frames (0.56, spills),
// float2 local memory (0.51-0.60 by compile), split twiddles derived from
// one load per slot (0.54), keeping the compiler from hoisting per-thread
// constants out of the frame loop (72 instead of 128 registers, 0.59),
// prefetching the next frame's new samples into L1 or L2 (0.55), radix 32
// (2048 = 32*32*2, 64 items: 0.58, also with FPG 4) and radix 64 (64*32,
// one exchange, 32 items of 64 values: 0.64; 0.88 with one frame per
// 32-item group): the registers cost more than the exchange saved.
// Where the time goes (H200, SASS from ptxas -v and cuobjdump of the
// driver's PTX): issuing instructions, not moving bytes. With PAD_BASE
// (fft_common.cl: one PAD per thread and constant offsets for the
// exchanges' positions) the 4096/1024 kernel went 0.513-0.516 -> 0.479-
// 0.480 ms and 1024/256 0.419-0.420 -> 0.378-0.379 (3 alternating
// rounds; SASS per thread 1760 -> 1408 and 2576 -> 2184 instructions,
// registers 128 -> 96 and 108 -> 96). Now a 4096-point frame issues ~1350
// instructions per item x 128 items, ~1350 clocks of an SM's 4 schedulers,
// of ~1900 per frame measured (0.48 ms); its bytes through L1 and local
// memory (~59 KB of loads, 64 KB of exchanges) take ~960 clocks, in
// parallel. A 1024-point frame issues ~2050 x 16 (~256 clocks of ~377).
// Two thirds of the instructions are the FFT's own float arithmetic
// (FADD/FFMA/FMUL 1438 of 2184 at 1024); the split and dB level ~10 per
// bin beyond that (2 FMNMX, MUFU.LG2 with its denormal test, 2 FSEL for
// thread 0's mirrors). The floor of reading the samples once and writing
// the rows once is 0.21 ms at this GPU's 3.83 TB/s (copy, read + write).
// So a change pays when it removes instructions, even for more bytes.
// Measured on the H200 and dropped for that reason (3 alternating rounds):
// the window from arithmetic (cosine sums: twr[2mt] per thread and
// compile-time rotations, 2 FMAs per sample and term instead of one load
// per pair): 4096/1024 0.548-0.556 against 0.516-0.519, 1024/256 0.435-
// 0.437 against 0.418-0.426; with it the split's constant twiddles
// (SPEC_TWC) 0.549-0.559 and 0.444-0.450; every stage twiddle loaded
// instead of derived by complex products (saves ~40 FP instructions per
// item, adds loads): 0.485-0.493 against 0.479-0.480 and 0.386-0.389
// against 0.382-0.387. At 1024/256 (S = 8), each against 0.435-0.437 in
// the same runs (all with the window from arithmetic): FPG 2 and 4 (255
// registers, spills) 0.584 and 0.571; groups of 64 or 256 items 0.436-
// 0.437; radix 16 (two exchanges, 72 registers) 0.505-0.510. One exchange for
// 4096/1024 (2048 = 32 x 64, the 64-point transforms on lane pairs with
// a radix-2 step through shuffles) was counted, not built: it saves one
// exchange's 32 KB (~256 LSU clocks, which overlap the issue) but adds
// ~32 shuffles and ~64 selects per lane to an issue-bound kernel, on top
// of radix 32's registers (2048 = 32*32*2 measured 0.58 above).
//
// SPEC_LEVEL and SPEC_PAIRS (one twiddle load a pair) are on by default,
// DFT_FMA (fft_common.cl) off: its 1 % costs the engines' 0.01 dB
// agreement. Measured (H200, 2^26 samples per call, data resident,
// `prism bench`, 3 alternating rounds in one call, ms; SASS per item from
// ptxas/cuobjdump of the driver's PTX: the frame loop at 4096 (FPG 4), the
// whole kernel at 1024 (FPG 1); registers as the driver reports them):
//   variant (TUNE)             4096/1024    SASS   reg | 1024/256     SASS  reg
//   before (9c33ad4)           0.479-0.486  1299   96  | 0.378-0.380  2248  96
//   SPEC_LEVEL alone           0.459-0.463  1227   72  | 0.359-0.363  2064  96
//   SPEC_LEVEL + DFT_FMA       0.462-0.466  1219   72  | 0.352-0.358  2016  96
//   SPEC_LEVEL + SPEC_PAIRS    0.450-0.453  1167   96  | 0.337-0.339  1912  96  (default)
//   all three                  0.446-0.448  1145   96  | 0.335       1864  96
// (a first call, SPEC_PAIRS loading both twiddles of a pair: all three
// 0.461-0.465 and 0.358-0.359, 80 and 103 registers.) A register cap
// (NV_MAXNREG, gpufft's ptxcap.go) on all three: 72 at 4096 (28 bytes
// spilled) 0.458-0.460, 96 at 1024 0.333-0.340: not kept. The frame
// index without a division for one output channel (load_frame) took the
// 4096 loop from 1299 to 1273 instructions, 0.479-0.483 ms (no change).
// PoCL (this project's 2-core machine, one thread, 2^21 samples, 3-5
// alternating rounds, ms): 4096/1024 124.2-130.4 against 122.6-127.5
// (within the spread; each part switched off 123-138), 1024/256 47.5-48.4
// against 69.4-77.5: on for every device.
// Where the time goes now, 4096/1024: 1145 instructions per item a frame,
// of them FP32 781 (the FFT's ~600, the split and level 9 a bin, the
// window 32), LDS/STS 128 (two exchanges), LDG 82 in the code (the
// even-hop path runs 50: samples 16, window 16, split twiddles 8, stage
// twiddles 10; the odd-hop path's 32 single loads beside), integer 61,
// FSEL 17 (thread 0's operands), MUFU 19: ~1145 of ~1780 clocks per frame
// per SM (0.447 ms) issue, and ~900 clocks of L1 and local-memory data
// (64 KB of exchanges, ~50 KB of loads) beside it. 0.30 ms is ~1190 clocks:
// both would have to fall by about a third. 1024/256: 1864 x 16 items,
// ~233 of ~334 clocks per frame issue. Counted for the next step, not
// built: the window folded into the first butterfly level as FMAs (-16
// FMUL at 4096, -32 at 1024); float2 exchanges (-64 LDS/STS at 4096,
// same bytes; measured 0.51-0.60 by compile before PAD_BASE, above);
// stage twiddles in conjugate pairs (w^(a+b), w^(a-b) from 6 products
// instead of 8: -8 at 4096, -16 at 1024; clang's nvptx build of it
// put the frame in local memory).
// Not the groups per SM either: one component in local memory at a time
// (PRISM_OPENCL_TUNE=SPLIT=1: 8720 bytes a group at 4096 against 17424,
// 16912 at 1024/256 against 33808; 96 registers, no spill) ran 0.447-
// 0.451 and 0.336-0.338 ms against 0.448-0.451 and 0.335-0.337, and with
// it at .maxnreg 80 (more groups by registers) 0.445-0.447 and 0.428-
// 0.431 (spills at 1024) (H200, 3 alternating rounds, the lead's call).
// So local memory and registers per group do not hold the spectrogram
// back, unlike R2C 16384's (fft_r2c above): it is bound by its issue.
// The float2 exchanges counted above are now the default (XCH_F2 in
// fft_common.cl): 4096/1024 0.411-0.416 ms against 0.449-0.453, 1024/256
// 0.328-0.332 against 0.334 (H200, 3 alternating rounds).
// Measured after them and dropped (H200, `prism bench`, 3 alternating
// rounds, before XCH_F2; default 0.446-0.453 and 0.338-0.344 ms): what is
// the same for every frame of a thread loaded once before its frames,
// in registers (the window, 0.458-0.461 and 0.383-0.386; the split
// twiddles, 0.454-0.457 and 0.389-0.391; the stage twiddles, 0.458-0.462
// and 0.346-0.348; all three 0.465-0.468 and 0.513-0.515; all three
// with FPG 8 or 16, 0.479-0.497 and 0.464-0.468; the window with FPG 8,
// 0.470-0.479): the registers cost more than the loads they save.
// cuFFT beside it (CuPy, the same 2^26 samples, CUDA events): the bare
// R2C of the same 65533 overlapping frames of 4096 points, read in place
// (advanced layout, idist = hop; no window, no level, complex out) 0.843
// ms, of 262141 frames of 1024 points 0.704 ms; the same numbers of
// contiguous frames (4x the input) 0.525 and 0.515 ms.

// SPEC_LEVEL (OUTPUT 0 without BINGAIN): the dB level as 3.0103*lg2(p)
// plus a per-thread offset 10*log10(g2) (one per thread, from scale)
// instead of the power times g2 clamped at 1e-30 before its logarithm:
// p = |2X|^2 is floored by the fmax after the logarithm alone (lg2 of 0
// is -inf). With NV_PTX the logarithm is lg2.approx.ftz.f32, one
// MUFU.LG2 (PTX's lg2.approx.f32 that native_log2 becomes flushes
// denormals by a test, a scaling and a correction per bin); elsewhere
// native_log2 of p clamped to the normal range (FLT_MIN: -379 dB before
// the offset, below the floor for any g2 < 1e17; g2 = (c_k*scale)^2/4
// <= 1 here). SASS a bin: FMUL, FFMA, MUFU.LG2, FFMA, FMNMX, where the
// product with g2, the clamp and lg2's denormal test, scaling and
// correction took 10 (FSETP.GEU 17 -> 2 at 4096).
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
