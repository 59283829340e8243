/*
 * kernels.h - the one template of raypack's SIMD kernels: every batch loop of
 * every SIMD variant, written once against a small vector layer that each
 * ISA file (src/sse, src/avx2, src/avx512, src/neon) defines before it
 * includes this file.  Every lane performs exactly the IEEE operations of the
 * scalar reference (src/scalar/ref.h) in the same order, so the variants
 * return the reference's results bit for bit.  Two shapes give the same
 * results: ray packets (W rays per step, each primitive broadcast; used when
 * n >= W) and one ray against W primitives per step (vf_ld_aos: strided
 * gathers or a transposition in registers, the lanes then resolved in
 * index order; used when n < W, e.g. picking).  Partial blocks (of rays or of primitives) go through small
 * zero-padded stack copies, so nothing outside the caller's arrays is ever
 * read or written.  This file contains no intrinsics.
 *
 * The vector layer (static inline functions of the ISA file):
 *   types  vf (W floats), vi (W uint32), vm (a W-lane mask); V_W (= W);
 *          RP_SIMD_ISA (rp_isa value) and RP_SIMD_TABLE (the table's name)
 *   vf     vf_set1, vf_bcast(p) (= vf_set1(*p), a broadcast from memory that
 *          the compiler must not turn into scalar arithmetic where that is
 *          slower), vf_loadu, vf_storeu (4-byte aligned pointers suffice),
 *          vf_add, vf_sub, vf_mul, vf_div, vf_sqrt (correctly rounded),
 *          vf_neg and vf_xorsign(a, s) (sign-bit operations, exact),
 *          vf_min(a, b) = a < b ? a : b, vf_max(a, b) = a > b ? a : b,
 *          vf_lt, vf_le, vf_gt, vf_ge, vf_eq (ordered), vf_neq (true for NaN
 *          like C's !=), vf_nlt(a, b) = !(a < b), vf_ngt(a, b) = !(a > b), vf_select(m, a, b) = m ? a : b, vf_cswap(m, &a, &b)
 *          (swaps a and b in the lanes of m), vf_planes(p, m, &n, &f)
 *          (n = m ? p[3] : p[0], f = m ? p[0] : p[3]; reads p[0..3]),
 *          vf_gather(p, s) = {p[0], p[s], ..., p[(W-1)*s]},
 *          vf_ld_aos(p, nf, out): out[k] = vf_gather(p + k, nf) for k < nf
 *          (W records of nf <= 9 floats; reads exactly W * nf floats)
 *          vp (a per-lane pick index), vp_make(k) (k: a vi of 0..3),
 *          vf_pick(p, k): lane l = p[k_l] (reads p[0..3]; the watertight
 *          test's per-lane axis permutation of a broadcast vertex)
 *   vi     vi_set1, vi_loadu, vi_storeu, vi_eq, vi_select(m, a, b)
 *   vm     m_and, m_or, m_andnot(a, b) = a & ~b, m_any, m_bits (bit k =
 *          lane k), m_lanes(k) (lanes 0..k-1 set, 0 <= k <= W),
 *          m_from_bytes(p) (lane k set iff p[k] != 0, reads W bytes),
 *          m_store01(p, m) (writes W bytes 0 or 1)
 */
#ifndef V_W
#error "src/simd/kernels.h is included by an ISA file after its vector layer"
#endif

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "scalar/ref.h" /* rp_ref_wt_setup, rp_ref_wt_exact: shared with the reference */

#if defined(__GNUC__)
/* the kernels pass the primitive kind as a constant: inlining folds it */
#define RP_INLINE static inline __attribute__((always_inline))
#else
#define RP_INLINE static inline
#endif
#if defined(__GNUC__)
#define RP_NOINLINE __attribute__((noinline, cold))
#else
#define RP_NOINLINE
#endif

/* Primitives are read as arrays of floats: field k of primitive j is
 * ((const float *)prims)[j * K_FLOATS(kind) + k]. */
/* K_TRI: Moller-Trumbore; K_WT: the watertight test (RP_WATERTIGHT). */
enum { K_BOX, K_TRI, K_SPH, K_PLN, K_WT };
#define K_IS_TRI(kind) ((kind) == K_TRI || (kind) == K_WT)
#define K_FLOATS(kind) ((kind) == K_BOX ? 6 : K_IS_TRI(kind) ? 9 : 4)
#define K_MAX_FLOATS 9
_Static_assert(sizeof(rp_aabb) == 6 * sizeof(float), "rp_aabb is 6 floats");
_Static_assert(sizeof(rp_triangle) == 9 * sizeof(float), "rp_triangle is 9 floats");
_Static_assert(sizeof(rp_sphere) == 4 * sizeof(float), "rp_sphere is 4 floats");
_Static_assert(sizeof(rp_plane) == 4 * sizeof(float), "rp_plane is 4 floats");

#define V_ALL ((1u << V_W) - 1u) /* m_bits of a full mask */

/* W rays: a packet, or one ray broadcast to every lane. */
typedef struct vray {
    vf ox, oy, oz, dx, dy, dz, rdx, rdy, rdz, tmin, tmax;
    vm negx, negy, negz; /* rd < 0: the slab's near plane is the max one */
    /* the watertight frame of rp_ref_wt_setup, per lane (NEED_WT): o[kx],
     * o[ky], o[kz], the shear sx, sy, sz, d[kz], and the axes as vf_pick
     * indices (packets) or as ints (one ray in every lane, bc_ray) */
    vf wox, woy, woz, wsx, wsy, wsz, wdkx, wdky, wdkz;
    vp wpx, wpy, wpz;
    vm wz1, wz2; /* packets: |dy| > |dx|; |dz| > both (kz = 1 or 2) */
    int wkx, wky, wkz; /* the axes when uniform (bc_ray, wt_uniform), else -1 */
} vray;

/* W primitives, or one broadcast: f[k] is field k. */
typedef struct vprim {
    vf f[K_MAX_FLOATS];
} vprim;

/* What the division-free part of a test leaves for the t step and for the
 * hit that is kept (triangles keep uu, vv, det for u and v). */
typedef struct veval {
    vf t;
    vf det, uu, vv;     /* triangles */
    vf qx, qy, qz, e2x, e2y, e2z; /* triangles: for tt, on candidate steps only */
    vf a, b, disc;      /* spheres */
    vf num, denom;      /* planes */
    vf wu, wz0, wz1, wz2; /* watertight: U, and v[kz] - o[kz] of the vertices */
} veval;

static inline size_t min_w(size_t left) { return left < V_W ? left : V_W; }

/* ------------------------------------------------------------------ */
/* Loading blocks: a full block straight from the caller's arrays,       */
/* a partial one (m < W lanes) through a zero-padded copy.               */
/* ------------------------------------------------------------------ */

RP_INLINE vf ld_f(const float *a, size_t i, size_t m) {
    if (m == V_W)
        return vf_loadu(a + i);
    float buf[V_W] = {0};
    memcpy(buf, a + i, m * sizeof(float));
    return vf_loadu(buf);
}

RP_INLINE vi ld_prim_index(const uint32_t *a, size_t i, size_t m) {
    if (m == V_W)
        return vi_loadu(a + i);
    uint32_t buf[V_W];
    for (size_t k = 0; k < V_W; k++)
        buf[k] = k < m ? a[i + k] : RP_NO_HIT;
    return vi_loadu(buf);
}

/* Lanes that take part: active[i + k] != 0 (all when NULL) and k < m. */
RP_INLINE vm ld_active(const uint8_t *active, size_t i, size_t m) {
    if (!active)
        return m_lanes(m);
    if (m == V_W)
        return m_from_bytes(active + i);
    uint8_t buf[V_W] = {0};
    memcpy(buf, active + i, m);
    return m_from_bytes(buf);
}

enum { NEED_D = 1, NEED_RD = 2, NEED_WT = 4 }; /* besides o, rdx, tmin, tmax */

/* rp_ref_wt_setup in every lane: kz by |dy| > |dx| then |dz| > that, the
 * components picked by selects, the shear divided (once per packet). */
RP_INLINE void wt_setup_v(vray *v) {
    vf ax = vf_xorsign(v->dx, v->dx), ay = vf_xorsign(v->dy, v->dy);
    vf az = vf_xorsign(v->dz, v->dz);
    vm z1 = vf_gt(ay, ax);
    vm z2 = vf_gt(az, vf_select(z1, ay, ax));
/* the value for kz = 0, 1, 2; kz = 0: (kx, ky) = (1, 2); 1: (2, 0); 2: (0, 1) */
#define RP_WT_PICK(if0, if1, if2) vf_select(z2, if2, vf_select(z1, if1, if0))
    vf dkx = RP_WT_PICK(v->dy, v->dz, v->dx);
    vf dky = RP_WT_PICK(v->dz, v->dx, v->dy);
    vf dkz = RP_WT_PICK(v->dx, v->dy, v->dz);
    v->wox = RP_WT_PICK(v->oy, v->oz, v->ox);
    v->woy = RP_WT_PICK(v->oz, v->ox, v->oy);
    v->woz = RP_WT_PICK(v->ox, v->oy, v->oz);
    v->wsz = RP_WT_PICK(v->rdx, v->rdy, v->rdz);
#undef RP_WT_PICK
    v->wsx = vf_div(dkx, dkz);
    v->wsy = vf_div(dky, dkz);
    v->wdkx = dkx;
    v->wdky = dky;
    v->wdkz = dkz;
    vi i0 = vi_set1(0), i1 = vi_set1(1), i2 = vi_set1(2);
    v->wpx = vp_make(vi_select(z2, i0, vi_select(z1, i2, i1)));
    v->wpy = vp_make(vi_select(z2, i1, vi_select(z1, i0, i2)));
    v->wpz = vp_make(vi_select(z2, i2, vi_select(z1, i1, i0)));
    v->wkx = v->wky = v->wkz = -1;
    v->wz1 = z1;
    v->wz2 = z2;
}

/* When every lane of live has the same kz (camera rays mostly do), the
 * packet's axes become ints (wkx, wky, wkz), and wt_pick reads each
 * vertex component as a broadcast instead of a per-lane pick.  The other
 * lanes take no part, so the frame they are computed in does not matter. */
RP_INLINE void wt_uniform(vray *v, vm live) {
    unsigned l = m_bits(live), b2 = m_bits(v->wz2), b1 = m_bits(v->wz1) & ~b2;
    int kz = (b2 & l) == l ? 2 : (b1 & l) == l ? 1 : ((b1 | b2) & l) == 0 ? 0 : -1;
    if (kz < 0 || !l)
        return;
    v->wkz = kz;
    v->wkx = kz == 2 ? 0 : kz + 1;
    v->wky = v->wkx == 2 ? 0 : v->wkx + 1;
}

RP_INLINE void ld_rays(const rp_rays *r, size_t i, size_t m, unsigned need, vray *v) {
    vf zero = vf_set1(0.0f);
    v->ox = ld_f(r->ox, i, m);
    v->oy = ld_f(r->oy, i, m);
    v->oz = ld_f(r->oz, i, m);
    v->rdx = ld_f(r->rdx, i, m);
    v->tmin = ld_f(r->tmin, i, m);
    v->tmax = ld_f(r->tmax, i, m);
    v->dx = v->dy = v->dz = v->rdy = v->rdz = zero;
    if (need & NEED_D) {
        v->dx = ld_f(r->dx, i, m);
        v->dy = ld_f(r->dy, i, m);
        v->dz = ld_f(r->dz, i, m);
    }
    if (need & NEED_RD) {
        v->rdy = ld_f(r->rdy, i, m);
        v->rdz = ld_f(r->rdz, i, m);
    }
    v->negx = vf_lt(v->rdx, zero);
    v->negy = vf_lt(v->rdy, zero);
    v->negz = vf_lt(v->rdz, zero);
    if (need & NEED_WT)
        wt_setup_v(v);
}

/* Ray i in every lane (with the watertight frame if need has NEED_WT). */
RP_INLINE void bc_ray(const rp_rays *r, size_t i, unsigned need, vray *v) {
    vf zero = vf_set1(0.0f);
    v->ox = vf_set1(r->ox[i]);
    v->oy = vf_set1(r->oy[i]);
    v->oz = vf_set1(r->oz[i]);
    v->dx = vf_set1(r->dx[i]);
    v->dy = vf_set1(r->dy[i]);
    v->dz = vf_set1(r->dz[i]);
    v->rdx = vf_set1(r->rdx[i]);
    v->rdy = vf_set1(r->rdy[i]);
    v->rdz = vf_set1(r->rdz[i]);
    v->tmin = vf_set1(r->tmin[i]);
    v->tmax = vf_set1(r->tmax[i]);
    v->negx = vf_lt(v->rdx, zero);
    v->negy = vf_lt(v->rdy, zero);
    v->negz = vf_lt(v->rdz, zero);
    if (!(need & NEED_WT))
        return;
    /* the watertight frame: the reference's own setup, broadcast */
    rp_ray1 s = {r->ox[i], r->oy[i], r->oz[i], r->dx[i], r->dy[i], r->dz[i],
                 r->rdx[i], r->rdy[i], r->rdz[i], r->tmin[i], r->tmax[i]};
    rp_wt_ray w = rp_ref_wt_setup(&s);
    const float o[3] = {s.ox, s.oy, s.oz};
    v->wox = vf_set1(o[w.kx]);
    v->woy = vf_set1(o[w.ky]);
    v->woz = vf_set1(o[w.kz]);
    v->wsx = vf_set1(w.sx);
    v->wsy = vf_set1(w.sy);
    v->wsz = vf_set1(w.sz);
    const float d[3] = {s.dx, s.dy, s.dz};
    v->wdkx = vf_set1(d[w.kx]);
    v->wdky = vf_set1(d[w.ky]);
    v->wdkz = vf_set1(w.dkz);
    v->wkx = w.kx;
    v->wky = w.ky;
    v->wkz = w.kz;
}

/* One primitive in every lane. */
RP_INLINE void bc_prim(const float *p, int nf, vprim *v) {
    for (int k = 0; k < nf; k++)
        v->f[k] = vf_bcast(p + k);
}

/* Primitives p[0 .. m-1] (m <= W) in lanes 0 .. m-1; returns those lanes. */
RP_INLINE vm ld_prims(const float *p, int nf, size_t m, vprim *v) {
    if (m == V_W) {
        vf_ld_aos(p, nf, v->f);
        return m_lanes(V_W);
    }
    float buf[V_W * K_MAX_FLOATS] = {0};
    memcpy(buf, p, m * (size_t)nf * sizeof(float));
    vf_ld_aos(buf, nf, v->f);
    return m_lanes(m);
}

/* ------------------------------------------------------------------ */
/* The per-lane tests, operation for operation as in ref.h               */
/* ------------------------------------------------------------------ */

/* rp_ref_box_valid of one box */
static inline int box_valid_1(const float *p) {
    int vx = p[0] <= p[3];
    int vy = p[1] <= p[4];
    int vz = p[2] <= p[5];
    return vx & vy & vz;
}

static inline vm box_valid_v(const vprim *b) {
    vm vx = vf_le(b->f[0], b->f[3]);
    vm vy = vf_le(b->f[1], b->f[4]);
    vm vz = vf_le(b->f[2], b->f[5]);
    return m_and(m_and(vx, vy), vz);
}

/* One axis of rp_ref_slab, its planes already chosen: bn near, bf far. */
RP_INLINE void slab_axis_nf(vf o, vf rd, vf bn, vf bf, vf *tn, vf *tf) {
    vf t0 = vf_sub(bn, o);
    t0 = vf_mul(t0, rd);
    vf t1 = vf_sub(bf, o);
    t1 = vf_mul(t1, rd);
    *tn = vf_max(t0, *tn);
    *tf = vf_min(t1, *tf);
}

/* One axis of rp_ref_slab. */
RP_INLINE void slab_axis(vf o, vf rd, vm neg, vf lo, vf hi, vf *tn, vf *tf) {
    vf bn = lo, bf = hi;
    vf_cswap(neg, &bn, &bf);
    slab_axis_nf(o, rd, bn, bf, tn, tf);
}

/* rp_ref_slab of one box (at p: lo x y z, hi x y z) broadcast to every lane,
 * without the ray and box validity: clips [*tn, *tf].  vf_planes picks each
 * lane's near and far plane of an axis straight from the box in memory. */
RP_INLINE vm slab_bc(const vray *r, const float *p, vf *tn, vf *tf) {
    vf bn, bf;
    vf_planes(p, r->negx, &bn, &bf);
    slab_axis_nf(r->ox, r->rdx, bn, bf, tn, tf);
    vf_planes(p + 1, r->negy, &bn, &bf);
    slab_axis_nf(r->oy, r->rdy, bn, bf, tn, tf);
    vf_planes(p + 2, r->negz, &bn, &bf);
    slab_axis_nf(r->oz, r->rdz, bn, bf, tn, tf);
    return vf_le(*tn, *tf);
}

/* rp_ref_slab without the ray and box validity: clips [*tn, *tf].
 * sorted: b's fields are already the near planes (f[0..2]) and the far
 * planes (f[3..5]) of the ray (one ray in every lane: chosen once, in
 * scalar); otherwise each lane chooses by its rd < 0 mask. */
RP_INLINE vm slab(const vray *r, const vprim *b, int sorted, vf *tn, vf *tf) {
    if (sorted) {
        slab_axis_nf(r->ox, r->rdx, b->f[0], b->f[3], tn, tf);
        slab_axis_nf(r->oy, r->rdy, b->f[1], b->f[4], tn, tf);
        slab_axis_nf(r->oz, r->rdz, b->f[2], b->f[5], tn, tf);
    } else {
        slab_axis(r->ox, r->rdx, r->negx, b->f[0], b->f[3], tn, tf);
        slab_axis(r->oy, r->rdy, r->negy, b->f[1], b->f[4], tn, tf);
        slab_axis(r->oz, r->rdz, r->negz, b->f[2], b->f[5], tn, tf);
    }
    return vf_le(*tn, *tf);
}

/* rp_ref_tri_eval without the ray's validity (and, without culling, the
 * det != 0 of tri_late). */
RP_INLINE vm tri_cand(const vray *r, const vprim *p, unsigned flags, veval *e) {
    const vf *f = p->f;
    vf e1x = vf_sub(f[3], f[0]);
    vf e1y = vf_sub(f[4], f[1]);
    vf e1z = vf_sub(f[5], f[2]);
    vf e2x = vf_sub(f[6], f[0]);
    vf e2y = vf_sub(f[7], f[1]);
    vf e2z = vf_sub(f[8], f[2]);
    vf a, b;

    a = vf_mul(r->dy, e2z); b = vf_mul(r->dz, e2y); vf px = vf_sub(a, b);
    a = vf_mul(r->dz, e2x); b = vf_mul(r->dx, e2z); vf py = vf_sub(a, b);
    a = vf_mul(r->dx, e2y); b = vf_mul(r->dy, e2x); vf pz = vf_sub(a, b);
    a = vf_mul(e1x, px); b = vf_mul(e1y, py); vf det = vf_add(a, b);
    a = vf_mul(e1z, pz); det = vf_add(det, a);
    vf sx = vf_sub(r->ox, f[0]);
    vf sy = vf_sub(r->oy, f[1]);
    vf sz = vf_sub(r->oz, f[2]);
    a = vf_mul(sx, px); b = vf_mul(sy, py); vf uu = vf_add(a, b);
    a = vf_mul(sz, pz); uu = vf_add(uu, a);
    a = vf_mul(sy, e1z); b = vf_mul(sz, e1y); vf qx = vf_sub(a, b);
    a = vf_mul(sz, e1x); b = vf_mul(sx, e1z); vf qy = vf_sub(a, b);
    a = vf_mul(sx, e1y); b = vf_mul(sy, e1x); vf qz = vf_sub(a, b);
    a = vf_mul(r->dx, qx); b = vf_mul(r->dy, qy); vf vv = vf_add(a, b);
    a = vf_mul(r->dz, qz); vv = vf_add(vv, a);
    /* tt = dot(e2, q) is needed only for t: tri_t, on candidate steps */

    vf zero = vf_set1(0.0f);
    vf us = vf_xorsign(uu, det);
    vf vs = vf_xorsign(vv, det);
    vf adet = vf_xorsign(det, det);
    vf uvs = vf_add(us, vs);
    vm inside = m_and(m_and(vf_ge(us, zero), vf_ge(vs, zero)), vf_le(uvs, adet));
    /* without culling, det != 0 is checked by tri_late, on candidate steps
     * only: a det of 0 passes the inside test only with uu = vv = 0 */
    vm usable = (flags & RP_CULL_BACKFACE) ? vf_gt(det, zero) : m_lanes(V_W);
    e->det = det;
    e->uu = uu;
    e->vv = vv;
    e->qx = qx;
    e->qy = qy;
    e->qz = qz;
    e->e2x = e2x;
    e->e2y = e2y;
    e->e2z = e2z;
    return m_and(inside, usable);
}

/* t = tt / det of rp_ref_tri_eval / rp_ref_tri_t, with tt = dot(e2, q). */
RP_INLINE vf tri_t(const veval *e) {
    vf a = vf_mul(e->e2x, e->qx);
    vf b = vf_mul(e->e2y, e->qy);
    vf tt = vf_add(a, b);
    a = vf_mul(e->e2z, e->qz);
    tt = vf_add(tt, a);
    return vf_div(tt, e->det);
}

/* rp_ref_sphere up to the candidate decision. */
RP_INLINE vm sphere_cand(const vray *r, const vprim *p, veval *e) {
    const vf *f = p->f;
    vf ocx = vf_sub(r->ox, f[0]);
    vf ocy = vf_sub(r->oy, f[1]);
    vf ocz = vf_sub(r->oz, f[2]);
    vf x, y;
    x = vf_mul(r->dx, r->dx); y = vf_mul(r->dy, r->dy); vf a = vf_add(x, y);
    x = vf_mul(r->dz, r->dz); a = vf_add(a, x);
    x = vf_mul(r->dx, ocx); y = vf_mul(r->dy, ocy); vf b = vf_add(x, y);
    x = vf_mul(r->dz, ocz); b = vf_add(b, x);
    x = vf_mul(ocx, ocx); y = vf_mul(ocy, ocy); vf c = vf_add(x, y);
    x = vf_mul(ocz, ocz); c = vf_add(c, x);
    vf rr = vf_mul(f[3], f[3]);
    c = vf_sub(c, rr);
    vf bb = vf_mul(b, b);
    vf ac = vf_mul(a, c);
    vf disc = vf_sub(bb, ac);
    vf zero = vf_set1(0.0f);
    e->a = a;
    e->b = b;
    e->disc = disc;
    return m_and(vf_ge(disc, zero), vf_ge(f[3], zero));
}

/* rp_ref_plane up to the candidate decision. */
RP_INLINE vm plane_cand(const vray *r, const vprim *p, veval *e) {
    const vf *f = p->f;
    vf x, y;
    x = vf_mul(f[0], r->dx); y = vf_mul(f[1], r->dy); vf denom = vf_add(x, y);
    x = vf_mul(f[2], r->dz); denom = vf_add(denom, x);
    x = vf_mul(f[0], r->ox); y = vf_mul(f[1], r->oy); vf no = vf_add(x, y);
    x = vf_mul(f[2], r->oz); no = vf_add(no, x);
    e->num = vf_sub(f[3], no);
    e->denom = denom;
    return vf_neq(denom, vf_set1(0.0f));
}

/* The lanes of bits: rp_ref_wt_exact, lane by lane (rare: an edge function
 * 0 or NaN in float); in[k] = its inside decision.  xy: the sheared ax, ay,
 * bx, by, cx, cy. */
static RP_NOINLINE void wt_exact_lanes(unsigned bits, float xy[6][V_W], float *u, float *v,
                                       float *w, uint8_t *in) {
    for (int k = 0; k < V_W; k++)
        in[k] = ((bits >> k) & 1u) &&
                rp_ref_wt_exact(xy[0][k], xy[1][k], xy[2][k], xy[3][k], xy[4][k], xy[5][k],
                                &u[k], &v[k], &w[k]);
}

/* The lanes where an edge function is 0 or NaN (rp_ref_wt_undecided). */
RP_INLINE vm wt_undecided(const veval *e) {
    vf zero = vf_set1(0.0f);
    vm du = m_or(vf_lt(e->wu, zero), vf_gt(e->wu, zero));
    vm dv = m_or(vf_lt(e->uu, zero), vf_gt(e->uu, zero));
    vm dw = m_or(vf_lt(e->vv, zero), vf_gt(e->vv, zero));
    return m_andnot(m_lanes(V_W), m_and(m_and(du, dv), dw));
}

/* The vertices of a triangle (9 floats at p) in the ray's frame, lane by
 * lane: v[3k + 0, 1, 2] = vertex k's kx, ky and kz components.  Packets:
 * vf_pick of each lane's axis, which reads 4 floats, so p[9] too: the
 * caller passes a padded copy for the last triangle of the array. */
RP_INLINE void wt_pick(const vray *r, const float *p, vf *v) {
    if (r->wkx >= 0) { /* one frame for the packet: broadcasts */
        for (int k = 0; k < 3; k++) {
            v[3 * k + 0] = vf_bcast(p + 3 * k + r->wkx);
            v[3 * k + 1] = vf_bcast(p + 3 * k + r->wky);
            v[3 * k + 2] = vf_bcast(p + 3 * k + r->wkz);
        }
        return;
    }
    for (int k = 0; k < 3; k++) {
        v[3 * k + 0] = vf_pick(p + 3 * k, r->wpx);
        v[3 * k + 1] = vf_pick(p + 3 * k, r->wpy);
        v[3 * k + 2] = vf_pick(p + 3 * k, r->wpz);
    }
}
/* wt_pick of one frame (r->wkx >= 0) from a triangle whose 9 floats lie
 * stride floats apart (a scene's leaf block). */
RP_INLINE void wt_pick_strided(const vray *r, const float *p, int stride, vf *v) {
    for (int k = 0; k < 3; k++) {
        v[3 * k + 0] = vf_bcast(p + stride * (3 * k + r->wkx));
        v[3 * k + 1] = vf_bcast(p + stride * (3 * k + r->wky));
        v[3 * k + 2] = vf_bcast(p + stride * (3 * k + r->wkz));
    }
}
/* One ray in every lane (bc_ray): the axes are ints, so the fields of W
 * triangles (f, from ld_prims) are just renamed. */
RP_INLINE void wt_permute(const vray *r, const vprim *f, vprim *out) {
    for (int k = 0; k < 3; k++) {
        out->f[3 * k + 0] = f->f[3 * k + r->wkx];
        out->f[3 * k + 1] = f->f[3 * k + r->wky];
        out->f[3 * k + 2] = f->f[3 * k + r->wkz];
    }
}

/* The inside test of U, V, W on float values (NaN is neither): the
 * reference's for lanes where no edge function is 0 or NaN. */
RP_INLINE vm wt_inside(const veval *e) {
    vf zero = vf_set1(0.0f);
    vm neg = m_and(m_and(vf_le(e->wu, zero), vf_le(e->uu, zero)), vf_le(e->vv, zero));
    vm pos = m_and(m_and(vf_ge(e->wu, zero), vf_ge(e->uu, zero)), vf_ge(e->vv, zero));
    return m_or(neg, pos);
}

/* rp_ref_wt_eval up to the inside decision, the vertices already in the
 * ray's frame (wt_pick / wt_permute).  Without exact (the hot path): the
 * float edge functions only, and the lanes that may be candidates: not
 * (some edge function < 0 and some > 0).  A nonzero float edge function
 * that is not NaN has the exact sign even when a product overflows
 * (rounding is monotonic), so the double recomputation of the reference
 * can turn such a lane into a candidate only if a zero or a NaN makes it
 * look undecided here; tri_late then decides exactly, on those rare steps.
 * With exact: as the reference, returning the lanes inside. */
RP_INLINE vm wt_cand(const vray *r, const vprim *p, veval *e, int exact) {
    const vf *f = p->f;
    vf xy[6], z[3], a;
    for (int k = 0; k < 3; k++) { /* rp_ref_wt_vertex */
        vf qx = vf_sub(f[3 * k + 0], r->wox);
        vf qy = vf_sub(f[3 * k + 1], r->woy);
        z[k] = vf_sub(f[3 * k + 2], r->woz);
        a = vf_mul(r->wsx, z[k]);
        xy[2 * k] = vf_sub(qx, a);
        a = vf_mul(r->wsy, z[k]);
        xy[2 * k + 1] = vf_sub(qy, a);
    }
    const vf ax = xy[0], ay = xy[1], bx = xy[2], by = xy[3], cx = xy[4], cy = xy[5];
    vf b;
    a = vf_mul(cx, by); b = vf_mul(cy, bx); vf u = vf_sub(a, b);
    a = vf_mul(ax, cy); b = vf_mul(ay, cx); vf v = vf_sub(a, b);
    a = vf_mul(bx, ay); b = vf_mul(by, ax); vf w = vf_sub(a, b);
    e->wu = u;
    e->uu = v; /* u = V / det, v = W / det, as Moller-Trumbore's uu, vv */
    e->vv = w;
    e->wz0 = z[0];
    e->wz1 = z[1];
    e->wz2 = z[2];
    vf zero = vf_set1(0.0f);
    if (!exact) { /* none < 0 or none > 0 (NaN is neither): ANDs of compares,
                   * which AVX-512 fuses into masked compares */
        vm pos = m_and(m_and(vf_nlt(u, zero), vf_nlt(v, zero)), vf_nlt(w, zero));
        vm neg = m_and(m_and(vf_ngt(u, zero), vf_ngt(v, zero)), vf_ngt(w, zero));
        return m_or(pos, neg);
    }
    /* the reference's decision: float signs where all three decide, the
     * exact one (rp_ref_wt_exact) in the other lanes */
    vm in = wt_inside(e);
    vm und = wt_undecided(e);
    if (m_any(und)) {
        float xs[6][V_W], us[V_W], vs[V_W], ws[V_W];
        uint8_t ib[V_W];
        for (int k = 0; k < 6; k++)
            vf_storeu(xs[k], xy[k]);
        vf_storeu(us, u);
        vf_storeu(vs, v);
        vf_storeu(ws, w);
        wt_exact_lanes(m_bits(und), xs, us, vs, ws, ib);
        e->wu = vf_loadu(us);
        e->uu = vf_loadu(vs);
        e->vv = vf_loadu(ws);
        in = m_or(m_andnot(in, und), m_and(m_from_bytes(ib), und));
    }
    return in;
}


/* The division-free part of a test of any kind: the candidate lanes
 * (before the ray's validity, the box's validity and the lane masks).
 * best is the running best t: the slab clips against it as the reference
 * does.  sorted: see slab. */
RP_INLINE vm test_cand(int kind, const vray *r, const vprim *p, vf best, unsigned flags,
                       int sorted, veval *e) {
    if (kind == K_BOX) {
        vf tn = r->tmin;
        vf tf = best;
        vm h = slab(r, p, sorted, &tn, &tf);
        e->t = tn;
        return h;
    }
    if (kind == K_TRI)
        return tri_cand(r, p, flags, e);
    if (kind == K_WT)
        return wt_cand(r, p, e, 0);
    if (kind == K_SPH)
        return sphere_cand(r, p, e);
    return plane_cand(r, p, e);
}

/* The rest of rp_ref_wt_eval and rp_ref_wt_t on the inside lanes c: det
 * (rp_ref_wt_detf), the last tests (rp_ref_wt_usable) and t, the plane's
 * intersection clamped to the kz range (rp_ref_wt_tplane), operation for
 * operation; pv: the vertices in the ray's frame.  Returns the candidates,
 * sets e->t. */
/* n of W triangles in the ray's frame, lane by lane (rp_ref_wt_normal);
 * f: their vertex components in that frame. */
static RP_NOINLINE void wt_normal_lanes(unsigned bits, float f[9][V_W], float n[3][V_W]) {
    for (int k = 0; k < V_W; k++) {
        float v[9], nn[3] = {0.0f, 0.0f, 0.0f};
        if ((bits >> k) & 1u) {
            for (int i = 0; i < 9; i++)
                v[i] = f[i][k];
            rp_ref_wt_normal(v, nn);
        }
        for (int i = 0; i < 3; i++)
            n[i][k] = nn[i];
    }
}

/* p: the triangle (world frame) in every lane (packets; pv, its vertices in
 * the lanes' frames, may then be NULL), or NULL: then the lanes' triangles
 * are those of pv (one ray, W triangles). */
RP_INLINE vm wt_finish(unsigned flags, const vray *r, const float *p, const vprim *pv, vm c,
                       vf best, veval *e) {
    vf zero = vf_set1(0.0f);
    vf det = vf_add(e->wu, e->uu);
    det = vf_add(det, e->vv);
    c = m_and(c, (flags & RP_CULL_BACKFACE) ? vf_gt(vf_xorsign(det, r->wdkz), zero)
                                            : vf_neq(det, zero));
    /* t will be clamped to [lo, hi] (rp_ref_wt_tplane, the same operations):
     * a lane with lo > best or hi < tmin cannot be accepted, so the plane's
     * t is computed only where some lane can (the lanes dropped here would
     * be rejected by the acceptance anyway) */
    vf z0 = vf_mul(r->wsz, e->wz0), z1 = vf_mul(r->wsz, e->wz1), z2 = vf_mul(r->wsz, e->wz2);
    vf lo = vf_min(z1, z0), hi = vf_max(z1, z0);
    lo = vf_min(z2, lo);
    hi = vf_max(z2, hi);
    c = m_andnot(c, m_or(vf_gt(lo, best), vf_lt(hi, r->tmin)));
    if (!m_any(c)) {
        e->t = zero;
        return c;
    }
    vf n[3];
    if (p) { /* one normal, in each lane's frame */
        float nw[12] = {0.0f}; /* wt_pick reads three "vertices" */
        rp_ref_wt_normal(p, nw);
        vprim np;
        wt_pick(r, nw, np.f); /* the first one is n */
        n[0] = np.f[0];
        n[1] = np.f[1];
        n[2] = np.f[2];
    } else {
        float f[9][V_W], nl[3][V_W];
        for (int i = 0; i < 9; i++)
            vf_storeu(f[i], pv->f[i]);
        wt_normal_lanes(m_bits(c), f, nl);
        for (int i = 0; i < 3; i++)
            n[i] = vf_loadu(nl[i]);
    }
    vf v[3]; /* v0 in the lanes' frames */
    if (pv) {
        v[0] = pv->f[0];
        v[1] = pv->f[1];
        v[2] = pv->f[2];
    } else {
        vprim v0;
        float v0p[12] = {p[0], p[1], p[2]}; /* wt_pick reads three "vertices" */
        wt_pick(r, v0p, v0.f);
        v[0] = v0.f[0];
        v[1] = v0.f[1];
        v[2] = v0.f[2];
    }
    const vf o[3] = {r->wox, r->woy, r->woz};
    const vf d[3] = {r->wdkx, r->wdky, r->wdkz};
    vf q[3], a, b;
    for (int k = 0; k < 3; k++)
        q[k] = vf_sub(v[k], o[k]);
    a = vf_mul(n[0], q[0]); b = vf_mul(n[1], q[1]); vf num = vf_add(a, b);
    a = vf_mul(n[2], q[2]); num = vf_add(num, a);
    a = vf_mul(n[0], d[0]); b = vf_mul(n[1], d[1]); vf den = vf_add(a, b);
    a = vf_mul(n[2], d[2]); den = vf_add(den, a);
    vf t = vf_div(num, den);
    t = vf_max(t, lo);
    e->t = vf_min(t, hi);
    return c;
}

/* u = V / det and v = W / det of the kept watertight hits (upd), in double
 * (rp_ref_wt_bary), from U, V, W. */
static RP_NOINLINE void wt_bary_lanes(unsigned bits, float *wu, float *wv, float *ww) {
    for (int k = 0; k < V_W; k++) {
        if (!((bits >> k) & 1u))
            continue;
        double det = rp_ref_wt_det(wu[k], wv[k], ww[k]);
        wv[k] = rp_ref_wt_bary(wv[k], det);
        ww[k] = rp_ref_wt_bary(ww[k], det);
    }
}

/* The rest of a triangle's candidate decision (see tri_cand, wt_cand), on
 * the steps where c (test_cand's candidates) has a lane: the lanes that stay
 * candidates.  Watertight: the exact edge functions where an inside lane has
 * a zero one (the vertices again: f, or picked anew from p when f is NULL,
 * which keeps them out of registers on the hot path), then det and culling. */
RP_INLINE vm tri_late(int kind, unsigned flags, const vray *r, const float *p,
                      const vprim *f, vm c, vf best, veval *e) {
    vf zero = vf_set1(0.0f);
    if (kind == K_WT) {
        vprim pv;
        if (m_any(m_and(c, wt_undecided(e)))) {
            if (!f) {
                wt_pick(r, p, pv.f);
                f = &pv;
            }
            c = m_and(c, wt_cand(r, f, e, 1));
        } else {
            c = m_and(c, wt_inside(e)); /* every lane of c decided in float */
        }
        if (!m_any(c)) {
            e->t = zero;
            return c;
        }
        return wt_finish(flags, r, p, f, c, best, e);
    }
    return (flags & RP_CULL_BACKFACE) ? c : m_and(c, vf_neq(e->det, zero));
}

/* t of the candidates c (the divisions; called only when a lane is one;
 * lanes outside c get some t). */
RP_INLINE void test_t(int kind, const vray *r, vm c, veval *e) {
    if (kind == K_TRI) {
        e->t = tri_t(e);
    } else if (kind == K_WT) {
        /* t: wt_finish, with the decision */
    } else if (kind == K_SPH) {
        vf sq = vf_sqrt(e->disc);
        vf nb = vf_neg(e->b);
        vf t0 = vf_sub(nb, sq);
        t0 = vf_div(t0, e->a);
        vm near = vf_ge(t0, r->tmin);
        e->t = t0;
        /* the far root only where a candidate's near one is below tmin
         * (origin inside the sphere, or the sphere behind the ray): a
         * division less on most steps */
        if (m_any(m_andnot(c, near))) {
            vf t1 = vf_add(nb, sq);
            t1 = vf_div(t1, e->a);
            e->t = vf_select(near, t0, t1);
        }
    } else if (kind == K_PLN) {
        e->t = vf_div(e->num, e->denom);
    }
}

/* ------------------------------------------------------------------ */
/* Closest hit                                                           */
/* ------------------------------------------------------------------ */

/* Writes the new hits of a packet: every lane of upd has one.  A full block
 * whose lanes are all active is stored as whole vectors (the lanes without a
 * new hit rewrite the values just loaded, bit for bit); otherwise lane by
 * lane, only where the reference writes. */
RP_INLINE void put_hits(rp_rays *rays, rp_hits *hits, size_t i, size_t m, vm act, vm upd,
                        vf best, vi prim, vf u, vf v) {
    unsigned bits = m_bits(upd);
    if (m == V_W && m_bits(act) == V_ALL) {
        vf_storeu(rays->tmax + i, best);
        vf_storeu(hits->t + i, vf_select(upd, best, vf_loadu(hits->t + i)));
        vf_storeu(hits->u + i, vf_select(upd, u, vf_loadu(hits->u + i)));
        vf_storeu(hits->v + i, vf_select(upd, v, vf_loadu(hits->v + i)));
        vi_storeu(hits->prim + i, prim);
        return;
    }
    float tb[V_W], ub[V_W], vb[V_W];
    uint32_t pb[V_W];
    vf_storeu(tb, best);
    vf_storeu(ub, u);
    vf_storeu(vb, v);
    vi_storeu(pb, prim);
    for (size_t k = 0; k < m; k++) {
        if (!((bits >> k) & 1u))
            continue;
        rays->tmax[i + k] = tb[k];
        hits->t[i + k] = tb[k];
        hits->u[i + k] = ub[k];
        hits->v[i + k] = vb[k];
        hits->prim[i + k] = pb[k];
    }
}

/* Rays i .. i+m-1 against every primitive, one broadcast primitive per
 * step; the running best of each lane stays in registers.  Per lane this is
 * the reference's loop: same tests, same order, same acceptance.  Lanes
 * that do not take part (inactive, invalid ray, padding) start with a NaN
 * best, which no test accepts (t <= NaN is false, and the slab's
 * tf = min(t1, NaN) stays NaN), so no per-test lane mask is needed. */
RP_INLINE void closest_packet(int kind, rp_rays *rays, const uint8_t *active,
                              const float *prims, size_t count, uint32_t base,
                              unsigned flags, rp_hits *hits, size_t i, size_t m) {
    const int nf = K_FLOATS(kind);
    vray r;
    ld_rays(rays, i, m,
            kind == K_BOX ? NEED_RD : kind == K_WT ? NEED_D | NEED_RD | NEED_WT : NEED_D, &r);
    vm act = ld_active(active, i, m);
    vm live = m_and(act, vf_eq(r.rdx, r.rdx)); /* an invalid ray hits nothing */
    if (!m_any(live))
        return;
    if (kind == K_WT)
        wt_uniform(&r, live);
    vi prim = ld_prim_index(hits->prim, i, m);
    vm nothas = vi_eq(prim, vi_set1(RP_NO_HIT));
    vf best = vf_select(live, r.tmax, vf_set1(NAN));
    vm upd = m_lanes(0);
    vf zero = vf_set1(0.0f);
    vf buu = zero, bvv = zero, bdet = vf_set1(1.0f);
    /* the last triangle, padded: vf_pick reads one float past a triangle */
    float last[12] = {0};
    if (kind == K_WT)
        memcpy(last, prims + (count - 1) * 9, 9 * sizeof(float));

    for (size_t j = 0; j < count; j++) {
        const float *p = prims + j * (size_t)nf;
        vprim pv;
        veval e;
        vm c;
        if (kind == K_BOX) {
            vf tn = r.tmin, tf = best;
            c = slab_bc(&r, p, &tn, &tf);
            e.t = tn;
        } else if (kind == K_WT) {
            wt_pick(&r, j + 1 < count ? p : last, pv.f);
            c = m_and(wt_cand(&r, &pv, &e, 0), live); /* a NaN lane is undecided there */
        } else {
            bc_prim(p, nf, &pv);
            c = test_cand(kind, &r, &pv, best, flags, 0, &e);
        }
        vm acc;
        if (kind == K_BOX) {
            /* most steps miss in every lane: test that first, with the
             * fewest vector operations (the slab and one compare); the
             * broadcast box's validity (uniform across the lanes) and the
             * acceptance are then computed on the rare steps that hit.
             * (Vector compares of the broadcasts, not scalar ones: the
             * compiler would hoist scalar compares into the hot path and
             * broadcast the fields from registers rather than memory.) */
            if (!m_any(c))
                continue;
            bc_prim(p, nf, &pv);
            c = m_and(c, box_valid_v(&pv));
            /* tmin <= tn <= best already holds for a slab hit */
            acc = m_and(c, m_or(vf_lt(e.t, best), nothas));
        } else {
            if (!m_any(c))
                continue;
            if (K_IS_TRI(kind))
                c = tri_late(kind, flags, &r, j + 1 < count ? p : last, NULL, c, best, &e);
            test_t(kind, &r, c, &e);
            /* rp_ref_accept */
            acc = m_and(m_and(c, vf_ge(e.t, r.tmin)), vf_le(e.t, best));
            acc = m_and(acc, m_or(vf_lt(e.t, best), nothas));
        }
        /* acceptances are rare after the first few primitives */
        if (!m_any(acc))
            continue;
        best = vf_select(acc, e.t, best);
        nothas = m_andnot(nothas, acc);
        upd = m_or(upd, acc);
        prim = vi_select(acc, vi_set1(base + (uint32_t)j), prim);
        if (K_IS_TRI(kind)) { /* watertight: U in bdet (det is rp_ref_wt_det) */
            buu = vf_select(acc, e.uu, buu);
            bvv = vf_select(acc, e.vv, bvv);
            bdet = vf_select(acc, kind == K_WT ? e.wu : e.det, bdet);
        }
    }
    if (!m_any(upd))
        return;
    vf u = zero, v = zero;
    if (kind == K_TRI) { /* rp_ref_tri_uv, for the kept hits only */
        u = vf_div(buu, bdet);
        v = vf_div(bvv, bdet);
    } else if (kind == K_WT) { /* rp_ref_wt_uv */
        float wu[V_W], wv[V_W], ww[V_W];
        vf_storeu(wu, bdet);
        vf_storeu(wv, buu);
        vf_storeu(ww, bvv);
        wt_bary_lanes(m_bits(upd), wu, wv, ww);
        u = vf_loadu(wv);
        v = vf_loadu(ww);
    }
    put_hits(rays, hits, i, m, act, upd, vf_select(upd, best, r.tmax), prim, u, v);
}

/* Active ray i against W primitives per step.  The lanes are tested against
 * the best t at the start of the step; those that pass are resolved in index
 * order with the reference's scalar acceptance, which is exact because the
 * best only decreases (a slab hit clipped by the older, larger best still
 * needs tn <= best, which the scalar check adds). */
RP_INLINE void closest_across(int kind, rp_rays *rays, const float *prims, size_t count,
                              uint32_t base, unsigned flags, rp_hits *hits, size_t i) {
    const int nf = K_FLOATS(kind);
    float rdx = rays->rdx[i];
    if (!(rdx == rdx)) /* an invalid ray hits nothing */
        return;
    vray r;
    bc_ray(rays, i, kind == K_WT ? NEED_WT : 0, &r);
    float best = rays->tmax[i];
    int has = hits->prim[i] != RP_NO_HIT;
    size_t best_j = SIZE_MAX;
    float buu = 0.0f, bvv = 0.0f, bdet = 1.0f;

    /* boxes: one ray in every lane, so each axis' near and far planes are
     * chosen once per step by the ray's sign (the reference's rd < 0), by
     * swapping whole vectors instead of 6 per-lane selects */
    const int negx = rays->rdx[i] < 0.0f;
    const int negy = rays->rdy[i] < 0.0f;
    const int negz = rays->rdz[i] < 0.0f;

    for (size_t j = 0; j < count; j += V_W) {
        vprim pv, nv;
        veval e;
        vm lanes = ld_prims(prims + j * (size_t)nf, nf, min_w(count - j), &pv);
        vf vbest = vf_set1(best);
        const vprim *tp = &pv;
        if (kind == K_WT) {
            wt_permute(&r, &pv, &nv);
            tp = &nv;
        } else if (kind == K_BOX) {
            nv.f[0] = negx ? pv.f[3] : pv.f[0];
            nv.f[3] = negx ? pv.f[0] : pv.f[3];
            nv.f[1] = negy ? pv.f[4] : pv.f[1];
            nv.f[4] = negy ? pv.f[1] : pv.f[4];
            nv.f[2] = negz ? pv.f[5] : pv.f[2];
            nv.f[5] = negz ? pv.f[2] : pv.f[5];
            tp = &nv;
        }
        vm c = m_and(test_cand(kind, &r, tp, vbest, flags, 1, &e), lanes);
        if (!m_any(c))
            continue;
        if (kind == K_BOX) /* the boxes' validity, on the steps that hit */
            c = m_and(c, box_valid_v(&pv));
        if (K_IS_TRI(kind))
            c = tri_late(kind, flags, &r, NULL, tp, c, vbest, &e);
        test_t(kind, &r, c, &e);
        vm acc = m_and(m_and(c, vf_ge(e.t, r.tmin)), vf_le(e.t, vbest));
        unsigned bits = m_bits(acc);
        if (!bits)
            continue;
        float tb[V_W], ub[V_W], vb[V_W], db[V_W];
        vf_storeu(tb, e.t);
        if (K_IS_TRI(kind)) { /* watertight: U in db */
            vf_storeu(ub, e.uu);
            vf_storeu(vb, e.vv);
            vf_storeu(db, kind == K_WT ? e.wu : e.det);
        }
        for (size_t k = 0; k < V_W; k++) {
            if (!((bits >> k) & 1u))
                continue;
            float t = tb[k];
            if ((t <= best) & ((t < best) | !has)) {
                best = t;
                has = 1;
                best_j = j + k;
                if (K_IS_TRI(kind)) {
                    buu = ub[k];
                    bvv = vb[k];
                    bdet = db[k];
                }
            }
        }
    }
    if (best_j == SIZE_MAX)
        return;
    rays->tmax[i] = best;
    hits->t[i] = best;
    float u = 0.0f, v = 0.0f;
    if (kind == K_TRI) {
        u = buu / bdet;
        v = bvv / bdet;
    } else if (kind == K_WT) { /* rp_ref_wt_uv, U in bdet */
        double det = rp_ref_wt_det(bdet, buu, bvv);
        u = rp_ref_wt_bary(buu, det);
        v = rp_ref_wt_bary(bvv, det);
    }
    hits->u[i] = u;
    hits->v[i] = v;
    hits->prim[i] = base + (uint32_t)best_j;
}

RP_INLINE void closest(int kind, rp_rays *rays, const uint8_t *active, const void *prims,
                       size_t count, uint32_t base, unsigned flags, rp_hits *hits) {
    const float *pf = (const float *)prims;
    size_t n = rays->n;
    if (n < V_W) {
        for (size_t i = 0; i < n; i++)
            if (!active || active[i])
                closest_across(kind, rays, pf, count, base, flags, hits, i);
        return;
    }
    for (size_t i = 0; i < n; i += V_W)
        closest_packet(kind, rays, active, pf, count, base, flags, hits, i, min_w(n - i));
}

/* ------------------------------------------------------------------ */
/* The kernels                                                           */
/* ------------------------------------------------------------------ */

static void intersect_aabb(const rp_rays *rays, const uint8_t *active, const rp_aabb *box,
                           uint8_t *hit, float *tnear, float *tfar) {
    const float *bp = (const float *)box;
    vprim b;
    bc_prim(bp, 6, &b);
    vm box_ok = m_lanes(box_valid_1(bp) ? V_W : 0);
    for (size_t i = 0; i < rays->n; i += V_W) {
        size_t m = min_w(rays->n - i);
        vray r;
        ld_rays(rays, i, m, NEED_RD, &r);
        vm act = ld_active(active, i, m);
        unsigned abits = m_bits(act);
        if (!abits)
            continue;
        vf tn = r.tmin, tf = r.tmax;
        vm h = slab(&r, &b, 0, &tn, &tf);
        h = m_and(m_and(h, vf_eq(r.rdx, r.rdx)), box_ok);
        if (m == V_W && abits == V_ALL) {
            m_store01(hit + i, h);
            if (tnear)
                vf_storeu(tnear + i, tn);
            if (tfar)
                vf_storeu(tfar + i, tf);
            continue;
        }
        uint8_t hb[V_W];
        float nb[V_W], fb[V_W];
        m_store01(hb, h);
        vf_storeu(nb, tn);
        vf_storeu(fb, tf);
        for (size_t k = 0; k < m; k++) {
            if (!((abits >> k) & 1u))
                continue;
            hit[i + k] = hb[k];
            if (tnear)
                tnear[i + k] = nb[k];
            if (tfar)
                tfar[i + k] = fb[k];
        }
    }
}

static void closest_aabb(rp_rays *rays, const uint8_t *active, const rp_aabb *boxes,
                         size_t count, uint32_t base, rp_hits *hits) {
    closest(K_BOX, rays, active, boxes, count, base, 0, hits);
}

/* The triangle kernels are instantiated per flags value (a constant after
 * inlining), so the choice of test and culling costs nothing per step. */
static void closest_triangle(rp_rays *rays, const uint8_t *active, const rp_triangle *tris,
                             size_t count, uint32_t base, unsigned flags, rp_hits *hits) {
    const int kind = (flags & RP_WATERTIGHT) ? K_WT : K_TRI;
    if (kind == K_WT && (flags & RP_CULL_BACKFACE))
        closest(K_WT, rays, active, tris, count, base, RP_CULL_BACKFACE, hits);
    else if (kind == K_WT)
        closest(K_WT, rays, active, tris, count, base, 0, hits);
    else if (flags & RP_CULL_BACKFACE)
        closest(K_TRI, rays, active, tris, count, base, RP_CULL_BACKFACE, hits);
    else
        closest(K_TRI, rays, active, tris, count, base, 0, hits);
}

static void closest_sphere(rp_rays *rays, const uint8_t *active, const rp_sphere *spheres,
                           size_t count, uint32_t base, rp_hits *hits) {
    closest(K_SPH, rays, active, spheres, count, base, 0, hits);
}

static void closest_plane(rp_rays *rays, const uint8_t *active, const rp_plane *planes,
                          size_t count, uint32_t base, rp_hits *hits) {
    closest(K_PLN, rays, active, planes, count, base, 0, hits);
}

/* Any hit: lanes leave the packet as soon as they are occluded, and the
 * packet stops when none is left.  Writes only 1s. */
RP_INLINE void occluded_packet(int kind, const rp_rays *rays, const uint8_t *active,
                               const float *tris, size_t count, unsigned flags, uint8_t *occluded,
                               size_t i, size_t m) {
    vray r;
    ld_rays(rays, i, m, kind == K_WT ? NEED_D | NEED_RD | NEED_WT : NEED_D, &r);
    vm todo = m_and(ld_active(active, i, m), vf_eq(r.rdx, r.rdx));
    vm occ = m_lanes(0);
    if (kind == K_WT)
        wt_uniform(&r, todo);
    float last[12] = {0}; /* as in closest_packet */
    if (kind == K_WT)
        memcpy(last, tris + (count - 1) * 9, 9 * sizeof(float));
    for (size_t j = 0; j < count && m_any(todo); j++) {
        vprim pv;
        veval e;
        vm c;
        if (kind == K_WT) {
            wt_pick(&r, j + 1 < count ? tris + j * 9 : last, pv.f);
            c = wt_cand(&r, &pv, &e, 0);
        } else {
            bc_prim(tris + j * 9, 9, &pv);
            c = tri_cand(&r, &pv, flags, &e);
        }
        c = m_and(c, todo);
        if (!m_any(c))
            continue;
        c = tri_late(kind, flags, &r, j + 1 < count ? tris + j * 9 : last, NULL, c, r.tmax, &e);
        test_t(kind, &r, c, &e);
        vm h = m_and(m_and(c, vf_ge(e.t, r.tmin)), vf_le(e.t, r.tmax));
        occ = m_or(occ, h);
        todo = m_andnot(todo, h);
    }
    unsigned bits = m_bits(occ);
    for (size_t k = 0; k < m; k++)
        if ((bits >> k) & 1u)
            occluded[i + k] = 1;
}

RP_INLINE void occluded_across(int kind, const rp_rays *rays, const float *tris, size_t count,
                               unsigned flags, uint8_t *occluded, size_t i) {
    float rdx = rays->rdx[i];
    if (!(rdx == rdx))
        return;
    vray r;
    bc_ray(rays, i, kind == K_WT ? NEED_WT : 0, &r);
    for (size_t j = 0; j < count; j += V_W) {
        vprim pv, nv;
        veval e;
        vm lanes = ld_prims(tris + j * 9, 9, min_w(count - j), &pv);
        vm c;
        if (kind == K_WT) {
            wt_permute(&r, &pv, &nv);
            c = wt_cand(&r, &nv, &e, 0);
        } else {
            c = tri_cand(&r, &pv, flags, &e);
        }
        c = m_and(c, lanes);
        if (!m_any(c))
            continue;
        c = tri_late(kind, flags, &r, NULL, &nv, c, r.tmax, &e);
        test_t(kind, &r, c, &e);
        vm h = m_and(m_and(c, vf_ge(e.t, r.tmin)), vf_le(e.t, r.tmax));
        if (m_any(h)) {
            occluded[i] = 1;
            return;
        }
    }
}

RP_INLINE void occluded(int kind, const rp_rays *rays, const uint8_t *active,
                        const rp_triangle *tris, size_t count, unsigned flags,
                        uint8_t *occluded) {
    const float *tf = (const float *)tris;
    size_t n = rays->n;
    if (n < V_W) {
        for (size_t i = 0; i < n; i++)
            if (!active || active[i])
                occluded_across(kind, rays, tf, count, flags, occluded, i);
        return;
    }
    for (size_t i = 0; i < n; i += V_W)
        occluded_packet(kind, rays, active, tf, count, flags, occluded, i, min_w(n - i));
}

static void occluded_triangle(const rp_rays *rays, const uint8_t *active, const rp_triangle *tris,
                              size_t count, unsigned flags, uint8_t *occluded_out) {
    const int kind = (flags & RP_WATERTIGHT) ? K_WT : K_TRI;
    if (kind == K_WT && (flags & RP_CULL_BACKFACE))
        occluded(K_WT, rays, active, tris, count, RP_CULL_BACKFACE, occluded_out);
    else if (kind == K_WT)
        occluded(K_WT, rays, active, tris, count, 0, occluded_out);
    else if (flags & RP_CULL_BACKFACE)
        occluded(K_TRI, rays, active, tris, count, RP_CULL_BACKFACE, occluded_out);
    else
        occluded(K_TRI, rays, active, tris, count, 0, occluded_out);
}

/* The scene traversal, over the steps above. */
#include "scene/traverse_simd.h"

const rp_kernels RP_SIMD_TABLE = {
    RP_SIMD_ISA,       intersect_aabb, closest_aabb,  closest_triangle,
    occluded_triangle, closest_sphere, closest_plane, scene_closest,
    scene_occluded,
};
