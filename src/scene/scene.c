/*
 * scene.c - the public scene API: create, add meshes (soups and indexed),
 * build, size queries, and the closest-hit and any-hit queries.  Every
 * argument is checked here, once per call (bad input gets a status and
 * nothing is written or added); the builder (build.c) and the traversal
 * (traverse.c) below receive checked arguments only.
 */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "scene.c is built at the baseline ISA: a wide ISA flag reached it"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/normal.h"
#include "scene.h"

#define RP_SCENE_MAX_TRIS ((size_t)UINT32_MAX - 1) /* RP_NO_HIT stays free */

rp_status rp_scene_create(rp_scene **scene) {
    if (!scene)
        return RP_ERR_NULL;
    rp_scene *s = calloc(1, sizeof *s);
    if (!s)
        return RP_ERR_NOMEM;
    s->mesh_first = malloc(sizeof *s->mesh_first);
    if (!s->mesh_first) {
        free(s);
        return RP_ERR_NOMEM;
    }
    s->mesh_first[0] = 0;
    s->cap_meshes = 1;
    s->build_threads = 1;
    *scene = s;
    return RP_OK;
}

void rp_scene_free(rp_scene *s) {
    if (!s)
        return;
    free(s->tris);
    free(s->mesh_first);
    free(s->nodes);
    free(s->blocks);
    free(s->slot_of);
    free(s);
}

/* Room for count more triangles and one more mesh; checks the limits. */
static rp_status reserve(rp_scene *s, size_t count) {
    if (s->built)
        return RP_ERR_INVALID;
    if (count > RP_SCENE_MAX_TRIS - s->ntris || s->nmeshes >= (size_t)UINT32_MAX - 1)
        return RP_ERR_COUNT;
    size_t need = s->ntris + count;
    if (need > s->cap_tris) {
        size_t nc = s->cap_tris ? s->cap_tris : 64;
        while (nc < need)
            nc = nc > SIZE_MAX / 2 ? need : nc * 2;
        if (nc > SIZE_MAX / sizeof(rp_triangle))
            return RP_ERR_COUNT;
        /* (rp_big_alloc: huge pages where the copy is large, for its first
         * touch here and the build's gathers from it, pack_range) */
        rp_triangle *p = rp_big_alloc(nc * sizeof *p, 64);
        if (!p)
            return RP_ERR_NOMEM;
        if (s->ntris)
            memcpy(p, s->tris, s->ntris * sizeof *p);
        free(s->tris);
        s->tris = p;
        s->cap_tris = nc;
    }
    if (s->nmeshes + 2 > s->cap_meshes) {
        size_t nc = s->cap_meshes * 2;
        uint32_t *p = realloc(s->mesh_first, nc * sizeof *p);
        if (!p)
            return RP_ERR_NOMEM;
        s->mesh_first = p;
        s->cap_meshes = nc;
    }
    return RP_OK;
}

static int finite3(const float *p) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

static void commit_mesh(rp_scene *s, size_t count, uint32_t *mesh_id) {
    if (mesh_id)
        *mesh_id = (uint32_t)s->nmeshes;
    s->ntris += count;
    s->nmeshes++;
    s->mesh_first[s->nmeshes] = (uint32_t)s->ntris;
}

rp_status rp_scene_add_soup(rp_scene *s, const rp_triangle *tris, size_t count,
                            uint32_t *mesh_id) {
    if (!s || (count && !tris))
        return RP_ERR_NULL;
    if (((uintptr_t)tris & 3u) != 0)
        return RP_ERR_ALIGN;
    if (count > SIZE_MAX / sizeof *tris)
        return RP_ERR_COUNT;
    for (size_t j = 0; j < count; j++)
        if (!finite3(&tris[j].v0.x) || !finite3(&tris[j].v1.x) || !finite3(&tris[j].v2.x))
            return RP_ERR_INVALID;
    rp_status st = reserve(s, count);
    if (st)
        return st;
    if (count)
        memcpy(s->tris + s->ntris, tris, count * sizeof *tris);
    commit_mesh(s, count, mesh_id);
    return RP_OK;
}

rp_status rp_scene_add_mesh(rp_scene *s, const float *xyz, size_t vertex_count,
                            const uint32_t *indices, size_t triangle_count, uint32_t *mesh_id) {
    if (!s || (vertex_count && !xyz) || (triangle_count && !indices))
        return RP_ERR_NULL;
    if (((uintptr_t)xyz & 3u) != 0 || ((uintptr_t)indices & 3u) != 0)
        return RP_ERR_ALIGN;
    if (vertex_count > SIZE_MAX / 12 || triangle_count > SIZE_MAX / 12)
        return RP_ERR_COUNT;
    for (size_t k = 0; k < vertex_count; k++)
        if (!finite3(xyz + 3 * k))
            return RP_ERR_INVALID;
    for (size_t k = 0; k < 3 * triangle_count; k++)
        if (indices[k] >= vertex_count)
            return RP_ERR_INVALID;
    rp_status st = reserve(s, triangle_count);
    if (st)
        return st;
    for (size_t j = 0; j < triangle_count; j++) {
        float *t = (float *)(void *)&s->tris[s->ntris + j];
        for (int c = 0; c < 3; c++)
            memcpy(t + 3 * c, xyz + 3 * (size_t)indices[3 * j + c], 3 * sizeof(float));
    }
    commit_mesh(s, triangle_count, mesh_id);
    return RP_OK;
}

rp_status rp_scene_set_build_threads(rp_scene *s, unsigned threads) {
    if (!s)
        return RP_ERR_NULL;
    if (s->built || threads > RP_BUILD_THREADS_MAX)
        return RP_ERR_INVALID;
    if (threads == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c < 1 ? 1u : c > RP_BUILD_THREADS_MAX ? RP_BUILD_THREADS_MAX : (unsigned)c;
    }
    s->build_threads = threads;
    return RP_OK;
}

rp_status rp_scene_build(rp_scene *s) {
    if (!s)
        return RP_ERR_NULL;
    if (s->built)
        return RP_ERR_INVALID;
    uint32_t *slot = NULL;
    rp_status st = rp_scene_build_bvh(s, &slot);
    if (st)
        return st;
    /* scene index -> slot: every leaf's triangles (the padding lanes of its
     * last block, copies of its last triangle, are not its own) */
    for (size_t i = 0; i < s->nnodes; i++) {
        const rp_bvh_node *nd = &s->nodes[i];
        for (int k = 0; k < RP_BVH_WIDTH; k++)
            for (uint32_t j = 0; j < nd->count[k]; j++) {
                size_t p = (size_t)nd->child[k] * RP_TRI_BLOCK + j;
                slot[rp_scene_index(s, p)] = (uint32_t)p;
            }
    }
    s->slot_of = slot;
    s->built = 1;
    return RP_OK;
}

size_t rp_scene_bytes(const rp_scene *s) {
    if (!s)
        return 0;
    size_t b = sizeof *s + s->cap_tris * sizeof(rp_triangle) +
               s->cap_meshes * sizeof(uint32_t);
    if (s->built)
        b += s->nnodes * sizeof(rp_bvh_node) + s->nblocks * sizeof(rp_tri4) +
             s->ntris * sizeof(uint32_t);
    return b;
}

size_t rp_scene_triangle_count(const rp_scene *s) { return s ? s->ntris : 0; }

static rp_status check_scene(const rp_scene *s, unsigned flags) {
    if (!s)
        return RP_ERR_NULL;
    if (!s->built)
        return RP_ERR_NOT_PREPARED;
    if (flags & ~(RP_CULL_BACKFACE | RP_WATERTIGHT | RP_COHERENT | RP_INCOHERENT))
        return RP_ERR_INVALID;
    if ((flags & RP_COHERENT) && (flags & RP_INCOHERENT))
        return RP_ERR_INVALID;
    return RP_OK;
}

rp_status rp_scene_closest(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                           unsigned flags, rp_hits *hits, uint32_t *mesh) {
    rp_span in[12], out[6];
    rp_status st = check_scene(s, flags);
    if (st || (st = rp_check_rays(rays, in)) || (st = rp_check_hits(hits, rays->n, out)))
        return st;
    if (((uintptr_t)mesh & 3u) != 0)
        return RP_ERR_ALIGN;
    in[11].p = active;
    in[11].bytes = rays->n;
    out[4] = in[10]; /* tmax is written */
    out[5].p = mesh;
    out[5].bytes = mesh ? rays->n * 4 : 0;
    if (rp_check_overlaps(in, 10, out, 6) || rp_check_overlaps(in + 11, 1, out, 6))
        return RP_ERR_ALIAS;
    return rays->n ? rp_kernels_active()->scene_closest(s, rays, active, flags, hits, mesh)
                   : RP_OK;
}

rp_status rp_scene_occluded(const rp_scene *s, const rp_rays *rays, const uint8_t *active,
                            unsigned flags, uint8_t *occluded) {
    rp_span in[12], out[1];
    rp_status st = check_scene(s, flags);
    if (st || (st = rp_check_rays(rays, in)))
        return st;
    if (!occluded && rays->n)
        return RP_ERR_NULL;
    in[11].p = active;
    in[11].bytes = rays->n;
    out[0].p = occluded;
    out[0].bytes = rays->n;
    if (rp_check_overlaps(in, 12, out, 1))
        return RP_ERR_ALIAS;
    return rays->n ? rp_kernels_active()->scene_occluded(s, rays, active, flags, occluded)
                   : RP_OK;
}

rp_status rp_scene_normals(const rp_scene *s, const rp_rays *rays, rp_hits *hits,
                           const uint32_t *mesh) {
    rp_span in[16], out[7];
    if (!s)
        return RP_ERR_NULL;
    if (!s->built)
        return RP_ERR_NOT_PREPARED;
    rp_status st;
    if ((st = rp_check_rays(rays, in)) || (st = rp_check_hits(hits, rays->n, out)))
        return st;
    size_t n = rays->n;
    float *nn[3] = {hits->nx, hits->ny, hits->nz};
    for (int k = 0; k < 3; k++) {
        if (!nn[k] && n)
            return RP_ERR_NULL;
        if (((uintptr_t)nn[k] & 3u) != 0)
            return RP_ERR_ALIGN;
        out[4 + k].p = nn[k];
        out[4 + k].bytes = n * 4;
    }
    if (!mesh && n && s->nmeshes != 1)
        return RP_ERR_NULL; /* NULL means mesh 0 of a one-mesh scene */
    if (((uintptr_t)mesh & 3u) != 0)
        return RP_ERR_ALIGN;
    /* inputs: the rays, the records (t, u, v, prim), mesh; outputs: nx, ny, nz */
    in[11].p = mesh;
    in[11].bytes = mesh ? n * 4 : 0;
    memcpy(in + 12, out, 4 * sizeof *in);
    if (rp_check_overlaps(in, 16, out + 4, 3))
        return RP_ERR_ALIAS;
    /* every record first: on a bad one nothing is written */
    for (size_t i = 0; i < n; i++) {
        uint32_t p = hits->prim[i], m = mesh ? mesh[i] : 0;
        if (p != RP_NO_HIT &&
            (m >= s->nmeshes || p >= s->mesh_first[m + 1] - s->mesh_first[m]))
            return RP_ERR_INVALID;
    }
    /* In chunks: first every hit's slot (independent loads of slot_of, a
     * table of 4 bytes per triangle that the trace does not touch) and a
     * prefetch of its block, then the normals from blocks on their way.
     * One hit at a time, each hit's loads waited on the previous hit's
     * (perf, rp_trace's built-in scene at --detail 2 on an AMD EPYC Zen 4:
     * the normals took about a quarter of the primary rays' time). */
    enum { CHUNK = 64 };
    for (size_t i0 = 0; i0 < n; i0 += CHUNK) {
        size_t i1 = n - i0 < CHUNK ? n : i0 + CHUNK;
        uint32_t at[CHUNK], slot[CHUNK];
        size_t k = 0;
        for (size_t i = i0; i < i1; i++) {
            uint32_t p = hits->prim[i];
            if (p == RP_NO_HIT)
                continue;
            uint32_t g = s->mesh_first[mesh ? mesh[i] : 0] + p;
            at[k] = (uint32_t)(i - i0);
            slot[k++] = s->slot_of[g];
        }
        for (size_t j = 0; j < k; j++) { /* the lane's nine floats: 132 bytes, 3 lines */
            const rp_tri4 *blk = &s->blocks[slot[j] / RP_TRI_BLOCK];
            const char *b = (const char *)&blk->v[0][slot[j] % RP_TRI_BLOCK];
            __builtin_prefetch(b);
            __builtin_prefetch(b + 64);
            __builtin_prefetch(b + 128);
        }
        for (size_t j = 0; j < k; j++) {
            size_t i = i0 + at[j];
            rp_triangle t;
            rp_scene_tri(s, slot[j], &t);
            rp_vec3 v = rp_normal_of(rays, i, &t);
            hits->nx[i] = v.x;
            hits->ny[i] = v.y;
            hits->nz[i] = v.z;
        }
    }
    return RP_OK;
}
