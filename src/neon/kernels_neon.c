/*
 * kernels_neon.c - the NEON variant (AArch64 Advanced SIMD): the vector
 * layer of src/simd/kernels.h on 4-lane float32x4 registers with uint32x4
 * masks, written with SIMDe intrinsics so that it is native on aarch64 and
 * emulated elsewhere (on x86 it exists to cross-check the NEON code).  NEON
 * min/max (FMIN/FMAX) propagate NaN and order -0/+0 unlike the reference,
 * so min and max are spelled as compare-and-select.  All batch loops live
 * in the template; this file is about NEON alone.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <simde/arm/neon.h>

typedef simde_float32x4_t vf;
typedef simde_uint32x4_t vi;
typedef simde_uint32x4_t vm; /* lanes all ones or all zeros */
#define V_W 4
#define RP_SIMD_ISA RP_ISA_NEON
#define RP_SIMD_TABLE rp_kernels_neon

static inline vf vf_set1(float x) { return simde_vdupq_n_f32(x); }
/* A primitive's field in every lane (ld1r: a load). */
static inline vf vf_bcast(const float *p) { return simde_vld1q_dup_f32(p); }
static inline vf vf_loadu(const float *p) { return simde_vld1q_f32(p); }
static inline void vf_storeu(float *p, vf a) { simde_vst1q_f32(p, a); }
static inline vf vf_add(vf a, vf b) { return simde_vaddq_f32(a, b); }
static inline vf vf_sub(vf a, vf b) { return simde_vsubq_f32(a, b); }
static inline vf vf_mul(vf a, vf b) { return simde_vmulq_f32(a, b); }
/* a * b + c, fused (box_test_margin, src/scene/traverse_simd.h) */
static inline vf vf_fmadd(vf a, vf b, vf c) { return simde_vfmaq_f32(c, a, b); }
/* SIMDe 0.7 has no vdivq_f32/vsqrtq_f32 (they are A64-only): the native
 * instruction on aarch64 (SIMDe's types are the native ones there), else one
 * correctly rounded IEEE operation per lane. */
#if defined(SIMDE_ARM_NEON_A64V8_NATIVE)
static inline vf vf_div(vf a, vf b) { return vdivq_f32(a, b); }
static inline vf vf_sqrt(vf a) { return vsqrtq_f32(a); }
#else
static inline vf vf_div(vf a, vf b) {
    float x[4], y[4];
    simde_vst1q_f32(x, a);
    simde_vst1q_f32(y, b);
    for (int k = 0; k < 4; k++)
        x[k] = x[k] / y[k];
    return simde_vld1q_f32(x);
}
static inline vf vf_sqrt(vf a) {
    float x[4];
    simde_vst1q_f32(x, a);
    for (int k = 0; k < 4; k++)
        x[k] = sqrtf(x[k]);
    return simde_vld1q_f32(x);
}
#endif
/* rp_minf(a, b) = a < b ? a : b and rp_maxf(a, b) = a > b ? a : b */
static inline vf vf_min(vf a, vf b) { return simde_vbslq_f32(simde_vcltq_f32(a, b), a, b); }
static inline vf vf_max(vf a, vf b) { return simde_vbslq_f32(simde_vcgtq_f32(a, b), a, b); }
static inline vf vf_xor_bits(vf a, simde_uint32x4_t bits) {
    return simde_vreinterpretq_f32_u32(simde_veorq_u32(simde_vreinterpretq_u32_f32(a), bits));
}
static inline vf vf_neg(vf a) { return vf_xor_bits(a, simde_vdupq_n_u32(0x80000000u)); }
static inline vf vf_xorsign(vf a, vf s) {
    return vf_xor_bits(a, simde_vandq_u32(simde_vreinterpretq_u32_f32(s),
                                          simde_vdupq_n_u32(0x80000000u)));
}
static inline vm vf_lt(vf a, vf b) { return simde_vcltq_f32(a, b); }
static inline vm vf_le(vf a, vf b) { return simde_vcleq_f32(a, b); }
static inline vm vf_gt(vf a, vf b) { return simde_vcgtq_f32(a, b); }
static inline vm vf_ge(vf a, vf b) { return simde_vcgeq_f32(a, b); }
static inline vm vf_eq(vf a, vf b) { return simde_vceqq_f32(a, b); }
static inline vm vf_neq(vf a, vf b) { return simde_vmvnq_u32(simde_vceqq_f32(a, b)); }
/* !(a < b), !(a > b): true for NaN too */
static inline vm vf_nlt(vf a, vf b) { return simde_vmvnq_u32(simde_vcltq_f32(a, b)); }
static inline vm vf_ngt(vf a, vf b) { return simde_vmvnq_u32(simde_vcgtq_f32(a, b)); }
static inline vf vf_select(vm m, vf a, vf b) { return simde_vbslq_f32(m, a, b); }
/* The smallest lane (no NaN lanes), by vf_min over rotated copies (for
 * lanes without NaN the minimum's value in any order). */
static inline float vf_hmin_lanes(vf a) {
    vf b = vf_min(a, simde_vextq_f32(a, a, 2));
    b = vf_min(b, simde_vextq_f32(b, b, 1));
    return simde_vgetq_lane_f32(b, 0);
}
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
    float t[4] = {p[0], p[s], p[2 * s], p[3 * s]};
    return simde_vld1q_f32(t);
}

/* out[k] = field k of the W consecutive nf-float records at p, records
 * m .. 3 zero (reads exactly m * nf floats): one gather per field. */
static inline void vf_ld_aos(const float *p, int nf, size_t m, vf *out) {
    if (m == 4) {
        for (int k = 0; k < nf; k++)
            out[k] = vf_gather(p + k, nf);
        return;
    }
    for (int k = 0; k < nf; k++) {
        float t[4];
        for (size_t l = 0; l < 4; l++)
            t[l] = l < m ? p[nf * l + k] : 0.0f;
        out[k] = simde_vld1q_f32(t);
    }
}

static inline vi vi_set1(uint32_t x) { return simde_vdupq_n_u32(x); }
/* vf_pick: tbl of the 16 bytes at p by byte indices 4 k + (0, 1, 2, 3),
 * made once per packet by vp_make. */
typedef simde_uint8x16_t vp;
static inline vp vp_make(simde_uint32x4_t k) {
    simde_uint32x4_t b = simde_vmlaq_u32(simde_vdupq_n_u32(0x03020100u), k,
                                         simde_vdupq_n_u32(0x04040404u));
    return simde_vreinterpretq_u8_u32(b);
}
static inline vf vf_pick(const float *p, vp k) {
    simde_uint8x16_t t = simde_vreinterpretq_u8_f32(simde_vld1q_f32(p));
    return simde_vreinterpretq_f32_u8(simde_vqtbl1q_u8(t, k));
}
static inline vi vi_loadu(const uint32_t *p) { return simde_vld1q_u32(p); }
static inline void vi_storeu(uint32_t *p, vi a) { simde_vst1q_u32(p, a); }
static inline vm vi_eq(vi a, vi b) { return simde_vceqq_u32(a, b); }
static inline vi vi_select(vm m, vi a, vi b) { return simde_vbslq_u32(m, a, b); }

static inline vm m_and(vm a, vm b) { return simde_vandq_u32(a, b); }
static inline vm m_or(vm a, vm b) { return simde_vorrq_u32(a, b); }
static inline vm m_andnot(vm a, vm b) { return simde_vbicq_u32(a, b); } /* a & ~b */
static inline unsigned m_bits(vm m) {
    static const uint32_t w[4] = {1, 2, 4, 8};
    return simde_vaddvq_u32(simde_vandq_u32(m, simde_vld1q_u32(w)));
}
static inline int m_any(vm m) { return simde_vmaxvq_u32(m) != 0; }
static inline vm m_lanes(size_t k) {
    static const uint32_t idx[4] = {0, 1, 2, 3};
    return simde_vcltq_u32(simde_vld1q_u32(idx), simde_vdupq_n_u32((uint32_t)k));
}
static inline vm m_from_bytes(const uint8_t *p) {
    uint32_t x;
    memcpy(&x, p, 4);
    simde_uint16x8_t h = simde_vmovl_u8(simde_vreinterpret_u8_u32(simde_vdup_n_u32(x)));
    simde_uint32x4_t w = simde_vmovl_u16(simde_vget_low_u16(h));
    return simde_vtstq_u32(w, w);
}
static inline void m_store01(uint8_t *p, vm m) {
    simde_uint16x4_t h = simde_vmovn_u32(simde_vandq_u32(m, simde_vdupq_n_u32(1)));
    simde_uint8x8_t b = simde_vmovn_u16(simde_vcombine_u16(h, h));
    uint32_t x = simde_vget_lane_u32(simde_vreinterpret_u32_u8(b), 0);
    memcpy(p, &x, 4);
}

/* The 4-lane layer of the one-ray scene traversal (as src/x86/layer.h):
 * here simply the vector layer. */
typedef vf vq;
static inline vq q_set1(float x) { return vf_set1(x); }
static inline vq q_load(const float *p) { return vf_loadu(p); }
static inline vq q_set4(float a, float b, float c, float d) { /* lanes a, b, c, d */
    vq v = simde_vdupq_n_f32(a);
    v = simde_vsetq_lane_f32(b, v, 1);
    v = simde_vsetq_lane_f32(c, v, 2);
    return simde_vsetq_lane_f32(d, v, 3);
}
static inline void q_store(float *p, vq a) { vf_storeu(p, a); }
static inline vq q_add(vq a, vq b) { return vf_add(a, b); }
static inline vq q_sub(vq a, vq b) { return vf_sub(a, b); }
static inline vq q_mul(vq a, vq b) { return vf_mul(a, b); }
/* a * b + c in one rounding (FMLA).  Only the one-ray node test's short
 * form uses it (n_fmadd, traverse_ray.h), whose margin holds for the fused
 * and the unfused form alike.  Native on aarch64, where FMA is part of
 * Advanced SIMD; SIMDe's emulation on a host built without FMA multiplies
 * and adds (the unfused form). */
#define RP_Q_FMADD 1
static inline vq q_fmadd(vq a, vq b, vq c) { return simde_vfmaq_f32(c, a, b); }
static inline vq q_abs(vq a) { return vf_xorsign(a, a); } /* fabsf */
static inline vq q_min(vq a, vq b) { return vf_min(a, b); }
static inline vq q_max(vq a, vq b) { return vf_max(a, b); }
static inline vq q_lt(vq a, vq b) { return simde_vreinterpretq_f32_u32(vf_lt(a, b)); }
static inline vq q_le(vq a, vq b) { return simde_vreinterpretq_f32_u32(vf_le(a, b)); }
static inline vq q_gt(vq a, vq b) { return simde_vreinterpretq_f32_u32(vf_gt(a, b)); }
static inline vq q_eq(vq a, vq b) { return simde_vreinterpretq_f32_u32(vf_eq(a, b)); }
static inline vq q_and(vq a, vq b) {
    return simde_vreinterpretq_f32_u32(
        m_and(simde_vreinterpretq_u32_f32(a), simde_vreinterpretq_u32_f32(b)));
}
static inline vq q_or(vq a, vq b) {
    return simde_vreinterpretq_f32_u32(
        m_or(simde_vreinterpretq_u32_f32(a), simde_vreinterpretq_u32_f32(b)));
}
static inline unsigned q_bits(vq m) { return m_bits(simde_vreinterpretq_u32_f32(m)); }
static inline vq q_div(vq a, vq b) { return vf_div(a, b); }
static inline vq q_xor(vq a, vq b) { return vf_xor_bits(a, simde_vreinterpretq_u32_f32(b)); }
static inline vq q_sel(vq m, vq a, vq b) { /* m ? a : b */
    return simde_vbslq_f32(simde_vreinterpretq_u32_f32(m), a, b);
}
/* The four lanes in double (as src/x86/layer.h's vqd): two float64x2
 * halves; FCVTL widens exactly, FCVTN rounds once in the FPCR's mode. */
typedef struct vqd {
    simde_float64x2_t lo, hi;
} vqd;
static inline vqd qd_of(vq a) {
    vqd r = {simde_vcvt_f64_f32(simde_vget_low_f32(a)), simde_vcvt_f64_f32(simde_vget_high_f32(a))};
    return r;
}
static inline vq q_of_d(vqd a) {
    return simde_vcombine_f32(simde_vcvt_f32_f64(a.lo), simde_vcvt_f32_f64(a.hi));
}
/* SIMDe 0.7 has no vdivq_f64: FDIV itself on aarch64, else lane by lane
 * (the same IEEE division) */
static inline simde_float64x2_t qd_div2(simde_float64x2_t a, simde_float64x2_t b) {
#if defined(SIMDE_ARM_NEON_A64V8_NATIVE)
    return vdivq_f64(a, b);
#else
    simde_float64 x[2], y[2];
    simde_vst1q_f64(x, a);
    simde_vst1q_f64(y, b);
    x[0] = x[0] / y[0];
    x[1] = x[1] / y[1];
    return simde_vld1q_f64(x);
#endif
}
/* each operation on both halves */
#define RP_QD_OP(name, f)                                                      \
    static inline vqd name(vqd a, vqd b) {                                     \
        vqd r = {f(a.lo, b.lo), f(a.hi, b.hi)};                                \
        return r;                                                              \
    }
RP_QD_OP(qd_sub, simde_vsubq_f64)
RP_QD_OP(qd_mul, simde_vmulq_f64)
RP_QD_OP(qd_add, simde_vaddq_f64)
RP_QD_OP(qd_div, qd_div2)
#undef RP_QD_OP

#include "simd/kernels.h"
