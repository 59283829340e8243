/*
 * scene.h - the scene layer's internal layout: the meshes as added, and the
 * built hierarchy (RP_BVH_WIDTH-wide nodes whose child boxes are stored as structure of
 * arrays, leaves that are runs of blocks of four triangles stored as
 * structure of arrays, the form a one-ray traversal tests four at a time).
 * src/scene/build.c makes it, src/scene/traverse.c walks it (the reference
 * traversal, scalar), src/scene/scene.c is the public API that checks
 * arguments once and calls them.  Nothing below scene.c checks arguments.
 */
#ifndef RP_SCENE_H
#define RP_SCENE_H

#include "../internal.h"

#define RP_BVH_WIDTH 8 /* children per node (docs/SEMANTICS.md, "Build": 4 against 8 measured) */
#define RP_LEAF_MAX 8 /* triangles per leaf at most */
#define RP_TRI_BLOCK 4 /* triangles per leaf block */

/* One wide node.  Child k is empty (count[k] == 0 and child[k] ==
 * RP_NO_HIT, box inverted: never hit), an inner node (count[k] == 0,
 * child[k] = its node index) or a leaf (count[k] triangles, 1 to
 * RP_LEAF_MAX, in the blocks child[k], child[k] + 1, ...: triangle j of
 * the leaf is lane j % 4 of block child[k] + j / 4).  32 * RP_BVH_WIDTH
 * bytes, 64-byte aligned. */
typedef struct rp_bvh_node {
    float lo[3][RP_BVH_WIDTH];
    float hi[3][RP_BVH_WIDTH];
    uint32_t child[RP_BVH_WIDTH];
    uint32_t count[RP_BVH_WIDTH];
} rp_bvh_node;

/* Four triangles of a leaf: v[3 * k + a][j] is axis a of vertex k of the
 * block's triangle j; index[j] its scene index (the tie-break order).  The
 * lanes of a leaf's last block past its count repeat the leaf's last
 * triangle, index included: such a copy gives the same t at the same index,
 * which never replaces a hit (only a lower index wins a tie), so a one-ray
 * traversal may test whole blocks.  160 bytes, 16-byte aligned. */
typedef struct rp_tri4 {
    float v[9][RP_TRI_BLOCK];
    uint32_t index[RP_TRI_BLOCK];
} rp_tri4;

struct rp_scene {
    /* the meshes as added: every triangle, in scene order (mesh 0 first;
     * freed by the build), and the first scene index of each mesh
     * (mesh_first[nmeshes] = ntris) */
    rp_triangle *tris;
    size_t ntris, cap_tris;
    uint32_t *mesh_first;
    size_t nmeshes, cap_meshes;
    unsigned build_threads; /* rp_scene_set_build_threads (>= 1) */
    /* built */
    int built;
    rp_bvh_node *nodes; /* nodes[0] is the root */
    size_t nnodes;
    uint32_t levels;        /* node levels (the root's is 1): the longest path from the root has
                             * this many nodes (bounds the traversals' stacks) */
    rp_tri4 *blocks; /* the leaves' triangles, 64-byte aligned */
    size_t nblocks;
    float bound;            /* max |coordinate| over every vertex */
    float span;             /* the longest side of the scene's box, 0 if empty (packet_short) */
    uint32_t *slot_of;      /* scene index -> its slot (block * 4 + lane), for rp_scene_normals */
};

/* The mesh holding scene index g: the last m with mesh_first[m] <= g. */
static inline uint32_t rp_scene_mesh_of(const rp_scene *s, uint32_t g) {
    size_t lo = 0, hi = s->nmeshes; /* mesh_first[lo] <= g < mesh_first[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->mesh_first[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* Triangle slot p (block p / 4, lane p % 4) as an rp_triangle. */
static inline void rp_scene_tri(const rp_scene *s, size_t p, rp_triangle *t) {
    const rp_tri4 *b = &s->blocks[p / RP_TRI_BLOCK];
    size_t j = p % RP_TRI_BLOCK;
    float *f = (float *)(void *)t;
    for (int k = 0; k < 9; k++)
        f[k] = b->v[k][j];
}
/* Start loading a child a traversal will visit later (a node's rows, or
 * a leaf's first block): the far children of a node wait on the stack
 * while the nearest is walked, and on a scene larger than the caches each
 * would otherwise cost a memory round trip when popped.  No effect on any
 * result. */
static inline void rp_scene_prefetch(const rp_scene *s, uint32_t child, uint32_t count) {
    /* four lines either way (a node's; a block's 160 bytes, which may
     * straddle four, and else the next block's first), and no branch on
     * the kind of child: it was mispredicted about once per incoherent ray
     * (callgrind's branch model, bunny) */
    uintptr_t pb = (uintptr_t)s->blocks + (uintptr_t)child * sizeof(rp_tri4);
    uintptr_t pn = (uintptr_t)s->nodes + (uintptr_t)child * sizeof(rp_bvh_node);
    uintptr_t m = (uintptr_t)0 - (uintptr_t)(count != 0);
    const char *p = (const char *)((pb & m) | (pn & ~m));
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + 128);
    __builtin_prefetch(p + 192);
}

static inline uint32_t rp_scene_index(const rp_scene *s, size_t p) {
    return s->blocks[p / RP_TRI_BLOCK].index[p % RP_TRI_BLOCK];
}

/* build.c: memory for a large array, align-byte aligned (a power of two,
 * at least sizeof(void *)); huge pages where the system gives them.  NULL
 * when out of memory; freed by free(). */
RP_HIDDEN void *rp_big_alloc(size_t bytes, size_t align);

/* build.c: makes nodes, blocks, bound from tris.  RP_OK, and *scratch
 * an array of ntris (at least 1) uint32_t the caller frees (the build's
 * own, already touched: scene.c makes slot_of in it); or RP_ERR_NOMEM (then
 * the scene is as before). */
RP_HIDDEN rp_status rp_scene_build_bvh(rp_scene *s, uint32_t **scratch);

/* traverse.c: the reference queries (one ray at a time, scalar).
 * Arguments are checked by the caller; RP_ERR_NOMEM (nothing written) when
 * a deep tree's stack cannot be allocated. */
RP_HIDDEN rp_status rp_scene_closest_ref(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                                    unsigned flags, rp_hits *hits, uint32_t *mesh);
RP_HIDDEN rp_status rp_scene_occluded_ref(const rp_scene *s, const rp_rays *rays,
                                     const uint8_t *active, unsigned flags, uint8_t *occluded);

/* The SIMD traversals' stack entries (src/scene/traverse_simd.h), here so
 * that two widths of one variant can share a stack (the AVX-512 variant's
 * 8-lane packets, below).  A packet's stacked node, the lanes that hit it
 * and the smallest of their entries: */
typedef struct pentry {
    uint32_t node;
    float entry;    /* the smallest range entry (rn) over the lanes that hit it */
    unsigned lanes; /* the lanes that hit it (bit l: lane l) */
} pentry;
/* What a query's packets met (scene_packets' choice of width): packets
 * walked, those of mixed direction signs, those of them not short
 * (packet_short), and in those of one octant the leaves visited and the
 * lanes in play summed over those visits.  Counted only where a variant
 * chooses (PSTAT, traverse_simd.h). */
typedef struct pstat {
    unsigned packets, mixed, mlong, leaves, lanes;
} pstat;
/* A one-ray walk's stacked child: a node (count 0) or a leaf, and its
 * entry. */
typedef struct qentry {
    uint32_t child, count;
    float entry;
} qentry;

/* src/avx512/scene8_avx512.c: the packet walk of rays i .. i+m-1 in
 * packets of 8 (the AVX2 vector layer, built with the AVX-512 flags),
 * which the AVX-512 variant hands its packets of mixed direction signs;
 * as scene_query's packets (traverse_simd.h), with its stacks (cap
 * entries each). */
RP_HIDDEN rp_status rp_scene_packets8_avx512(const rp_scene *s, rp_rays *rays,
                                             const uint8_t *active, unsigned flags,
                                             rp_hits *hits, uint32_t *mesh, uint8_t *occluded,
                                             int closest, size_t i, size_t m, pentry *stack,
                                             size_t cap, qentry *rstack, pstat *ps);

#endif
