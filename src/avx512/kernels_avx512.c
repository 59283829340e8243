/*
 * kernels_avx512.c - the AVX-512 variant: the vector layer of
 * src/simd/kernels.h on 16-lane zmm registers with k-register masks
 * (selects are masked blends), written with SIMDe intrinsics so that it is
 * native on x86 (built with -mavx512f -mavx512vl -mavx512dq -mavx512bw; the
 * project's -ffp-contract=off keeps FMA out) and emulated on other hosts.
 * All batch loops live in the template, and what AVX-512 shares with SSE4.1
 * and AVX2 in src/x86/layer.h; this file is about AVX-512 alone.
 */
#include <stdint.h>
#include <string.h>

#include <simde/x86/avx512.h>

typedef simde__m512 vf;
typedef simde__m512i vi;
typedef simde__mmask16 vm;
#define V_W 16
#define RP_SIMD_ISA RP_ISA_AVX512
#define RP_SIMD_TABLE rp_kernels_avx512

#define RP_X(op) simde_mm512_##op
#define RP_X_CMP(a, b, p) simde_mm512_cmp_ps_mask(a, b, p)
#define RP_X_KMASK
#if defined(SIMDE_X86_AVX512F_NATIVE)
#define RP_X_BCAST_ASM
#endif
#include "x86/layer.h"

/* The smallest lane (no NaN lanes): halves to 8, to 4, then rp_x_hmin4. */
static inline float vf_hmin_lanes(vf a) {
    simde__m256 lo = simde_mm512_castps512_ps256(a);
    simde__m256 hi = simde_mm256_castpd_ps(simde_mm512_extractf64x4_pd(simde_mm512_castps_pd(a), 1));
    simde__m256 h = simde_mm256_min_ps(lo, hi);
    return rp_x_hmin4(simde_mm_min_ps(simde_mm256_castps256_ps128(h),
                                      simde_mm256_extractf128_ps(h, 1)));
}

/* one vpternlogd: a ^ (s & sign bit) (truth table 0x78 of a, s, mask) */
static inline vf vf_xorsign(vf a, vf s) {
    return simde_mm512_castsi512_ps(simde_mm512_ternarylogic_epi32(
        simde_mm512_castps_si512(a), simde_mm512_castps_si512(s), simde_mm512_set1_epi32(INT32_MIN),
        0x78));
}
static inline vf vf_select(vm m, vf a, vf b) { return simde_mm512_mask_blend_ps(m, b, a); }
static inline void vf_cswap(vm m, vf *a, vf *b) {
    vf x = *a;
    *a = simde_mm512_mask_blend_ps(m, *a, *b);
    *b = simde_mm512_mask_blend_ps(m, *b, x);
}
/* Two blends of broadcasts, which GCC turns into broadcasts from memory
 * merged under the mask (one ALU op per plane); not vf_bcast, whose asm
 * barrier would keep the blend separate. */
static inline void vf_planes(const float *p, vm m, vf *n, vf *f) {
    vf lo = simde_mm512_set1_ps(p[0]);
    vf hi = simde_mm512_set1_ps(p[3]);
    *n = simde_mm512_mask_blend_ps(m, lo, hi);
    *f = simde_mm512_mask_blend_ps(m, hi, lo);
}
/* SIMDe 0.7 has no 512-bit gather: two 256-bit ones (native under AVX-512). */
static inline vf vf_gather(const float *p, int s) {
    simde__m256i idx = simde_mm256_setr_epi32(0, s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s, 7 * s);
    simde__m256 lo = simde_mm256_i32gather_ps(p, idx, 4);
    simde__m256 hi = simde_mm256_i32gather_ps(p + 8 * s, idx, 4);
    return simde_mm512_insertf32x8(simde_mm512_castps256_ps512(lo), hi, 1);
}

/* Fields o .. o+3 of 16 consecutive nf-float records at p: floats o .. o+3
 * of records q, q+4, q+8, q+12 (128-bit loads) in the 128-bit lanes of one
 * register, then the 4 x 4 transposition of SSE within each lane (lane
 * order stays record order).  Unused outputs are dropped by the compiler. */
static inline void aos4(const float *p, int nf, int o, size_t m, vf *t) {
    vf r[4];
    for (int q = 0; q < 4; q++) {
        vf x = simde_mm512_castps128_ps512(simde_mm_loadu_ps(rp_x_rec(p, nf, q, o, m)));
        x = simde_mm512_insertf32x4(x, simde_mm_loadu_ps(rp_x_rec(p, nf, q + 4, o, m)), 1);
        x = simde_mm512_insertf32x4(x, simde_mm_loadu_ps(rp_x_rec(p, nf, q + 8, o, m)), 2);
        r[q] = simde_mm512_insertf32x4(x, simde_mm_loadu_ps(rp_x_rec(p, nf, q + 12, o, m)), 3);
    }
    vf lo01 = simde_mm512_unpacklo_ps(r[0], r[1]);
    vf lo23 = simde_mm512_unpacklo_ps(r[2], r[3]);
    vf hi01 = simde_mm512_unpackhi_ps(r[0], r[1]);
    vf hi23 = simde_mm512_unpackhi_ps(r[2], r[3]);
    t[0] = simde_mm512_shuffle_ps(lo01, lo23, 0x44);
    t[1] = simde_mm512_shuffle_ps(lo01, lo23, 0xEE);
    t[2] = simde_mm512_shuffle_ps(hi01, hi23, 0x44);
    t[3] = simde_mm512_shuffle_ps(hi01, hi23, 0xEE);
}

/* out[k] = field k of the 16 consecutive nf-float records at p (nf <= 9),
 * i.e. {p[k], p[nf + k], ..., p[15 * nf + k]}, records m .. 15 zero;
 * reads exactly m * nf floats.
 * A transposition in registers: nf unaligned loads, then per field one
 * two-source permute (vpermt2ps) per pair of loaded vectors, merged by
 * masked moves.  Lane j of field k is flat element nf * j + k: vector pair
 * (nf * j + k) >> 5, the permute takes the low 5 bits.  Cheaper than 2 * nf
 * 8-lane gathers (the shapes with few rays load W primitives per step).
 * nf is a constant after inlining, so the indices and masks are too. */
static inline void vf_ld_aos(const float *p, int nf, size_t m, vf *out) {
    /* partial blocks (m < 16) too: per-record loads (rp_x_rec) read only
     * the m records there are */
    if (nf > 6 || m < 16) {
        /* triangles: the permutes (9 fields x 5 permutes and 4 merges)
         * spilled and measured slower than gathers; instead the 4 x 4
         * transposition within 128-bit lanes, records q, q+4, q+8, q+12 in
         * the lanes of one register (aos4) */
        for (int o = 0; o < nf; o += 4) {
            int b = o + 4 <= nf ? o : nf - 4;
            vf t[4];
            aos4(p, nf, b, m, t);
            for (int k = o; k < nf && k < o + 4; k++)
                out[k] = t[k - b];
        }
        return;
    }
    vf v[9];
    for (int q = 0; q < nf; q++)
        v[q] = simde_mm512_loadu_ps(p + 16 * q);
    const simde__m512i iota = simde_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (int k = 0; k < nf; k++) {
        simde__m512i flat = simde_mm512_add_epi32(
            simde_mm512_mullo_epi32(iota, simde_mm512_set1_epi32(nf)), simde_mm512_set1_epi32(k));
        vf r = simde_mm512_permutex2var_ps(v[0], flat, v[1]);
        for (int a = 1; 2 * a < nf; a++) {
            /* the last vector of an odd nf has no partner: a one-source
             * permute (low 4 bits: the flat index lies in that vector) */
            vf t = 2 * a + 1 < nf ? simde_mm512_permutex2var_ps(v[2 * a], flat, v[2 * a + 1])
                                  : simde_mm512_permutexvar_ps(flat, v[2 * a]);
            unsigned m = 0; /* the lanes of pair a: a constant */
            for (int j = 0; j < 16; j++)
                m |= (unsigned)(((nf * j + k) >> 5) == a) << j;
            r = simde_mm512_mask_mov_ps(r, (simde__mmask16)m, t);
        }
        out[k] = r;
    }
}

typedef vi vp;
static inline vp vp_make(vi k) { return k; }
/* vf_dup4, vf_perm (RP_V_PERM): as the AVX2 layer's, on four 128-bit
 * lanes (vbroadcastf32x4, vpermps) */
#define RP_V_PERM
static inline vf vf_dup4(const float *p) { return simde_mm512_broadcast_f32x4(simde_mm_loadu_ps(p)); }
static inline vf vf_perm(vf a, vi idx) { return simde_mm512_permutexvar_ps(idx, a); }
/* vf_pick: vf_dup4, then vpermps by each lane's index (0..3: the first
 * 128 bits). */
static inline vf vf_pick(const float *p, vp k) { return simde_mm512_permutexvar_ps(k, vf_dup4(p)); }
static inline vi vi_loadu(const uint32_t *p) { return simde_mm512_loadu_si512((const void *)p); }
static inline void vi_storeu(uint32_t *p, vi a) { simde_mm512_storeu_si512((void *)p, a); }
static inline vm vi_eq(vi a, vi b) { return simde_mm512_cmpeq_epi32_mask(a, b); }
static inline vi vi_select(vm m, vi a, vi b) { return simde_mm512_mask_blend_epi32(m, b, a); }

static inline vm m_and(vm a, vm b) { return (vm)(a & b); }
static inline vm m_or(vm a, vm b) { return (vm)(a | b); }
static inline vm m_andnot(vm a, vm b) { return (vm)(a & ~b); }
static inline unsigned m_bits(vm m) { return m; }
static inline int m_any(vm m) { return m != 0; }
static inline vm m_lanes(size_t k) { return (vm)((1u << k) - 1u); }
static inline vm m_from_bytes(const uint8_t *p) {
    simde__m128i b = simde_mm_loadu_si128((const void *)p);
    simde__m128i z = simde_mm_cmpeq_epi8(b, simde_mm_setzero_si128());
    return (vm)~simde_mm_movemask_epi8(z);
}
static inline void m_store01(uint8_t *p, vm m) {
    simde_mm_storeu_si128((void *)p, simde_mm_maskz_mov_epi8(m, simde_mm_set1_epi8(1)));
}

/* Partial blocks (m < 16 lanes) by masked loads and stores, which touch
 * no byte of a masked-off lane (fault suppression): native only, as SIMDe
 * 0.7 has none of them (without, block.h copies through a small buffer). */
#if defined(SIMDE_X86_AVX512F_NATIVE) && defined(SIMDE_X86_AVX512BW_NATIVE) && \
    defined(SIMDE_X86_AVX512VL_NATIVE)
#define RP_V_MASKED_F /* floats and uint32 */
#define RP_V_MASKED_B /* bytes */
static inline vf vf_loadu_n(const float *p, size_t m) { return _mm512_maskz_loadu_ps(m_lanes(m), p); }
static inline vi vi_loadu_n(const uint32_t *p, size_t m, uint32_t fill) {
    return _mm512_mask_loadu_epi32(_mm512_set1_epi32((int32_t)fill), m_lanes(m), p);
}
static inline vm m_from_bytes_n(const uint8_t *p, size_t m) {
    __m128i b = _mm_maskz_loadu_epi8(m_lanes(m), p);
    return _mm_test_epi8_mask(b, b);
}
static inline void vf_storeu_mask(float *p, vm m, vf a) { _mm512_mask_storeu_ps(p, m, a); }
static inline void vi_storeu_mask(uint32_t *p, vm m, vi a) { _mm512_mask_storeu_epi32(p, m, a); }
/* bytes of the lanes of sel: 1 where val, else 0 */
static inline void m_store01_mask(uint8_t *p, vm sel, vm val) {
    _mm_mask_storeu_epi8(p, sel, _mm_maskz_mov_epi8(val, _mm_set1_epi8(1)));
}
#endif

/* Arithmetic takes a float broadcast from memory as an operand ({1to16}),
 * which on Zen 4 saves the broadcast's own vector operation: the packet
 * loops fold a broadcast field used once into its operation (plane_minus,
 * minus_field, wt_cand_bc in src/simd/prim.h).  vf_add_bcast(a, p): a +
 * the float at p in every lane; vf_sub_bcast: a - it.  Native GCC: the
 * instruction itself, so that the compiler cannot share the broadcast with
 * another use of the same float (it kept a box's planes in registers for
 * the validity test of the steps that hit, broadcast apart: an operation
 * more per plane). */
#define RP_V_BCAST_OP
#if defined(__GNUC__) && defined(SIMDE_X86_AVX512F_NATIVE)
#define RP_X_BCAST_OP(name, insn, op)                                            \
    static inline vf name(vf a, const float *p) {                               \
        vf r;                                                                    \
        __asm__(insn " %1%{1to16%}, %2, %0" : "=v"(r) : "m"(*p), "v"(a));         \
        return r;                                                                \
    }
#else
#define RP_X_BCAST_OP(name, insn, op)                                            \
    static inline vf name(vf a, const float *p) { return RP_X(op##_ps)(a, RP_X(set1_ps)(*p)); }
#endif
RP_X_BCAST_OP(vf_add_bcast, "vaddps", add)
RP_X_BCAST_OP(vf_sub_bcast, "vsubps", sub)
#undef RP_X_BCAST_OP

/* Two primitives per step for packets of at most 8 rays (issue 13: 8 rays
 * x 8 triangles filled half of the 16 lanes): the rays in both 256-bit
 * halves, primitive j in the low half and j + 1 in the high one
 * (closest_pair in src/simd/closest.h). */
#define RP_V_PAIR
static inline vf vf_dup_lo(vf a) { return simde_mm512_shuffle_f32x4(a, a, 0x44); }
static inline vf vf_swap_halves(vf a) { return simde_mm512_shuffle_f32x4(a, a, 0x4E); }
static inline vm m_lo(vm m) { return (vm)(m & 0xFFu); }
static inline vm m_hi_to_lo(vm m) { return (vm)(m >> 8); }
static inline vm m_dup_lo(vm m) { return (vm)((m & 0xFFu) * 0x101u); }
/* p[0..7] in both halves (reads 8 floats) */
static inline vf vf_loadu_dup(const float *p) {
    return simde_mm512_broadcast_f32x8(simde_mm256_loadu_ps(p));
}
/* field k of the nf-float records at p (low half) and q (high half): two
 * 256-bit broadcasts from memory (a load alone on Zen 4, where a 512-bit
 * one costs a vector operation too) and an insertion, against a 512-bit
 * broadcast and a 512-bit one merged under a mask before.  Zen 4, five
 * alternated runs (bench/ab.sh, medians): tri/avx512/8x8 3.54 -> 3.19
 * cycles per test, with vf_loadu_dup above.  A two-source permute per
 * field from two loads of the pair's 18 floats was 20% slower there. */
static inline void bc_prim2(const float *p, const float *q, int nf, vf *out) {
    for (int k = 0; k < nf; k++)
        out[k] = simde_mm512_insertf32x8(simde_mm512_castps256_ps512(simde_mm256_set1_ps(p[k])),
                                         simde_mm256_set1_ps(q[k]), 1);
}

/* A scene packet whose rays' direction signs differ (diffuse bounces) goes,
 * where rp_avx512_mixed8 says so (RP_AVX512_MIXED=8), or where its rays
 * are not all short and the scene has at least rp_avx512_mixed8_tris
 * triangles (every scene on cores that split 512-bit operations, none
 * elsewhere: src/dispatch.c; scene_packets), to 8-lane packets in
 * 256-bit registers (scene8_avx512.c: AVX2's layer, its node step by
 * lanes, lone lanes to the one-ray walk), not to a 16-lane walk: on such
 * packets most of the 16 lanes idle at most nodes, and a 512-bit
 * operation occupies two 256-bit pipes of Zen 4 (where 512-bit pipes are
 * whole, Emerald Rapids, the 16-lane walk won).  The same tests either
 * way, so the same results (each lane's is the reference's). */
#define RP_SIMD_NARROW_PACKETS rp_scene_packets8_avx512
#define RP_SIMD_MIXED_ON rp_avx512_mixed8
/* And every packet of a query on a large scene, where
 * rp_avx512_packet8_tris says so (RP_AVX512_PACKET8_TRIS), or packets of
 * one octant as the query goes, where rp_avx512_adapt says so
 * (scene_packets; src/dispatch.c). */
#define RP_SIMD_NARROW_ON(s) ((s)->ntris >= rp_avx512_packet8_tris)
#define RP_SIMD_ADAPT_ON rp_avx512_adapt
#define RP_SIMD_MIXED_LONG_ON(s) ((s)->ntris >= rp_avx512_mixed8_tris)

#include "simd/kernels.h"
