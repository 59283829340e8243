/*
 * raypack.h - the one public header of raypack, a library that intersects
 * batches of rays (structure of arrays) with axis-aligned boxes, triangles,
 * spheres and planes, using a scalar reference and SIMD variants (SSE4.1,
 * AVX2, AVX-512, NEON) chosen at run time.  Every variant returns the scalar
 * reference's results bit for bit.  The exact meaning of every edge case
 * (zero and -0.0 directions, origins on faces, NaN, ties, ...) is written
 * down in docs/SEMANTICS.md; the comments here summarise it.
 *
 * The header is C99 and C++ clean.  Every exported symbol starts with rp_.
 */
#ifndef RAYPACK_H
#define RAYPACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(RP_BUILDING_DLL)
#define RP_API __declspec(dllexport)
#elif defined(__GNUC__)
#define RP_API __attribute__((visibility("default")))
#else
#define RP_API
#endif

#define RP_VERSION_MAJOR 0
#define RP_VERSION_MINOR 1
#define RP_VERSION_PATCH 0

/* ------------------------------------------------------------------ */
/* Status codes.  Every entry point that can fail returns one; on any   */
/* status other than RP_OK nothing has been written.                    */
/* ------------------------------------------------------------------ */
typedef enum rp_status {
    RP_OK = 0,
    RP_ERR_NULL = 1,            /* a pointer that must hold data is NULL */
    RP_ERR_COUNT = 2,           /* a count overflows (bytes or primitive indices) */
    RP_ERR_NOT_PREPARED = 3,    /* the batch was not prepared (rp_rays_prepare) for its n */
    RP_ERR_ALIGN = 4,           /* a pointer is not aligned to its element type */
    RP_ERR_ALIAS = 5,           /* an output array overlaps an input or another output */
    RP_ERR_SIZE_MISMATCH = 6,   /* rp_hits.n differs from rp_rays.n */
    RP_ERR_NOMEM = 7,           /* allocation failed */
    RP_ERR_ISA_UNKNOWN = 8,     /* no such variant name / value */
    RP_ERR_ISA_UNAVAILABLE = 9, /* the variant is not compiled in or cannot run on this CPU */
    RP_ERR_INVALID = 10         /* another invalid argument (e.g. unknown flag bits) */
} rp_status;

/* A short English description of a status; never NULL. */
RP_API const char *rp_status_string(rp_status status);

/* ------------------------------------------------------------------ */
/* Value types                                                          */
/* ------------------------------------------------------------------ */
typedef struct rp_vec3 { float x, y, z; } rp_vec3;
/* A box is the closed set min <= p <= max.  A box with min > max on any
 * axis (inverted, e.g. an "empty" box initialised to +inf/-inf) is never hit. */
typedef struct rp_aabb { rp_vec3 min, max; } rp_aabb;
/* Front face: vertices counter-clockwise seen from the ray origin, i.e. the
 * side that cross(v1 - v0, v2 - v0) points towards. */
typedef struct rp_triangle { rp_vec3 v0, v1, v2; } rp_triangle;
/* A negative or NaN radius is never hit. */
typedef struct rp_sphere { rp_vec3 center; float radius; } rp_sphere;
/* Points p with dot(n, p) == d; n should be unit length (normals and t are
 * computed with n as given).  Both sides are hit. */
typedef struct rp_plane { rp_vec3 n; float d; } rp_plane;

/* ------------------------------------------------------------------ */
/* Batches of rays (structure of arrays)                                */
/* ------------------------------------------------------------------ */
/* Ray i is the set of points o + t*d for tmin[i] <= t <= tmax[i].
 * Directions need not be normalized; +0.0 and -0.0 components are allowed
 * and mean "parallel to that axis" (they choose which box plane is near).
 * rdx/rdy/rdz are outputs of rp_rays_prepare(): 1.0f/d (a true IEEE
 * division), or NaN in all three for a ray with a NaN or infinite origin or
 * direction component (such a ray never hits anything).
 * The arrays may be the caller's (any 4-byte-aligned floats) or come from
 * rp_rays_alloc().  Fields ending in an underscore are private. */
typedef struct rp_rays {
    size_t n;
    float *ox, *oy, *oz;
    float *dx, *dy, *dz;
    float *tmin, *tmax;  /* closest-hit kernels shorten tmax[i] on a hit */
    float *rdx, *rdy, *rdz;
    size_t prepared_n_;  /* n at the last rp_rays_prepare(), or 0 */
    uint32_t prepared_;  /* magic when prepared */
    void *block_;        /* the block of rp_rays_alloc(), else NULL */
} rp_rays;

/* Allocates one 64-byte-aligned block for n rays: every array starts on a
 * 64-byte boundary and is padded to an odd number of 16-float (64-byte)
 * lines, so that element i of the eleven arrays falls in eleven different
 * sets of a 32 KB, 8-way L1 data cache (arrays 16 KB apart, as 4096 rays
 * padded to whole lines were, share one set and evict each other; worth
 * copying for arrays of your own).  Origins and
 * directions are zeroed, tmin = 0, tmax = +inf; the batch is not prepared.
 * n == 0 is allowed (all arrays NULL).  On error *rays is left untouched. */
RP_API rp_status rp_rays_alloc(size_t n, rp_rays *rays);
/* Frees a block from rp_rays_alloc() and zeroes *rays; NULL or a batch with
 * caller-owned arrays (block_ == NULL) is a no-op that only zeroes it. */
RP_API void rp_rays_free(rp_rays *rays);
/* Computes rdx/rdy/rdz and marks the batch prepared for its current n.
 * Call again after changing n, an origin or a direction. */
RP_API rp_status rp_rays_prepare(rp_rays *rays);

/* ------------------------------------------------------------------ */
/* Hit records (structure of arrays), one per ray                       */
/* ------------------------------------------------------------------ */
#define RP_NO_HIT UINT32_MAX /* prim[i] when ray i has hit nothing */

typedef struct rp_hits {
    size_t n;          /* must equal the rays' n */
    float *t;          /* distance along the ray, in units of |d| */
    float *u, *v;      /* barycentrics of v1 and v2 for triangles, else 0 */
    uint32_t *prim;    /* index_base + primitive index, or RP_NO_HIT */
    float *nx, *ny, *nz; /* geometric normal; filled by rp_hits_normals_*() */
    void *block_;
} rp_hits;

RP_API rp_status rp_hits_alloc(size_t n, rp_hits *hits); /* then reset */
RP_API void rp_hits_free(rp_hits *hits);
/* prim = RP_NO_HIT, t = +inf, u = v = 0, normal = 0 for every ray.  Call
 * before the first closest-hit kernel of a frame. */
RP_API rp_status rp_hits_reset(rp_hits *hits);

/* ------------------------------------------------------------------ */
/* Batch kernels                                                        */
/* ------------------------------------------------------------------ */
/* Common rules:
 * - rays must be prepared (rp_rays_prepare) for its current n.
 * - active: NULL means every ray; else n bytes, ray i takes part iff
 *   active[i] != 0.  Nothing is written for an inactive ray.
 * - A hit needs tmin[i] <= t <= tmax[i] (closed interval).
 * - Closest-hit kernels keep a hit record per ray across calls: a primitive
 *   replaces the record only when it is hit strictly nearer than the record
 *   (or when the record is empty), then tmax[i] = t.  So ties at the same t
 *   go to the lowest index, whatever the SIMD width, as long as chunks are
 *   fed in increasing index order.  The record of primitive j is
 *   index_base + j; index_base + count must not exceed RP_NO_HIT.
 * - Outputs may not overlap inputs or each other (RP_ERR_ALIAS). */

/* a) rays x one box (the slab test).  For each active ray writes
 *    hit[i] (1 or 0), tnear[i] and tfar[i]: the ray's [tmin, tmax] clipped to
 *    the box (for a miss they are the clipped values, tnear > tfar; for an
 *    invalid ray tnear = tmin and tfar = tmax).  tnear and tfar may be NULL if not wanted. */
RP_API rp_status rp_intersect_aabb(const rp_rays *rays, const uint8_t *active,
                                   const rp_aabb *box, uint8_t *hit,
                                   float *tnear, float *tfar);

/* b) rays x many boxes: nearest box by entry t (tnear as in a); u = v = 0. */
RP_API rp_status rp_closest_aabb(rp_rays *rays, const uint8_t *active,
                                 const rp_aabb *boxes, size_t count,
                                 uint32_t index_base, rp_hits *hits);

#define RP_CULL_BACKFACE 1u /* triangles seen from behind are not hit */
/* The watertight test of Woop, Benthin and Wald (JCGT 2013) instead of
 * Moller-Trumbore: a ray through an edge or a vertex shared by triangles
 * (with bit-identical vertices) never slips between them, so a ray from
 * inside a closed mesh always hits it.  Edges and vertices count as inside;
 * where a 2D edge function is exactly 0 in float it is recomputed in
 * double, so the sign decision is exact.  Combinable with RP_CULL_BACKFACE.
 * docs/SEMANTICS.md states the guarantee and the error of the reported t. */
#define RP_WATERTIGHT 2u

/* c) rays x triangles, closest hit (t, u, v, prim) - Moller-Trumbore, or
 *    the watertight test with RP_WATERTIGHT.  flags: RP_CULL_BACKFACE |
 *    RP_WATERTIGHT; any other bit is RP_ERR_INVALID. */
RP_API rp_status rp_closest_triangle(rp_rays *rays, const uint8_t *active,
                                     const rp_triangle *tris, size_t count,
                                     uint32_t index_base, unsigned flags,
                                     rp_hits *hits);

/* d) rays x triangles, any hit (shadow rays): sets occluded[i] = 1 for each
 *    active ray that hits a triangle; never writes 0, so clear the array
 *    first and feed chunk after chunk. */
RP_API rp_status rp_occluded_triangle(const rp_rays *rays, const uint8_t *active,
                                      const rp_triangle *tris, size_t count,
                                      unsigned flags, uint8_t *occluded);

/* e) rays x spheres and rays x planes, closest hit (u = v = 0). */
RP_API rp_status rp_closest_sphere(rp_rays *rays, const uint8_t *active,
                                   const rp_sphere *spheres, size_t count,
                                   uint32_t index_base, rp_hits *hits);
RP_API rp_status rp_closest_plane(rp_rays *rays, const uint8_t *active,
                                  const rp_plane *planes, size_t count,
                                  uint32_t index_base, rp_hits *hits);

/* Normals for the rays whose record holds one of these primitives
 * (index_base <= prim < index_base + count); other rays are untouched.
 * Boxes: the outward normal of the face entered (axis order x, y, z decides
 * a tie at an edge or corner), 0 when t is the ray's own tmin (origin
 * inside).  Triangles: normalize(cross(e1, e2)), negated when hit from
 * behind, so it faces the ray.  Spheres: (o + t*d - center) / radius.
 * Planes: n as given.  Computed by one scalar routine for every variant. */
RP_API rp_status rp_hits_normals_aabb(const rp_rays *rays, rp_hits *hits,
                                      const rp_aabb *boxes, size_t count,
                                      uint32_t index_base);
RP_API rp_status rp_hits_normals_triangle(const rp_rays *rays, rp_hits *hits,
                                          const rp_triangle *tris, size_t count,
                                          uint32_t index_base);
RP_API rp_status rp_hits_normals_sphere(const rp_rays *rays, rp_hits *hits,
                                        const rp_sphere *spheres, size_t count,
                                        uint32_t index_base);
RP_API rp_status rp_hits_normals_plane(const rp_rays *rays, rp_hits *hits,
                                       const rp_plane *planes, size_t count,
                                       uint32_t index_base);

/* ------------------------------------------------------------------ */
/* Scenes: triangle meshes behind a bounding volume hierarchy           */
/* ------------------------------------------------------------------ */
/* A scene holds meshes, each a triangle soup (rp_triangle array) or an
 * indexed mesh (xyz float vertices and uint32 index triples), numbered 0,
 * 1, 2, ... in the order added.  The scene copies what it needs: the
 * caller's arrays may be freed after the add call.  rp_scene_build makes
 * the hierarchy (deterministic: the same meshes give the same tree bytes on
 * every run and CPU); then the queries answer for every triangle of every
 * mesh.  With RP_WATERTIGHT a query returns bit for bit what
 * rp_closest_triangle / rp_occluded_triangle return over all the scene's
 * triangles in order (mesh 0's first), ties to the lowest (mesh, prim);
 * docs/SEMANTICS.md says what holds without it.  A scene is read-only once
 * built: queries may run from many threads at once. */
typedef struct rp_scene rp_scene;

RP_API rp_status rp_scene_create(rp_scene **scene);
RP_API void rp_scene_free(rp_scene *scene); /* NULL is a no-op */
/* Adds a mesh; *mesh_id (may be NULL) receives its id.  Every coordinate
 * must be finite (RP_ERR_INVALID otherwise), every index < vertex_count
 * (RP_ERR_INVALID); counts whose bytes overflow, or a scene past
 * 2^32 - 2 triangles, are RP_ERR_COUNT.  Not after rp_scene_build
 * (RP_ERR_INVALID).  On any error nothing is added. */
RP_API rp_status rp_scene_add_soup(rp_scene *scene, const rp_triangle *tris, size_t count,
                                   uint32_t *mesh_id);
RP_API rp_status rp_scene_add_mesh(rp_scene *scene, const float *xyz, size_t vertex_count,
                                   const uint32_t *indices, size_t triangle_count,
                                   uint32_t *mesh_id);
/* The threads rp_scene_build may use: 1 (the default) builds on the
 * calling thread alone; N > 1 lets it start up to N - 1 more threads
 * (POSIX threads, all joined before it returns) for the lower levels of
 * the tree, once the scene has at least 16384 triangles; 0 means one per
 * online CPU.  The tree is the same bytes for every thread count.  A
 * thread that cannot be started leaves its share to the others.  More
 * than RP_BUILD_THREADS_MAX, or a scene already built: RP_ERR_INVALID. */
#define RP_BUILD_THREADS_MAX 64
RP_API rp_status rp_scene_set_build_threads(rp_scene *scene, unsigned threads);
/* Builds the hierarchy (binned SAH, 8-wide nodes).  Once. */
RP_API rp_status rp_scene_build(rp_scene *scene);
/* Bytes the scene holds (after build: hierarchy and triangle copies). */
RP_API size_t rp_scene_bytes(const rp_scene *scene);
RP_API size_t rp_scene_triangle_count(const rp_scene *scene);
/* How a scene query traces (scene queries only; the results are the same
 * bits either way, only the speed differs).  Neither: packets (as many rays
 * as the variant's lanes), which the benchmark finds faster for most kinds
 * of rays, incoherent ones included (README).  Both: RP_ERR_INVALID. */
#define RP_COHERENT 4u   /* packets: a camera's rays, shadow rays toward one light */
#define RP_INCOHERENT 8u /* one ray at a time: bounces, ambient occlusion */

/* Closest hit over the scene: as rp_closest_triangle (the same rules for
 * rays, active, tmin/tmax, the record kept across calls, flags
 * RP_CULL_BACKFACE | RP_WATERTIGHT, plus the hint RP_COHERENT or
 * RP_INCOHERENT), with prim = the triangle's index in its
 * mesh and, when mesh is not NULL, mesh[i] = the mesh id (written exactly
 * where prim is).  RP_ERR_NOT_PREPARED for a scene not built.  With
 * RP_WATERTIGHT the result is bit for bit brute force's over all the
 * scene's triangles; without it (Moller-Trumbore) brute force's once every
 * hit lying outside its own triangle's (padded) bounding box is dropped, a
 * ray nearly parallel to the triangle's plane (docs/SEMANTICS.md). */
RP_API rp_status rp_scene_closest(const rp_scene *scene, rp_rays *rays, const uint8_t *active,
                                  unsigned flags, rp_hits *hits, uint32_t *mesh);
/* Any hit over the scene: as rp_occluded_triangle (flags as above). */
RP_API rp_status rp_scene_occluded(const rp_scene *scene, const rp_rays *rays,
                                   const uint8_t *active, unsigned flags, uint8_t *occluded);
/* Normals for the rays whose record holds a hit (prim != RP_NO_HIT) of
 * triangle prim[i] of mesh mesh[i]: the bits rp_hits_normals_triangle gives
 * for that triangle (the same scalar routine); other rays are untouched.
 * mesh may be NULL only for a scene of exactly one mesh (RP_ERR_NULL
 * otherwise).  A record naming a mesh or a triangle the scene does not
 * have, on any ray, is RP_ERR_INVALID (nothing written);
 * RP_ERR_NOT_PREPARED for a scene not built. */
RP_API rp_status rp_scene_normals(const rp_scene *scene, const rp_rays *rays, rp_hits *hits,
                                  const uint32_t *mesh);

/* ------------------------------------------------------------------ */
/* Single-ray conveniences (picking)                                    */
/* ------------------------------------------------------------------ */
/* Seed 000's raycast: the ray o + t*d, t >= 0, against a box.  *hit = 1 and
 * *t = the entry t, or the exit t when the origin is inside the box; *normal
 * = the outward normal of that face.  A zero direction, a box behind the
 * origin or a t that is not finite is a miss.  t and normal may be NULL.  Misses leave *t and *normal untouched. */
RP_API rp_status rp_raycast_aabb(rp_vec3 origin, rp_vec3 dir, const rp_aabb *box,
                                 int *hit, float *t, rp_vec3 *normal);
/* The segment from a to b: *t in [0, 1] is the first point of the segment
 * inside the box (0 when a is inside), *point = a + t*(b - a), *normal the
 * outward normal of the face entered (0 when a is inside).  A zero-length
 * segment hits iff a is inside the box.  t, point and normal may be NULL. */
RP_API rp_status rp_segment_aabb(rp_vec3 a, rp_vec3 b, const rp_aabb *box,
                                 int *hit, float *t, rp_vec3 *point,
                                 rp_vec3 *normal);

/* ------------------------------------------------------------------ */
/* Variants and dispatch                                                */
/* ------------------------------------------------------------------ */
typedef enum rp_isa {
    RP_ISA_AUTO = -1, /* rp_set_isa(RP_ISA_AUTO): the best native variant */
    RP_ISA_SCALAR = 0,
    RP_ISA_SSE41 = 1,
    RP_ISA_AVX2 = 2,
    RP_ISA_AVX512 = 3,
    RP_ISA_NEON = 4,
    RP_ISA_COUNT = 5
} rp_isa;

/* "scalar", "sse41", "avx2", "avx512", "neon" ("auto" for RP_ISA_AUTO);
 * NULL for anything else. */
RP_API const char *rp_isa_name(rp_isa isa);
RP_API rp_status rp_isa_from_name(const char *name, rp_isa *isa);
/* Bit (1u << isa) is set for each variant compiled in / runnable on this
 * CPU (natively or through SIMDe emulation) / native to this CPU.  The
 * automatic choice takes the widest native one; forcing accepts any
 * runnable one (emulated variants exist for cross-checking, not speed). */
RP_API unsigned rp_isa_compiled(void);
RP_API unsigned rp_isa_runnable(void);
RP_API unsigned rp_isa_native(void);
/* The variant the kernels use now.  The first call of any kernel or query
 * detects the CPU (once, thread-safe) and reads RP_ISA (scalar, sse41,
 * avx2, avx512, neon or auto); an unusable RP_ISA prints one warning on
 * stderr and falls back to the automatic choice. */
RP_API rp_isa rp_active_isa(void);
/* Forces a variant for all later calls (RP_ERR_ISA_UNKNOWN,
 * RP_ERR_ISA_UNAVAILABLE if it cannot run here: nothing changes then). */
RP_API rp_status rp_set_isa(rp_isa isa);

#ifdef __cplusplus
}
#endif
#endif /* RAYPACK_H */
