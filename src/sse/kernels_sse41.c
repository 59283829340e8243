/*
 * kernels_sse41.c - the SSE4.1 variant: the vector layer of
 * src/simd/kernels.h on 4-lane SSE registers (masks are all-ones/all-zeros
 * float lanes, selects are blendv), written with SIMDe intrinsics so that it
 * is native on x86 (built with -msse4.1) and emulated on other hosts.  All
 * batch loops live in the template, and what SSE shares with AVX2 and
 * AVX-512 (arithmetic, broadcasts, float-lane masks) in src/x86/layer.h;
 * this file is about SSE4.1 alone.
 */
#include <stdint.h>
#include <string.h>

#include <simde/x86/sse4.1.h>

typedef simde__m128 vf;
typedef simde__m128i vi;
typedef simde__m128 vm; /* lanes all ones or all zeros */
#define V_W 4
#define RP_SIMD_ISA RP_ISA_SSE41
#define RP_SIMD_TABLE rp_kernels_sse41

#define RP_X(op) simde_mm_##op
#include "x86/layer.h"

/* The smallest lane (no NaN lanes): rp_x_hmin4. */
static inline float vf_hmin_lanes(vf a) { return rp_x_hmin4(a); }

static inline vm vf_lt(vf a, vf b) { return simde_mm_cmplt_ps(a, b); }
static inline vm vf_le(vf a, vf b) { return simde_mm_cmple_ps(a, b); }
static inline vm vf_gt(vf a, vf b) { return simde_mm_cmpgt_ps(a, b); }
static inline vm vf_ge(vf a, vf b) { return simde_mm_cmpge_ps(a, b); }
static inline vm vf_eq(vf a, vf b) { return simde_mm_cmpeq_ps(a, b); }
static inline vm vf_neq(vf a, vf b) { return simde_mm_cmpneq_ps(a, b); } /* unordered: NaN != x */
/* !(a < b), !(a > b): true for NaN too.  SIMDe 0.7 spells cmpnlt/cmpngt
 * as cmpge/cmple, which are false for NaN: the native instructions where
 * there are some, else the complement of the ordered compare. */
#if defined(SIMDE_X86_SSE_NATIVE)
static inline vm vf_nlt(vf a, vf b) { return _mm_cmpnlt_ps(a, b); }
static inline vm vf_ngt(vf a, vf b) { return _mm_cmpngt_ps(a, b); }
#else
static inline vm vf_nlt(vf a, vf b) {
    return simde_mm_xor_ps(simde_mm_cmplt_ps(a, b), simde_mm_castsi128_ps(simde_mm_set1_epi32(-1)));
}
static inline vm vf_ngt(vf a, vf b) {
    return simde_mm_xor_ps(simde_mm_cmpgt_ps(a, b), simde_mm_castsi128_ps(simde_mm_set1_epi32(-1)));
}
#endif
/* Two blendvps (the xor swap of the AVX2 layer measured slower here: the
 * legacy-SSE blendvps is a single uop). */
static inline void vf_cswap(vm m, vf *a, vf *b) {
    vf x = *a;
    *a = vf_select(m, *b, *a);
    *b = vf_select(m, x, *b);
}
static inline void vf_planes(const float *p, vm m, vf *n, vf *f) {
    *n = vf_bcast(p);
    *f = vf_bcast(p + 3);
    vf_cswap(m, n, f);
}
/* No gather before AVX2: four scalar loads. */
static inline vf vf_gather(const float *p, int s) {
    return simde_mm_setr_ps(p[0], p[s], p[2 * s], p[3 * s]);
}

/* out[k] = field k of the 4 consecutive nf-float records at p (4 <= nf <= 9),
 * records m .. 3 zero; reads exactly m * nf floats (rp_x_rec).  A 4 x 4
 * transposition (unpack, movelh/movehl) of each group of 4 fields, the last
 * group ending at field nf - 1 (overlapping the one before; unused outputs
 * are dropped by the compiler): boxes 12 shuffles, triangles 19, against
 * scalar loads and inserts per element. */
static inline void vf_ld_aos(const float *p, int nf, size_t m, vf *out) {
    for (int o = 0; o < nf; o += 4) {
        int b = o + 4 <= nf ? o : nf - 4;
        vf r[4], t[4];
        for (int q = 0; q < 4; q++)
            r[q] = simde_mm_loadu_ps(rp_x_rec(p, nf, q, b, m));
        vf lo01 = simde_mm_unpacklo_ps(r[0], r[1]);
        vf lo23 = simde_mm_unpacklo_ps(r[2], r[3]);
        vf hi01 = simde_mm_unpackhi_ps(r[0], r[1]);
        vf hi23 = simde_mm_unpackhi_ps(r[2], r[3]);
        t[0] = simde_mm_movelh_ps(lo01, lo23);
        t[1] = simde_mm_movehl_ps(lo23, lo01);
        t[2] = simde_mm_movelh_ps(hi01, hi23);
        t[3] = simde_mm_movehl_ps(hi23, hi01);
        for (int k = o; k < nf && k < o + 4; k++)
            out[k] = t[k - b];
    }
}

/* vf_pick: pshufb (SSSE3) of the 4 floats at p by byte indices
 * 4 k + (0, 1, 2, 3), made once per packet by vp_make. */
typedef simde__m128i vp;
static inline vp vp_make(vi k) {
    return simde_mm_add_epi32(simde_mm_mullo_epi32(k, simde_mm_set1_epi32(0x04040404)),
                              simde_mm_set1_epi32(0x03020100));
}
static inline vf vf_pick(const float *p, vp k) {
    return simde_mm_castsi128_ps(simde_mm_shuffle_epi8(simde_mm_loadu_si128((const void *)p), k));
}
/* vf_xyz, vf_pickr (RP_V_PICKR: wt_pick_sel's picks from registers):
 * broadcasts x, y, z as (x, y, z, z) by two immediate blends, then pshufb
 * by each lane's byte indices; one uop each, where blendvps is 2 to 3 on
 * Intel cores. */
#define RP_V_PICKR
static inline vf vf_xyz(vf x, vf y, vf z) {
    return simde_mm_blend_ps(simde_mm_blend_ps(x, y, 0x2), z, 0xC);
}
static inline vf vf_pickr(vf t, vp k) {
    return simde_mm_castsi128_ps(simde_mm_shuffle_epi8(simde_mm_castps_si128(t), k));
}
static inline vi vi_loadu(const uint32_t *p) { return simde_mm_loadu_si128((const void *)p); }
static inline void vi_storeu(uint32_t *p, vi a) { simde_mm_storeu_si128((void *)p, a); }
static inline vm vi_eq(vi a, vi b) { return simde_mm_castsi128_ps(simde_mm_cmpeq_epi32(a, b)); }
static inline vi vi_select(vm m, vi a, vi b) {
    return simde_mm_castps_si128(
        simde_mm_blendv_ps(simde_mm_castsi128_ps(b), simde_mm_castsi128_ps(a), m));
}

static inline vm m_lanes(size_t k) {
    vi idx = simde_mm_setr_epi32(0, 1, 2, 3);
    return simde_mm_castsi128_ps(simde_mm_cmpgt_epi32(simde_mm_set1_epi32((int32_t)k), idx));
}
static inline vm m_from_bytes(const uint8_t *p) {
    int32_t x;
    memcpy(&x, p, 4);
    vi b = simde_mm_cvtepu8_epi32(simde_mm_cvtsi32_si128(x));
    vi z = simde_mm_cmpeq_epi32(b, simde_mm_setzero_si128());
    return simde_mm_castsi128_ps(simde_mm_xor_si128(z, simde_mm_set1_epi32(-1)));
}
static inline void m_store01(uint8_t *p, vm m) {
    vi x = simde_mm_castps_si128(m);
    x = simde_mm_packs_epi32(x, x);
    x = simde_mm_packs_epi16(x, x);
    x = simde_mm_and_si128(x, simde_mm_set1_epi8(1));
    int32_t y = simde_mm_cvtsi128_si32(x);
    memcpy(p, &y, 4);
}

#include "simd/kernels.h"
