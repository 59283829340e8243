/*
 * traverse.c - the reference scene queries: one ray at a time down the
 * wide hierarchy, children tested with the conservative box test of
 * src/scalar/ref.h (rp_ref_slab_wt_entry) and visited nearest entry first,
 * triangles tested with the reference's own per-pair tests.  This is the
 * specification of a scene query, as ref.h is of a kernel:
 *   - a subtree is skipped only when the box test says no watertight hit in
 *     it can lie in [tmin, best], or when its entry bound is strictly beyond
 *     the best t so far, so a tie at the best t is still visited;
 *   - a triangle replaces the best hit when it is nearer, or at the same t
 *     with a lower scene index; a record held from an earlier call is
 *     replaced only by a strictly nearer hit.
 * So with RP_WATERTIGHT the result is the minimum (t, scene index) over all
 * the scene's triangles: exactly what rp_closest_triangle returns over them.
 * Without it (Moller-Trumbore), the minimum over the hits that pass
 * rp_ref_mt_in_box (t inside the triangle's padded box): what brute force
 * returns but for hits outside their triangle's box, which every traversal
 * drops alike (docs/SEMANTICS.md, "Scenes").
 * Built at the baseline ISA; the SIMD traversals are checked against it.
 */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "the reference traversal is built at the baseline ISA: a wide ISA flag reached it"
#endif

#include <stdlib.h>

#include "../scalar/ref.h"
#include "scene.h"

typedef struct sentry {
    uint32_t node;
    float entry;
} sentry;

static rp_ray1 load_ray(const rp_rays *r, size_t i) {
    rp_ray1 x = {r->ox[i], r->oy[i], r->oz[i], r->dx[i], r->dy[i], r->dz[i],
                 r->rdx[i], r->rdy[i], r->rdz[i], r->tmin[i], r->tmax[i]};
    return x;
}

/* One triangle: candidate and t, by the test the flags choose; a
 * Moller-Trumbore hit only where it passes rp_ref_mt_in_box (a watertight
 * t lies in its triangle's box range by construction: rp_ref_wt_tplane). */
static int tri_hit(const rp_ray1 *r, const rp_wt_ray *w, float pad, const rp_triangle *t,
                   unsigned flags, float *tt) {
    if (flags & RP_WATERTIGHT) {
        rp_wt_eval e = rp_ref_wt_eval(r, w, t, flags);
        if (!e.candidate)
            return 0;
        *tt = rp_ref_wt_t(r, w, t, &e);
        return 1;
    }
    rp_tri_eval e = rp_ref_tri_eval(r, t, flags);
    if (!e.candidate)
        return 0;
    *tt = rp_ref_tri_t(&e);
    return rp_ref_mt_in_box(r, w, t, pad, *tt);
}

/* The children of node nd that the ray (with tmax = the best so far) may
 * hit, pushed farthest first so that the nearest is popped first; leaves
 * are handed to leaf() at once, nearest first. */
typedef struct walk {
    const rp_scene *s;
    rp_ray1 r; /* r.tmax: the best t so far */
    rp_wt_ray w;
    float pad;
    sentry *stack;
    size_t sp;
} walk;

static size_t visit(walk *wk, const rp_bvh_node *nd, sentry out[RP_BVH_WIDTH]) {
    size_t n = 0;
    for (int k = 0; k < RP_BVH_WIDTH; k++) {
        if (nd->child[k] == RP_NO_HIT)
            continue;
        rp_aabb b = {{nd->lo[0][k], nd->lo[1][k], nd->lo[2][k]},
                     {nd->hi[0][k], nd->hi[1][k], nd->hi[2][k]}};
        float entry;
        if (!rp_ref_slab_wt_entry(&wk->r, &wk->w, &b, wk->pad, &entry))
            continue;
        /* insertion by entry, nearest first; equal entries keep child order */
        size_t j = n;
        while (j > 0 && out[j - 1].entry > entry) {
            out[j] = out[j - 1];
            j--;
        }
        out[j].node = (uint32_t)k;
        out[j].entry = entry;
        n++;
    }
    return n;
}


static void closest1(walk *wk, rp_rays *rays, size_t i, unsigned flags, rp_hits *hits,
                     uint32_t *mesh) {
    const rp_scene *s = wk->s;
    int has = hits->prim[i] != RP_NO_HIT;
    uint32_t bg = RP_NO_HIT; /* scene index of the best hit of this query */
    size_t bp = 0;           /* and its slot in the leaf blocks */
    wk->sp = 0;
    wk->stack[wk->sp++] = (sentry){0, -INFINITY};
    while (wk->sp) {
        sentry e = wk->stack[--wk->sp];
        if (e.entry > wk->r.tmax)
            continue;
        const rp_bvh_node *nd = &s->nodes[e.node];
        sentry kids[RP_BVH_WIDTH];
        size_t n = visit(wk, nd, kids);
        /* leaves now, nearest first; inner nodes on the stack, farthest
         * pushed first */
        for (size_t c = 0; c < n; c++) {
            int k = (int)kids[c].node;
            if (!nd->count[k] || kids[c].entry > wk->r.tmax)
                continue;
            size_t p0 = (size_t)nd->child[k] * RP_TRI_BLOCK;
            for (size_t p = p0; p < p0 + nd->count[k]; p++) {
                float t;
                rp_triangle tri;
                rp_scene_tri(s, p, &tri);
                if (!tri_hit(&wk->r, &wk->w, wk->pad, &tri, flags, &t))
                    continue;
                uint32_t g = rp_scene_index(s, p);
                float best = wk->r.tmax;
                int tie_ok = bg != RP_NO_HIT ? g < bg : !has;
                if ((t >= wk->r.tmin) & (t <= best) & ((t < best) | tie_ok)) {
                    wk->r.tmax = t;
                    bg = g;
                    bp = p;
                }
            }
        }
        for (size_t c = n; c-- > 0;) {
            int k = (int)kids[c].node;
            if (!nd->count[k])
                wk->stack[wk->sp++] = (sentry){nd->child[k], kids[c].entry};
        }
    }
    if (bg == RP_NO_HIT)
        return;
    rp_triangle tri;
    rp_scene_tri(s, bp, &tri);
    const rp_triangle *t = &tri;
    float u, v;
    if (flags & RP_WATERTIGHT) {
        rp_wt_eval e = rp_ref_wt_eval(&wk->r, &wk->w, t, flags);
        rp_ref_wt_uv(&e, &u, &v);
    } else {
        rp_tri_eval e = rp_ref_tri_eval(&wk->r, t, flags);
        rp_ref_tri_uv(&e, &u, &v);
    }
    uint32_t m = rp_scene_mesh_of(s, bg);
    rays->tmax[i] = wk->r.tmax;
    hits->t[i] = wk->r.tmax;
    hits->u[i] = u;
    hits->v[i] = v;
    hits->prim[i] = bg - s->mesh_first[m];
    if (mesh)
        mesh[i] = m;
}

static int occluded1(walk *wk, unsigned flags) {
    const rp_scene *s = wk->s;
    wk->sp = 0;
    wk->stack[wk->sp++] = (sentry){0, -INFINITY};
    while (wk->sp) {
        sentry e = wk->stack[--wk->sp];
        const rp_bvh_node *nd = &s->nodes[e.node];
        sentry kids[RP_BVH_WIDTH];
        size_t n = visit(wk, nd, kids);
        for (size_t c = 0; c < n; c++) {
            int k = (int)kids[c].node;
            if (!nd->count[k])
                continue;
            size_t p0 = (size_t)nd->child[k] * RP_TRI_BLOCK;
            for (size_t p = p0; p < p0 + nd->count[k]; p++) {
                float t;
                rp_triangle tri;
                rp_scene_tri(s, p, &tri);
                if (tri_hit(&wk->r, &wk->w, wk->pad, &tri, flags, &t) &&
                    (t >= wk->r.tmin) & (t <= wk->r.tmax))
                    return 1;
            }
        }
        for (size_t c = n; c-- > 0;) {
            int k = (int)kids[c].node;
            if (!nd->count[k])
                wk->stack[wk->sp++] = (sentry){nd->child[k], kids[c].entry};
        }
    }
    return 0;
}

/* Depth first: a node pops one entry and pushes at most RP_BVH_WIDTH, so
 * RP_BVH_WIDTH entries per level of the path from the root, plus one,
 * suffice. */
static int walk_init(walk *wk, const rp_scene *s, sentry *local, size_t nlocal) {
    size_t cap = (size_t)RP_BVH_WIDTH * s->levels + 1;
    wk->s = s;
    wk->stack = cap <= nlocal ? local : malloc(cap * sizeof(sentry));
    return wk->stack != NULL;
}

static void walk_ray(walk *wk, const rp_rays *rays, size_t i) {
    wk->r = load_ray(rays, i);
    wk->w = rp_ref_wt_setup(&wk->r);
    wk->pad = rp_ref_wt_pad(&wk->r, wk->s->bound);
}

/* Every ray of the batch down the tree: closest (hits, mesh) or any hit
 * (occluded). */
static rp_status walk_all(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                          unsigned flags, rp_hits *hits, uint32_t *mesh, uint8_t *occluded) {
    sentry local[256];
    walk wk;
    if (!walk_init(&wk, s, local, 256))
        return RP_ERR_NOMEM;
    for (size_t i = 0; i < rays->n; i++) {
        if ((active && !active[i]) || !(rays->rdx[i] == rays->rdx[i]))
            continue;
        walk_ray(&wk, rays, i);
        if (!occluded)
            closest1(&wk, rays, i, flags, hits, mesh);
        else if (occluded1(&wk, flags))
            occluded[i] = 1;
    }
    if (wk.stack != local)
        free(wk.stack);
    return RP_OK;
}

rp_status rp_scene_closest_ref(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                               unsigned flags, rp_hits *hits, uint32_t *mesh) {
    return walk_all(s, rays, active, flags, hits, mesh, NULL);
}

rp_status rp_scene_occluded_ref(const rp_scene *s, const rp_rays *rays, const uint8_t *active,
                                unsigned flags, uint8_t *occluded) {
    /* the batch is only read on this path */
    return walk_all(s, (rp_rays *)(uintptr_t)rays, active, flags, NULL, NULL, occluded);
}
