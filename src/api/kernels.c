/*
 * kernels.c - the batch kernels' entry points (rp_intersect_aabb,
 * rp_closest_aabb / _triangle / _sphere / _plane, rp_occluded_triangle):
 * each checks its arguments (check.h), the exact status coming from
 * rp_check_args (check.c) whenever a short path is not sure, and then
 * forwards to the active variant's kernel (src/dispatch.c).  On any status
 * but RP_OK nothing is written.  Two fast paths per entry point: for
 * batches still laid out by the allocators, tests on the blocks' ranges
 * and the other pointers (no list: the arrays are known valid since
 * allocation), each a compare and a branch that the short path never
 * takes; and args_fast on the argument list, array by array.  An entry
 * point is the first of these and the kernel call alone; the rest (the
 * list, args_fast, the exact check, then the kernel) is one out-of-line
 * function per shape of entry point (*_slow; the four closest-hit ones
 * share closest_entry and closest_slow), called last with the entry point's
 * arguments, so the short path saves few registers and builds no list
 * (issue 13: call/<variant>/1x1, call/<variant>/1x0).
 */
#include "check.h"

/* The table a call runs: the active variant's, except for one ray against
 * one primitive, which runs the reference's loop (the same results by
 * definition), compiled for that case (rp_kernels_scalar_1x1: no loops): a
 * single test has nothing to fill a vector's lanes with, and a vector
 * step's setup (loading or broadcasting the ray, the record's
 * transposition, resolving the lanes) measured slower than the scalar test
 * at every x86 width (call/<variant>/1x1, issue 13). */
static inline const rp_kernels *kernels_for(size_t n, size_t count) {
    return n == 1 && count == 1 ? &rp_kernels_scalar_1x1 : rp_kernels_active();
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

/* Whether rays and hits are both still as the allocators laid them out,
 * for the same n (so n > 0, the same stride). */
RP_ALWAYS_INLINE int closest_canonical(const rp_rays *rays, const rp_hits *hits) {
    return hits && hits->n == rays->n && rays_canonical(rays) && hits_canonical(hits);
}

/* The short path for batches from the allocators: 1 when the list surely
 * passes (rays != NULL).  R = the rays' block (tmax written), H = the
 * records' t, u, v, prim; the primitives (when count > 0) and active
 * (when not NULL) must meet neither; bad_flags: the triangle kernels'
 * unknown flags (RP_ERR_INVALID, reported after the list's status).  A
 * compare and a branch per test (fused, and never taken on the short
 * path: fewer instructions than and-ing and or-ing the tests' flags). */
RP_ALWAYS_INLINE int closest_fast(const rp_rays *rays, const uint8_t *active, const void *prims,
                                  size_t count, size_t elem, uint32_t base, const rp_hits *hits,
                                  int bad_flags) {
    if (!closest_canonical(rays, hits) || rays_unprepared(rays) || bad_flags)
        return 0;
    uintptr_t n = rays->n, st = rp_padded(n) * 4;
    uintptr_t br = (uintptr_t)rays->block_, rb = 11 * st;
    uintptr_t bh = (uintptr_t)hits->block_, hb = 4 * st;
    if (rp_meets(br, rb, bh, hb))
        return 0;
    if (count) {
        uintptr_t p = (uintptr_t)prims, pb = count * elem;
        if (count > (SIZE_MAX >> 3) / elem || count > (size_t)(RP_NO_HIT - base) || p == 0 ||
            (p & 3u) || rp_meets(p, pb, br, rb) || rp_meets(p, pb, bh, hb))
            return 0;
    }
    if (active) {
        uintptr_t a = (uintptr_t)active;
        if (rp_meets(a, n, br, rb) || rp_meets(a, n, bh, hb))
            return 0;
    }
    return 1;
}

/* The exact status of a closest-hit call: the list, array by array (try
 * args_fast first; when the batches are the allocators' and the short
 * path doubted, straight to the exact check). */
RP_ALWAYS_INLINE rp_status check_closest(const rp_rays *rays, const uint8_t *active,
                                         const void *prims, size_t count, size_t elem,
                                         uint32_t base, const rp_hits *hits) {
    if (!rays)
        return RP_ERR_NULL;
    rp_arg a[ARGS_CLOSEST];
    args_closest(rays, active, prims, count, elem, base, hits, a);
    return rp_check_list(a, ARGS_CLOSEST, !closest_canonical(rays, hits));
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

/* rp_intersect_aabb past the short path: the exact status, then the
 * kernel. */
static RP_NOINLINE rp_status intersect_slow(const rp_rays *rays, const uint8_t *active,
                                            const rp_aabb *box, uint8_t *hit, float *tnear,
                                            float *tfar) {
    if (!rays)
        return RP_ERR_NULL;
    rp_arg a[ARGS_INTERSECT];
    args_rays(rays, RP_ARG_IN, a);
    args_intersect_tail(rays, active, box, hit, tnear, tfar, a + ARGS_RAYS);
    rp_status s = rp_check_list(a, ARGS_INTERSECT, !rays_canonical(rays));
    if (!s && rays->n)
        kernels_for(rays->n, 1)->intersect_aabb(rays, active, box, hit, tnear, tfar);
    return s;
}

/* The short path of rp_intersect_aabb for rays from rp_rays_alloc: 1 when
 * the list surely passes.  R = the rays' block (all read; n > 0); hit and
 * box required, tnear, tfar and active optional (absent: nothing to meet);
 * the outputs meet no input and each other not.  Branches as in
 * closest_fast. */
RP_ALWAYS_INLINE int intersect_fast(const rp_rays *rays, const uint8_t *active,
                                    const rp_aabb *box, const uint8_t *hit, const float *tnear,
                                    const float *tfar) {
    if (!rays_canonical(rays) || rays_unprepared(rays))
        return 0;
    uintptr_t n = rays->n, br = (uintptr_t)rays->block_, rb = 11 * rp_padded(n) * 4;
    uintptr_t h = (uintptr_t)hit, b = (uintptr_t)box, bb = sizeof *box, a = (uintptr_t)active;
    uintptr_t tn = (uintptr_t)tnear, tf = (uintptr_t)tfar, fb = 4 * n;
    if (!h || !b || ((b | tn | tf) & 3u) || rp_meets(h, n, br, rb) || rp_meets(h, n, b, bb) ||
        (a && rp_meets(h, n, a, n)))
        return 0;
    if (tn && (rp_meets(tn, fb, br, rb) || rp_meets(tn, fb, b, bb) ||
               (a && rp_meets(tn, fb, a, n)) || rp_meets(h, n, tn, fb)))
        return 0;
    if (tf && (rp_meets(tf, fb, br, rb) || rp_meets(tf, fb, b, bb) ||
               (a && rp_meets(tf, fb, a, n)) || rp_meets(h, n, tf, fb) ||
               (tn && rp_meets(tn, fb, tf, fb))))
        return 0;
    return 1;
}

rp_status rp_intersect_aabb(const rp_rays *rays, const uint8_t *active,
                            const rp_aabb *box, uint8_t *hit, float *tnear,
                            float *tfar) {
    if (rays && intersect_fast(rays, active, box, hit, tnear, tfar)) {
        kernels_for(rays->n, 1)->intersect_aabb(rays, active, box, hit, tnear, tfar);
        return RP_OK;
    }
    return intersect_slow(rays, active, box, hit, tnear, tfar);
}

/* The closest-hit entry points, one shape for the four primitives: the
 * primitive is a constant in each entry point (closest_entry, inlined), so
 * closest_run's switch folds there; the out-of-line slow path takes it as
 * an argument. */
typedef enum { CL_AABB, CL_TRIANGLE, CL_SPHERE, CL_PLANE } closest_prim;

/* Kernel p of table k (flags: the triangles' only). */
RP_ALWAYS_INLINE void closest_run(const rp_kernels *k, closest_prim p, rp_rays *rays,
                                  const uint8_t *active, const void *prims, size_t count,
                                  uint32_t base, unsigned flags, rp_hits *hits) {
    switch (p) {
    case CL_AABB:
        k->closest_aabb(rays, active, (const rp_aabb *)prims, count, base, hits);
        break;
    case CL_TRIANGLE:
        k->closest_triangle(rays, active, (const rp_triangle *)prims, count, base, flags, hits);
        break;
    case CL_SPHERE:
        k->closest_sphere(rays, active, (const rp_sphere *)prims, count, base, hits);
        break;
    case CL_PLANE:
        k->closest_plane(rays, active, (const rp_plane *)prims, count, base, hits);
        break;
    }
}

/* Past the short path: the exact status (then RP_ERR_INVALID for unknown
 * triangle flags; the other primitives pass flags 0), then the kernel. */
static RP_NOINLINE rp_status closest_slow(closest_prim p, rp_rays *rays, const uint8_t *active,
                                          const void *prims, size_t count, size_t elem,
                                          uint32_t base, unsigned flags, rp_hits *hits) {
    rp_status s = check_closest(rays, active, prims, count, elem, base, hits);
    if (!s && (flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT)))
        s = RP_ERR_INVALID;
    if (!s && rays->n && count)
        closest_run(kernels_for(rays->n, count), p, rays, active, prims, count, base, flags,
                    hits);
    return s;
}

RP_ALWAYS_INLINE rp_status closest_entry(closest_prim p, rp_rays *rays, const uint8_t *active,
                                         const void *prims, size_t count, size_t elem,
                                         uint32_t base, unsigned flags, rp_hits *hits) {
    if (rays && closest_fast(rays, active, prims, count, elem, base, hits,
                             (flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT)) != 0)) {
        if (count) /* n > 0 in the allocators' batches */
            closest_run(kernels_for(rays->n, count), p, rays, active, prims, count, base, flags,
                        hits);
        return RP_OK;
    }
    return closest_slow(p, rays, active, prims, count, elem, base, flags, hits);
}

rp_status rp_closest_aabb(rp_rays *rays, const uint8_t *active,
                          const rp_aabb *boxes, size_t count,
                          uint32_t index_base, rp_hits *hits) {
    return closest_entry(CL_AABB, rays, active, boxes, count, sizeof *boxes, index_base, 0,
                         hits);
}

rp_status rp_closest_triangle(rp_rays *rays, const uint8_t *active,
                              const rp_triangle *tris, size_t count,
                              uint32_t index_base, unsigned flags,
                              rp_hits *hits) {
    return closest_entry(CL_TRIANGLE, rays, active, tris, count, sizeof *tris, index_base,
                         flags, hits);
}

rp_status rp_closest_sphere(rp_rays *rays, const uint8_t *active,
                            const rp_sphere *spheres, size_t count,
                            uint32_t index_base, rp_hits *hits) {
    return closest_entry(CL_SPHERE, rays, active, spheres, count, sizeof *spheres, index_base,
                         0, hits);
}

rp_status rp_closest_plane(rp_rays *rays, const uint8_t *active,
                           const rp_plane *planes, size_t count,
                           uint32_t index_base, rp_hits *hits) {
    return closest_entry(CL_PLANE, rays, active, planes, count, sizeof *planes, index_base, 0,
                         hits);
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

static RP_NOINLINE rp_status occluded_slow(const rp_rays *rays, const uint8_t *active,
                                           const rp_triangle *tris, size_t count,
                                           unsigned flags, uint8_t *occluded) {
    if (!rays)
        return RP_ERR_NULL;
    rp_arg a[ARGS_OCCLUDED];
    args_rays(rays, RP_ARG_IN, a);
    args_occluded_tail(rays, active, tris, count, flags, occluded, a + ARGS_RAYS);
    rp_status s = rp_check_list(a, ARGS_OCCLUDED, !rays_canonical(rays));
    if (!s && rays->n && count)
        kernels_for(rays->n, count)->occluded_triangle(rays, active, tris, count, flags, occluded);
    return s;
}

/* The short path of rp_occluded_triangle for rays from rp_rays_alloc: 1
 * when the list surely passes.  R = the rays' block (all read; n > 0);
 * occluded required, the triangles when count > 0, active optional. */
RP_ALWAYS_INLINE int occluded_fast(const rp_rays *rays, const uint8_t *active,
                                   const rp_triangle *tris, size_t count, unsigned flags,
                                   const uint8_t *occluded) {
    if (!rays_canonical(rays) || rays_unprepared(rays) ||
        (flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT)))
        return 0;
    uintptr_t n = rays->n, br = (uintptr_t)rays->block_, rb = 11 * rp_padded(n) * 4;
    uintptr_t o = (uintptr_t)occluded, a = (uintptr_t)active;
    if (!o || rp_meets(o, n, br, rb) || (a && rp_meets(o, n, a, n)))
        return 0;
    if (count) {
        uintptr_t p = (uintptr_t)tris, pb = count * sizeof *tris;
        if (count > (SIZE_MAX >> 3) / sizeof *tris || !p || (p & 3u) || rp_meets(o, n, p, pb))
            return 0;
    }
    return 1;
}

rp_status rp_occluded_triangle(const rp_rays *rays, const uint8_t *active,
                               const rp_triangle *tris, size_t count,
                               unsigned flags, uint8_t *occluded) {
    if (rays && occluded_fast(rays, active, tris, count, flags, occluded)) {
        if (count) /* n > 0 in the allocator's batches */
            kernels_for(rays->n, count)->occluded_triangle(rays, active, tris, count, flags, occluded);
        return RP_OK;
    }
    return occluded_slow(rays, active, tris, count, flags, occluded);
}
