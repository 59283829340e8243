/*
 * ref.h - the scalar reference: one ray against one primitive, written as
 * the specification that every SIMD variant reproduces bit for bit.
 *
 * Rules that make bit-exactness possible:
 * - one IEEE operation per statement where order matters; the project is
 *   built with -ffp-contract=off, so no multiply-add is ever fused;
 * - every dot product is (a.x*b.x + a.y*b.y) + a.z*b.z, in that order;
 *   every cross product component is a*b - c*d with both products rounded;
 * - min and max are rp_minf(a, b) = a < b ? a : b and rp_maxf(a, b) =
 *   a > b ? a : b.  Both return b when either operand is NaN and b when
 *   a and b are zeros of either sign; this is exactly SSE minps/maxps with
 *   (a, b) as operands.  The slab test relies on it: the running interval is
 *   always the second operand, so a NaN slab distance (0 * inf, an origin
 *   lying exactly on the plane of an axis the ray is parallel to) leaves the
 *   interval unchanged, i.e. the boundary counts as inside;
 * - divisions are true IEEE divisions (never an approximate reciprocal).
 * The semantics of every edge case are in docs/SEMANTICS.md.
 */
#ifndef RP_SCALAR_REF_H
#define RP_SCALAR_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "raypack.h"

/* On x86 the reference spells min and max as minss/maxss (SSE2, the x86-64
 * baseline), not as the C expression the compiler may or may not turn into
 * them: the two agree bit for bit in the default environment, but under
 * DAZ (denormals-are-zero, set by many game engines) minss/maxss return a
 * denormal operand flushed to zero while a compare and a select (what -O0
 * makes of a < b ? a : b) keep its bits.  The x86 variants use minps/maxps,
 * so this keeps them and the reference equal under DAZ at every
 * optimisation level (rp_check --fpenv=daz; docs/SEMANTICS.md).  On
 * AArch64 the C expression is a compare and a select at any level, as is
 * the NEON variant's vbsl.  RP_REF_PORTABLE_MINMAX (bench/autovec.c, which
 * measures what a compiler vectorizes from the plain C) keeps the C form. */
#if defined(__GNUC__) && defined(__SSE2__) && !defined(RP_REF_PORTABLE_MINMAX)
/* GCC and Clang: the instruction itself.  Through the intrinsics below gcc
 * zeroes the upper lanes of both operands (_mm_set_ss) at every call: two
 * or three instructions per min or max where one does (the one-ray walk
 * ran about 50 of them per diffuse ray).  minss/vminss d, a, b is
 * d = a < b ? a : b; not volatile: a pure function of a and b, as the
 * arithmetic around it. */
#if defined(__AVX__)
#define RP_REF_MINMAX(name, op)                                                                    \
    static inline float name(float a, float b) {                                                   \
        float r;                                                                                   \
        __asm__("v" op " %2, %1, %0" : "=x"(r) : "x"(a), "x"(b));                                 \
        return r;                                                                                  \
    }
#else
#define RP_REF_MINMAX(name, op)                                                                    \
    static inline float name(float a, float b) {                                                   \
        float r = a;                                                                               \
        __asm__(op " %1, %0" : "+x"(r) : "x"(b));                                                  \
        return r;                                                                                  \
    }
#endif
RP_REF_MINMAX(rp_minf, "minss")
RP_REF_MINMAX(rp_maxf, "maxss")
#undef RP_REF_MINMAX
#elif (defined(__SSE2__) || defined(_M_X64)) && !defined(RP_REF_PORTABLE_MINMAX)
#include <emmintrin.h>
static inline float rp_minf(float a, float b) {
    return _mm_cvtss_f32(_mm_min_ss(_mm_set_ss(a), _mm_set_ss(b)));
}
static inline float rp_maxf(float a, float b) {
    return _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(a), _mm_set_ss(b)));
}
#else
static inline float rp_minf(float a, float b) { return a < b ? a : b; }
static inline float rp_maxf(float a, float b) { return a > b ? a : b; }
#endif

static inline uint32_t rp_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float rp_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
/* a with its sign bit flipped when s has its sign bit set (exact) */
static inline float rp_xorsign(float a, float s) {
    return rp_u2f(rp_f2u(a) ^ (rp_f2u(s) & 0x80000000u));
}

/* a ? x : y by bit masks: for choices that follow the ray's direction,
 * random on incoherent rays, where gcc compiled the conditional as a
 * branch that was mispredicted about every other ray. */
static inline float rp_pickf(int a, float x, float y) {
    uint32_t m = 0u - (uint32_t)a;
    return rp_u2f((rp_f2u(x) & m) | (rp_f2u(y) & ~m));
}

/* One ray, as the kernels see it after rp_rays_prepare(). */
typedef struct rp_ray1 {
    float ox, oy, oz, dx, dy, dz, rdx, rdy, rdz, tmin, tmax;
} rp_ray1;

/* rp_rays_prepare() for one ray: 1/d, or NaN in all three reciprocals if an
 * origin or direction component is NaN or infinite.  A NaN rdx is how every
 * kernel recognises an invalid ray (valid <=> rdx == rdx). */
static inline void rp_ref_prepare(float ox, float oy, float oz, float dx,
                                  float dy, float dz, float *rdx, float *rdy,
                                  float *rdz) {
    if (isfinite(ox) && isfinite(oy) && isfinite(oz) && isfinite(dx) &&
        isfinite(dy) && isfinite(dz)) {
        *rdx = 1.0f / dx;
        *rdy = 1.0f / dy;
        *rdz = 1.0f / dz;
    } else {
        *rdx = *rdy = *rdz = NAN;
    }
}

/* A box is valid iff min <= max on every axis (false for NaN bounds).
 * An invalid box is never hit. */
static inline int rp_ref_box_valid(const rp_aabb *b) {
    int vx = b->min.x <= b->max.x;
    int vy = b->min.y <= b->max.y;
    int vz = b->min.z <= b->max.z;
    return vx & vy & vz;
}

/* The slab test (Kay-Kajiya with Williams et al.'s plane choice by the sign
 * of the reciprocal, seed 002's "plane candidates"; Tavian Barnes' NaN
 * handling).  Starts from the ray's [tn, tf] and clips it by each axis in
 * the order x, y, z.  The near plane of an axis is max when rd < 0
 * (d = -0.0 gives rd = -inf, so it counts as negative) and min otherwise.
 * Variants must use the same rd < 0 compare, not the sign bit: they differ
 * for rd = -0.0, which prepare never writes but a flush-to-zero mode (FTZ,
 * 1/d of a huge d) or a caller editing rd could produce.
 * Returns 1 on a hit: tn <= tf on a valid ray and a valid box.  *tn, *tf
 * receive the clipped interval in every case. */
static inline int rp_ref_slab(const rp_ray1 *r, const rp_aabb *b, float *tn_out,
                              float *tf_out) {
    float tn = r->tmin;
    float tf = r->tmax;
    float bn, bf, t0, t1;

    bn = r->rdx < 0.0f ? b->max.x : b->min.x;
    bf = r->rdx < 0.0f ? b->min.x : b->max.x;
    t0 = bn - r->ox;
    t0 = t0 * r->rdx;
    t1 = bf - r->ox;
    t1 = t1 * r->rdx;
    tn = rp_maxf(t0, tn);
    tf = rp_minf(t1, tf);

    bn = r->rdy < 0.0f ? b->max.y : b->min.y;
    bf = r->rdy < 0.0f ? b->min.y : b->max.y;
    t0 = bn - r->oy;
    t0 = t0 * r->rdy;
    t1 = bf - r->oy;
    t1 = t1 * r->rdy;
    tn = rp_maxf(t0, tn);
    tf = rp_minf(t1, tf);

    bn = r->rdz < 0.0f ? b->max.z : b->min.z;
    bf = r->rdz < 0.0f ? b->min.z : b->max.z;
    t0 = bn - r->oz;
    t0 = t0 * r->rdz;
    t1 = bf - r->oz;
    t1 = t1 * r->rdz;
    tn = rp_maxf(t0, tn);
    tf = rp_minf(t1, tf);

    *tn_out = tn;
    *tf_out = tf;
    return (tn <= tf) & (r->rdx == r->rdx) & rp_ref_box_valid(b);
}

/* Moller-Trumbore (seed 004), arranged so that hit or miss is decided
 * before any division: with s the sign of det, u' = uu*s, v' = vv*s and
 * |det|, the point is inside the closed triangle iff u' >= 0, v' >= 0 and
 * u' + v' <= |det|.  Only then t = tt / det is divided and checked against
 * [tmin, tmax].  Barycentrics u = uu / det and v = vv / det are divided only
 * for the hit that is kept (rp_ref_tri_uv).  det == 0 (parallel ray or a
 * triangle whose area is exactly 0 in this arithmetic) and NaN never hit;
 * with RP_CULL_BACKFACE det must be > 0. */
typedef struct rp_tri_eval {
    float det, uu, vv, tt;
    int candidate; /* inside the triangle, det usable, ray valid */
} rp_tri_eval;

static inline rp_tri_eval rp_ref_tri_eval(const rp_ray1 *r, const rp_triangle *tri,
                                          unsigned flags) {
    rp_tri_eval e;
    float e1x = tri->v1.x - tri->v0.x;
    float e1y = tri->v1.y - tri->v0.y;
    float e1z = tri->v1.z - tri->v0.z;
    float e2x = tri->v2.x - tri->v0.x;
    float e2y = tri->v2.y - tri->v0.y;
    float e2z = tri->v2.z - tri->v0.z;
    float a, b;

    /* p = cross(d, e2) */
    a = r->dy * e2z; b = r->dz * e2y; float px = a - b;
    a = r->dz * e2x; b = r->dx * e2z; float py = a - b;
    a = r->dx * e2y; b = r->dy * e2x; float pz = a - b;
    /* det = dot(e1, p) */
    a = e1x * px; b = e1y * py; float det = a + b;
    a = e1z * pz; det = det + a;
    /* s = o - v0 */
    float sx = r->ox - tri->v0.x;
    float sy = r->oy - tri->v0.y;
    float sz = r->oz - tri->v0.z;
    /* uu = dot(s, p) */
    a = sx * px; b = sy * py; float uu = a + b;
    a = sz * pz; uu = uu + a;
    /* q = cross(s, e1) */
    a = sy * e1z; b = sz * e1y; float qx = a - b;
    a = sz * e1x; b = sx * e1z; float qy = a - b;
    a = sx * e1y; b = sy * e1x; float qz = a - b;
    /* vv = dot(d, q), tt = dot(e2, q) */
    a = r->dx * qx; b = r->dy * qy; float vv = a + b;
    a = r->dz * qz; vv = vv + a;
    a = e2x * qx; b = e2y * qy; float tt = a + b;
    a = e2z * qz; tt = tt + a;

    float us = rp_xorsign(uu, det);
    float vs = rp_xorsign(vv, det);
    float adet = rp_xorsign(det, det); /* |det| */
    float uvs = us + vs;
    int inside = (us >= 0.0f) & (vs >= 0.0f) & (uvs <= adet);
    int usable = (flags & RP_CULL_BACKFACE) ? (det > 0.0f) : (det != 0.0f);

    e.det = det;
    e.uu = uu;
    e.vv = vv;
    e.tt = tt;
    e.candidate = inside & usable & (r->rdx == r->rdx);
    return e;
}

/* t of a candidate: the one division on the hit path. */
static inline float rp_ref_tri_t(const rp_tri_eval *e) { return e->tt / e->det; }
static inline void rp_ref_tri_uv(const rp_tri_eval *e, float *u, float *v) {
    *u = e->uu / e->det;
    *v = e->vv / e->det;
}

/* ------------------------------------------------------------------ */
/* The watertight test (Woop, Benthin, Wald, JCGT 2013; pbrt-v4)         */
/* ------------------------------------------------------------------ */
/* Per ray, once (not per test): kz is the axis of the largest |d| (the
 * first of equal ones: x, then y, then z), kx and ky the next two in cyclic
 * order (so kx, ky, kz is a right-handed frame; no swap when d[kz] < 0, the
 * culling test reads the sign of d[kz] instead), and the shear
 * sx = d[kx] / d[kz], sy = d[ky] / d[kz], sz = rd[kz] = 1 / d[kz].  Moving
 * the origin to 0 and shearing by (sx, sy) maps the ray onto the +z' axis,
 * so the test becomes "is (0, 0) inside the 2D triangle (x', y')".  Every
 * value here is a pure function of the ray, so every vertex a ray meets is
 * mapped the same way in every triangle that holds it: that is what makes
 * the test watertight. */
typedef struct rp_wt_ray {
    int kx, ky, kz;
    float sx, sy, sz;
    float dkz; /* d[kz]: its sign says which 2D orientation is the front */
} rp_wt_ray;

static inline rp_wt_ray rp_ref_wt_setup(const rp_ray1 *r) {
    rp_wt_ray w;
    const float d[3] = {r->dx, r->dy, r->dz};
    const float rd[3] = {r->rdx, r->rdy, r->rdz};
    float ax = fabsf(r->dx), ay = fabsf(r->dy), az = fabsf(r->dz);
    /* kz: 1 if |dy| > |dx|, else 0; then 2 if |dz| > the larger of the
     * two; kx, ky the next axes, cyclically.  Arithmetic, not branches:
     * the axis follows the data, and on incoherent rays a branch on it
     * was mispredicted about once per ray (the scene layer's one-ray walk
     * sets a ray up with this) */
    static const int next[3] = {1, 2, 0}; /* (kz + 1 - 3 * (kz == 2): gcc branched) */
    int y = ay > ax, z = az > rp_maxf(ay, ax);
    int kz = y + z * (2 - y);
    w.kz = kz;
    w.kx = next[kz];
    w.ky = next[w.kx];
    w.sx = d[w.kx] / d[kz];
    w.sy = d[w.ky] / d[kz];
    w.sz = rd[kz];
    w.dkz = d[kz];
    return w;
}

/* One vertex in the ray's frame: x' = (v[kx] - o[kx]) - sx * (v[kz] - o[kz]),
 * y' likewise, z = v[kz] - o[kz] (scaled by sz only for t, on candidates). */
static inline void rp_ref_wt_vertex(const rp_ray1 *r, const rp_wt_ray *w,
                                    const rp_vec3 *v, float *x, float *y, float *z) {
    const float o[3] = {r->ox, r->oy, r->oz};
    const float p[3] = {v->x, v->y, v->z};
    float qx = p[w->kx] - o[w->kx];
    float qy = p[w->ky] - o[w->ky];
    float qz = p[w->kz] - o[w->kz];
    float a = w->sx * qz;
    *x = qx - a;
    a = w->sy * qz;
    *y = qy - a;
    *z = qz;
}

/* The three 2D edge functions in double, where one of them is 0 or NaN in
 * float: the products of floats are exact in double (they cannot overflow
 * there either) and the difference is rounded once, so its sign is the
 * exact sign (pbrt-v4 recomputes the same way).  The inside decision is
 * made on these double values (returned: 1 if all three are >= 0 or all
 * <= 0); then they go back to float for det, t, u and v, where a tiny one
 * may become a zero.  Deciding on the doubles keeps a sign that the float
 * conversion would lose, so a nonzero, non-NaN float edge function always
 * has the sign the decision uses (rounding is monotonic, overflow
 * included): a SIMD variant may test that sign first and send only the
 * undecided lanes here.  Shared by the reference and every SIMD variant's
 * rare scalar path. */
static inline int rp_ref_wt_exact(float ax, float ay, float bx, float by, float cx,
                                  float cy, float *u, float *v, float *w) {
    double p, q;
    p = (double)cx * (double)by; q = (double)cy * (double)bx; double du = p - q;
    p = (double)ax * (double)cy; q = (double)ay * (double)cx; double dv = p - q;
    p = (double)bx * (double)ay; q = (double)by * (double)ax; double dw = p - q;
    int neg = (du <= 0.0) & (dv <= 0.0) & (dw <= 0.0);
    int pos = (du >= 0.0) & (dv >= 0.0) & (dw >= 0.0);
    *u = (float)du;
    *v = (float)dv;
    *w = (float)dw;
    return neg | pos;
}

/* 0 or NaN: the float edge function does not decide (see rp_ref_wt_exact). */
static inline int rp_ref_wt_undecided(float x) { return !((x < 0.0f) | (x > 0.0f)); }

/* The parts of the test after the inside decision, one lane at a time
 * (shared with the SIMD variants, which run them on inside lanes only). */
/* det = (U + V) + W in float (U, V, W share a sign on an inside lane, so
 * it is 0 only when all three are); det != 0, and with culling det with the
 * sign of d[kz] applied > 0 */
static inline float rp_ref_wt_detf(float u, float v, float w) {
    float d = u + v;
    return d + w;
}
static inline int rp_ref_wt_usable(float det, float dkz, unsigned flags) {
    return (flags & RP_CULL_BACKFACE) ? rp_xorsign(det, dkz) > 0.0f : det != 0.0f;
}
/* The triangle's normal n = (v1 - v0) x (v2 - v0) in double (each edge and
 * each product is exact there, the difference rounded once), then rounded
 * to float.  In float the cross product of a long thin triangle's two long
 * edges cancels: its direction was off by 1e-3 on a tube of radius 0.01
 * and length 100.  v: the nine vertex components in any cyclic order of the
 * axes (a rotation: the result's components come out in that order, the
 * same bits). */
static inline void rp_ref_wt_normal(const float v[9], float n[3]) {
    double e1[3], e2[3], a, b;
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)v[3 + k] - (double)v[k];
        e2[k] = (double)v[6 + k] - (double)v[k];
    }
    a = e1[1] * e2[2]; b = e1[2] * e2[1]; n[0] = (float)(a - b);
    a = e1[2] * e2[0]; b = e1[0] * e2[2]; n[1] = (float)(a - b);
    a = e1[0] * e2[1]; b = e1[1] * e2[0]; n[2] = (float)(a - b);
}

/* The largest |coordinate| of a triangle (9 floats, world order v0.x,
 * v0.y, v0.z, v1.x, ...), the triangle's own bound for rp_ref_wt_pad. */
static inline float rp_ref_wt_tri_inf(const float p[9]) {
    float m = fabsf(p[0]);
    for (int k = 1; k < 9; k++)
        m = rp_maxf(fabsf(p[k]), m);
    return m;
}

/* An axis whose rd bounds the clamp of t (rp_ref_wt_tplane) and the full
 * slab's range (rp_ref_slab_wt_steps): rd finite, nonzero and not
 * +-FLT_MAX (not NaN, not flushed, not saturated, not infinite). */
static inline int rp_ref_wt_bounding(float rd) {
    float a = fabsf(rd);
    return (a > 0.0f) & (a < 0x1.fffffep+127f);
}

/* Where the ray's line crosses the slab of one axis of a triangle grown by
 * pad: its three coordinates a, b, c along the axis, o and rd the ray's.
 * The operations of the box test (rp_ref_slab_wt_steps) with the
 * triangle's min and max in place of the box's planes. */
static inline void rp_ref_wt_axis(float a, float b, float c, float o, float rd, float pad,
                                  float *t0, float *t1) {
    float lo = rp_minf(b, a), hi = rp_maxf(b, a);
    lo = rp_minf(c, lo);
    hi = rp_maxf(c, hi);
    int neg = rd < 0.0f;
    /* the pad toward the near plane, -pad where rd < 0: pad with rd's
     * sign bit, which is rd < 0 for the bounding rd (finite, nonzero) that
     * this is called with (rp_ref_wt_tplane); o + sp is o - pad there
     * exactly, as IEEE 754 defines x - y as x + (-y).  No branch. */
    float sp = rp_xorsign(pad, rd);
    float on = o + sp, of = o - sp;
    float n = rp_pickf(neg, hi, lo) - on;
    float f = rp_pickf(neg, lo, hi) - of;
    *t0 = n * rd;
    *t1 = f * rd;
}

/* t of an inside triangle, in the ray's frame (v: the nine vertex
 * components ordered kx, ky, kz per vertex; o, d, n: the ray's and the
 * normal's (rp_ref_wt_normal), same order; sz = 1 / d[kz] as prepared;
 * rd2: rd[kx], rd[ky] as prepared; pad: rp_ref_wt_pad of the ray and the
 * triangle's own bound, rp_ref_wt_tri_inf): the intersection with the
 * triangle's plane, t = (n . (v0 - o)) / (n . d), in float, clamped to
 * [lo, hi], the intersection of the triangle's kz range [min zk, max zk],
 * zk = sz * (vk[kz] - o[kz]) (where the ray crosses each vertex's kz
 * plane), with the ranges [t0, t1] where the line lies inside the
 * triangle's kx and ky slabs grown by pad (rp_ref_wt_axis; only axes whose
 * rd bounds, rp_ref_wt_bounding).  A NaN t (a ray in the plane) becomes
 * lo.  When lo > hi the result is NaN, which no [tmin, tmax] accepts: no
 * hit (argued below never to happen where the float values are normal).
 * So t never leaves the triangle's kz slab nor its grown kx and ky slabs,
 * which the conservative box test relies on (see the comment above
 * rp_ref_wt_pad).  Why not Woop's barycentric
 * t = (U z0 + V z1 + W z2) / det: it is a weighted mean of the zk, and for a
 * long thin triangle whose vertices' zk lie far from the hit, the weights'
 * rounding is multiplied by that distance: on a tube of radius 0.01 and
 * length 100 it put hits at t = -0.67 instead of 1.0002 (tests/watertight
 * saw them as leaks); the plane's t is off by about u |v0 - o| divided by
 * the distance to the plane.  (In float the barycentric sum also underflowed
 * to 0 for slivers and det overflowed for huge ones, which rp_fuzz found
 * through the box test.)  Every variant computes this on inside lanes only. */
static inline float rp_ref_wt_tplane(const float v[9], const float o[3], const float d[3],
                                     const float n[3], float sz, const float rd2[2],
                                     float pad) {
    float q[3], a, b;
    for (int k = 0; k < 3; k++)
        q[k] = v[k] - o[k];
    a = n[0] * q[0]; b = n[1] * q[1]; float num = a + b;
    a = n[2] * q[2]; num = num + a;
    a = n[0] * d[0]; b = n[1] * d[1]; float den = a + b;
    a = n[2] * d[2]; den = den + a;
    float t = num / den;
    float z0 = v[2] - o[2], z1 = v[5] - o[2], z2 = v[8] - o[2];
    z0 = sz * z0;
    z1 = sz * z1;
    z2 = sz * z2;
    float lo = rp_minf(z1, z0), hi = rp_maxf(z1, z0);
    lo = rp_minf(z2, lo);
    hi = rp_maxf(z2, hi);
    for (int k = 0; k < 2; k++) {
        if (!rp_ref_wt_bounding(rd2[k]))
            continue;
        float t0, t1;
        rp_ref_wt_axis(v[k], v[3 + k], v[6 + k], o[k], rd2[k], pad, &t0, &t1);
        lo = rp_maxf(t0, lo);
        hi = rp_minf(t1, hi);
    }
    t = rp_maxf(t, lo); /* NaN t: lo */
    t = rp_minf(t, hi);
    return lo > hi ? NAN : t;
}

/* u = V / det and v = W / det of the kept hit, in double (no overflow of
 * det, no underflow of the quotient's inputs) */
static inline double rp_ref_wt_det(float u, float v, float w) {
    double d = (double)u + (double)v;
    return d + (double)w;
}
static inline float rp_ref_wt_bary(float x, double det) { return (float)((double)x / det); }

/* The watertight test of one ray and one triangle, up to the candidate
 * decision (no division).  U, V, W are the edge functions of the edges
 * v1-v2, v2-v0 and v0-v1 at the origin: a candidate has all three >= 0 or
 * all three <= 0 (edges and vertices included; where one is 0 or NaN in
 * float, decided on the exact values), det = (U + V) + W != 0 and
 * a valid ray; with RP_CULL_BACKFACE det, signed by d[kz], must be > 0.
 * Then t = T / det with T = (U * z0 + V * z1) + W * z2 and zk = sz * vk[kz]
 * (rp_ref_wt_t), and the barycentrics u = V / det, v = W / det.
 * det, T, t, u and v are computed in double from the float U, V, W and
 * z (then t, u, v rounded to float): products of floats are exact there
 * and nothing overflows or underflows, so t stays within a few float ulps
 * of the weighted mean of the zk even for slivers and huge or tiny
 * coordinates, where float arithmetic would flush T to 0 (a triangle just
 * behind the origin reported at t = 0) or det to inf.  These run only for
 * triangles that are inside, so the cost is off the hot path. */
typedef struct rp_wt_eval {
    float u, v, w, det;
    float z0, z1, z2; /* v[kz] - o[kz] of the three vertices */
    int candidate;
} rp_wt_eval;

static inline rp_wt_eval rp_ref_wt_eval(const rp_ray1 *r, const rp_wt_ray *w,
                                        const rp_triangle *tri, unsigned flags) {
    rp_wt_eval e;
    float ax, ay, bx, by, cx, cy, a, b;
    rp_ref_wt_vertex(r, w, &tri->v0, &ax, &ay, &e.z0);
    rp_ref_wt_vertex(r, w, &tri->v1, &bx, &by, &e.z1);
    rp_ref_wt_vertex(r, w, &tri->v2, &cx, &cy, &e.z2);
    a = cx * by; b = cy * bx; e.u = a - b;
    a = ax * cy; b = ay * cx; e.v = a - b;
    a = bx * ay; b = by * ax; e.w = a - b;
    int inside;
    if (rp_ref_wt_undecided(e.u) | rp_ref_wt_undecided(e.v) | rp_ref_wt_undecided(e.w)) {
        inside = rp_ref_wt_exact(ax, ay, bx, by, cx, cy, &e.u, &e.v, &e.w);
    } else {
        int neg = (e.u < 0.0f) & (e.v < 0.0f) & (e.w < 0.0f);
        int pos = (e.u > 0.0f) & (e.v > 0.0f) & (e.w > 0.0f);
        inside = neg | pos;
    }
    e.det = rp_ref_wt_detf(e.u, e.v, e.w);
    e.candidate = inside & rp_ref_wt_usable(e.det, w->dkz, flags) & (r->rdx == r->rdx);
    return e;
}

static inline float rp_ref_wt_pad(const rp_ray1 *r, float box_inf);

/* rp_ref_wt_t with the vertices, o, d already in the ray's frame (v: 9
 * floats, kx, ky, kz per vertex; rd2: rd[kx], rd[ky]).  The triangle's own
 * bound (rp_ref_wt_tri_inf) is a maximum of absolute values, the same in
 * any order of the nine coordinates. */
static inline float rp_ref_wt_t_frame(const rp_ray1 *r, const rp_wt_ray *w, const float v[9],
                                      const float o[3], const float d[3], const float rd2[2]) {
    float n[3];
    rp_ref_wt_normal(v, n);
    float pad = rp_ref_wt_pad(r, rp_ref_wt_tri_inf(v));
    return rp_ref_wt_tplane(v, o, d, n, w->sz, rd2, pad);
}

/* t of a candidate (rp_ref_wt_tplane, in the ray's frame). */
static inline float rp_ref_wt_t(const rp_ray1 *r, const rp_wt_ray *w, const rp_triangle *tri,
                                const rp_wt_eval *e) {
    const float o3[3] = {r->ox, r->oy, r->oz}, d3[3] = {r->dx, r->dy, r->dz};
    const float rd3[3] = {r->rdx, r->rdy, r->rdz};
    const rp_vec3 *vs[3] = {&tri->v0, &tri->v1, &tri->v2};
    const int ax[3] = {w->kx, w->ky, w->kz};
    const float p[9] = {vs[0]->x, vs[0]->y, vs[0]->z, vs[1]->x, vs[1]->y,
                        vs[1]->z, vs[2]->x, vs[2]->y, vs[2]->z};
    float v[9], o[3], d[3];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++)
            v[3 * i + k] = p[3 * i + ax[k]];
        o[k] = o3[ax[k]];
        d[k] = d3[ax[k]];
    }
    (void)e;
    const float rd2[2] = {rd3[w->kx], rd3[w->ky]};
    return rp_ref_wt_t_frame(r, w, v, o, d, rd2);
}

static inline void rp_ref_wt_uv(const rp_wt_eval *e, float *u, float *v) {
    double det = rp_ref_wt_det(e->u, e->v, e->w);
    *u = rp_ref_wt_bary(e->v, det);
    *v = rp_ref_wt_bary(e->w, det);
}

/* The conservative box test the scene layer's traversal relies on: if the
 * watertight test hits a triangle with t in [tmin, tmax], this returns 1 for
 * the triangle's exact float bounding box (and for any box containing it),
 * grown by pad = rp_ref_wt_pad(ray, B) for any B >= the box's (and so the
 * triangle's) largest |coordinate|: a scene passes its bound.
 *
 * Why the plain slab is not enough: the 2D decision is exact for the
 * computed sheared vertices, which differ from the exact ones by a few
 * rounding errors of |v - o|, so a hit near an edge may lie that far outside
 * the triangle (and its box) in space; and the plane's t, for a triangle
 * seen almost edge-on, need not be a t at which the ray is inside the box at
 * all.  What does hold, and what this tests:
 *  1. the line: the ray's line passes within eps of the triangle, where eps
 *     bounds those rounding errors: |x' error| <= ~6u (|v - o|_inf),
 *     u = 2^-24 (the sheared coordinate is two roundings of values <= |v - o|,
 *     |sx| <= 1, plus the rounding of v - o and of sx).  The box is grown by
 *     pad = 32u (|o|_inf + |box|_inf) >= 16u |v - o|_inf on every side (the
 *     slack also covers this test's own roundings, each relative to values
 *     <= |o| + |box|), and the line (no [tmin, tmax]) must meet it;
 *  2. the range: t lies in every slab interval [t0, t1] of the grown box on
 *     the axes that bound it, so max t0 <= t <= min t1 over them, and
 *     [max t0, min t1] must meet [tmin, tmax] (rn, rf in the steps below;
 *     rn, a lower bound of every hit's t, is the entry traversals order and
 *     prune by).
 * Why 2 holds.  t is clamped (rp_ref_wt_tplane) into [lo, hi], the
 * intersection of the triangle's kz range [min zk, max zk], zk =
 * sz * (vk[kz] - o[kz]), and, on kx and ky when rp_ref_wt_bounding(rd),
 * the triangle's own slab interval [t0', t1'] (rp_ref_wt_axis): its min
 * and max coordinates for the planes, grown by pad' = rp_ref_wt_pad(ray,
 * |triangle|_inf), by this test's operations.  When lo > hi, t is NaN: no
 * hit.  Otherwise lo <= t <= hi, and for each axis the box's interval holds
 * the triangle's, because every operation is monotonic in every rounding
 * mode, with flush-to-zero (a flushed result keeps its order: tiny values
 * become a zero of their sign, equal to every other zero) and with
 * denormals-are-zero (an input treated as zero keeps its order too, and
 * compares, min and max see the same treated values), and overflow
 * saturates monotonically (to +-inf, or +-FLT_MAX under directed rounding):
 *  - pad' <= pad: |triangle|_inf <= B, then the same add and multiply;
 *  - rd > 0: on = o + pad >= o + pad' = on', box min <= triangle min, so
 *    t0 = (min - on) * rd <= (min' - on') * rd = t0'; of = o - pad <=
 *    of', box max >= triangle max, so t1 >= t1'.  rd < 0: the same with the
 *    planes and the signs swapped (the subtraction is antitone in on and
 *    the multiplication by rd < 0 reverses the order), by the same rd < 0
 *    test;
 *  - kz: the grown box's kz slab holds [min zk, max zk] the same way
 *    (zk is the box's operation with pad 0 and the plane vk[kz]), for any
 *    rd[kz] the box test uses, an infinite one included (times +-inf is
 *    monotonic too; 0 * inf is NaN: a NaN t0 or t1 bounds nothing, and a
 *    NaN zk makes t NaN).
 * On these axes no t0 or t1 is NaN (rd finite and nonzero, a plane finite
 * minus a grown origin finite or infinite), so t0 <= t0' <= lo <= t <= hi
 * <= t1' <= t1, and max t0 <= t <= min t1 (NaN t0 and t1 of other axes
 * are skipped by the max and min, as in rp_ref_slab).  Axes outside the
 * range: rd 0 (flushed), NaN or +-FLT_MAX (saturated) bound nothing at all
 * (as in the line); an infinite rd on kx or ky bounds the line only.  d = 0
 * there gives t0, t1 = -inf, +inf or NaN for a box the line meets, but an
 * rd that overflowed to inf under directed rounding (d ~ 1e-40: 1 / d
 * rounds to inf for a negative d under downward rounding) gives t0 = +inf
 * on a box the ray reaches only at a t beyond FLT_MAX, while t, clamped to
 * the kz range of a saturated rd[kz], can be FLT_MAX; so t is not clamped
 * on such an axis and the range leaves it out.
 * Why the clamp changes nothing for a ray that is not nearly parallel to
 * the triangle: the point p where the line meets the plane is within about
 * eps / sin(angle) of the triangle, so for an angle that is not tiny
 * within eps' << pad' of its slabs, and the plane's t is off by about
 * u |v0 - o| / (distance to the plane along d) + u t, tiny against
 * pad' / |d[k]|; the rounding of t0', t1' is a few u of (|o| + |triangle|)
 * / |d[k]| while the margin is pad' / |d[k]| >= 32u (|o| + |triangle|) /
 * |d[k]|.  So t stays strictly inside [t0', t1'] and t changes only where
 * the plane's t was off by more than pad' / |d[k]| along an axis,
 * i.e. for rays nearly parallel to the triangle (where the plane's t is
 * ill-conditioned anyway).  Why lo <= hi for a hit: the exact line meets
 * the exact triangle within eps (point 1) at some t*: t* lies in the exact
 * kz range and in the exact kx, ky ranges grown by pad' - eps >= 26u
 * (|o| + |triangle|) / |d[k]| on each side, far more than the few u
 * (|o| + |triangle|) / |d[k]| (|d[k]| <= |d[kz]|) by which the computed
 * bounds can move, so the computed lo <= t* <= hi up to those errors and
 * lo <= hi.  This assumes values in the normal range: where the pad or the
 * bounds underflow (a denormal-scale scene) or saturate, the margin can
 * vanish and then lo > hi makes the hit a miss (t NaN), which keeps the box
 * property (no hit) and every variant equal (they compute the same NaN
 * decision), but there the watertight guarantee is not claimed.
 * Growing the box is folded into the origin: the near plane's distance is
 * b - (o + pad), the far plane's b - (o - pad) (signs by rd < 0), so a
 * traversal pays the plain slab's cost with o +- pad made once per ray.
 * NaN slab distances (0 * inf) leave the interval as it is, as in
 * rp_ref_slab.  An invalid ray (NaN rd) or an invalid box is a miss. */
static inline float rp_ref_wt_pad(const rp_ray1 *r, float box_inf) {
    float m = rp_maxf(fabsf(r->ox), fabsf(r->oy));
    m = rp_maxf(fabsf(r->oz), m);
    m = m + box_inf;
    return m * 0x1p-19f; /* 32u */
}

/* The steps of rp_ref_slab_wt, kept for diagnostics (rp_fuzz prints them
 * when the box property fails): grown origins, slab distances, the line's
 * [tn, tf], the kz slab [zn, zf] and the range [rn, rf]: the slab
 * distances of kz and of the kx, ky axes whose rd bounds
 * (rp_ref_wt_bounding), which meets [tmin, tmax]. */
typedef struct rp_slab_wt_steps {
    float on[3], of[3], t0[3], t1[3], tn, tf, zn, zf, rn, rf;
    int line, range, valid_box;
} rp_slab_wt_steps;

static inline int rp_ref_slab_wt_steps(const rp_ray1 *r, const rp_wt_ray *w, const rp_aabb *b,
                                       float pad, rp_slab_wt_steps *st) {
    const float o[3] = {r->ox, r->oy, r->oz};
    const float rd[3] = {r->rdx, r->rdy, r->rdz};
    const float lo[3] = {b->min.x, b->min.y, b->min.z};
    const float hi[3] = {b->max.x, b->max.y, b->max.z};
    float tn = -INFINITY, tf = INFINITY, zn = 0.0f, zf = 0.0f;
    float rn = -INFINITY, rf = INFINITY;
    for (int k = 0; k < 3; k++) {
        st->on[k] = st->of[k] = o[k];
        st->t0[k] = -INFINITY;
        st->t1[k] = INFINITY;
        /* rd = 0 only when flush-to-zero flushed 1 / d of a huge d, and
         * |rd| = FLT_MAX only when directed rounding saturated 1 / d of a
         * tiny d (whose true value is larger, so that every distance times
         * it would be too small): no bound from that axis */
        if (rd[k] == 0.0f || fabsf(rd[k]) == 0x1.fffffep+127f) {
            if (k == w->kz) {
                zn = -INFINITY;
                zf = INFINITY;
            }
            continue;
        }
        int neg = rd[k] < 0.0f;
        float on = neg ? o[k] - pad : o[k] + pad;
        float of = neg ? o[k] + pad : o[k] - pad;
        float t0 = (neg ? hi[k] : lo[k]) - on;
        t0 = t0 * rd[k];
        float t1 = (neg ? lo[k] : hi[k]) - of;
        t1 = t1 * rd[k];
        st->on[k] = on;
        st->of[k] = of;
        st->t0[k] = t0;
        st->t1[k] = t1;
        tn = rp_maxf(t0, tn);
        tf = rp_minf(t1, tf);
        if (k == w->kz) {
            zn = t0;
            zf = t1;
        }
        /* the range: kz as it is (an infinite rd included: t's kz clamp
         * is made with the same rd), the other two where t is clamped to
         * their slab (rp_ref_wt_tplane); a NaN bounds nothing */
        if (k == w->kz || rp_ref_wt_bounding(rd[k])) {
            rn = rp_maxf(t0, rn);
            rf = rp_minf(t1, rf);
        }
    }
    st->tn = tn;
    st->tf = tf;
    st->zn = zn;
    st->zf = zf;
    st->rn = rn;
    st->rf = rf;
    /* An overflowing slab distance is FLT_MAX, not inf, under directed
     * rounding (downward for a positive one, upward for a negative one,
     * toward zero for both), while an infinite rd gives a true inf on
     * another axis: FLT_MAX then stands for any value up to inf, so tf ==
     * FLT_MAX or tn == -FLT_MAX bounds nothing (rp_check --fpenv=downward
     * found a ray with d ~ 1e-42 whose tf = FLT_MAX < tn = inf rejected a
     * box holding a hit at t = inf). */
    st->line = (tn <= tf) | (tf == 0x1.fffffep+127f) | (tn == -0x1.fffffep+127f);
    st->range = !(rn > r->tmax) & !(rf < r->tmin);
    st->valid_box = rp_ref_box_valid(b);
    return st->line & st->range & (r->rdx == r->rdx) & st->valid_box;
}

/* *entry: the range's entry (rn), a lower bound of the t of every
 * watertight hit inside the box, by which a traversal orders and prunes. */
static inline int rp_ref_slab_wt_entry(const rp_ray1 *r, const rp_wt_ray *w, const rp_aabb *b,
                                       float pad, float *entry) {
    rp_slab_wt_steps st;
    int h = rp_ref_slab_wt_steps(r, w, b, pad, &st);
    *entry = st.rn;
    return h;
}

static inline int rp_ref_slab_wt(const rp_ray1 *r, const rp_wt_ray *w, const rp_aabb *b,
                                 float pad) {
    float entry;
    return rp_ref_slab_wt_entry(r, w, b, pad, &entry);
}

/* The scene layer's condition on a Moller-Trumbore hit (docs/SEMANTICS.md,
 * "Scenes"): t is a number and the box test above passes for the
 * triangle's own float bounding box on the interval [t, t].  The box test
 * is monotonic in the box and in the interval, so then every node box that
 * holds the triangle passes on every [tmin, best] that holds t, and with
 * an entry not above t: a traversal in any order visits the triangle while
 * its hit can still win.  A hit outside its triangle's padded box (a ray
 * nearly parallel to the triangle's plane) fails, and the scene drops it
 * in every traversal alike, rather than find it or not by visit order.
 * The box: each axis' minimum and maximum of the three vertices (the
 * build's own, up to the sign of a zero, which no comparison sees). */
static inline int rp_ref_mt_in_box(const rp_ray1 *r, const rp_wt_ray *w, const rp_triangle *tri,
                                   float pad, float t) {
    rp_aabb b = {{rp_minf(rp_minf(tri->v0.x, tri->v1.x), tri->v2.x),
                  rp_minf(rp_minf(tri->v0.y, tri->v1.y), tri->v2.y),
                  rp_minf(rp_minf(tri->v0.z, tri->v1.z), tri->v2.z)},
                 {rp_maxf(rp_maxf(tri->v0.x, tri->v1.x), tri->v2.x),
                  rp_maxf(rp_maxf(tri->v0.y, tri->v1.y), tri->v2.y),
                  rp_maxf(rp_maxf(tri->v0.z, tri->v1.z), tri->v2.z)}};
    rp_ray1 q = *r;
    q.tmin = q.tmax = t;
    return (t == t) && rp_ref_slab_wt(&q, w, &b, pad);
}

/* Ray/sphere (seed 004) with the half-b quadratic: b = dot(d, oc),
 * c = dot(oc, oc) - r*r, disc = b*b - a*c.  t is the near root
 * (-b - sqrt(disc)) / a, or the far root when the near one is below tmin
 * (origin inside the sphere).  Candidate iff disc >= 0, radius >= 0 and
 * the ray is valid; the caller then checks t against [tmin, tmax]. */
static inline int rp_ref_sphere(const rp_ray1 *r, const rp_sphere *s, float *t_out) {
    float ocx = r->ox - s->center.x;
    float ocy = r->oy - s->center.y;
    float ocz = r->oz - s->center.z;
    float x, y;
    x = r->dx * r->dx; y = r->dy * r->dy; float a = x + y;
    x = r->dz * r->dz; a = a + x;
    x = r->dx * ocx; y = r->dy * ocy; float b = x + y;
    x = r->dz * ocz; b = b + x;
    x = ocx * ocx; y = ocy * ocy; float c = x + y;
    x = ocz * ocz; c = c + x;
    float rr = s->radius * s->radius;
    c = c - rr;
    float bb = b * b;
    float ac = a * c;
    float disc = bb - ac;
    int candidate = (disc >= 0.0f) & (s->radius >= 0.0f) & (r->rdx == r->rdx);
    float sq = sqrtf(disc);
    float nb = -b;
    float t0 = nb - sq;
    t0 = t0 / a;
    float t1 = nb + sq;
    t1 = t1 / a;
    *t_out = t0 >= r->tmin ? t0 : t1;
    return candidate;
}

/* Ray/plane (seed 004): t = (d_plane - dot(n, o)) / dot(n, d); candidate
 * iff dot(n, d) != 0 (no epsilon: only an exactly parallel ray misses) and
 * the ray is valid. */
static inline int rp_ref_plane(const rp_ray1 *r, const rp_plane *p, float *t_out) {
    float x, y;
    x = p->n.x * r->dx; y = p->n.y * r->dy; float denom = x + y;
    x = p->n.z * r->dz; denom = denom + x;
    x = p->n.x * r->ox; y = p->n.y * r->oy; float no = x + y;
    x = p->n.z * r->oz; no = no + x;
    float num = p->d - no;
    *t_out = num / denom;
    return (denom != 0.0f) & (r->rdx == r->rdx);
}

/* The closest-hit acceptance rule shared by every closest kernel: t within
 * [tmin, best] and, when the record already holds a hit, strictly nearer
 * (so ties keep the lower index). */
static inline int rp_ref_accept(float t, float tmin, float best, int has) {
    return (t >= tmin) & (t <= best) & ((t < best) | !has);
}

#endif
