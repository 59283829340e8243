/*
 * layer_avx2.h - the vector layer of src/simd/kernels.h on 8-lane AVX
 * registers (masks are all-ones/all-zeros float lanes, selects are blendv,
 * primitives of the one-ray shape come in by vgatherdps), written with
 * SIMDe intrinsics.  Included by the AVX2 variant (kernels_avx2.c, built
 * with -mavx2) and by the AVX-512 variant's 8-lane scene packets
 * (src/avx512/scene8_avx512.c, built with the AVX-512 flags); what AVX2
 * shares with SSE4.1 and AVX-512 is in src/x86/layer.h.
 */
#ifndef RP_LAYER_AVX2_H
#define RP_LAYER_AVX2_H
#include <stdint.h>
#include <string.h>

#include <simde/x86/avx2.h>

typedef simde__m256 vf;
typedef simde__m256i vi;
typedef simde__m256 vm; /* lanes all ones or all zeros */
#define V_W 8

#define RP_X(op) simde_mm256_##op
#define RP_X_CMP(a, b, p) simde_mm256_cmp_ps(a, b, p)
#if defined(SIMDE_X86_AVX_NATIVE)
#define RP_X_BCAST_ASM
#endif
#include "x86/layer.h"

/* The smallest lane (no NaN lanes): the halves' minimum, then rp_x_hmin4. */
static inline float vf_hmin_lanes(vf a) {
    return rp_x_hmin4(simde_mm_min_ps(simde_mm256_castps256_ps128(a),
                                      simde_mm256_extractf128_ps(a, 1)));
}

/* Two blendv would be 4 to 6 uops on Intel cores (vblendvps ymm is 2 uops
 * up to Ice Lake, 3 on Golden Cove / Sapphire Rapids); the xor swap is 4
 * one-uop logic ops on any of three ports, and bit-exact.  Measured both
 * ways (the rows that run this swap: slab/<variant>/packet, i.e.
 * intersect_aabb; aabb/ rows pick planes by vf_planes and did not move):
 * - AMD Zen 5: two vblendvps 5% faster (docs/PERFORMANCE-LOG.md, issue 13).
 * - AMD Zen 4 (EPYC, 2 vCPUs, 2026-11-27, bench/ab.sh, three alternated
 *   runs, medians): two vblendvps 7% faster, slab/avx2/packet 2.22 ->
 *   2.06 cyc/test (slab/autovec/packet 1.98 and 2.00 in the same runs:
 *   0.89x -> 0.97x); the scene walk's mixed-sign box tests, which swap
 *   here too, within 2% on every AVX2 and AVX-512 row (bunny, 1.2M).
 * - Intel Sapphire Rapids (Golden Cove, "Intel(R) Xeon(R) Processor", 2
 *   vCPUs, 2026-11-26): two vblendvps slower.  slab/avx2/packet cycles per
 *   test over slab/autovec/packet's in the same run, medians of 12
 *   alternated runs xor/blendv: 1.23 / 1.30 (another 7: 1.24 / 1.35); in
 *   the runs where the machine was quiet 2.73-2.80 / 3.15-3.19 cyc/test,
 *   ~15% slower.  Command, pinned to the second core:
 *     taskset -c 1 build/bench/rp_bench
 *       --benchmark_filter='^slab/(avx2|autovec)/packet'
 *       --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
 *       --benchmark_min_time=0.2
 * They conflict, so the xor swap stays (the generic build runs on both).
 * A choice by vendor would give AMD cores 5-7% on this one kernel, and on
 * Zen 4 still leave slab/avx2/packet under its autovec (0.97x). */
static inline void vf_cswap(vm m, vf *a, vf *b) {
    vf d = simde_mm256_and_ps(simde_mm256_xor_ps(*a, *b), m);
    *a = simde_mm256_xor_ps(*a, d);
    *b = simde_mm256_xor_ps(*b, d);
}
/* p[0..3] in both 128-bit halves (a load), then an in-lane permute per
 * plane with index 3 or 0 by the mask: 2 one-uop ops, against 4 for
 * vf_cswap.  The indices depend on the mask alone (hoisted from loops). */
static inline void vf_planes(const float *p, vm m, vf *n, vf *f) {
    simde__m128 q = simde_mm_loadu_ps(p);
    vf b = simde_mm256_set_m128(q, q);
    vi in = simde_mm256_and_si256(simde_mm256_castps_si256(m), simde_mm256_set1_epi32(3));
    vi jf = simde_mm256_xor_si256(in, simde_mm256_set1_epi32(3));
    *n = simde_mm256_permutevar_ps(b, in);
    *f = simde_mm256_permutevar_ps(b, jf);
}
static inline vf vf_gather(const float *p, int s) {
    vi idx = simde_mm256_setr_epi32(0, s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s, 7 * s);
    return simde_mm256_i32gather_ps(p, idx, 4);
}

/* Fields o .. o+3 of 8 consecutive nf-float records at p: floats o .. o+3
 * of records q and q + 4 (128-bit loads) paired in one register, then the
 * 4 x 4 transposition of SSE within each 128-bit half (lane order stays
 * record order).  Unused outputs are dropped by the compiler. */
static inline void aos4(const float *p, int nf, int o, size_t m, vf *t) {
    vf r[4];
    for (int q = 0; q < 4; q++)
        r[q] = simde_mm256_insertf128_ps(
            simde_mm256_castps128_ps256(simde_mm_loadu_ps(rp_x_rec(p, nf, q, o, m))),
            simde_mm_loadu_ps(rp_x_rec(p, nf, q + 4, o, m)), 1);
    vf lo01 = simde_mm256_unpacklo_ps(r[0], r[1]); /* f0 of 0, 1; f1 of 0, 1 */
    vf lo23 = simde_mm256_unpacklo_ps(r[2], r[3]);
    vf hi01 = simde_mm256_unpackhi_ps(r[0], r[1]); /* f2 of 0, 1; f3 of 0, 1 */
    vf hi23 = simde_mm256_unpackhi_ps(r[2], r[3]);
    t[0] = simde_mm256_shuffle_ps(lo01, lo23, 0x44);
    t[1] = simde_mm256_shuffle_ps(lo01, lo23, 0xEE);
    t[2] = simde_mm256_shuffle_ps(hi01, hi23, 0x44);
    t[3] = simde_mm256_shuffle_ps(hi01, hi23, 0xEE);
}

/* out[k] = field k of the 8 consecutive nf-float records at p (4 <= nf <= 9),
 * records m .. 7 zero; reads exactly m * nf floats (rp_x_rec).  By aos4 on groups of 4 fields, the last
 * group ending at field nf - 1 (overlapping the one before): boxes 8
 * inserts and 12 shuffles, triangles 24 and 19, against a gather of 8
 * element loads per field. */
static inline void vf_ld_aos(const float *p, int nf, size_t m, vf *out) {
    for (int o = 0; o < nf; o += 4) {
        int b = o + 4 <= nf ? o : nf - 4;
        vf t[4];
        aos4(p, nf, b, m, t);
        for (int k = o; k < nf && k < o + 4; k++)
            out[k] = t[k - b];
    }
}

/* vf_pick: the 4 floats at p in both 128-bit halves (a broadcast load),
 * then vpermilps by each lane's index (one in-lane shuffle). */
typedef vi vp;
static inline vp vp_make(vi k) { return k; }
static inline vf vf_pick(const float *p, vp k) {
    simde__m128 q = simde_mm_loadu_ps(p);
    return simde_mm256_permutevar_ps(simde_mm256_set_m128(q, q), k);
}
/* vf_dup4: the 4 floats at p (16-byte aligned: vbroadcastf128 from memory;
 * the same through vf_pick's loadu and set_m128 cost 52 instructions a ray
 * more on `-mt` diffuse packets at 1.2M, bench/instr.sh) in both 128-bit
 * halves; vf_perm: lane j of the result is lane idx[j] of a (vpermps).  The
 * packets' Moller-Trumbore leaves with few lanes in play take them
 * (RP_V_PERM: traverse_simd.h's mt_few). */
#define RP_V_PERM
static inline vf vf_dup4(const float *p) { return simde_mm256_broadcast_ps((const simde__m128 *)(const void *)p); }
static inline vf vf_perm(vf a, vi idx) { return simde_mm256_permutevar8x32_ps(a, idx); }
/* vf_xyz, vf_pickr (RP_V_PICKR: wt_pick_sel's picks from registers):
 * broadcasts x, y, z as (x, y, z, z) in each 128-bit half by two immediate
 * blends, then vpermilps by each lane's index; one uop each, where the two
 * vblendvps per component they replace are 2 to 3 uops each on Intel
 * cores (one on AMD's). */
#define RP_V_PICKR
static inline vf vf_xyz(vf x, vf y, vf z) {
    return simde_mm256_blend_ps(simde_mm256_blend_ps(x, y, 0x22), z, 0xCC);
}
static inline vf vf_pickr(vf t, vp k) { return simde_mm256_permutevar_ps(t, k); }
static inline vi vi_loadu(const uint32_t *p) { return simde_mm256_loadu_si256((const void *)p); }
static inline void vi_storeu(uint32_t *p, vi a) { simde_mm256_storeu_si256((void *)p, a); }
static inline vm vi_eq(vi a, vi b) { return simde_mm256_castsi256_ps(simde_mm256_cmpeq_epi32(a, b)); }
static inline vi vi_select(vm m, vi a, vi b) {
    return simde_mm256_castps_si256(
        simde_mm256_blendv_ps(simde_mm256_castsi256_ps(b), simde_mm256_castsi256_ps(a), m));
}

static inline vm m_lanes(size_t k) {
    vi idx = simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return simde_mm256_castsi256_ps(simde_mm256_cmpgt_epi32(simde_mm256_set1_epi32((int32_t)k), idx));
}
static inline vm m_from_bytes(const uint8_t *p) {
    vi b = simde_mm256_cvtepu8_epi32(simde_mm_loadl_epi64((const void *)p)); /* reads 8 bytes */
    vi z = simde_mm256_cmpeq_epi32(b, simde_mm256_setzero_si256());
    return simde_mm256_castsi256_ps(simde_mm256_xor_si256(z, simde_mm256_set1_epi32(-1)));
}
/* m_store01: the 8 lane bits (vmovmskps, one op) index a table of the 8
 * bytes to write, against four vector ops (two packs, an extract, an and)
 * for the packing; the table is 2 KiB, in L1 while a call stores. */
#define RP_B01(x, k) ((uint64_t)(((x) >> (k)) & 1u) << (8 * (k)))
#define RP_B01_8(x) (RP_B01(x, 0) | RP_B01(x, 1) | RP_B01(x, 2) | RP_B01(x, 3) | \
                     RP_B01(x, 4) | RP_B01(x, 5) | RP_B01(x, 6) | RP_B01(x, 7))
#define RP_B01_4(x) RP_B01_8(x), RP_B01_8((x) + 1), RP_B01_8((x) + 2), RP_B01_8((x) + 3)
#define RP_B01_16(x) RP_B01_4(x), RP_B01_4((x) + 4), RP_B01_4((x) + 8), RP_B01_4((x) + 12)
#define RP_B01_64(x) RP_B01_16(x), RP_B01_16((x) + 16), RP_B01_16((x) + 32), RP_B01_16((x) + 48)
static const uint64_t rp_bytes01[256] = {RP_B01_64(0), RP_B01_64(64), RP_B01_64(128),
                                         RP_B01_64(192)};
static inline void m_store01(uint8_t *p, vm m) {
    uint64_t b = rp_bytes01[simde_mm256_movemask_ps(m)];
    memcpy(p, &b, 8); /* writes 8 bytes */
}

/* Partial blocks (m < 8 lanes) by vmaskmovps / vpmaskmovd, which touch no
 * byte of a masked-off lane: native only, as SIMDe emulates them with full
 * loads (without, block.h copies through a small buffer).  No byte-masked
 * forms in AVX2: the active bytes and hit flags keep block.h's way. */
#if defined(SIMDE_X86_AVX2_NATIVE)
#define RP_V_MASKED_F
static inline vf vf_loadu_n(const float *p, size_t m) {
    return _mm256_maskload_ps(p, _mm256_castps_si256(m_lanes(m)));
}
static inline vi vi_loadu_n(const uint32_t *p, size_t m, uint32_t fill) {
    __m256i k = _mm256_castps_si256(m_lanes(m));
    __m256i x = _mm256_maskload_epi32((const int *)p, k);
    return _mm256_blendv_epi8(_mm256_set1_epi32((int32_t)fill), x, k);
}
static inline void vf_storeu_mask(float *p, vm m, vf a) {
    _mm256_maskstore_ps(p, _mm256_castps_si256(m), a);
}
static inline void vi_storeu_mask(uint32_t *p, vm m, vi a) {
    _mm256_maskstore_epi32((int *)p, _mm256_castps_si256(m), a);
}
#endif

#endif
