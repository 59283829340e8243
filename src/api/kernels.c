/*
 * kernels.c - the batch kernels' entry points (rp_intersect_aabb,
 * rp_closest_aabb / _triangle / _sphere / _plane, rp_occluded_triangle):
 * each builds its call's argument list (check.h), lets the inlined fast
 * path pass it in O(1) or rp_check_args (check.c) give the exact status,
 * and then forwards to the active variant's kernel (src/dispatch.c).  On any
 * status but RP_OK nothing is written.  Two lists per entry point: one for
 * batches still laid out by the allocators (a few block ranges stand for
 * the arrays, known valid since allocation) and one array by array.
 */
#include "check.h"

/* The table a call runs: the active variant's, except for one ray against
 * one primitive, which runs the reference's loop (the same results by
 * definition): a single test has nothing to fill a vector's lanes with,
 * and a vector step's setup (loading or broadcasting the ray, the
 * record's transposition, resolving the lanes) measured slower than the
 * scalar test at every x86 width (call/<variant>/1x1, issue 13). */
static inline const rp_kernels *kernels_for(size_t n, size_t count) {
    return n == 1 && count == 1 ? &rp_kernels_scalar : rp_kernels_active();
}

/* The closest-hit kernels' list: rays (tmax written), active, primitives,
 * records. */
#define ARGS_CLOSEST (ARGS_RAYS + 1 + ARGS_PRIMS + ARGS_HITS)
static inline void args_closest(const rp_rays *rays, const uint8_t *active, const void *prims,
                                size_t count, size_t elem, uint32_t base, const rp_hits *hits,
                                rp_arg *a) {
    args_rays(rays, RP_ARG_OUT, a);
    a[ARGS_RAYS] = arg(active, rays->n, RP_ARG_IN | RP_ARG_OPT);
    args_prims(prims, count, elem, base, 1, a + ARGS_RAYS + 1);
    args_hits(hits, rays->n, RP_ARG_OUT, a + ARGS_RAYS + 1 + ARGS_PRIMS);
}

static RP_COLD rp_status check_closest_exact(const rp_rays *rays, const uint8_t *active,
                                             const void *prims, size_t count, size_t elem,
                                             uint32_t base, const rp_hits *hits) {
    rp_arg a[ARGS_CLOSEST];
    args_closest(rays, active, prims, count, elem, base, hits, a);
    return rp_check_args(a, ARGS_CLOSEST);
}

RP_ALWAYS_INLINE rp_status check_closest(const rp_rays *rays, const uint8_t *active,
                                         const void *prims, size_t count, size_t elem,
                                         uint32_t base, const rp_hits *hits) {
    if (!rays)
        return RP_ERR_NULL;
    if (hits && rays_canonical(rays) && hits_canonical(hits)) {
        /* both from the allocators: the records' t, u, v, prim are one
         * range of their block, in that order */
        rp_arg a[ARGS_RAYS_BLOCK + 1 + ARGS_PRIMS + 2];
        args_rays_block(rays, RP_ARG_OUT, a);
        a[ARGS_RAYS_BLOCK] = arg(active, rays->n, RP_ARG_IN | RP_ARG_OPT);
        args_prims(prims, count, elem, base, 1, a + ARGS_RAYS_BLOCK + 1);
        a[ARGS_RAYS_BLOCK + 1 + ARGS_PRIMS] =
            arg_status(hits->n != rays->n ? RP_ERR_SIZE_MISMATCH : RP_OK);
        a[ARGS_RAYS_BLOCK + 2 + ARGS_PRIMS] = arg(hits->t, rp_padded(hits->n) * 16, RP_ARG_OUT);
        if (args_fast(a, sizeof a / sizeof a[0]))
            return RP_OK;
    } else {
        rp_arg a[ARGS_CLOSEST];
        args_closest(rays, active, prims, count, elem, base, hits, a);
        if (args_fast(a, ARGS_CLOSEST))
            return RP_OK;
    }
    return check_closest_exact(rays, active, prims, count, elem, base, hits);
}

#define ARGS_INTERSECT (ARGS_RAYS + 5)
static inline void args_intersect_tail(const rp_rays *rays, const uint8_t *active,
                                       const rp_aabb *box, const uint8_t *hit,
                                       const float *tnear, const float *tfar, rp_arg *a) {
    size_t n = rays->n;
    a[0] = arg(active, n, RP_ARG_IN | RP_ARG_OPT);
    /* hit before box: a NULL one is reported before a misaligned box */
    a[1] = arg(hit, n, RP_ARG_OUT);
    a[2] = arg(box, n ? sizeof *box : 0, RP_ARG_IN | RP_ARG_ALIGN);
    a[3] = arg(tnear, n * 4, RP_ARG_OUT | RP_ARG_OPT | RP_ARG_ALIGN);
    a[4] = arg(tfar, n * 4, RP_ARG_OUT | RP_ARG_OPT | RP_ARG_ALIGN);
}

static RP_COLD rp_status check_intersect_exact(const rp_rays *rays, const uint8_t *active,
                                               const rp_aabb *box, const uint8_t *hit,
                                               const float *tnear, const float *tfar) {
    rp_arg a[ARGS_INTERSECT];
    args_rays(rays, RP_ARG_IN, a);
    args_intersect_tail(rays, active, box, hit, tnear, tfar, a + ARGS_RAYS);
    return rp_check_args(a, ARGS_INTERSECT);
}

rp_status rp_intersect_aabb(const rp_rays *rays, const uint8_t *active,
                            const rp_aabb *box, uint8_t *hit, float *tnear,
                            float *tfar) {
    if (!rays)
        return RP_ERR_NULL;
    int ok;
    if (rays_canonical(rays)) {
        rp_arg a[ARGS_RAYS_BLOCK + 5];
        args_rays_block(rays, RP_ARG_IN, a);
        args_intersect_tail(rays, active, box, hit, tnear, tfar, a + ARGS_RAYS_BLOCK);
        ok = args_fast(a, ARGS_RAYS_BLOCK + 5);
    } else {
        rp_arg a[ARGS_INTERSECT];
        args_rays(rays, RP_ARG_IN, a);
        args_intersect_tail(rays, active, box, hit, tnear, tfar, a + ARGS_RAYS);
        ok = args_fast(a, ARGS_INTERSECT);
    }
    rp_status s = ok ? RP_OK : check_intersect_exact(rays, active, box, hit, tnear, tfar);
    if (!s && rays->n)
        kernels_for(rays->n, 1)->intersect_aabb(rays, active, box, hit, tnear, tfar);
    return s;
}

rp_status rp_closest_aabb(rp_rays *rays, const uint8_t *active,
                          const rp_aabb *boxes, size_t count,
                          uint32_t index_base, rp_hits *hits) {
    rp_status s = check_closest(rays, active, boxes, count, sizeof *boxes, index_base, hits);
    if (!s && rays->n && count)
        kernels_for(rays->n, count)->closest_aabb(rays, active, boxes, count, index_base, hits);
    return s;
}

rp_status rp_closest_triangle(rp_rays *rays, const uint8_t *active,
                              const rp_triangle *tris, size_t count,
                              uint32_t index_base, unsigned flags,
                              rp_hits *hits) {
    rp_status s = check_closest(rays, active, tris, count, sizeof *tris, index_base, hits);
    if (!s && (flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT)))
        s = RP_ERR_INVALID;
    if (!s && rays->n && count)
        kernels_for(rays->n, count)->closest_triangle(rays, active, tris, count, index_base, flags, hits);
    return s;
}

#define ARGS_OCCLUDED (ARGS_RAYS + 1 + ARGS_PRIMS + 2)
static inline void args_occluded_tail(const rp_rays *rays, const uint8_t *active,
                                      const rp_triangle *tris, size_t count, unsigned flags,
                                      const uint8_t *occluded, rp_arg *a) {
    a[0] = arg(active, rays->n, RP_ARG_IN | RP_ARG_OPT);
    args_prims(tris, count, sizeof *tris, 0, 0, a + 1);
    a[1 + ARGS_PRIMS] = arg(occluded, rays->n, RP_ARG_OUT);
    a[2 + ARGS_PRIMS] =
        arg_status(flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT) ? RP_ERR_INVALID : RP_OK);
}

static RP_COLD rp_status check_occluded_exact(const rp_rays *rays, const uint8_t *active,
                                              const rp_triangle *tris, size_t count,
                                              unsigned flags, const uint8_t *occluded) {
    rp_arg a[ARGS_OCCLUDED];
    args_rays(rays, RP_ARG_IN, a);
    args_occluded_tail(rays, active, tris, count, flags, occluded, a + ARGS_RAYS);
    return rp_check_args(a, ARGS_OCCLUDED);
}

rp_status rp_occluded_triangle(const rp_rays *rays, const uint8_t *active,
                               const rp_triangle *tris, size_t count,
                               unsigned flags, uint8_t *occluded) {
    if (!rays)
        return RP_ERR_NULL;
    int ok;
    if (rays_canonical(rays)) {
        rp_arg a[ARGS_RAYS_BLOCK + ARGS_OCCLUDED - ARGS_RAYS];
        args_rays_block(rays, RP_ARG_IN, a);
        args_occluded_tail(rays, active, tris, count, flags, occluded, a + ARGS_RAYS_BLOCK);
        ok = args_fast(a, ARGS_RAYS_BLOCK + ARGS_OCCLUDED - ARGS_RAYS);
    } else {
        rp_arg a[ARGS_OCCLUDED];
        args_rays(rays, RP_ARG_IN, a);
        args_occluded_tail(rays, active, tris, count, flags, occluded, a + ARGS_RAYS);
        ok = args_fast(a, ARGS_OCCLUDED);
    }
    rp_status s = ok ? RP_OK : check_occluded_exact(rays, active, tris, count, flags, occluded);
    if (!s && rays->n && count)
        kernels_for(rays->n, count)->occluded_triangle(rays, active, tris, count, flags, occluded);
    return s;
}

rp_status rp_closest_sphere(rp_rays *rays, const uint8_t *active,
                            const rp_sphere *spheres, size_t count,
                            uint32_t index_base, rp_hits *hits) {
    rp_status s = check_closest(rays, active, spheres, count, sizeof *spheres, index_base, hits);
    if (!s && rays->n && count)
        kernels_for(rays->n, count)->closest_sphere(rays, active, spheres, count, index_base, hits);
    return s;
}

rp_status rp_closest_plane(rp_rays *rays, const uint8_t *active,
                           const rp_plane *planes, size_t count,
                           uint32_t index_base, rp_hits *hits) {
    rp_status s = check_closest(rays, active, planes, count, sizeof *planes, index_base, hits);
    if (!s && rays->n && count)
        kernels_for(rays->n, count)->closest_plane(rays, active, planes, count, index_base, hits);
    return s;
}
