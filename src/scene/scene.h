/*
 * scene.h - the scene layer's internal layout: the meshes as added, and the
 * built hierarchy (RP_BVH_WIDTH-wide nodes whose child boxes are stored as structure of
 * arrays, leaves that are runs of the scene's triangle copy in tree order).
 * src/scene/build.c makes it, src/scene/traverse.c walks it (the reference
 * traversal, scalar), src/scene/scene.c is the public API that checks
 * arguments once and calls them.  Nothing below scene.c checks arguments.
 */
#ifndef RP_SCENE_H
#define RP_SCENE_H

#include "../internal.h"

#define RP_BVH_WIDTH 4 /* 4: 56 bytes/triangle on test_scene, 8: 60 (to measure again with the SIMD traversals) */
#define RP_LEAF_MAX 8 /* triangles per leaf at most */

/* One wide node.  Child k is empty (count[k] == 0 and child[k] ==
 * RP_NO_HIT, box inverted: never hit), an inner node (count[k] == 0,
 * child[k] = its node index) or a leaf (count[k] triangles from
 * child[k] in the tree-order arrays).  32 * RP_BVH_WIDTH bytes, 64-byte aligned. */
typedef struct rp_bvh_node {
    float lo[3][RP_BVH_WIDTH];
    float hi[3][RP_BVH_WIDTH];
    uint32_t child[RP_BVH_WIDTH];
    uint32_t count[RP_BVH_WIDTH];
} rp_bvh_node;

struct rp_scene {
    /* the meshes as added: every triangle, in scene order (mesh 0 first;
     * freed by the build), and the first scene index of each mesh
     * (mesh_first[nmeshes] = ntris) */
    rp_triangle *tris;
    size_t ntris, cap_tris;
    uint32_t *mesh_first;
    size_t nmeshes, cap_meshes;
    /* built */
    int built;
    rp_bvh_node *nodes; /* nodes[0] is the root */
    size_t nnodes;
    rp_triangle *leaf_tris; /* the triangles in tree order */
    uint32_t *leaf_index;   /* their scene index (the tie-break order) */
    float bound;            /* max |coordinate| over every vertex */
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

/* build.c: makes nodes, leaf_tris, leaf_index, bound from tris.  RP_OK or
 * RP_ERR_NOMEM (then the scene is as before). */
RP_HIDDEN rp_status rp_scene_build_bvh(rp_scene *s);

/* traverse.c: the reference queries (one ray at a time, scalar).
 * Arguments are checked by the caller; RP_ERR_NOMEM (nothing written) when
 * a deep tree's stack cannot be allocated. */
RP_HIDDEN rp_status rp_scene_closest_ref(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                                    unsigned flags, rp_hits *hits, uint32_t *mesh);
RP_HIDDEN rp_status rp_scene_occluded_ref(const rp_scene *s, const rp_rays *rays,
                                     const uint8_t *active, unsigned flags, uint8_t *occluded);

#endif
