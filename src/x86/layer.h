/*
 * layer.h - the part of the vector layer of src/simd/kernels.h that reads
 * the same on the three x86 widths, written once (as dav1d's x86inc.asm
 * writes a function once for INIT_XMM / INIT_YMM / INIT_ZMM).  Each of
 * src/sse, src/avx2 and src/avx512 defines its register types and
 *
 *   RP_X(op)          the width's SIMDe intrinsic: simde_mm_##op,
 *                     simde_mm256_##op or simde_mm512_##op;
 *   RP_X_CMP(a, b, p) (AVX2, AVX-512) the predicate compare, giving a vm;
 *   RP_X_BCAST_ASM    (AVX2, AVX-512) defined where a broadcast from memory
 *                     exists natively, see vf_bcast;
 *   RP_X_KMASK        (AVX-512) masks are k registers, not float lanes;
 *
 * then includes this file, then spells out what differs by width (loads of
 * records, gathers, plane choice, mask conversions).  Only the lane count
 * changes between the widths here, never an operation, so the bit-exactness
 * argument below is made once for all three.
 */
#ifndef RP_X86_LAYER_H
#define RP_X86_LAYER_H

static inline vf vf_set1(float x) { return RP_X(set1_ps)(x); }
static inline vf vf_loadu(const float *p) { return RP_X(loadu_ps)(p); }
static inline void vf_storeu(float *p, vf a) { RP_X(storeu_ps)(p, a); }
static inline vf vf_add(vf a, vf b) { return RP_X(add_ps)(a, b); }
static inline vf vf_sub(vf a, vf b) { return RP_X(sub_ps)(a, b); }
static inline vf vf_mul(vf a, vf b) { return RP_X(mul_ps)(a, b); }
static inline vf vf_div(vf a, vf b) { return RP_X(div_ps)(a, b); }
static inline vf vf_sqrt(vf a) { return RP_X(sqrt_ps)(a); }
/* a * b + c, fused where the file is built with FMA (AVX2 and AVX-512),
 * else a product and a sum (SSE4.1): only the packets' node test with
 * margins uses it (box_test_margin, src/scene/traverse_simd.h), whose
 * margins hold for both */
#if defined(__FMA__)
#include <simde/x86/fma.h>
static inline vf vf_fmadd(vf a, vf b, vf c) { return RP_X(fmadd_ps)(a, b, c); }
#else
static inline vf vf_fmadd(vf a, vf b, vf c) { return vf_add(vf_mul(a, b), c); }
#endif
/* (v)minps/(v)maxps return the second operand when either is NaN and when
 * both are zeros: exactly rp_minf(a, b) / rp_maxf(a, b). */
static inline vf vf_min(vf a, vf b) { return RP_X(min_ps)(a, b); }
static inline vf vf_max(vf a, vf b) { return RP_X(max_ps)(a, b); }
/* The smallest of four lanes, by minps (each width's vf_hmin_lanes folds
 * its halves down to four first).  For lanes without NaN any order of
 * minps gives the minimum's value; only the sign of a zero minimum may
 * depend on the order, which no comparison sees. */
static inline float rp_x_hmin4(simde__m128 q) {
    q = simde_mm_min_ps(q, simde_mm_movehl_ps(q, q));
    q = simde_mm_min_ss(q, simde_mm_shuffle_ps(q, q, 1));
    return simde_mm_cvtss_f32(q);
}
static inline vf vf_neg(vf a) { return RP_X(xor_ps)(a, RP_X(set1_ps)(-0.0f)); }
static inline vi vi_set1(uint32_t x) { return RP_X(set1_epi32)((int32_t)x); }

/* A primitive's field in every lane.  With AVX, a broadcast from memory
 * (vbroadcastss m32: a load, no ALU slot); the empty asm hides that the
 * value is a broadcast, otherwise the compiler turns
 * vf_sub(vf_bcast(a), vf_bcast(b)) into a scalar subtraction plus a
 * register broadcast, which costs an ALU op and a shuffle-port op instead
 * of one vector op.  SSE4.1 has no broadcast from memory (a load and a
 * shuffle either way), so there the compiler may as well do scalar
 * arithmetic on fields before broadcasting. */
static inline vf vf_bcast(const float *p) {
    vf r = RP_X(set1_ps)(*p);
#if defined(__GNUC__) && defined(RP_X_BCAST_ASM)
    __asm__("" : "+v"(r));
#endif
    return r;
}

/* The records of a partial block (vf_ld_aos with m < W): the 4 floats
 * at field o of record q, or 4 zeros for a record past the m the caller
 * has.  A pointer select, so a padding record costs no branch and the load
 * never touches memory past the caller's array; m == W (a constant where
 * vf_ld_aos is inlined for full blocks) folds it away. */
static const float rp_x_zero4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
static inline const float *rp_x_rec(const float *p, int nf, int q, int o, size_t m) {
    return (size_t)q < m ? p + nf * q + o : rp_x_zero4;
}

#ifdef RP_X_CMP
/* ordered predicates are C's <, <=, >, >=, ==; NEQ_UQ is C's != */
static inline vm vf_lt(vf a, vf b) { return RP_X_CMP(a, b, SIMDE_CMP_LT_OQ); }
static inline vm vf_le(vf a, vf b) { return RP_X_CMP(a, b, SIMDE_CMP_LE_OQ); }
static inline vm vf_gt(vf a, vf b) { return RP_X_CMP(a, b, SIMDE_CMP_GT_OQ); }
static inline vm vf_ge(vf a, vf b) { return RP_X_CMP(a, b, SIMDE_CMP_GE_OQ); }
static inline vm vf_eq(vf a, vf b) { return RP_X_CMP(a, b, SIMDE_CMP_EQ_OQ); }
static inline vm vf_neq(vf a, vf b) { return RP_X_CMP(a, b, SIMDE_CMP_NEQ_UQ); }
/* !(a < b), !(a > b): true for NaN too */
static inline vm vf_nlt(vf a, vf b) { return RP_X_CMP(a, b, SIMDE_CMP_NLT_UQ); }
static inline vm vf_ngt(vf a, vf b) { return RP_X_CMP(a, b, SIMDE_CMP_NGT_UQ); }
#endif

/* m ? a : b by (v)blendvps, for the float-lane masks.  GCC 12 folds the
 * blendv intrinsic into a select on m < 0 and, where one mask feeds two or
 * more selects, computes that condition again: a (v)pcmpgtd against zero
 * per mask (714 of them in the library's x86 code), an extra operation in
 * hot loops such as SSE4.1's slab test (5% of slab/sse41/packet).  There
 * it is the instruction itself (legacy SSE: the mask in xmm0, the operand
 * blendvps reads); elsewhere the intrinsic. */
#if defined(__GNUC__) && !defined(__clang__) && defined(SIMDE_X86_SSE4_1_NATIVE)
#ifdef __AVX__
#define RP_X86_BLENDV(r, m, a, b) \
    __asm__("vblendvps %3, %2, %1, %0" : "=x"(r) : "x"(b), "xm"(a), "x"(m))
#else
#define RP_X86_BLENDV(r, m, a, b)                                     \
    do {                                                             \
        (r) = (b);                                                   \
        __asm__("blendvps %2, %1, %0" : "+x"(r) : "xm"(a), "Yz"(m)); \
    } while (0)
#endif
#endif

#ifndef RP_X_KMASK
/* Masks as float lanes of all ones or all zeros (SSE, AVX2). */
static inline vf vf_select(vm m, vf a, vf b) {
#ifdef RP_X86_BLENDV
    vf r;
    RP_X86_BLENDV(r, m, a, b);
    return r;
#else
    return RP_X(blendv_ps)(b, a, m);
#endif
}
static inline vf vf_xorsign(vf a, vf s) {
    return RP_X(xor_ps)(a, RP_X(and_ps)(s, RP_X(set1_ps)(-0.0f)));
}
static inline vm m_and(vm a, vm b) { return RP_X(and_ps)(a, b); }
static inline vm m_or(vm a, vm b) { return RP_X(or_ps)(a, b); }
static inline vm m_andnot(vm a, vm b) { return RP_X(andnot_ps)(b, a); } /* a & ~b */
static inline unsigned m_bits(vm m) { return (unsigned)RP_X(movemask_ps)(m); }
static inline int m_any(vm m) { return RP_X(movemask_ps)(m) != 0; }
#endif

/* The 4-lane layer (q_*) of the one-ray scene traversal
 * (src/scene/traverse_ray.h): lanes over a leaf block's four triangles
 * (and, in the SSE4.1 file, over a node's children four at a time), the
 * same SSE operations at every x86 width
 * (VEX-encoded where the file is built with AVX).  Masks are float lanes;
 * only ordered compares are used, which SIMDe maps exactly. */
typedef simde__m128 vq;
static inline vq q_set1(float x) { return simde_mm_set1_ps(x); }
static inline vq q_load(const float *p) { return simde_mm_load_ps(p); } /* 16-byte aligned */
static inline vq q_set4(float a, float b, float c, float d) { return simde_mm_setr_ps(a, b, c, d); }
static inline void q_store(float *p, vq a) { simde_mm_storeu_ps(p, a); }
static inline vq q_add(vq a, vq b) { return simde_mm_add_ps(a, b); }
static inline vq q_sub(vq a, vq b) { return simde_mm_sub_ps(a, b); }
static inline vq q_mul(vq a, vq b) { return simde_mm_mul_ps(a, b); }
static inline vq q_abs(vq a) { return simde_mm_andnot_ps(simde_mm_set1_ps(-0.0f), a); } /* fabsf */
static inline vq q_min(vq a, vq b) { return simde_mm_min_ps(a, b); } /* rp_minf */
static inline vq q_max(vq a, vq b) { return simde_mm_max_ps(a, b); } /* rp_maxf */
static inline vq q_lt(vq a, vq b) { return simde_mm_cmplt_ps(a, b); }
static inline vq q_le(vq a, vq b) { return simde_mm_cmple_ps(a, b); }
static inline vq q_gt(vq a, vq b) { return simde_mm_cmpgt_ps(a, b); }
static inline vq q_eq(vq a, vq b) { return simde_mm_cmpeq_ps(a, b); }
static inline vq q_and(vq a, vq b) { return simde_mm_and_ps(a, b); }
static inline vq q_or(vq a, vq b) { return simde_mm_or_ps(a, b); }
static inline unsigned q_bits(vq m) { return (unsigned)simde_mm_movemask_ps(m); }
static inline vq q_div(vq a, vq b) { return simde_mm_div_ps(a, b); }
static inline vq q_xor(vq a, vq b) { return simde_mm_xor_ps(a, b); }
static inline vq q_sel(vq m, vq a, vq b) { /* m ? a : b */
#ifdef RP_X86_BLENDV
    vq r;
    RP_X86_BLENDV(r, m, a, b);
    return r;
#else
    return simde_mm_blendv_ps(b, a, m);
#endif
}
/* The q layer's four lanes in double (vqd), for rp_ref_wt_normal's and
 * rp_ref_wt_bary's arithmetic: exact widening, IEEE subtract, multiply,
 * add and divide, one rounding back to float in the current mode
 * (cvtps2pd, subpd, mulpd, addpd, divpd, cvtpd2ps: the scalar reference's
 * cvtss2sd, subsd, mulsd, addsd, divsd, cvtsd2ss lane by lane, under the
 * same MXCSR).  One 256-bit register with AVX, two 128-bit halves
 * without. */
#if defined(__AVX__)
typedef simde__m256d vqd;
static inline vqd qd_of(vq a) { return simde_mm256_cvtps_pd(a); }
static inline vq q_of_d(vqd a) { return simde_mm256_cvtpd_ps(a); }
static inline vqd qd_sub(vqd a, vqd b) { return simde_mm256_sub_pd(a, b); }
static inline vqd qd_mul(vqd a, vqd b) { return simde_mm256_mul_pd(a, b); }
static inline vqd qd_add(vqd a, vqd b) { return simde_mm256_add_pd(a, b); }
static inline vqd qd_div(vqd a, vqd b) { return simde_mm256_div_pd(a, b); }
#else
typedef struct vqd {
    simde__m128d lo, hi;
} vqd;
static inline vqd qd_of(vq a) {
    vqd r = {simde_mm_cvtps_pd(a), simde_mm_cvtps_pd(simde_mm_movehl_ps(a, a))};
    return r;
}
static inline vq q_of_d(vqd a) {
    return simde_mm_movelh_ps(simde_mm_cvtpd_ps(a.lo), simde_mm_cvtpd_ps(a.hi));
}
/* each operation on both halves */
#define RP_QD_OP(name, op)                                                     \
    static inline vqd name(vqd a, vqd b) {                                     \
        vqd r = {simde_mm_##op##_pd(a.lo, b.lo), simde_mm_##op##_pd(a.hi, b.hi)}; \
        return r;                                                              \
    }
RP_QD_OP(qd_sub, sub)
RP_QD_OP(qd_mul, mul)
RP_QD_OP(qd_add, add)
RP_QD_OP(qd_div, div)
#undef RP_QD_OP
#endif

/* The node layer (n_*) of the one-ray traversal: lanes over a node's
 * children, all eight of an 8-wide node in one 256-bit register where the
 * file is built with AVX (AVX2, AVX-512); SSE4.1 (and NEON) use the q
 * layer's four lanes twice (traverse_ray.h).  Ordered compares, minps and
 * maxps: the same operations as the q layer, on more lanes. */
#if defined(__AVX__)
#define RP_N_LANES 8
typedef simde__m256 vn;
static inline vn n_set1(float x) { return simde_mm256_set1_ps(x); }
static inline vn n_load(const float *p) { return simde_mm256_loadu_ps(p); }
static inline void n_store(float *p, vn a) { simde_mm256_storeu_ps(p, a); }
static inline vn n_add(vn a, vn b) { return simde_mm256_add_ps(a, b); }
static inline vn n_sub(vn a, vn b) { return simde_mm256_sub_ps(a, b); }
static inline vn n_mul(vn a, vn b) { return simde_mm256_mul_ps(a, b); }
/* a * b + c, fused where the file is built with FMA (AVX2 and AVX-512 are:
 * src/meson.build, and the dispatcher asks the CPU for FMA with them):
 * only the short forms with a margin use it (qray_slabs_short,
 * traverse_ray.h; lane_nodes, traverse_simd.h), whose margin holds for the
 * fused and the unfused form alike */
#if defined(__FMA__)
#include <simde/x86/fma.h>
#define RP_N_FMADD 1
static inline vn n_fmadd(vn a, vn b, vn c) { return simde_mm256_fmadd_ps(a, b, c); }
#endif
static inline vn n_min(vn a, vn b) { return simde_mm256_min_ps(a, b); } /* rp_minf */
static inline vn n_max(vn a, vn b) { return simde_mm256_max_ps(a, b); } /* rp_maxf */
static inline vn n_lt(vn a, vn b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ); }
static inline vn n_le(vn a, vn b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ); }
static inline vn n_gt(vn a, vn b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ); }
static inline vn n_eq(vn a, vn b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_EQ_OQ); }
static inline vn n_and(vn a, vn b) { return simde_mm256_and_ps(a, b); }
static inline vn n_or(vn a, vn b) { return simde_mm256_or_ps(a, b); }
static inline vn n_sel(vn m, vn a, vn b) { return simde_mm256_blendv_ps(b, a, m); } /* m ? a : b */
static inline unsigned n_bits(vn m) { return (unsigned)simde_mm256_movemask_ps(m); }
#endif

#endif /* RP_X86_LAYER_H */
