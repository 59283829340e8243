/*
 * build.c - the scene's hierarchy: a binary tree by binned SAH (16 bins per
 * axis over the triangles' centroids, pbrt-v4's way), collapsed into RP_BVH_WIDTH-wide
 * nodes by opening the inner child of largest area until the node is full (or only leaves remain).
 * Deterministic by construction: one thread, scalar float arithmetic at the
 * baseline ISA with -ffp-contract=off, ties broken by axis then split
 * index, partitions done in place in a fixed order; so the same meshes give
 * the same tree bytes on every run, CPU and compiler target.  Every finite
 * triangle is kept (even those that can never be hit), because a query must
 * return what the brute-force kernel returns over all of them.
 */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "the scene builder is built at the baseline ISA: a wide ISA flag reached it"
#endif

#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

#define NBINS 16
/* The SAH counts a leaf's triangles in blocks of RP_TRI_BLOCK (as Embree
 * does for its Triangle4 leaves): a one-ray traversal tests a whole block
 * at once, and a block's empty lanes are memory too.  NODE_COST: one wide
 * node's box tests, in block tests. */
#define NODE_COST 1.0f

static float blocks(size_t n) { return (float)((n + RP_TRI_BLOCK - 1) / RP_TRI_BLOCK); }

typedef struct bnode {
    rp_aabb box;
    uint32_t left, right; /* inner: children; leaf: first, count */
    int leaf;
} bnode;

typedef struct builder {
    const rp_triangle *tris;
    rp_aabb *tbox; /* per triangle */
    float *cen;    /* per triangle: 3 floats */
    uint32_t *idx; /* the tree order, built by partitions */
    bnode *bn;
    size_t nbn;
} builder;

/* every coordinate is finite (rp_scene_add_* refuse others), so the plain
 * compare-and-select is exact; fminf/fmaxf would be libm calls for their
 * NaN rules */
static float mn(float a, float b) { return a < b ? a : b; }
static float mx(float a, float b) { return a > b ? a : b; }

static rp_aabb box_empty(void) {
    rp_aabb b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    return b;
}

static void box_grow(rp_aabb *b, const rp_aabb *o) {
    b->min.x = mn(b->min.x, o->min.x);
    b->min.y = mn(b->min.y, o->min.y);
    b->min.z = mn(b->min.z, o->min.z);
    b->max.x = mx(b->max.x, o->max.x);
    b->max.y = mx(b->max.y, o->max.y);
    b->max.z = mx(b->max.z, o->max.z);
}

/* half the surface area; 0 for an empty box */
static float box_area(const rp_aabb *b) {
    float dx = b->max.x - b->min.x, dy = b->max.y - b->min.y, dz = b->max.z - b->min.z;
    if (!(dx >= 0.0f) || !(dy >= 0.0f) || !(dz >= 0.0f))
        return 0.0f;
    float a = dx * dy, c = dy * dz, e = dz * dx;
    a = a + c;
    return a + e;
}

static float comp(const rp_vec3 *v, int k) { return k == 0 ? v->x : k == 1 ? v->y : v->z; }

static rp_aabb tri_box(const rp_triangle *t) {
    rp_aabb b;
    b.min.x = mn(mn(t->v0.x, t->v1.x), t->v2.x);
    b.min.y = mn(mn(t->v0.y, t->v1.y), t->v2.y);
    b.min.z = mn(mn(t->v0.z, t->v1.z), t->v2.z);
    b.max.x = mx(mx(t->v0.x, t->v1.x), t->v2.x);
    b.max.y = mx(mx(t->v0.y, t->v1.y), t->v2.y);
    b.max.z = mx(mx(t->v0.z, t->v1.z), t->v2.z);
    return b;
}

/* The split of idx[begin, end): axis and bin boundary, or -1 for a leaf
 * (or for "split at the middle", when no binned split separates anything
 * and the range is too large for one leaf: *mid is then set). */
static int find_split(const builder *b, size_t begin, size_t end, const rp_aabb *box,
                      const rp_aabb *cb, int *axis_out, int *bin_out, float *cmin_out,
                      float *scale_out) {
    size_t n = end - begin;
    float best = INFINITY;
    int best_axis = -1, best_bin = 0;
    float lo[3], scale[3];
    int use[3];
    rp_aabb bins[3][NBINS];
    size_t cnt[3][NBINS] = {{0}};
    for (int a = 0; a < 3; a++) {
        lo[a] = comp(&cb->min, a);
        float ext = comp(&cb->max, a) - lo[a];
        scale[a] = (float)NBINS / ext;
        /* (an extent that overflows gives scale 0: no binning on that axis) */
        use[a] = ext > 0.0f && scale[a] > 0.0f && isfinite(ext) && isfinite(scale[a]);
        for (int k = 0; k < NBINS; k++)
            bins[a][k] = box_empty();
    }
    if (n > 1) { /* one pass bins the three axes */
        for (size_t i = begin; i < end; i++) {
            uint32_t t = b->idx[i];
            for (int a = 0; a < 3; a++) {
                if (!use[a])
                    continue;
                float d = b->cen[3 * (size_t)t + a] - lo[a];
                int k = (int)(d * scale[a]);
                k = k < 0 ? 0 : k >= NBINS ? NBINS - 1 : k;
                cnt[a][k]++;
                box_grow(&bins[a][k], &b->tbox[t]);
            }
        }
    }
    for (int a = 0; a < 3 && n > 1; a++) {
        if (!use[a])
            continue;
        /* right-to-left sweep for the right sides, then left-to-right */
        float rarea[NBINS];
        size_t rcnt[NBINS];
        rp_aabb acc = box_empty();
        size_t c = 0;
        for (int k = NBINS - 1; k > 0; k--) {
            box_grow(&acc, &bins[a][k]);
            c += cnt[a][k];
            rarea[k] = box_area(&acc);
            rcnt[k] = c;
        }
        acc = box_empty();
        c = 0;
        for (int k = 1; k < NBINS; k++) {
            box_grow(&acc, &bins[a][k - 1]);
            c += cnt[a][k - 1];
            if (c == 0 || rcnt[k] == 0)
                continue;
            float cost = box_area(&acc) * blocks(c) + rarea[k] * blocks(rcnt[k]);
            if (cost < best) {
                best = cost;
                best_axis = a;
                best_bin = k;
                *cmin_out = lo[a];
                *scale_out = scale[a];
            }
        }
    }
    /* leaf: small enough, and splitting costs more than testing them all
     * (a visit of a wide node counted as NODE_COST block tests) */
    float leaf_cost = box_area(box) * blocks(n);
    if (n <= RP_LEAF_MAX && (best_axis < 0 || best + NODE_COST * box_area(box) >= leaf_cost))
        return -1;
    *axis_out = best_axis; /* -1: no binned split: the middle */
    *bin_out = best_bin;
    return 0;
}

static rp_status reserve_bn(builder *b, size_t *cap, size_t need) {
    if (need <= *cap)
        return RP_OK;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    bnode *p = realloc(b->bn, nc * sizeof *p);
    if (!p)
        return RP_ERR_NOMEM;
    b->bn = p;
    *cap = nc;
    return RP_OK;
}

typedef struct task { uint32_t node; uint32_t begin, end; } task;

/* The binary tree over idx[0, n): b->bn[0] is the root. */
static rp_status build_binary(builder *b, size_t n) {
    size_t cap = 0, tcap = 64, nt = 0;
    task *st = malloc(tcap * sizeof *st);
    if (!st || reserve_bn(b, &cap, 1)) {
        free(st);
        return RP_ERR_NOMEM;
    }
    b->nbn = 1;
    st[nt++] = (task){0, 0, (uint32_t)n};
    while (nt) {
        task tk = st[--nt];
        rp_aabb box = box_empty(), cb = box_empty(); /* triangles, centroids */
        for (size_t i = tk.begin; i < tk.end; i++) {
            uint32_t t = b->idx[i];
            const float *c = b->cen + 3 * (size_t)t;
            rp_aabb p = {{c[0], c[1], c[2]}, {c[0], c[1], c[2]}};
            box_grow(&box, &b->tbox[t]);
            box_grow(&cb, &p);
        }
        int axis = -1, bin = 0;
        float cmin = 0.0f, scale = 0.0f;
        bnode *nd = &b->bn[tk.node];
        nd->box = box;
        if (find_split(b, tk.begin, tk.end, &box, &cb, &axis, &bin, &cmin, &scale) < 0) {
            nd->leaf = 1;
            nd->left = tk.begin;
            nd->right = tk.end - tk.begin;
            continue;
        }
        size_t mid;
        if (axis < 0) {
            mid = tk.begin + (tk.end - tk.begin) / 2;
        } else { /* in place, left block first, order of the rest kept */
            size_t i = tk.begin, j = tk.end;
            while (i < j) {
                uint32_t t = b->idx[i];
                float d = b->cen[3 * (size_t)t + axis] - cmin;
                int k = (int)(d * scale);
                k = k < 0 ? 0 : k >= NBINS ? NBINS - 1 : k;
                if (k < bin) {
                    i++;
                } else {
                    b->idx[i] = b->idx[--j];
                    b->idx[j] = t;
                }
            }
            mid = i;
        }
        if (reserve_bn(b, &cap, b->nbn + 2))
            goto nomem;
        nd = &b->bn[tk.node];
        uint32_t l = (uint32_t)b->nbn, r = l + 1;
        b->nbn += 2;
        nd->leaf = 0;
        nd->left = l;
        nd->right = r;
        if (nt + 2 > tcap) {
            task *p = realloc(st, tcap * 2 * sizeof *p);
            if (!p)
                goto nomem;
            st = p;
            tcap *= 2;
        }
        /* right first, so the left subtree is built (and numbered) first */
        st[nt++] = (task){r, (uint32_t)mid, tk.end};
        st[nt++] = (task){l, tk.begin, (uint32_t)mid};
    }
    free(st);
    return RP_OK;
nomem:
    free(st);
    return RP_ERR_NOMEM;
}

/* Collapse: wide node w takes the binary node's children, opening the
 * inner child of largest area until there are RP_BVH_WIDTH (breadth first,
 * so node indices follow a fixed order). */
static rp_status collapse(const builder *b, rp_scene *s) {
    size_t cap = 16, nn = 1, qn = 0, qh = 0, qcap = 16;
    rp_bvh_node *nodes = NULL;
    uint32_t *queue = malloc(qcap * sizeof *queue); /* binary node of wide node k */
    if (posix_memalign((void **)&nodes, 64, cap * sizeof *nodes) != 0)
        nodes = NULL;
    if (!nodes || !queue)
        goto nomem;
    queue[qn++] = 0;
    while (qh < qn) {
        size_t w = qh;
        const bnode *root = &b->bn[queue[qh++]];
        uint32_t kids[RP_BVH_WIDTH];
        int nk = 0;
        if (root->leaf) {
            if (root->right) /* an empty scene has an empty leaf */
                kids[nk++] = queue[w];
        } else {
            kids[nk++] = root->left;
            kids[nk++] = root->right;
        }
        while (nk < RP_BVH_WIDTH) {
            int pick = -1;
            float pa = -1.0f;
            for (int k = 0; k < nk; k++) {
                const bnode *c = &b->bn[kids[k]];
                float a = box_area(&c->box);
                if (!c->leaf && a > pa) {
                    pa = a;
                    pick = k;
                }
            }
            if (pick < 0)
                break;
            const bnode *c = &b->bn[kids[pick]];
            kids[pick] = c->left;
            kids[nk++] = c->right;
        }
        rp_bvh_node *nd = &nodes[w];
        for (int k = 0; k < RP_BVH_WIDTH; k++) {
            rp_aabb box = box_empty();
            uint32_t child = RP_NO_HIT, count = 0;
            if (k < nk) {
                const bnode *c = &b->bn[kids[k]];
                box = c->box;
                if (c->leaf) {
                    child = c->left;
                    count = c->right;
                } else {
                    if (qn == qcap) {
                        uint32_t *q = realloc(queue, qcap * 2 * sizeof *q);
                        if (!q)
                            goto nomem;
                        queue = q;
                        qcap *= 2;
                    }
                    child = (uint32_t)qn;
                    queue[qn++] = kids[k];
                }
            }
            nd->lo[0][k] = box.min.x;
            nd->lo[1][k] = box.min.y;
            nd->lo[2][k] = box.min.z;
            nd->hi[0][k] = box.max.x;
            nd->hi[1][k] = box.max.y;
            nd->hi[2][k] = box.max.z;
            nd->child[k] = child;
            nd->count[k] = count;
        }
        nn = qn;
        if (qn > cap) { /* room for the nodes queued so far */
            size_t nc = cap;
            while (nc < qn)
                nc *= 2;
            rp_bvh_node *p = NULL;
            if (posix_memalign((void **)&p, 64, nc * sizeof *p) != 0)
                goto nomem;
            memcpy(p, nodes, cap * sizeof *p);
            free(nodes);
            nodes = p;
            cap = nc;
        }
    }
    free(queue);
    s->nodes = nodes;
    s->nnodes = nn;
    return RP_OK;
nomem:
    free(queue);
    free(nodes);
    return RP_ERR_NOMEM;
}

/* The leaves' triangles into blocks, leaf by leaf in node order; child[k]
 * of a leaf becomes its first block.  Lanes past a leaf's count repeat its
 * last triangle (scene.h). */
static rp_status pack_leaves(const builder *b, rp_scene *s) {
    size_t nb = 0;
    for (size_t i = 0; i < s->nnodes; i++)
        for (int k = 0; k < RP_BVH_WIDTH; k++)
            nb += (s->nodes[i].count[k] + RP_TRI_BLOCK - 1) / RP_TRI_BLOCK;
    rp_tri4 *bl = NULL;
    if (posix_memalign((void **)&bl, 64, (nb ? nb : 1) * sizeof *bl) != 0)
        return RP_ERR_NOMEM;
    size_t at = 0;
    for (size_t i = 0; i < s->nnodes; i++) {
        rp_bvh_node *nd = &s->nodes[i];
        for (int k = 0; k < RP_BVH_WIDTH; k++) {
            uint32_t n = nd->count[k], first = nd->child[k];
            if (!n)
                continue;
            nd->child[k] = (uint32_t)at;
            for (uint32_t j = 0; j < (n + RP_TRI_BLOCK - 1) / RP_TRI_BLOCK * RP_TRI_BLOCK; j++) {
                uint32_t g = b->idx[first + (j < n ? j : n - 1)];
                const float *f = (const float *)(const void *)&s->tris[g];
                rp_tri4 *q = &bl[at + j / RP_TRI_BLOCK];
                for (int c = 0; c < 9; c++)
                    q->v[c][j % RP_TRI_BLOCK] = f[c];
                q->index[j % RP_TRI_BLOCK] = g;
            }
            at += (n + RP_TRI_BLOCK - 1) / RP_TRI_BLOCK;
        }
    }
    s->blocks = bl;
    s->nblocks = nb;
    return RP_OK;
}

rp_status rp_scene_build_bvh(rp_scene *s) {
    size_t n = s->ntris;
    builder b;
    memset(&b, 0, sizeof b);
    b.tris = s->tris;
    b.tbox = malloc((n ? n : 1) * sizeof *b.tbox);
    b.cen = malloc((n ? n : 1) * 3 * sizeof *b.cen);
    b.idx = malloc((n ? n : 1) * sizeof *b.idx);
    rp_status st = RP_ERR_NOMEM;
    if (!b.tbox || !b.cen || !b.idx)
        goto out;
    float bound = 0.0f;
    for (size_t i = 0; i < n; i++) {
        rp_aabb t = tri_box(&s->tris[i]);
        b.tbox[i] = t;
        float cx = t.min.x + t.max.x, cy = t.min.y + t.max.y, cz = t.min.z + t.max.z;
        b.cen[3 * i + 0] = cx * 0.5f;
        b.cen[3 * i + 1] = cy * 0.5f;
        b.cen[3 * i + 2] = cz * 0.5f;
        b.idx[i] = (uint32_t)i;
        bound = mx(bound, mx(mx(fabsf(t.min.x), fabsf(t.max.x)),
                                   mx(mx(fabsf(t.min.y), fabsf(t.max.y)),
                                         mx(fabsf(t.min.z), fabsf(t.max.z)))));
    }
    if ((st = build_binary(&b, n)) != RP_OK)
        goto out;
    if ((st = collapse(&b, s)) != RP_OK)
        goto out;
    if ((st = pack_leaves(&b, s)) != RP_OK) {
        free(s->nodes);
        s->nodes = NULL;
        s->nnodes = 0;
        goto out;
    }
    s->bound = bound;
    /* the blocks are all the queries need */
    free(s->tris);
    s->tris = NULL;
    s->cap_tris = 0;
out:
    free(b.tbox);
    free(b.cen);
    free(b.idx);
    free(b.bn);
    return st;
}
