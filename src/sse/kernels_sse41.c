/*
 * kernels_sse41.c - the SSE4.1 variant: the vector layer of
 * src/simd/kernels.h on 4-lane SSE registers (masks are all-ones/all-zeros
 * float lanes, selects are blendv), written with SIMDe intrinsics so that it
 * is native on x86 (built with -msse4.1) and emulated on other hosts.  All
 * batch loops live in the template; this file is about SSE4.1 alone.
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

static inline vf vf_set1(float x) { return simde_mm_set1_ps(x); }
/* A primitive's field in every lane.  SSE4.1 has no broadcast from memory
 * (it is a load and a shuffle either way), so the compiler may as well do
 * scalar arithmetic on fields before broadcasting. */
static inline vf vf_bcast(const float *p) { return simde_mm_set1_ps(*p); }
static inline vf vf_loadu(const float *p) { return simde_mm_loadu_ps(p); }
static inline void vf_storeu(float *p, vf a) { simde_mm_storeu_ps(p, a); }
static inline vf vf_add(vf a, vf b) { return simde_mm_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return simde_mm_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return simde_mm_mul_ps(a, b); }
static inline vf vf_div(vf a, vf b) { return simde_mm_div_ps(a, b); }
static inline vf vf_sqrt(vf a) { return simde_mm_sqrt_ps(a); }
/* minps/maxps return the second operand when either is NaN and when both
 * are zeros: exactly rp_minf(a, b) / rp_maxf(a, b). */
static inline vf vf_min(vf a, vf b) { return simde_mm_min_ps(a, b); }
static inline vf vf_max(vf a, vf b) { return simde_mm_max_ps(a, b); }
static inline vf vf_neg(vf a) { return simde_mm_xor_ps(a, simde_mm_set1_ps(-0.0f)); }
static inline vf vf_xorsign(vf a, vf s) {
    return simde_mm_xor_ps(a, simde_mm_and_ps(s, simde_mm_set1_ps(-0.0f)));
}
static inline vm vf_lt(vf a, vf b) { return simde_mm_cmplt_ps(a, b); }
static inline vm vf_le(vf a, vf b) { return simde_mm_cmple_ps(a, b); }
static inline vm vf_gt(vf a, vf b) { return simde_mm_cmpgt_ps(a, b); }
static inline vm vf_ge(vf a, vf b) { return simde_mm_cmpge_ps(a, b); }
static inline vm vf_eq(vf a, vf b) { return simde_mm_cmpeq_ps(a, b); }
static inline vm vf_neq(vf a, vf b) { return simde_mm_cmpneq_ps(a, b); } /* unordered: NaN != x */
static inline vf vf_select(vm m, vf a, vf b) { return simde_mm_blendv_ps(b, a, m); }
/* No gather before AVX2: four scalar loads. */
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
static inline vf vf_gather(const float *p, int s) {
    return simde_mm_setr_ps(p[0], p[s], p[2 * s], p[3 * s]);
}

/* out[k] = field k of the 4 consecutive nf-float records at p (4 <= nf <= 9);
 * reads exactly 4 * nf floats.  A 4 x 4 transposition (unpack,
 * movelh/movehl) of each group of 4 fields, the last group ending at field
 * nf - 1 (overlapping the one before; unused outputs are dropped by the
 * compiler): boxes 12 shuffles, triangles 19, against scalar loads and
 * inserts per element. */
static inline void vf_ld_aos(const float *p, int nf, vf *out) {
    for (int o = 0; o < nf; o += 4) {
        int b = o + 4 <= nf ? o : nf - 4;
        vf r[4], t[4];
        for (int q = 0; q < 4; q++)
            r[q] = simde_mm_loadu_ps(p + nf * q + b);
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

static inline vi vi_set1(uint32_t x) { return simde_mm_set1_epi32((int32_t)x); }
static inline vi vi_loadu(const uint32_t *p) { return simde_mm_loadu_si128((const void *)p); }
static inline void vi_storeu(uint32_t *p, vi a) { simde_mm_storeu_si128((void *)p, a); }
static inline vm vi_eq(vi a, vi b) { return simde_mm_castsi128_ps(simde_mm_cmpeq_epi32(a, b)); }
static inline vi vi_select(vm m, vi a, vi b) {
    return simde_mm_castps_si128(
        simde_mm_blendv_ps(simde_mm_castsi128_ps(b), simde_mm_castsi128_ps(a), m));
}

static inline vm m_and(vm a, vm b) { return simde_mm_and_ps(a, b); }
static inline vm m_or(vm a, vm b) { return simde_mm_or_ps(a, b); }
static inline vm m_andnot(vm a, vm b) { return simde_mm_andnot_ps(b, a); } /* a & ~b */
static inline unsigned m_bits(vm m) { return (unsigned)simde_mm_movemask_ps(m); }
static inline int m_any(vm m) { return simde_mm_movemask_ps(m) != 0; }
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
