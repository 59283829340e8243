/*
 * harness.h - the test harness rp_check (tests/check, the differential
 * checker) and rp_fuzz (tests/fuzz, the fuzz target) share, written once:
 * the arrays a call sees (names, element types), the kernels under test
 * (the six batch kernels with their primitive family, kind and normals
 * routine), guard buffers (every array in its own 64-byte-aligned block
 * between position-dependent guard bytes, poisoned for ASan and valgrind
 * through guard.h, so both an over-read and an over-write are caught), and
 * the call switch (one function that makes the public call a kernel
 * stands for, and one for its normals).  Header only, static functions
 * (the project builds with -Wno-unused-function), so each program keeps
 * its own build line.
 */
#ifndef RP_TESTS_HARNESS_H
#define RP_TESTS_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "raypack.h"

/* ------------------------------------------------------------------ */
/* Arrays                                                               */
/* ------------------------------------------------------------------ */
/* The order is part of rp_check's --digest (it hashes these numbers). */
enum {
    A_OX, A_OY, A_OZ, A_DX, A_DY, A_DZ, A_TMIN, A_TMAX, A_RDX, A_RDY, A_RDZ,
    A_HT, A_HU, A_HV, A_HPRIM, A_HNX, A_HNY, A_HNZ,
    A_HIT, A_TNEAR, A_TFAR, A_OCC, A_ACTIVE, A_PRIMS,
    A_MESH, A_XYZ, A_IDX, /* scene cases: mesh ids; the indexed meshes' vertices and indices */
    A_COUNT
};
enum { T_F32, T_U32, T_U8, T_PRIM };
static const char *const th_array_names[A_COUNT] = {
    "rays.ox", "rays.oy", "rays.oz", "rays.dx", "rays.dy", "rays.dz",
    "rays.tmin", "rays.tmax", "rays.rdx", "rays.rdy", "rays.rdz",
    "hits.t", "hits.u", "hits.v", "hits.prim", "hits.nx", "hits.ny", "hits.nz",
    "hit", "tnear", "tfar", "occluded", "active", "primitives",
    "mesh", "vertices", "indices"};
static int th_array_type(int a) {
    if (a == A_HPRIM || a == A_MESH || a == A_IDX) return T_U32;
    if (a == A_HIT || a == A_OCC || a == A_ACTIVE) return T_U8;
    if (a == A_PRIMS) return T_PRIM;
    return T_F32;
}
/* bytes per element: 1 for masks and flags, else 4 (primitives: floats) */
static size_t th_array_elem(int a) { return th_array_type(a) == T_U8 ? 1 : 4; }

/* ------------------------------------------------------------------ */
/* Kernels                                                              */
/* ------------------------------------------------------------------ */
/* rp_fuzz picks a kernel by this number from its input: keep the order. */
enum {
    TH_INTERSECT_AABB, TH_CLOSEST_AABB, TH_CLOSEST_TRIANGLE, TH_OCCLUDED_TRIANGLE,
    TH_CLOSEST_SPHERE, TH_CLOSEST_PLANE, TH_NKERNELS
};
enum { F_BOX, F_TRI, F_SPHERE, F_PLANE };       /* primitive family */
enum { K_INTERSECT, K_CLOSEST, K_OCCLUDED };    /* what a call writes */
typedef struct th_kernel {
    const char *name;
    const char *normals; /* the normals routine of its records, or NULL */
    int family, kind;
    size_t prim_floats;  /* floats per primitive */
} th_kernel;
static const th_kernel th_kernels[TH_NKERNELS] = {
    {"intersect_aabb", NULL, F_BOX, K_INTERSECT, 6},
    {"closest_aabb", "hits_normals_aabb", F_BOX, K_CLOSEST, 6},
    {"closest_triangle", "hits_normals_triangle", F_TRI, K_CLOSEST, 9},
    {"occluded_triangle", NULL, F_TRI, K_OCCLUDED, 9},
    {"closest_sphere", "hits_normals_sphere", F_SPHERE, K_CLOSEST, 4},
    {"closest_plane", "hits_normals_plane", F_PLANE, K_CLOSEST, 4},
};
/* The kernel of a family and kind (intersect: boxes; occluded: triangles). */
static int th_kernel_of(int family, int kind) {
    if (kind == K_INTERSECT) return TH_INTERSECT_AABB;
    if (kind == K_OCCLUDED) return TH_OCCLUDED_TRIANGLE;
    static const int closest[4] = {TH_CLOSEST_AABB, TH_CLOSEST_TRIANGLE, TH_CLOSEST_SPHERE,
                                   TH_CLOSEST_PLANE};
    return closest[family];
}

/* ------------------------------------------------------------------ */
/* Guard buffers                                                        */
/* ------------------------------------------------------------------ */
#define TH_GUARD 64 /* guard bytes before (beyond the offset) and after every array */

/* One array: [guard][offset][data][guard, to a multiple of 64] in one
 * 64-byte-aligned block; every byte but the data holds th_guard_byte(its
 * position, a), a pattern that differs per position and array, and is
 * poisoned (guard.h) until th_buf_unpoison. */
typedef struct th_buf {
    unsigned char *block, *p; /* the block; the data */
    size_t lead, bytes, total; /* bytes before the data; of data; of the block */
    int a;
} th_buf;

static unsigned char th_guard_byte(size_t pos, int a) {
    return (unsigned char)(0xa5 ^ (pos * 0x3b) ^ ((unsigned)a * 0x11));
}

/* `bytes` of src (NULL: zeros) at `offset` bytes past the front guard. */
static void th_buf_new(th_buf *g, int a, const void *src, size_t bytes, size_t offset) {
    g->a = a;
    g->lead = TH_GUARD + offset;
    g->bytes = bytes;
    g->total = (g->lead + bytes + TH_GUARD + 63) / 64 * 64;
    g->block = aligned_alloc(64, g->total);
    if (!g->block) {
        fprintf(stderr, "harness: out of memory\n");
        abort();
    }
    g->p = g->block + g->lead;
    for (size_t i = 0; i < g->total; i++)
        g->block[i] = th_guard_byte(i, a);
    if (bytes) {
        if (src)
            memcpy(g->p, src, bytes);
        else
            memset(g->p, 0, bytes);
    }
    POISON(g->block, g->lead);
    POISON(g->p + bytes, g->total - g->lead - bytes);
}

static void th_buf_unpoison(th_buf *g) {
    if (g->block)
        UNPOISON(g->block, g->total);
}

/* The first guard byte that no longer holds its pattern (a position in
 * the block), or SIZE_MAX.  After th_buf_unpoison. */
static size_t th_buf_first_bad(const th_buf *g) {
    for (size_t i = 0; i < g->total; i++) {
        if (i == g->lead)
            i += g->bytes;
        if (i >= g->total)
            break;
        if (g->block[i] != th_guard_byte(i, g->a))
            return i;
    }
    return SIZE_MAX;
}

static void th_buf_free(th_buf *g) {
    th_buf_unpoison(g);
    free(g->block);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------ */
/* The call switch                                                      */
/* ------------------------------------------------------------------ */
/* A batch and records over the data of g[A_OX .. A_RDZ] / g[A_HT .. A_HNZ]. */
static void th_rays_of(rp_rays *rays, size_t n, th_buf *g) {
    memset(rays, 0, sizeof *rays);
    rays->n = n;
    float **f[11] = {&rays->ox, &rays->oy, &rays->oz, &rays->dx, &rays->dy, &rays->dz,
                     &rays->tmin, &rays->tmax, &rays->rdx, &rays->rdy, &rays->rdz};
    for (int k = 0; k < 11; k++)
        *f[k] = (float *)(void *)g[A_OX + k].p;
}
static void th_hits_of(rp_hits *hits, size_t n, th_buf *g) {
    memset(hits, 0, sizeof *hits);
    hits->n = n;
    hits->t = (float *)(void *)g[A_HT].p;
    hits->u = (float *)(void *)g[A_HU].p;
    hits->v = (float *)(void *)g[A_HV].p;
    hits->prim = (uint32_t *)(void *)g[A_HPRIM].p;
    hits->nx = (float *)(void *)g[A_HNX].p;
    hits->ny = (float *)(void *)g[A_HNY].p;
    hits->nz = (float *)(void *)g[A_HNZ].p;
}

/* The public call of kernel k over `count` primitives from prims (one
 * chunk; base: its index_base).  intersect_aabb: the box is prims[0]. */
static rp_status th_call(int k, unsigned flags, rp_rays *rays, const uint8_t *active,
                         const void *prims, size_t count, uint32_t base, rp_hits *hits,
                         uint8_t *hit, float *tnear, float *tfar, uint8_t *occluded) {
    switch (k) {
    case TH_INTERSECT_AABB:
        return rp_intersect_aabb(rays, active, (const rp_aabb *)prims, hit, tnear, tfar);
    case TH_CLOSEST_AABB:
        return rp_closest_aabb(rays, active, (const rp_aabb *)prims, count, base, hits);
    case TH_CLOSEST_TRIANGLE:
        return rp_closest_triangle(rays, active, (const rp_triangle *)prims, count, base, flags,
                                   hits);
    case TH_OCCLUDED_TRIANGLE:
        return rp_occluded_triangle(rays, active, (const rp_triangle *)prims, count, flags,
                                    occluded);
    case TH_CLOSEST_SPHERE:
        return rp_closest_sphere(rays, active, (const rp_sphere *)prims, count, base, hits);
    default:
        return rp_closest_plane(rays, active, (const rp_plane *)prims, count, base, hits);
    }
}

/* The normals of kernel k's records (all `count` primitives); 0 (and
 * nothing called) for a kernel without records. */
static int th_call_normals(int k, const rp_rays *rays, rp_hits *hits, const void *prims,
                           size_t count, uint32_t base, rp_status *s) {
    switch (k) {
    case TH_CLOSEST_AABB:
        *s = rp_hits_normals_aabb(rays, hits, (const rp_aabb *)prims, count, base);
        return 1;
    case TH_CLOSEST_TRIANGLE:
        *s = rp_hits_normals_triangle(rays, hits, (const rp_triangle *)prims, count, base);
        return 1;
    case TH_CLOSEST_SPHERE:
        *s = rp_hits_normals_sphere(rays, hits, (const rp_sphere *)prims, count, base);
        return 1;
    case TH_CLOSEST_PLANE:
        *s = rp_hits_normals_plane(rays, hits, (const rp_plane *)prims, count, base);
        return 1;
    default:
        return 0;
    }
}

#endif
