/*
 * block.h - part 1 of the SIMD template (src/simd/kernels.h), what the other
 * parts are built on: the primitive kinds K_* and their layout as floats,
 * the lane types vray (W rays, or one ray broadcast, with the watertight
 * frame), vprim (W primitives, or one broadcast) and veval (what the
 * division-free part of a test leaves for its t step), and the loading of
 * blocks: rays (ld_rays, bc_ray; the watertight frame by wt_setup_v and
 * wt_uniform), primitives (ld_prims, bc_prim), active masks and primitive
 * indices (ld_active, ld_prim_index).  Relies on the ISA file's vector layer
 * (listed in kernels.h) and on src/scalar/ref.h (rp_ref_wt_setup); it also
 * takes the headers and defines RP_INLINE / RP_NOINLINE for every part.
 */

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

/* The triangle kernels' four instances by flags (suffix, kind, flags: the
 * test and the culling), listed once for closest.h's and occluded.h's
 * noinline instances (X), and their table indexed [watertight][cull]
 * (RP_TRI_FLAGS_TABLE(prefix)), an instance picked from such a table by
 * RP_TRI_FLAGS_OF. */
#define RP_TRI_FLAGS(X)                                                                           \
    X(mt, K_TRI, 0)                                                                               \
    X(mt_cull, K_TRI, RP_CULL_BACKFACE)                                                           \
    X(wt, K_WT, 0)                                                                                \
    X(wt_cull, K_WT, RP_CULL_BACKFACE)
#define RP_TRI_FLAGS_TABLE(p) {{p##mt, p##mt_cull}, {p##wt, p##wt_cull}}
#define RP_TRI_FLAGS_OF(table, flags)                                                             \
    ((table)[((flags) & RP_WATERTIGHT) != 0][((flags) & RP_CULL_BACKFACE) != 0])
_Static_assert(sizeof(rp_aabb) == 6 * sizeof(float), "rp_aabb is 6 floats");
_Static_assert(sizeof(rp_triangle) == 9 * sizeof(float), "rp_triangle is 9 floats");
_Static_assert(sizeof(rp_sphere) == 4 * sizeof(float), "rp_sphere is 4 floats");
_Static_assert(sizeof(rp_plane) == 4 * sizeof(float), "rp_plane is 4 floats");

#define V_ALL ((1u << V_W) - 1u) /* m_bits of a full mask */

/* Triangles with their edges prepared (Moller-Trumbore, K_TRI): an internal
 * flag bit, never a public one (the API refuses unknown bits before a kernel
 * runs).  The 9 floats of each triangle are then v0, e1 = v1 - v0 and
 * e2 = v2 - v0 (tri_edges): the reference's own edge values, computed once
 * per call instead of once per packet step (6 of the step's 53 vector
 * operations).  The brute-force loops prepare RP_EDGE_CHUNK triangles at a
 * time on the stack and run every packet over them, the next chunk
 * continuing from the records the last one wrote, as consecutive calls
 * would. */
#define RP_I_EDGES 0x100u
#define RP_EDGE_CHUNK 128 /* 4.5 KB of stack */
/* From 3 packets on: the preparation costs about 5 cycles per triangle (9
 * stores), each packet then saves 6 vector operations, 2 to 3 cycles. */
#define RP_EDGE_RAYS (3 * V_W)
_Static_assert(!(RP_I_EDGES & (RP_CULL_BACKFACE | RP_WATERTIGHT | RP_COHERENT | RP_INCOHERENT)),
               "RP_I_EDGES is not a public flag");

/* dst: the chunk of triangles tris[j ..] (at most RP_EDGE_CHUNK, up to
 * count) as v0, e1, e2 (the reference's subtractions); returns its size. */
RP_INLINE size_t tri_edges(const float *restrict tris, size_t count, size_t j,
                           float *restrict dst) {
    size_t c = count - j < RP_EDGE_CHUNK ? count - j : RP_EDGE_CHUNK;
    const float *src = tris + j * 9;
    for (size_t k = 0; k < c; k++, src += 9, dst += 9)
        for (int q = 0; q < 3; q++) {
            dst[q] = src[q];
            dst[3 + q] = src[3 + q] - src[q];
            dst[6 + q] = src[6 + q] - src[q];
        }
    return c;
}

/* W rays: a packet, or one ray broadcast to every lane. */
typedef struct vray {
    vf ox, oy, oz, dx, dy, dz, rdx, rdy, rdz, tmin, tmax;
    vm negx, negy, negz; /* rd < 0: the slab's near plane is the max one */
    /* the watertight frame of rp_ref_wt_setup, per lane (NEED_WT): o[kx],
     * o[ky], o[kz], the shear sx, sy, sz, d[kz], and the axes as vf_pick
     * indices (packets) or as ints (one ray in every lane, bc_ray) */
    vf wox, woy, woz, wsx, wsy, wsz, wdkx, wdky, wdkz;
    vf wrdkx, wrdky; /* rd[kx], rd[ky] (rp_ref_wt_tplane's clamp) */
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

/* The shape of a call of n rays and count primitives: one ray against W
 * primitives per step (the "across" loops) or packets of W rays against one
 * primitive per step.  Packets need n >= W where a partial block costs a
 * copy (no masked loads); with masked loads, whichever takes fewer vector
 * steps, packets on a tie (no transposition, no per-ray scalar
 * resolution): 8 rays x 8 triangles in 16 lanes is 8 packet steps, as
 * many as across, without 8 transpositions. */
static inline int use_across(size_t n, size_t count) {
#ifdef RP_V_MASKED_F
    return (n + V_W - 1) / V_W * count > n * ((count + V_W - 1) / V_W);
#else
    (void)count;
    return n < V_W;
#endif
}

/* ------------------------------------------------------------------ */
/* Loading blocks: a full block straight from the caller's arrays, a     */
/* partial one (m < W lanes) by the ISA's masked loads where it has them */
/* (RP_V_MASKED_F: floats and uint32; RP_V_MASKED_B: bytes), else lane  */
/* by lane through a small buffer; either way no byte past lane m - 1.  */
/* ------------------------------------------------------------------ */

#ifndef RP_V_MASKED_F
/* lanes 0 .. m-1 of p, the others 0 (m < W) */
RP_INLINE vf vf_loadu_n(const float *p, size_t m) {
    float buf[V_W];
    for (size_t k = 0; k < V_W; k++)
        buf[k] = k < m ? p[k] : 0.0f;
    return vf_loadu(buf);
}
/* lanes 0 .. m-1 of p, the others fill */
RP_INLINE vi vi_loadu_n(const uint32_t *p, size_t m, uint32_t fill) {
    uint32_t buf[V_W];
    for (size_t k = 0; k < V_W; k++)
        buf[k] = k < m ? p[k] : fill;
    return vi_loadu(buf);
}
/* the lanes of msk only */
RP_INLINE void vf_storeu_mask(float *p, vm msk, vf a) {
    float buf[V_W];
    unsigned bits = m_bits(msk);
    vf_storeu(buf, a);
    for (size_t k = 0; k < V_W; k++)
        if ((bits >> k) & 1u)
            p[k] = buf[k];
}
RP_INLINE void vi_storeu_mask(uint32_t *p, vm msk, vi a) {
    uint32_t buf[V_W];
    unsigned bits = m_bits(msk);
    vi_storeu(buf, a);
    for (size_t k = 0; k < V_W; k++)
        if ((bits >> k) & 1u)
            p[k] = buf[k];
}
#endif
#ifndef RP_V_MASKED_B
/* lane k set iff p[k] != 0, for k < m (m < W) */
RP_INLINE vm m_from_bytes_n(const uint8_t *p, size_t m) {
    uint8_t buf[V_W];
    for (size_t k = 0; k < V_W; k++)
        buf[k] = k < m ? p[k] : 0;
    return m_from_bytes(buf);
}
/* the bytes of the lanes of sel: 1 where val, else 0 */
RP_INLINE void m_store01_mask(uint8_t *p, vm sel, vm val) {
    unsigned s = m_bits(sel), v = m_bits(val);
    for (size_t k = 0; k < V_W; k++)
        if ((s >> k) & 1u)
            p[k] = (uint8_t)((v >> k) & 1u);
}
#endif

RP_INLINE vf ld_f(const float *a, size_t i, size_t m) {
    return m == V_W ? vf_loadu(a + i) : vf_loadu_n(a + i, m);
}

RP_INLINE vi ld_prim_index(const uint32_t *a, size_t i, size_t m) {
    return m == V_W ? vi_loadu(a + i) : vi_loadu_n(a + i, m, RP_NO_HIT);
}

/* Lanes that take part: active[i + k] != 0 (all when NULL) and k < m. */
RP_INLINE vm ld_active(const uint8_t *active, size_t i, size_t m) {
    if (!active)
        return m_lanes(m);
    return m == V_W ? m_from_bytes(active + i) : m_from_bytes_n(active + i, m);
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
    v->wrdkx = RP_WT_PICK(v->rdy, v->rdz, v->rdx);
    v->wrdky = RP_WT_PICK(v->rdz, v->rdx, v->rdy);
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
    const float rd[3] = {s.rdx, s.rdy, s.rdz};
    v->wrdkx = vf_set1(rd[w.kx]);
    v->wrdky = vf_set1(rd[w.ky]);
    v->wkx = w.kx;
    v->wky = w.ky;
    v->wkz = w.kz;
}

/* One primitive in every lane. */
RP_INLINE void bc_prim(const float *p, int nf, vprim *v) {
    for (int k = 0; k < nf; k++)
        v->f[k] = vf_bcast(p + k);
}

/* Primitives p[0 .. m-1] (m <= W) in lanes 0 .. m-1 (the others zero,
 * nothing past p[m - 1] read); returns those lanes. */
RP_INLINE vm ld_prims(const float *p, int nf, size_t m, vprim *v) {
    if (m == V_W) {
        vf_ld_aos(p, nf, V_W, v->f);
        return m_lanes(V_W);
    }
    vf_ld_aos(p, nf, m, v->f);
    return m_lanes(m);
}
