/*
 * internal.h - what the pieces of raypack share and users never see: the
 * table of kernel entry points that every variant (scalar, sse41, avx2,
 * avx512, neon) fills, and the per-variant init functions the dispatcher
 * calls.  Kernels behind this table receive arguments that the API layer
 * (src/api/) has already checked (non-NULL, prepared, no overlaps), so they
 * never fail.
 */
#ifndef RP_INTERNAL_H
#define RP_INTERNAL_H

#include <stdatomic.h>

#include "raypack.h"

#if defined(__GNUC__)
#define RP_HIDDEN __attribute__((visibility("hidden")))
#else
#define RP_HIDDEN
#endif

#if defined(__GNUC__)
#define RP_COLD __attribute__((noinline, cold)) /* off the hot path */
#else
#define RP_COLD
#endif

#define RP_PREPARED_MAGIC 0x52505250u /* "RPRP" */

/* One signature per kernel, declared once; every variant implements it. */
typedef void rp_intersect_aabb_fn(const rp_rays *rays, const uint8_t *active,
                                  const rp_aabb *box, uint8_t *hit,
                                  float *tnear, float *tfar);
typedef void rp_closest_aabb_fn(rp_rays *rays, const uint8_t *active,
                                const rp_aabb *boxes, size_t count,
                                uint32_t index_base, rp_hits *hits);
typedef void rp_closest_triangle_fn(rp_rays *rays, const uint8_t *active,
                                    const rp_triangle *tris, size_t count,
                                    uint32_t index_base, unsigned flags,
                                    rp_hits *hits);
typedef void rp_occluded_triangle_fn(const rp_rays *rays, const uint8_t *active,
                                     const rp_triangle *tris, size_t count,
                                     unsigned flags, uint8_t *occluded);
typedef void rp_closest_sphere_fn(rp_rays *rays, const uint8_t *active,
                                  const rp_sphere *spheres, size_t count,
                                  uint32_t index_base, rp_hits *hits);
typedef void rp_closest_plane_fn(rp_rays *rays, const uint8_t *active,
                                 const rp_plane *planes, size_t count,
                                 uint32_t index_base, rp_hits *hits);

typedef rp_status rp_scene_closest_fn(const rp_scene *scene, rp_rays *rays,
                                      const uint8_t *active, unsigned flags, rp_hits *hits,
                                      uint32_t *mesh);
typedef rp_status rp_scene_occluded_fn(const rp_scene *scene, const rp_rays *rays,
                                       const uint8_t *active, unsigned flags,
                                       uint8_t *occluded);

struct rp_bvh_node; /* src/scene/scene.h */
struct rp_tri4;
typedef struct rp_kernels {
    rp_isa isa;
    rp_intersect_aabb_fn *intersect_aabb;
    rp_closest_aabb_fn *closest_aabb;
    rp_closest_triangle_fn *closest_triangle;
    rp_occluded_triangle_fn *occluded_triangle;
    rp_closest_sphere_fn *closest_sphere;
    rp_closest_plane_fn *closest_plane;
    rp_scene_closest_fn *scene_closest;   /* checked arguments; RP_ERR_NOMEM only */
    rp_scene_occluded_fn *scene_occluded;
    /* internal steps of the scene traversals, for rp_check's checkasm-style
     * tests (src/scene/traverse_simd.h says what each computes; NULL in
     * the scalar table) */
    unsigned (*scene_node_ray)(const rp_rays *rays, size_t i, float bound,
                               const struct rp_bvh_node *nd, float best, float *ent);
    unsigned (*scene_block_ray)(const rp_rays *rays, size_t i, float bound,
                                const struct rp_tri4 *b, unsigned n, float best, float t[4]);
    void (*scene_box_packet)(const rp_rays *rays, size_t i, size_t m, float bound,
                             const struct rp_bvh_node *nd, int k, const float *best,
                             uint8_t *hit, float *entry);
    void (*scene_lane_nodes)(const rp_rays *rays, size_t i, size_t m, float bound,
                             const struct rp_bvh_node *nd, const float *best, uint8_t *hit,
                             float *emin, int boxes);
    int (*scene_frustum_packet)(const rp_rays *rays, size_t i, size_t m, float bound,
                                const struct rp_bvh_node *nd, const float *best, size_t *w,
                                unsigned *hit, float *entry);
    int (*scene_seg_packet)(const rp_rays *rays, size_t i, size_t m, float bound,
                            const struct rp_bvh_node *nd, const float *best, size_t *w,
                            unsigned *hit);
    size_t (*scene_ray_setup)(const rp_rays *rays, size_t m, float bound, unsigned flags,
                              size_t *fast);
    /* rp_rays_prepare's loop over the checked arrays (rays->n > 0): 1 / d,
     * or NaN in all three where o or d is not finite (rp_ref_prepare) */
    void (*rays_prepare)(rp_rays *rays);
} rp_kernels;

/* Each variant's table; a variant not compiled in is absent (see
 * RP_HAVE_* from meson).  The scalar table is always there. */
RP_HIDDEN extern const rp_kernels rp_kernels_scalar;
/* The scalar kernels for rays->n == 1 and count == 1 only (the same
 * results: the reference's loops with those constants; src/api/kernels.c) */
RP_HIDDEN extern const rp_kernels rp_kernels_scalar_1x1;
RP_HIDDEN extern const rp_kernels rp_kernels_sse41;
RP_HIDDEN extern const rp_kernels rp_kernels_avx2;
RP_HIDDEN extern const rp_kernels rp_kernels_avx512;
RP_HIDDEN extern const rp_kernels rp_kernels_neon;

/* The table in use (detects the CPU and reads RP_ISA on first call).  Every
 * public call asks for it, so the common case is one acquire load inline:
 * the pointer is NULL only until the first detection has stored it
 * (src/dispatch.c), and rp_kernels_init() does that once. */
RP_HIDDEN extern _Atomic(const rp_kernels *) rp_kernels_active_;
RP_HIDDEN const rp_kernels *rp_kernels_init(void);
static inline const rp_kernels *rp_kernels_active(void) {
    const rp_kernels *k = atomic_load_explicit(&rp_kernels_active_, memory_order_acquire);
    return k ? k : rp_kernels_init();
}

/* Argument checks shared by the public entry points (src/api/check.c;
 * src/api/check.h builds the lists and holds the inlined fast path). */
/* One argument of a call: a byte range and what the call does with it.
 * rp_check_args() walks a list of them in order: a status entry returns its
 * status if it holds one; a pointer entry is RP_ERR_NULL when NULL with
 * bytes > 0 (unless RP_ARG_OPT), RP_ERR_ALIGN when RP_ARG_ALIGN and not
 * 4-byte aligned (checked even when bytes == 0); then RP_ERR_ALIAS if an
 * output overlaps an input or another output (empty ranges never do). */
typedef struct rp_arg {
    const void *p;
    size_t bytes;   /* read or written; for RP_ARG_STATUS the rp_status */
    unsigned role;
} rp_arg;
enum {
    RP_ARG_IN = 1u,      /* read */
    RP_ARG_OUT = 2u,     /* written */
    RP_ARG_OPT = 4u,     /* NULL allowed (every ray / not wanted) */
    RP_ARG_ALIGN = 8u,   /* must be 4-byte aligned */
    RP_ARG_RAYS = 16u,   /* one of the rays' n-float arrays (a hint for the fast path) */
    RP_ARG_STATUS = 32u  /* not a pointer: bytes holds a status, RP_OK if none */
};
RP_HIDDEN rp_status rp_check_args(const rp_arg *args, size_t count);
typedef struct rp_span { const void *p; size_t bytes; } rp_span; /* a byte range */
/* The rays' 11 arrays: present, aligned, sized, prepared; fills in[0..10]. */
RP_HIDDEN rp_status rp_check_rays(const rp_rays *r, rp_span in[11]);
/* The record arrays t, u, v, prim (n of them) as out[0..3]. */
RP_HIDDEN rp_status rp_check_hits(const rp_hits *h, size_t n, rp_span out[4]);
/* RP_ERR_ALIAS if an output overlaps an input or another output. */
RP_HIDDEN rp_status rp_check_overlaps(const rp_span *in, size_t nin, const rp_span *out,
                                      size_t nout);

/* CPU features, as a mask of (1u << rp_isa) that run natively. */
RP_HIDDEN unsigned rp_cpu_native_isas(void);
/* src/x86/cpu.c: 1 when the CPU runs a 512-bit vector operation as two
 * 256-bit halves (AMD Zen 4: family 0x19 with AVX-512), else 0 (and 0 off
 * x86). */
RP_HIDDEN int rp_cpu_splits512(void);

/* 1: the AVX-512 variant walks every scene packet of mixed direction signs
 * 8 rays wide (src/avx512/scene8_avx512.c); 0: by rp_avx512_mixed8_tris.
 * The same results either way.  Set once by the dispatcher's first
 * detection, before any kernel runs (src/dispatch.c says why). */
RP_HIDDEN extern int rp_avx512_mixed8;

/* The AVX-512 variant walks every scene packet 8 rays wide on scenes of at
 * least this many triangles (SIZE_MAX: never); the same results either
 * way.  Set once as rp_avx512_mixed8 is: SIZE_MAX, or
 * RP_AVX512_PACKET8_TRIS=N.  rp_avx512_adapt: 1 where the variant picks
 * the width of its packets of one octant as a query goes (scene_packets,
 * src/scene/traverse_simd.h): rp_cpu_splits512() and no
 * RP_AVX512_PACKET8_TRIS (src/dispatch.c says why). */
RP_HIDDEN extern size_t rp_avx512_packet8_tris;
RP_HIDDEN extern int rp_avx512_adapt;

/* Where rp_avx512_mixed8 is 0, the AVX-512 variant walks scene packets of
 * mixed direction signs whose rays are not all short (packet_short) 8 rays
 * wide on scenes of at least this many triangles (SIZE_MAX: never), the
 * others 16 wide (scene_packets, src/scene/traverse_simd.h): 0 where
 * 512-bit operations split, else SIZE_MAX; RP_AVX512_MIXED_TRIS=N sets it,
 * RP_AVX512_MIXED turns it off (src/dispatch.c). */
RP_HIDDEN extern size_t rp_avx512_mixed8_tris;

#endif
