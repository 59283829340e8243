/*
 * autovec.c - the "autovec" baseline: what the compiler makes of the scalar
 * reference without hand-written intrinsics.  The per-pair code is the
 * reference itself (src/scalar/ref.h: rp_ref_slab, rp_ref_tri_eval, the
 * same operations in the same order, so the results are bit-identical);
 * the loops are the reference's loops of src/scalar/kernels.c copied with
 * one change that any performance-minded author would make: primitives
 * outside, rays inside, so that the inner loop runs over the structure-of-
 * arrays ray batch with no loop-carried dependence and GCC/Clang can
 * vectorise it by if-conversion (the reference's rays-outside order carries
 * the running best through the inner loop and does not vectorise).
 * Built as its own static library once per x86 ISA the variants use, -O3
 * and the variant's own flags: -msse4.1 (rpb_run_autovec_sse41, the
 * "autovec-sse41" rows), -mavx2 (rpb_run_autovec, "autovec") and the
 * AVX-512 variant's -mavx512f -mavx512vl -mavx512dq -mavx512bw with
 * -mprefer-vector-width=512 (rpb_run_autovec_avx512, "autovec-avx512"), so
 * that each variant meets the compiler at its own width.  No -mfma: the
 * project forbids contraction (-ffp-contract=off), and the results must
 * stay the reference's.
 */
#if defined(RPB_AUTOVEC_SSE41)
#if !defined(__SSE4_1__) || defined(__AVX__)
#error "autovec.c with RPB_AUTOVEC_SSE41 is meant to be built with -msse4.1 (bench/meson.build)"
#endif
#define RPB_AUTOVEC_FN rpb_run_autovec_sse41
#elif defined(RPB_AUTOVEC_AVX512)
#if !defined(__AVX512F__)
#error "autovec.c with RPB_AUTOVEC_AVX512 is meant to be built with -mavx512f (bench/meson.build)"
#endif
#define RPB_AUTOVEC_FN rpb_run_autovec_avx512
#else
#if !defined(__AVX2__) || defined(__AVX512F__)
#error "autovec.c is meant to be built with -mavx2 (see bench/meson.build)"
#endif
#define RPB_AUTOVEC_FN rpb_run_autovec
#endif

#include <string.h>

#include "bench.h"
/* the plain C min/max, as a compiler sees them (see ref.h) */
#define RP_REF_PORTABLE_MINMAX 1
#include "scalar/ref.h"

/* rays x one box, as rp_intersect_aabb */
static void slab_stream(const rp_rays *restrict rr, const rp_aabb *box, size_t n,
                        uint8_t *restrict hit, float *restrict tnear,
                        float *restrict tfar) {
    const float *restrict ox = rr->ox, *restrict oy = rr->oy, *restrict oz = rr->oz;
    const float *restrict rdx = rr->rdx, *restrict rdy = rr->rdy, *restrict rdz = rr->rdz;
    const float *restrict tmin = rr->tmin, *restrict tmax = rr->tmax;
    const rp_aabb b = *box;
    for (size_t i = 0; i < n; i++) {
        rp_ray1 r;
        r.ox = ox[i]; r.oy = oy[i]; r.oz = oz[i];
        r.rdx = rdx[i]; r.rdy = rdy[i]; r.rdz = rdz[i];
        r.tmin = tmin[i]; r.tmax = tmax[i];
        r.dx = r.dy = r.dz = 0.0f; /* unused by the slab test */
        float tn, tf;
        hit[i] = (uint8_t)rp_ref_slab(&r, &b, &tn, &tf);
        tnear[i] = tn;
        tfar[i] = tf;
    }
}

static void closest_aabb(rp_rays *restrict rr, const rp_aabb *boxes, size_t count,
                         rp_hits *restrict h) {
    size_t n = rr->n;
    const float *restrict ox = rr->ox, *restrict oy = rr->oy, *restrict oz = rr->oz;
    const float *restrict rdx = rr->rdx, *restrict rdy = rr->rdy, *restrict rdz = rr->rdz;
    const float *restrict tmin = rr->tmin;
    float *restrict tmax = rr->tmax;
    uint32_t *restrict prim = h->prim;
    for (size_t j = 0; j < count; j++) {
        const rp_aabb b = boxes[j];
        for (size_t i = 0; i < n; i++) {
            rp_ray1 r;
            r.ox = ox[i]; r.oy = oy[i]; r.oz = oz[i];
            r.rdx = rdx[i]; r.rdy = rdy[i]; r.rdz = rdz[i];
            r.tmin = tmin[i]; r.tmax = tmax[i];
            r.dx = r.dy = r.dz = 0.0f;
            int has = prim[i] != RP_NO_HIT;
            float tn, tf;
            int hit = rp_ref_slab(&r, &b, &tn, &tf);
            int take = hit & ((tn < r.tmax) | !has);
            tmax[i] = take ? tn : r.tmax;
            prim[i] = take ? (uint32_t)j : prim[i];
        }
    }
    for (size_t i = 0; i < n; i++)
        if (prim[i] != RP_NO_HIT) {
            h->t[i] = tmax[i];
            h->u[i] = h->v[i] = 0.0f;
        }
}

/* One triangle against rays 0 .. n-1, closest hit.  A function of its own,
 * not inlined, so that the restrict qualifiers are on parameters where GCC
 * 12 honours them: with block-scope restrict pointers (or once inlined) it
 * wants more than 10 run-time alias checks for this loop and gives up. */
__attribute__((noinline)) static void tri_closest_row(size_t n, const float *restrict ox, const float *restrict oy,
                            const float *restrict oz, const float *restrict dx,
                            const float *restrict dy, const float *restrict dz,
                            const float *restrict rdx, const float *restrict tmin,
                            const rp_triangle *restrict trip, uint32_t j, float *restrict tmax,
                            uint32_t *restrict prim, float *restrict buu, float *restrict bvv,
                            float *restrict bdet) {
    const rp_triangle tri = *trip;
    for (size_t i = 0; i < n; i++) {
        rp_ray1 r;
        r.ox = ox[i]; r.oy = oy[i]; r.oz = oz[i];
        r.dx = dx[i]; r.dy = dy[i]; r.dz = dz[i];
        r.rdx = rdx[i]; r.rdy = r.rdz = 0.0f;
        r.tmin = tmin[i]; r.tmax = tmax[i];
        rp_tri_eval e = rp_ref_tri_eval(&r, &tri, 0);
        float t = rp_ref_tri_t(&e); /* divided for every lane: no branch */
        int has = prim[i] != RP_NO_HIT;
        int take = e.candidate & rp_ref_accept(t, r.tmin, r.tmax, has);
        tmax[i] = take ? t : r.tmax;
        prim[i] = take ? j : prim[i];
        buu[i] = take ? e.uu : buu[i];
        bvv[i] = take ? e.vv : bvv[i];
        bdet[i] = take ? e.det : bdet[i];
    }
}

/* Closest (occluded == NULL) or any hit (occluded != NULL) triangle; the
 * best det/uu/vv are kept per ray so that u, v are divided once at the end,
 * as in the reference. */
static void triangles(rp_rays *restrict rr, const rp_triangle *tris, size_t count,
                      rp_hits *restrict h, uint8_t *restrict occluded) {
    size_t n = rr->n;
    const float *restrict ox = rr->ox, *restrict oy = rr->oy, *restrict oz = rr->oz;
    const float *restrict dx = rr->dx, *restrict dy = rr->dy, *restrict dz = rr->dz;
    const float *restrict rdx = rr->rdx;
    const float *restrict tmin = rr->tmin;
    float *restrict tmax = rr->tmax;
    uint32_t *restrict prim = h->prim;
    /* h->u, h->v and h->t hold the best uu, vv and det until the end */
    float *restrict buu = h->u, *restrict bvv = h->v, *restrict bdet = h->t;
    /* two loops, not one with a branch on occluded inside: GCC 12 does not
     * unswitch it and then refuses the loop ("control flow in loop") */
#define LOAD_RAY                                                   \
    rp_ray1 r;                                                     \
    r.ox = ox[i]; r.oy = oy[i]; r.oz = oz[i];                      \
    r.dx = dx[i]; r.dy = dy[i]; r.dz = dz[i];                      \
    r.rdx = rdx[i]; r.rdy = r.rdz = 0.0f;                          \
    r.tmin = tmin[i]; r.tmax = tmax[i]
    if (occluded) {
        for (size_t j = 0; j < count; j++) {
            const rp_triangle tri = tris[j];
            for (size_t i = 0; i < n; i++) {
                LOAD_RAY;
                rp_tri_eval e = rp_ref_tri_eval(&r, &tri, 0);
                float t = rp_ref_tri_t(&e); /* divided for every lane: no branch */
                int occ = e.candidate & (t >= r.tmin) & (t <= r.tmax);
                occluded[i] = occ ? 1 : occluded[i];
            }
        }
        return;
    }
    for (size_t j = 0; j < count; j++)
        tri_closest_row(n, ox, oy, oz, dx, dy, dz, rdx, tmin, &tris[j], (uint32_t)j, tmax, prim,
                        buu, bvv, bdet);
#undef LOAD_RAY
    for (size_t i = 0; i < n; i++)
        if (prim[i] != RP_NO_HIT) {
            rp_tri_eval e;
            e.det = bdet[i];
            e.uu = buu[i];
            e.vv = bvv[i];
            rp_ref_tri_uv(&e, &h->u[i], &h->v[i]);
            h->t[i] = tmax[i];
        }
}

void RPB_AUTOVEC_FN(rpb_work *w) {
    rp_rays *r = &w->rays;
    switch (w->kernel) {
    case RPB_SLAB:
        for (size_t j = 0; j < w->nprims; j++)
            slab_stream(r, &w->boxes[j], w->nrays, w->hit, w->tnear, w->tfar);
        return;
    case RPB_OCCL:
        memset(w->occluded, 0, w->nrays);
        triangles(r, w->tris, w->nprims, &w->hits, w->occluded);
        return;
    default:
        break;
    }
    memcpy(r->tmax, w->tmax0, w->nrays * sizeof(float));
    for (size_t i = 0; i < w->nrays; i++)
        w->hits.prim[i] = RP_NO_HIT;
    if (w->kernel == RPB_AABB)
        closest_aabb(r, w->boxes, w->nprims, &w->hits);
    else if (w->kernel == RPB_TRI)
        triangles(r, w->tris, w->nprims, &w->hits, NULL);
}
