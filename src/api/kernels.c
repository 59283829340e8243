/*
 * kernels.c - the batch kernels' entry points (rp_intersect_aabb,
 * rp_closest_aabb / _triangle / _sphere / _plane, rp_occluded_triangle):
 * each builds its call's argument list (check.h), lets the inlined fast
 * path pass it in O(1) or rp_check_args (check.c) give the exact status,
 * and then forwards to the active variant's kernel (src/dispatch.c).  On any
 * status but RP_OK nothing is written.  Two fast paths per entry point:
 * for batches still laid out by the allocators, straight-line tests on the
 * blocks' ranges and the other pointers (no list: the arrays are known
 * valid since allocation), and args_fast on the list array by array.
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

/* Out of line, so that the allocators' batches take the entry points'
 * short path without this one's registers and stack: the list, array by
 * array (fast: try args_fast first; else, when the short path found a
 * doubt, straight to the exact check). */
static RP_NOINLINE rp_status check_closest_list(const rp_rays *rays, const uint8_t *active,
                                                const void *prims, size_t count, size_t elem,
                                                uint32_t base, const rp_hits *hits, int fast) {
    rp_arg a[ARGS_CLOSEST];
    args_closest(rays, active, prims, count, elem, base, hits, a);
    return rp_check_list(a, ARGS_CLOSEST, fast);
}

RP_ALWAYS_INLINE rp_status check_closest(const rp_rays *rays, const uint8_t *active,
                                         const void *prims, size_t count, size_t elem,
                                         uint32_t base, const rp_hits *hits) {
    if (!rays)
        return RP_ERR_NULL;
    if (hits && rays_canonical(rays) && hits_canonical(hits)) {
        /* both from the allocators (so n > 0, the same stride): R = the
         * rays' block (tmax written), H = the records' t, u, v, prim */
        uintptr_t n = rays->n, st = rp_padded(n) * 4;
        uintptr_t br = (uintptr_t)rays->block_, rb = 11 * st;
        uintptr_t bh = (uintptr_t)hits->block_, hb = 4 * st;
        uintptr_t p = (uintptr_t)prims, pb = count * elem, live = count != 0;
        uintptr_t a = rp_opt_start(active), ab = rp_opt_bytes(active, n);
        uintptr_t bad = rays_unprepared(rays) | (uintptr_t)(hits->n != n) | rp_meets(br, rb, bh, hb);
        bad |= (uintptr_t)(count > (SIZE_MAX >> 3) / elem) | (uintptr_t)(count > (size_t)(RP_NO_HIT - base));
        bad |= live & ((uintptr_t)(p == 0) | (uintptr_t)((p & 3u) != 0) | rp_meets(p, pb, br, rb) | rp_meets(p, pb, bh, hb));
        bad |= rp_meets(a, ab, br, rb) | rp_meets(a, ab, bh, hb);
        if (!bad)
            return RP_OK;
        return check_closest_list(rays, active, prims, count, elem, base, hits, 0);
    }
    return check_closest_list(rays, active, prims, count, elem, base, hits, 1);
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

static RP_NOINLINE rp_status check_intersect_list(const rp_rays *rays, const uint8_t *active,
                                                  const rp_aabb *box, const uint8_t *hit,
                                                  const float *tnear, const float *tfar,
                                                  int fast) {
    rp_arg a[ARGS_INTERSECT];
    args_rays(rays, RP_ARG_IN, a);
    args_intersect_tail(rays, active, box, hit, tnear, tfar, a + ARGS_RAYS);
    return rp_check_list(a, ARGS_INTERSECT, fast);
}

rp_status rp_intersect_aabb(const rp_rays *rays, const uint8_t *active,
                            const rp_aabb *box, uint8_t *hit, float *tnear,
                            float *tfar) {
    if (!rays)
        return RP_ERR_NULL;
    rp_status s;
    if (rays_canonical(rays)) {
        /* R = the rays' block (all read; n > 0); hit, box required,
         * tnear, tfar, active optional */
        uintptr_t n = rays->n, br = (uintptr_t)rays->block_, rb = 11 * rp_padded(n) * 4;
        uintptr_t h = (uintptr_t)hit, b = (uintptr_t)box, bb = sizeof *box;
        uintptr_t a = rp_opt_start(active), ab = rp_opt_bytes(active, n);
        uintptr_t tn = rp_opt_start(tnear), tnb = rp_opt_bytes(tnear, 4 * n);
        uintptr_t tf = rp_opt_start(tfar), tfb = rp_opt_bytes(tfar, 4 * n);
        uintptr_t bad = rays_unprepared(rays) | (uintptr_t)(h == 0) | (uintptr_t)(b == 0) |
                        ((b | (uintptr_t)tnear | (uintptr_t)tfar) & 3u);
        bad |= rp_meets(h, n, br, rb) | rp_meets(h, n, b, bb) | rp_meets(h, n, a, ab);
        bad |= rp_meets(tn, tnb, br, rb) | rp_meets(tn, tnb, b, bb) | rp_meets(tn, tnb, a, ab);
        bad |= rp_meets(tf, tfb, br, rb) | rp_meets(tf, tfb, b, bb) | rp_meets(tf, tfb, a, ab);
        bad |= rp_meets(h, n, tn, tnb) | rp_meets(h, n, tf, tfb) | rp_meets(tn, tnb, tf, tfb);
        s = bad ? check_intersect_list(rays, active, box, hit, tnear, tfar, 0) : RP_OK;
    } else {
        s = check_intersect_list(rays, active, box, hit, tnear, tfar, 1);
    }
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

static RP_NOINLINE rp_status check_occluded_list(const rp_rays *rays, const uint8_t *active,
                                                 const rp_triangle *tris, size_t count,
                                                 unsigned flags, const uint8_t *occluded,
                                                 int fast) {
    rp_arg a[ARGS_OCCLUDED];
    args_rays(rays, RP_ARG_IN, a);
    args_occluded_tail(rays, active, tris, count, flags, occluded, a + ARGS_RAYS);
    return rp_check_list(a, ARGS_OCCLUDED, fast);
}

rp_status rp_occluded_triangle(const rp_rays *rays, const uint8_t *active,
                               const rp_triangle *tris, size_t count,
                               unsigned flags, uint8_t *occluded) {
    if (!rays)
        return RP_ERR_NULL;
    rp_status s;
    if (rays_canonical(rays)) {
        /* R = the rays' block (all read; n > 0); occluded required,
         * triangles when count > 0, active optional */
        uintptr_t n = rays->n, br = (uintptr_t)rays->block_, rb = 11 * rp_padded(n) * 4;
        uintptr_t o = (uintptr_t)occluded, p = (uintptr_t)tris, pb = count * sizeof *tris;
        uintptr_t a = rp_opt_start(active), ab = rp_opt_bytes(active, n), live = count != 0;
        uintptr_t bad = rays_unprepared(rays) | (uintptr_t)(o == 0) |
                        (uintptr_t)(count > (SIZE_MAX >> 3) / sizeof *tris) |
                        (uintptr_t)((flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT)) != 0);
        bad |= live & ((uintptr_t)(p == 0) | (uintptr_t)((p & 3u) != 0) | rp_meets(o, n, p, pb));
        bad |= rp_meets(o, n, br, rb) | rp_meets(o, n, a, ab);
        s = bad ? check_occluded_list(rays, active, tris, count, flags, occluded, 0) : RP_OK;
    } else {
        s = check_occluded_list(rays, active, tris, count, flags, occluded, 1);
    }
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
