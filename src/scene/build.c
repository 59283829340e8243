/*
 * build.c - the scene's hierarchy: a binary tree by SAH, split down to
 * leaves of one block, then collapsed into RP_BVH_WIDTH-wide nodes by
 * dynamic programming (collapse, below): the wide nodes, and the subtrees
 * of at most RP_LEAF_MAX triangles that become leaves, are those of least
 * SAH cost among every way of cutting the binary tree into wide nodes
 * (Ylitie, Karras and Laine's optimal collapse, "Efficient incoherent ray
 * traversal on GPUs through compressed wide BVHs", HPG 2017).  Binary
 * nodes of more than SMALL_MAX triangles: binned SAH (16 bins per axis over
 * the triangles' centroids, pbrt-v4's way) over 32-byte box records kept
 * in tree order (the partition
 * moves the records, without branches, between them and a scratch array;
 * the sides' boxes come from the bins).  Subtrees of at most SMALL_MAX triangles: exact
 * SAH, a sweep over the triangles sorted by centroid on each axis (sorted
 * once per subtree, kept sorted through stable partitions); nodes of at most
 * one block are leaves without a search.  The cost of a fixed 48-bin search
 * at every small node is what made the build slow.
 * Deterministic by construction: float arithmetic at the
 * baseline ISA with -ffp-contract=off, four lanes at a time where it helps
 * (v4_*: SSE2, NEON or plain C, each lane the scalar expression's value:
 * min/max as a < b ? a : b, never a NaN-rule min), every min/max fold in
 * a fixed order (the binning's runs are merged in run order, which gives
 * the same bits), ties broken by axis then split index, sorts by a total
 * order, partitions in a fixed order; so the same meshes give the same tree
 * bytes on every run, CPU and compiler target.  Every finite triangle is kept (even those
 * that can never be hit), because a query must return what the brute-force
 * kernel returns over all of them.  With build threads
 * (rp_scene_set_build_threads) the records, the top nodes' binning, the
 * subtrees below the top and the leaves' packing are shared out in chunks
 * whose results are merged in a fixed order, so the bytes are also the same
 * for every thread count (the threaded build, below build_loop).
 */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "the scene builder is built at the baseline ISA: a wide ISA flag reached it"
#endif

#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#define _DEFAULT_SOURCE         /* madvise */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "scene.h"

#define NBINS 16
/* The SAH counts a leaf's triangles in blocks of RP_TRI_BLOCK (as Embree
 * does for its Triangle4 leaves): a one-ray traversal tests a whole block
 * at once, and a block's empty lanes are memory too.  NODE_COST: the visit
 * of one wide node (its eight box tests and its four cache lines), in
 * block tests, for the collapse.  Measured (bench rows, AMD Zen 4,
 * 2026-11-27, alternated runs, raypack over Embree in each run): 1.5, 2,
 * 2.5 and 3 all beat the greedy collapse this replaced; 2 was best or
 * within the noise of the best on every row (docs/PERFORMANCE-LOG.md). */
#define NODE_COST 2.0f

/* The build's large arrays (and the scene's: nodes, blocks, slot_of):
 * 2 MiB-aligned and, on Linux, marked for transparent huge pages, for a
 * first touch of 2 MiB at a time instead of 4 KiB (a 1.2M-triangle build
 * spent a third of its time in page faults).  A hint only: the bytes
 * written are the same.  Freed by free(). */
#define BIG_PAGE ((size_t)2 << 20)
void *rp_big_alloc(size_t bytes, size_t align) {
    void *p = NULL;
    if (bytes >= BIG_PAGE)
        align = BIG_PAGE;
    if (posix_memalign(&p, align, bytes ? bytes : 1) != 0)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= BIG_PAGE)
        (void)madvise(p, bytes / BIG_PAGE * BIG_PAGE, MADV_HUGEPAGE);
#endif
    return p;
}

static float blocks(size_t n) { return (float)((n + RP_TRI_BLOCK - 1) / RP_TRI_BLOCK); }

/* A box as two 4-float rows (lane 3 is 0.0f for a triangle, never integer
 * bits): min/max by an integer-mask select, which the compiler makes 4-wide
 * at the baseline ISA, with the value of a < b ? a : b exactly. */
typedef struct bx {
    float lo[4], hi[4];
} bx;

/* Four floats at once: the baseline's own vectors (SSE2 on x86-64, NEON on
 * AArch64), else plain C.  v4_min(a, b) is a < b ? a : b and v4_max(a, b)
 * a > b ? a : b lane by lane, exactly (minps/maxps are that; NEON's vminq
 * is not, for -0 and +0, so a compare and a select): the same bits as the
 * scalar expressions everywhere. */
#if defined(__SSE2__)
#include <emmintrin.h>
typedef __m128 v4;
static inline v4 v4_ld(const float *p) { return _mm_loadu_ps(p); }
static inline void v4_st(float *p, v4 a) { _mm_storeu_ps(p, a); }
static inline v4 v4_min(v4 a, v4 b) { return _mm_min_ps(a, b); }
static inline v4 v4_max(v4 a, v4 b) { return _mm_max_ps(a, b); }
static inline v4 v4_add(v4 a, v4 b) { return _mm_add_ps(a, b); }
static inline v4 v4_sub(v4 a, v4 b) { return _mm_sub_ps(a, b); }
static inline v4 v4_mul(v4 a, v4 b) { return _mm_mul_ps(a, b); }
static inline v4 v4_set1(float a) { return _mm_set1_ps(a); }
/* truncated toward zero, to 32-bit integers */
static inline void v4_cvtt(int32_t *q, v4 a) { _mm_storeu_si128((__m128i *)(void *)q, _mm_cvttps_epi32(a)); }
/* dx * dy + dy * dz + dz * dx of d, in that order */
static inline float v4_area3(v4 d) {
    v4 p = _mm_mul_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(3, 0, 2, 1)));
    v4 a = _mm_add_ss(p, _mm_shuffle_ps(p, p, _MM_SHUFFLE(1, 1, 1, 1)));
    return _mm_cvtss_f32(_mm_add_ss(a, _mm_movehl_ps(p, p)));
}
#elif defined(__ARM_NEON)
#include <arm_neon.h>
typedef float32x4_t v4;
static inline v4 v4_ld(const float *p) { return vld1q_f32(p); }
static inline void v4_st(float *p, v4 a) { vst1q_f32(p, a); }
static inline v4 v4_min(v4 a, v4 b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
static inline v4 v4_max(v4 a, v4 b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
static inline v4 v4_add(v4 a, v4 b) { return vaddq_f32(a, b); }
static inline v4 v4_sub(v4 a, v4 b) { return vsubq_f32(a, b); }
static inline v4 v4_mul(v4 a, v4 b) { return vmulq_f32(a, b); }
static inline v4 v4_set1(float a) { return vdupq_n_f32(a); }
static inline void v4_cvtt(int32_t *q, v4 a) { vst1q_s32(q, vcvtq_s32_f32(a)); }
static inline float v4_area3(v4 d) {
    float dx = vgetq_lane_f32(d, 0), dy = vgetq_lane_f32(d, 1), dz = vgetq_lane_f32(d, 2);
    float a = dx * dy, c = dy * dz, e = dz * dx;
    a = a + c;
    return a + e;
}
#else
typedef struct v4 {
    float f[4];
} v4;
static inline v4 v4_ld(const float *p) {
    v4 r;
    memcpy(r.f, p, sizeof r.f);
    return r;
}
static inline void v4_st(float *p, v4 a) { memcpy(p, a.f, sizeof a.f); }
#define V4_LANES(expr)                                                                             \
    v4 r;                                                                                          \
    for (int k = 0; k < 4; k++)                                                                    \
        r.f[k] = expr;                                                                             \
    return r
static inline v4 v4_min(v4 a, v4 b) { V4_LANES(a.f[k] < b.f[k] ? a.f[k] : b.f[k]); }
static inline v4 v4_max(v4 a, v4 b) { V4_LANES(a.f[k] > b.f[k] ? a.f[k] : b.f[k]); }
static inline v4 v4_add(v4 a, v4 b) { V4_LANES(a.f[k] + b.f[k]); }
static inline v4 v4_sub(v4 a, v4 b) { V4_LANES(a.f[k] - b.f[k]); }
static inline v4 v4_mul(v4 a, v4 b) { V4_LANES(a.f[k] * b.f[k]); }
static inline v4 v4_set1(float a) { V4_LANES(a); }
static inline void v4_cvtt(int32_t *q, v4 a) {
    for (int k = 0; k < 4; k++)
        q[k] = (int32_t)a.f[k];
}
static inline float v4_area3(v4 d) {
    float a = d.f[0] * d.f[1], c = d.f[1] * d.f[2], e = d.f[2] * d.f[0];
    a = a + c;
    return a + e;
}
#endif

static inline void bx_grow(bx *restrict a, const bx *restrict b) {
    v4_st(a->lo, v4_min(v4_ld(a->lo), v4_ld(b->lo)));
    v4_st(a->hi, v4_max(v4_ld(a->hi), v4_ld(b->hi)));
}
/* bx_grow of a box in registers */
static inline void bx_growv(bx *a, v4 lo, v4 hi) {
    v4_st(a->lo, v4_min(v4_ld(a->lo), lo));
    v4_st(a->hi, v4_max(v4_ld(a->hi), hi));
}
static inline bx bx_union(bx a, const bx *b) {
    bx_grow(&a, b);
    return a;
}
/* a box's centroid as a point box */
static inline bx bx_cen(const bx *b) {
    bx c;
    v4 m = v4_mul(v4_add(v4_ld(b->lo), v4_ld(b->hi)), v4_set1(0.5f));
    v4_st(c.lo, m);
    v4_st(c.hi, m);
    return c;
}
static bx bx_empty(void) {
    bx b = {{INFINITY, INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY, -INFINITY}};
    return b;
}
/* half the surface area; 0 for an empty box */
static float bx_area(const bx *b) {
    float dx = b->hi[0] - b->lo[0], dy = b->hi[1] - b->lo[1], dz = b->hi[2] - b->lo[2];
    if (!(dx >= 0.0f) || !(dy >= 0.0f) || !(dz >= 0.0f))
        return 0.0f;
    float a = dx * dy, c = dy * dz, e = dz * dx;
    a = a + c;
    return a + e;
}
static rp_aabb bx_aabb(const bx *b) {
    rp_aabb r = {{b->lo[0], b->lo[1], b->lo[2]}, {b->hi[0], b->hi[1], b->hi[2]}};
    return r;
}

/* every coordinate is finite (rp_scene_add_* refuse others), so the plain
 * compare-and-select is exact; fminf/fmaxf would be libm calls for their
 * NaN rules */
static float mn(float a, float b) { return a < b ? a : b; }
static float mx(float a, float b) { return a > b ? a : b; }

static rp_aabb box_empty(void) {
    rp_aabb b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    return b;
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

typedef struct bnode {
    rp_aabb box;
    uint32_t left, right; /* inner: children; leaf: first, count */
    int leaf;
} bnode;

#define REC_BYTES 48
_Static_assert(REC_BYTES >= sizeof(bx), "the records' memory holds the records");

typedef struct builder {
    bx *rec;       /* the triangles' boxes, in tree order (moved by the partitions) */
    size_t reg;    /* the bytes of rec's memory (the blocks may take it over) */
    uint32_t *idx; /* the scene index of rec[i]; the tree order at the end */
    bx *trec;      /* scratch for the partitions */
    uint32_t *tidx;
    bnode *bn;
    size_t nbn, cap;
    unsigned threads; /* rp_scene_set_build_threads: the global builder's records, top
                       * binning, subtrees and packing; 0 in a subtree's builder */
} builder;

static rp_status reserve_bn(builder *b, size_t need) {
    if (need <= b->cap)
        return RP_OK;
    size_t nc = b->cap ? b->cap : 64;
    while (nc < need)
        nc *= 2;
    bnode *p = realloc(b->bn, nc * sizeof *p);
    if (!p)
        return RP_ERR_NOMEM;
    b->bn = p;
    b->cap = nc;
    return RP_OK;
}

/* Small subtrees (at most SMALL_MAX triangles): exact SAH by sweeping the
 * triangles sorted by centroid on each axis.  The subtree's boxes are
 * copied once into a local array; the three sorted orders are made once
 * (by centroid, then by position: a total order, so any sort gives the same
 * lists) and kept sorted through the partitions (stable).  Nodes of at most
 * RP_TRI_BLOCK triangles are leaves without a search; every larger node is
 * split (the collapse decides which subtrees of up to RP_LEAF_MAX become
 * leaves), but for one whose splits all have no finite cost (huge boxes),
 * which stays a leaf up to RP_LEAF_MAX triangles. */
#define SMALL_MAX 64
/* nodes of more triangles are partitioned in place (the scratch partition
 * is faster while the records stay in the cache) */
#define SCRATCH_MAX 16384

typedef struct small {
    bx box[SMALL_MAX];
    uint32_t gidx[SMALL_MAX];
    uint8_t ord[3][SMALL_MAX];
    uint8_t side[SMALL_MAX];
    uint8_t tmp[SMALL_MAX];
    float rarea[SMALL_MAX];
    int32_t key[SMALL_MAX];
    float nblk[SMALL_MAX + 1]; /* blocks(i), i <= SMALL_MAX: a load where the sweep
                                * converted two counts a split (small_init) */
} small;

static void small_init(small *sm) {
    for (size_t i = 0; i <= SMALL_MAX; i++)
        sm->nblk[i] = blocks(i);
}

static rp_status small_node(builder *b, small *sm, uint32_t node, size_t base, int lb, int le,
                            bx box) {
    for (;;) {
        int n = le - lb;
        float best = INFINITY;
        int ba = -1, bi = 0;
        if (n > RP_TRI_BLOCK) {
            for (int a = 0; a < 3; a++) {
                /* (the accumulated boxes kept in registers; v4_area3 of a
                 * non-empty box is bx_area's value without the test) */
                const uint8_t *o = sm->ord[a] + lb;
                v4 al = v4_ld(sm->box[o[n - 1]].lo), ah = v4_ld(sm->box[o[n - 1]].hi);
                sm->rarea[n - 1] = v4_area3(v4_sub(ah, al));
                for (int i = n - 2; i >= 1; i--) {
                    al = v4_min(al, v4_ld(sm->box[o[i]].lo));
                    ah = v4_max(ah, v4_ld(sm->box[o[i]].hi));
                    sm->rarea[i] = v4_area3(v4_sub(ah, al));
                }
                al = v4_ld(sm->box[o[0]].lo);
                ah = v4_ld(sm->box[o[0]].hi);
                for (int i = 1; i < n; i++) {
                    if (i > 1) {
                        al = v4_min(al, v4_ld(sm->box[o[i - 1]].lo));
                        ah = v4_max(ah, v4_ld(sm->box[o[i - 1]].hi));
                    }
                    float cost = v4_area3(v4_sub(ah, al)) * sm->nblk[i] +
                                 sm->rarea[i] * sm->nblk[n - i];
                    if (cost < best) {
                        best = cost;
                        ba = a;
                        bi = i;
                    }
                }
            }
        }
        if (ba < 0 && n > RP_LEAF_MAX) { /* no finite cost (huge boxes): the middle */
            ba = 0;
            bi = n / 2;
        }
        bnode *nd = &b->bn[node];
        nd->box = bx_aabb(&box);
        if (ba < 0) {
            nd->leaf = 1;
            nd->left = (uint32_t)(base + (size_t)lb);
            nd->right = (uint32_t)n;
            for (int j = 0; j < n; j++)
                b->idx[base + (size_t)(lb + j)] = sm->gidx[sm->ord[0][lb + j]];
            return RP_OK;
        }
        /* the sides' boxes, and the other two orders partitioned stably */
        const uint8_t *o = sm->ord[ba] + lb;
        bx lbox = sm->box[o[0]], rbox = sm->box[o[bi]];
        sm->side[o[0]] = 0;
        for (int i = 1; i < bi; i++) {
            lbox = bx_union(lbox, &sm->box[o[i]]);
            sm->side[o[i]] = 0;
        }
        sm->side[o[bi]] = 1;
        for (int i = bi + 1; i < n; i++) {
            rbox = bx_union(rbox, &sm->box[o[i]]);
            sm->side[o[i]] = 1;
        }
        for (int a = 0; a < 3; a++) {
            if (a == ba)
                continue;
            uint8_t *q = sm->ord[a] + lb;
            int l = 0, r = 0;
            for (int i = 0; i < n; i++) { /* without branches (l <= i) */
                uint8_t t = q[i];
                int sd = sm->side[t];
                q[l] = t;
                sm->tmp[r] = t;
                l += 1 - sd;
                r += sd;
            }
            memcpy(q + l, sm->tmp, (size_t)r);
        }
        if (reserve_bn(b, b->nbn + 2))
            return RP_ERR_NOMEM;
        nd = &b->bn[node];
        uint32_t lc = (uint32_t)b->nbn, rc = lc + 1;
        b->nbn += 2;
        nd->leaf = 0;
        nd->left = lc;
        nd->right = rc;
        rp_status st = small_node(b, sm, lc, base, lb, lb + bi, lbox);
        if (st != RP_OK)
            return st;
        node = rc; /* the right side: a loop, not a call */
        lb = lb + bi;
        box = rbox;
    }
}

/* Four int32 lanes (GCC's vector extension: SSE2 on x86-64, NEON on
 * AArch64, plain C elsewhere); a compare is -1 where true. */
typedef int32_t i4 __attribute__((vector_size(16)));

/* IEEE float bits to an unsigned key of the same order (-0 below +0; the
 * largest, 0xffffffff, only for a NaN, never a centroid's) */
static uint32_t fkey(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u >> 31) ? ~u : u | 0x80000000u;
}

/* The subtree of the n = end - begin records rec[0, n), idx[0, n) (where
 * the task's records are: rec + begin, or the scratch). */
static rp_status small_build(builder *b, small *sm, uint32_t node, size_t begin, size_t end,
                             const bx *rec, const uint32_t *idx, const bx *box) {
    int n = (int)(end - begin);
    float cen[3][SMALL_MAX];
    for (int i = 0; i < n; i++) {
        sm->gidx[i] = idx[i];
        sm->box[i] = rec[i];
        bx c = bx_cen(&sm->box[i]);
        cen[0][i] = c.lo[0];
        cen[1][i] = c.lo[1];
        cen[2][i] = c.lo[2];
    }
    /* sorted by (centroid, position): the position of i is its rank, the
     * number of keys before it in that order, k[j] <= v for j < i and
     * k[j] < v for j > i, that is k[j] < v + (j < i) (v + 1 does not
     * overflow: no centroid's key is INT32_MAX, see fkey).  Four keys a
     * step, without branches (an insertion sort's mispredicted exits cost
     * more at 64), over the keys padded to a multiple of 4 with INT32_MAX,
     * which no compare counts.  (Equal keys are common: a subdivided mesh's
     * centroids share coordinates, so a first pass by the keys alone that
     * falls back to this form where ranks meet ran both on most axes.) */
    const int n4 = (n + 3) & ~3;
    int32_t *k = sm->key;
    for (int i = n; i < n4; i++)
        k[i] = INT32_MAX;
    for (int a = 0; a < 3; a++) {
        for (int i = 0; i < n; i++)
            k[i] = (int32_t)(fkey(cen[a][i]) ^ 0x80000000u); /* the same order, signed */
        for (int i = 0; i < n; i++) {
            const i4 vi = {i, i, i, i}, v = {k[i], k[i], k[i], k[i]};
            i4 jj = {0, 1, 2, 3}, acc = {0, 0, 0, 0};
            for (int j = 0; j < n4; j += 4) {
                i4 kj;
                memcpy(&kj, k + j, sizeof kj);
                acc += kj < v - (jj < vi); /* (a true compare is -1) */
                jj += 4;
            }
            sm->ord[a][-(acc[0] + acc[1] + acc[2] + acc[3])] = (uint8_t)i;
        }
    }
    return small_node(b, sm, node, begin, 0, n, *box);
}

/* One record into the three axes' bins: (int)f clamped to [0, NBINS) is
 * (int) of f clamped to [0, NBINS - 1] (f is finite; the truncation goes
 * toward zero). */
static inline void bin3(bx (*bins)[NBINS], uint32_t (*cnt)[NBINS], const bx *r, v4 vlo, v4 vsc) {
    v4 rl = v4_ld(r->lo), rh = v4_ld(r->hi);
    v4 f = v4_mul(v4_sub(v4_mul(v4_add(rl, rh), v4_set1(0.5f)), vlo), vsc);
    int32_t k[4];
    v4_cvtt(k, v4_min(v4_max(f, v4_set1(0.0f)), v4_set1((float)(NBINS - 1))));
    cnt[0][k[0]]++;
    cnt[1][k[1]]++;
    cnt[2][k[2]]++;
    bx_growv(&bins[0][k[0]], rl, rh);
    bx_growv(&bins[1][k[1]], rl, rh);
    bx_growv(&bins[2][k[2]], rl, rh);
}
/* nodes of at least STREAM_MIN triangles are binned in NSTREAM runs */
#define NSTREAM 4
#define STREAM_MIN 1024

/* rec[0, n) into the three axes' bins (bins empty, cnt zero on entry). */
static void bin_range(const bx *rec, size_t n, v4 vlo, v4 vsc, bx (*bins)[NBINS],
                      uint32_t (*cnt)[NBINS]) {
    if (n < STREAM_MIN) {
        for (size_t i = 0; i < n; i++)
            bin3(bins, cnt, &rec[i], vlo, vsc);
        return;
    }
    /* NSTREAM runs of records binned side by side into their own bins (a
     * run's records often share a bin: one set of bins would wait on its
     * own stores), then merged in run order.  The same bits as one pass:
     * a < b ? a : b folded over a sequence gives its last minimal element
     * however the fold is bracketed, as long as the order is kept (so too
     * for -0 and +0); likewise the max. */
    bx sb[NSTREAM][3][NBINS];
    uint32_t sn[NSTREAM][3][NBINS];
    memset(sn, 0, sizeof sn);
    for (int t = 0; t < NSTREAM; t++)
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < NBINS; k++)
                sb[t][a][k] = bx_empty();
    size_t q = n / NSTREAM;
    for (size_t i = 0; i < q; i++)
        for (int t = 0; t < NSTREAM; t++)
            bin3(sb[t], sn[t], &rec[(size_t)t * q + i], vlo, vsc);
    for (size_t i = NSTREAM * q; i < n; i++)
        bin3(sb[NSTREAM - 1], sn[NSTREAM - 1], &rec[i], vlo, vsc);
    for (int t = 0; t < NSTREAM; t++)
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < NBINS; k++) {
                bx_grow(&bins[a][k], &sb[t][a][k]);
                cnt[a][k] += sn[t][a][k];
            }
}

/* ---- fork and join ----
 * fn(ctx, 0, slot) .. fn(ctx, n - 1, slot) on up to `threads` threads,
 * this one among them (slot 0; the others 1, 2, ...: a worker's own
 * scratch), each taking the next index from an atomic counter; returns when
 * all are done.  A thread that cannot be started leaves its share to the
 * others.  Whatever runs where, the callers merge the chunks' results in
 * chunk order, so the bits never depend on it.  The one mechanism for every
 * threaded part of the build. */
typedef void (*par_fn)(void *ctx, size_t i, unsigned slot);
typedef struct pfor {
    par_fn fn;
    void *ctx;
    size_t n;
    atomic_size_t next;
} pfor;

typedef struct pworker {
    pfor *p;
    unsigned slot;
} pworker;

static void *pfor_worker(void *arg) {
    const pworker *w = arg;
    pfor *p = w->p;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return NULL;
        p->fn(p->ctx, i, w->slot);
    }
}

static void par_for(unsigned threads, size_t n, par_fn fn, void *ctx) {
    pfor p;
    p.fn = fn;
    p.ctx = ctx;
    p.n = n;
    atomic_init(&p.next, 0);
    pthread_t tid[RP_BUILD_THREADS_MAX];
    pworker w[RP_BUILD_THREADS_MAX];
    unsigned started = 0;
    for (unsigned t = 1; t < threads && t < n && t < RP_BUILD_THREADS_MAX; t++) {
        w[started + 1] = (pworker){&p, started + 1};
        if (pthread_create(&tid[started], NULL, pfor_worker, &w[started + 1]) == 0)
            started++;
    }
    w[0] = (pworker){&p, 0};
    pfor_worker(&w[0]);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

/* The binning of a node of at least PAR_BIN_MIN triangles (the top of the
 * tree, built on the calling thread while the others wait): PAR_CHUNKS
 * runs binned by the threads into bins of their own, then merged in run
 * order: the same bits as bin_range over the whole (see there). */
#define PAR_BIN_MIN 65536
#define PAR_CHUNKS 16
typedef struct pbin {
    const bx *rec;
    size_t n;
    v4 vlo, vsc;
    bx bins[PAR_CHUNKS][3][NBINS];
    uint32_t cnt[PAR_CHUNKS][3][NBINS];
} pbin;

static void pbin_chunk(void *ctx, size_t c, unsigned slot) {
    (void)slot;
    pbin *p = ctx;
    size_t q = p->n / PAR_CHUNKS, b = c * q, e = c + 1 == PAR_CHUNKS ? p->n : b + q;
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < NBINS; k++)
            p->bins[c][a][k] = bx_empty();
    memset(p->cnt[c], 0, sizeof p->cnt[c]);
    bin_range(p->rec + b, e - b, p->vlo, p->vsc, p->bins[c], p->cnt[c]);
}

static void bin_par(unsigned threads, const bx *rec, size_t n, v4 vlo, v4 vsc,
                    bx (*bins)[NBINS], uint32_t (*cnt)[NBINS]) {
    pbin *p = malloc(sizeof *p);
    if (!p) { /* no memory for the runs' bins: this thread alone */
        bin_range(rec, n, vlo, vsc, bins, cnt);
        return;
    }
    p->rec = rec;
    p->n = n;
    p->vlo = vlo;
    p->vsc = vsc;
    par_for(threads, PAR_CHUNKS, pbin_chunk, p);
    for (int c = 0; c < PAR_CHUNKS; c++)
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < NBINS; k++) {
                bx_grow(&bins[a][k], &p->bins[c][a][k]);
                cnt[a][k] += p->cnt[c][a][k];
            }
    free(p);
}

/* a node waiting to be built: its triangles [begin, end), their box and
 * their centroids' box.  Its records are rec[begin, end) and idx[begin,
 * end), or (sc) trec[begin - base, end - base) and tidx[...]: below a node
 * of at most SCRATCH_MAX triangles (base: its begin; NO_BASE above it),
 * the partitions go back and forth between the two (build_loop). */
#define NO_BASE UINT32_MAX
typedef struct task {
    bx box, cb;
    uint32_t node, begin, end, base;
    int sc;
} task;

/* a growable list of tasks (a stack, or the deferred tasks in order) */
typedef struct tlist {
    task *t;
    size_t n, cap;
} tlist;

static int tl_push(tlist *l, const task *t) {
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 64;
        task *p = realloc(l->t, nc * sizeof *p);
        if (!p)
            return 1;
        l->t = p;
        l->cap = nc;
    }
    l->t[l->n++] = *t;
    return 0;
}

static void bounds(const bx *rec, size_t begin, size_t end, bx *box, bx *cb) {
    bx x = bx_empty(), c = bx_empty();
    for (size_t i = begin; i < end; i++) {
        bx p = bx_cen(&rec[i]);
        x = bx_union(x, &rec[i]);
        c = bx_union(c, &p);
    }
    *box = x;
    *cb = c;
}

/* The loop of the binary build: from task *root (its node already in
 * b->bn), the tasks on a stack, the left side first.  Nodes of more than
 * SMALL_MAX triangles: binned SAH (16 bins per axis over the centroids'
 * box, pbrt-v4's way); the sides' boxes are the bins' and their centroids'
 * boxes are made by the partition.  defer > 0 (the threaded build): a task
 * of at most defer triangles is appended to *dl, in the order met, instead
 * of being built here.  A task's subtree depends only on its records (its
 * range of b->rec and b->idx, which no other task touches), never on when
 * or where it is built; node numbers do (collapse reads the binary tree by
 * its links, so they reach no byte of the scene).  Below a node of at most
 * SCRATCH_MAX triangles a task's records may be in the scratch (task.sc),
 * at the same offset from that node's begin: the same records in the same
 * order as in rec, so the same subtree. */
static rp_status build_loop(builder *b, const task *root, size_t defer, tlist *dl) {
    small sm;
    small_init(&sm);
    tlist stk = {0};
    if (tl_push(&stk, root))
        return RP_ERR_NOMEM;
    while (stk.n) {
        task tk = stk.t[--stk.n];
        size_t cnt_n = tk.end - tk.begin;
        if (defer && cnt_n <= defer) {
            if (tk.sc) { /* its records back where the threads find them */
                memcpy(b->rec + tk.begin, b->trec + (tk.begin - tk.base), cnt_n * sizeof *b->rec);
                memcpy(b->idx + tk.begin, b->tidx + (tk.begin - tk.base), cnt_n * sizeof *b->idx);
            }
            tk.base = NO_BASE;
            tk.sc = 0;
            if (tl_push(dl, &tk))
                goto nomem;
            continue;
        }
        if (tk.base == NO_BASE && cnt_n <= SCRATCH_MAX)
            tk.base = tk.begin;
        /* the task's records, where they are */
        const bx *src = tk.sc ? b->trec + (tk.begin - tk.base) : b->rec + tk.begin;
        const uint32_t *sidx = tk.sc ? b->tidx + (tk.begin - tk.base) : b->idx + tk.begin;
        if (cnt_n <= SMALL_MAX) {
            if (small_build(b, &sm, tk.node, tk.begin, tk.end, src, sidx, &tk.box) != RP_OK)
                goto nomem;
            continue;
        }
        b->bn[tk.node].box = bx_aabb(&tk.box);
        /* binning */
        float lo[3], scale[3];
        int use[3];
        bx bins[3][NBINS];
        uint32_t cnt[3][NBINS];
        memset(cnt, 0, sizeof cnt);
        for (int a = 0; a < 3; a++) {
            lo[a] = tk.cb.lo[a];
            float ext = tk.cb.hi[a] - lo[a];
            scale[a] = (float)NBINS / ext;
            /* (an extent that overflows gives scale 0: no binning on that axis) */
            use[a] = ext > 0.0f && scale[a] > 0.0f && isfinite(ext) && isfinite(scale[a]);
            for (int k = 0; k < NBINS; k++)
                bins[a][k] = bx_empty();
        }
        if (use[0] && use[1] && use[2]) {
            /* the three axes' bins at once */
            float lo4[4] = {lo[0], lo[1], lo[2], 0.0f}, sc4[4] = {scale[0], scale[1], scale[2], 0.0f};
            v4 vlo = v4_ld(lo4), vsc = v4_ld(sc4);
            if (b->threads > 1 && cnt_n >= PAR_BIN_MIN)
                bin_par(b->threads, src, cnt_n, vlo, vsc, bins, cnt);
            else
                bin_range(src, cnt_n, vlo, vsc, bins, cnt);
        } else {
            for (size_t i = 0; i < cnt_n; i++) {
                const bx *r = &src[i];
                bx c = bx_cen(r);
                for (int a = 0; a < 3; a++) {
                    if (!use[a])
                        continue;
                    int k = (int)((c.lo[a] - lo[a]) * scale[a]);
                    k = k < 0 ? 0 : k >= NBINS ? NBINS - 1 : k;
                    cnt[a][k]++;
                    bx_grow(&bins[a][k], r);
                }
            }
        }
        float best = INFINITY;
        int axis = -1, bin = 0;
        for (int a = 0; a < 3; a++) {
            if (!use[a])
                continue;
            /* right-to-left sweep for the right sides, then left-to-right */
            float rarea[NBINS];
            size_t rcnt[NBINS];
            bx acc = bx_empty();
            size_t c = 0;
            for (int k = NBINS - 1; k > 0; k--) {
                acc = bx_union(acc, &bins[a][k]);
                c += cnt[a][k];
                rarea[k] = bx_area(&acc);
                rcnt[k] = c;
            }
            acc = bx_empty();
            c = 0;
            for (int k = 1; k < NBINS; k++) {
                acc = bx_union(acc, &bins[a][k - 1]);
                c += cnt[a][k - 1];
                if (c == 0 || rcnt[k] == 0)
                    continue;
                float cost = bx_area(&acc) * blocks(c) + rarea[k] * blocks(rcnt[k]);
                if (cost < best) {
                    best = cost;
                    axis = a;
                    bin = k;
                }
            }
        }
        size_t mid;
        bx lbox, rbox, lcb, rcb;
        int csc = tk.sc; /* where the children's records are */
        if (axis < 0) { /* no binned split separates anything: the middle */
            mid = tk.begin + cnt_n / 2;
            bounds(src, 0, cnt_n / 2, &lbox, &lcb);
            bounds(src, cnt_n / 2, cnt_n, &rbox, &rcb);
        } else { /* in place, left block first */
            lbox = bx_empty();
            rbox = bx_empty();
            for (int k = 0; k < NBINS; k++) {
                if (k < bin)
                    lbox = bx_union(lbox, &bins[axis][k]);
                else
                    rbox = bx_union(rbox, &bins[axis][k]);
            }
            if (cnt_n > SCRATCH_MAX) { /* in place, left block first (tk.sc is 0) */
                lcb = bx_empty();
                rcb = bx_empty();
                size_t i = tk.begin, j = tk.end;
                float cl = lo[axis], sc = scale[axis];
                bx *rec = b->rec;
                uint32_t *idx = b->idx;
                while (i < j) {
                    bx c = bx_cen(&rec[i]);
                    int k = (int)((c.lo[axis] - cl) * sc);
                    k = k < 0 ? 0 : k >= NBINS ? NBINS - 1 : k;
                    if (k < bin) {
                        lcb = bx_union(lcb, &c);
                        i++;
                    } else {
                        rcb = bx_union(rcb, &c);
                        --j;
                        bx t = rec[i];
                        rec[i] = rec[j];
                        rec[j] = t;
                        uint32_t u = idx[i];
                        idx[i] = idx[j];
                        idx[j] = u;
                    }
                }
                mid = i;
                goto split;
            }
            /* a node that fits in the cache: without branches into the
             * other of rec and the scratch (left from the front, right from
             * the back), which its children's records then are, with the
             * sides' centroid boxes made from there.  (Until 2026-12-01 the
             * scratch was copied back into rec at every node: 7.5% of a
             * 300k-triangle build's instructions.) */
            size_t l = 0, r = cnt_n;
            float cl = lo[axis], sc = scale[axis];
            const size_t so = tk.begin - tk.base;
            bx *out = tk.sc ? b->rec + tk.begin : b->trec + so;
            uint32_t *oidx = tk.sc ? b->idx + tk.begin : b->tidx + so;
            for (size_t i = 0; i < cnt_n; i++) {
                float c = (src[i].lo[axis] + src[i].hi[axis]) * 0.5f;
                int k = (int)((c - cl) * sc);
                k = k < 0 ? 0 : k >= NBINS ? NBINS - 1 : k;
                size_t left = k < bin;
                size_t at = left ? l : r - 1;
                out[at] = src[i];
                oidx[at] = sidx[i];
                l += left;
                r -= 1 - left;
            }
            lcb = bx_empty();
            rcb = bx_empty();
            for (size_t i = 0; i < l; i++) {
                bx c = bx_cen(&out[i]);
                lcb = bx_union(lcb, &c);
            }
            for (size_t i = l; i < cnt_n; i++) {
                bx c = bx_cen(&out[i]);
                rcb = bx_union(rcb, &c);
            }
            csc = !tk.sc;
            mid = tk.begin + l;
        }
    split:
        if (reserve_bn(b, b->nbn + 2))
            goto nomem;
        bnode *nd = &b->bn[tk.node];
        uint32_t l = (uint32_t)b->nbn, r = l + 1;
        b->nbn += 2;
        nd->leaf = 0;
        nd->left = l;
        nd->right = r;
        /* right first, so the left subtree is built (and numbered) first */
        task rt = {rbox, rcb, r, (uint32_t)mid, tk.end, tk.base, csc};
        task lt = {lbox, lcb, l, tk.begin, (uint32_t)mid, tk.base, csc};
        if (tl_push(&stk, &rt) || tl_push(&stk, &lt))
            goto nomem;
    }
    free(stk.t);
    return RP_OK;
nomem:
    free(stk.t);
    return RP_ERR_NOMEM;
}

/* ---- the threaded build ----
 * The serial loop (build_loop) builds the top of the tree and defers every
 * task of at most n / (8 * threads) triangles (at least PAR_TASK_MIN); the
 * threads then take the deferred tasks, largest first (par_for), each into
 * a binary tree of its own (its root numbered 0) with its worker slot's
 * scratch; at the end their nodes are appended to the global tree in the
 * tasks' order, the root's in place of the task's node.  Each subtree is
 * what the serial loop makes of the same records, and collapse reads the
 * binary tree by its links, so the scene's bytes are the same for every
 * thread count (test_scene: the tree hash and slots at 1, 2, 3, 8 and 0
 * threads).  A thread that cannot be started leaves its share to the
 * others. */
#define PAR_MIN 16384     /* fewer triangles: one thread (the start costs more) */
#define PAR_TASK_MIN 1024 /* deferred tasks are never made smaller than this */

typedef struct par {
    builder *g;      /* the global builder (rec, idx shared, by range) */
    const tlist *dl; /* the deferred tasks */
    size_t *order;   /* their indices, largest first */
    builder *sub;    /* per task: its tree (bn, nbn, cap) */
    bx **trec;       /* per worker slot: partition scratch (SCRATCH_MAX each) */
    uint32_t **tidx;
    atomic_int fail;
} par;

/* Deferred task order[i] into its own tree, with slot's scratch. */
static void par_task(void *ctx, size_t i, unsigned slot) {
    par *c = ctx;
    size_t k = c->order[i];
    task t = c->dl->t[k];
    builder *lb = &c->sub[k];
    memset(lb, 0, sizeof *lb);
    lb->rec = c->g->rec;
    lb->idx = c->g->idx;
    lb->trec = c->trec[slot];
    lb->tidx = c->tidx[slot];
    t.node = 0;
    if (reserve_bn(lb, (t.end - t.begin) / 2 + 64) || (lb->nbn = 1, build_loop(lb, &t, 0, NULL)))
        atomic_store(&c->fail, 1);
}

/* sort the deferred tasks' indices by size, largest first (ties: in
 * order): the long tasks start first, so the threads end together */
static int par_cmp(size_t i, size_t j, const tlist *dl) {
    size_t ni = dl->t[i].end - dl->t[i].begin, nj = dl->t[j].end - dl->t[j].begin;
    return ni != nj ? (ni < nj ? 1 : -1) : (i > j) - (i < j);
}

static rp_status build_deferred(builder *g, const tlist *dl, unsigned threads) {
    par c;
    size_t nd = dl->n ? dl->n : 1;
    unsigned nw = threads < RP_BUILD_THREADS_MAX ? threads : RP_BUILD_THREADS_MAX;
    if (nw > nd) /* (par_for starts no more workers than tasks: no scratch for more) */
        nw = (unsigned)nd;
    c.g = g;
    c.dl = dl;
    c.order = malloc(nd * sizeof *c.order);
    c.sub = calloc(nd, sizeof *c.sub);
    c.trec = calloc(nw, sizeof *c.trec);
    c.tidx = calloc(nw, sizeof *c.tidx);
    atomic_init(&c.fail, 0);
    rp_status st = RP_ERR_NOMEM;
    if (!c.order || !c.sub || !c.trec || !c.tidx)
        goto out;
    for (unsigned w = 0; w < nw; w++) {
        if (posix_memalign((void **)&c.trec[w], 32, SCRATCH_MAX * sizeof **c.trec) != 0)
            c.trec[w] = NULL;
        c.tidx[w] = malloc(SCRATCH_MAX * sizeof **c.tidx);
        if (!c.trec[w] || !c.tidx[w])
            goto out;
    }
    for (size_t i = 0; i < dl->n; i++)
        c.order[i] = i;
    /* insertion sort: a few dozen tasks */
    for (size_t i = 1; i < dl->n; i++)
        for (size_t j = i; j > 0 && par_cmp(c.order[j - 1], c.order[j], dl) > 0; j--) {
            size_t t = c.order[j];
            c.order[j] = c.order[j - 1];
            c.order[j - 1] = t;
        }
    par_for(nw, dl->n, par_task, &c);
    if (atomic_load(&c.fail))
        goto out;
    /* the subtrees into the global tree, in the tasks' order */
    for (size_t k = 0; k < dl->n; k++) {
        const builder *lb = &c.sub[k];
        size_t off = g->nbn - 1; /* local j >= 1 goes to off + j */
        if (reserve_bn(g, g->nbn + lb->nbn - 1))
            goto out;
        for (size_t j = 0; j < lb->nbn; j++) {
            bnode b = lb->bn[j];
            if (!b.leaf) {
                b.left += (uint32_t)off;
                b.right += (uint32_t)off;
            }
            g->bn[j ? off + j : dl->t[k].node] = b;
        }
        g->nbn += lb->nbn - 1;
    }
    st = RP_OK;
out:
    if (c.sub)
        for (size_t k = 0; k < dl->n; k++)
            free(c.sub[k].bn);
    for (unsigned w = 0; c.trec && c.tidx && w < nw; w++) {
        free(c.trec[w]);
        free(c.tidx[w]);
    }
    free(c.trec);
    free(c.tidx);
    free(c.sub);
    free(c.order);
    return st;
}

/* The binary tree over rec[0, n): b->bn[0] is the root. */
static rp_status build_binary(builder *b, size_t n, const bx *box, const bx *cb) {
    const unsigned threads = b->threads;
    if (reserve_bn(b, 1))
        return RP_ERR_NOMEM;
    b->nbn = 1;
    task root = {*box, *cb, 0, 0, (uint32_t)n, NO_BASE, 0};
    if (threads <= 1 || n < PAR_MIN)
        return build_loop(b, &root, 0, NULL);
    size_t defer = n / (8 * (size_t)threads);
    tlist dl = {0};
    rp_status st = build_loop(b, &root, defer < PAR_TASK_MIN ? PAR_TASK_MIN : defer, &dl);
    if (st == RP_OK)
        st = build_deferred(b, &dl, threads);
    free(dl.t);
    return st;
}

/* ---- the collapse into wide nodes ----
 * A dynamic program over the binary tree (Ylitie, Karras and Laine 2017),
 * in its cost model: a wide node costs NODE_COST times its box's area, a
 * leaf its area times its blocks (half surface areas: a tree's sum over the
 * root's area is the SAH's expected cost of a ray that enters the root).
 * For each binary node x, from the leaves up (a child's number
 * is above its parent's, in the serial and the threaded build alike):
 *   c[x][j] (j = 1 .. W - 1): the least cost of x's subtree as a forest of
 *   at most j roots, each a leaf or a wide node;
 *   c[x][1] = min(leaf(x), NODE_COST * area(x) + dist(x, W)), leaf(x) the
 *   leaf cost where x has at most RP_LEAF_MAX triangles (else infinite);
 *   dist(x, j) = min over k of c[left][k] + c[right][j - k]: the roots
 *   shared out between x's two children;
 *   c[x][j] = min(c[x][j - 1], dist(x, j)).
 * Then from the root down: a wide node made of binary node x takes the
 * forest of dist(x, W), found again by the same sums (same bits, first
 * least k, fewest roots on a tie), each root a leaf where leaf(x) won,
 * else a wide node of its own.  Every wide node has at least two children
 * (but a root that is a binary leaf); the nodes are numbered depth first
 * (collapse).
 * Float sums and compares in one fixed order: the same tree on every run,
 * CPU and thread count.  An area that is not finite (huge boxes: inf, or
 * inf * 0, NaN) gives costs that compare equal (inf) or never less (NaN):
 * the program still ends with a valid tree, only not a cheap one.
 * Against the greedy collapse it replaces (open the child of largest area
 * until the node is full, over a tree whose leaves the binary SAH chose),
 * on the bunny: 4059 -> 2709 wide nodes, 52% -> 89% of their slots used,
 * node SAH 8.35 -> 7.95 and leaf SAH 4.34 -> 3.45 (areas over the root's,
 * one per node visit and per block test); the bench rows in docs/PERFORMANCE-LOG.md. */
#define DP_J (RP_BVH_WIDTH - 1) /* c[x][j] kept for j = 1 .. W - 1 */

typedef struct dpnode {
    float c[DP_J];  /* c[j - 1]: at most j roots */
    uint32_t count; /* the subtree's triangles */
} dpnode;

/* a leaf's cost, infinite for more than RP_LEAF_MAX triangles */
static float dp_leaf(float area, uint32_t count) {
    return count <= RP_LEAF_MAX ? area * blocks(count) : INFINITY;
}

/* dist(x, j), 2 <= j <= W, of binary node x with children l and r: the
 * least c[l][k] + c[r][j - k]; *kl the least k that gives it */
static float dp_dist(const dpnode *l, const dpnode *r, int j, int *kl) {
    float best = INFINITY;
    int kb = 1;
    for (int k = 1; k < j; k++) {
        float c = l->c[k - 1] + r->c[j - k - 1];
        if (c < best) {
            best = c;
            kb = k;
        }
    }
    *kl = kb;
    return best;
}

/* c of every binary node, from the leaves up; NULL when out of memory */
static dpnode *dp_costs(const builder *b) {
    dpnode *dp = rp_big_alloc((b->nbn ? b->nbn : 1) * sizeof *dp, 64);
    if (!dp)
        return NULL;
    for (size_t i = b->nbn; i-- > 0;) {
        const bnode *n = &b->bn[i];
        dpnode *d = &dp[i];
        float area = box_area(&n->box);
        if (n->leaf) {
            d->count = n->right;
            float c = n->right ? dp_leaf(area, n->right) : 0.0f; /* (an empty scene's root) */
            for (int j = 0; j < DP_J; j++)
                d->c[j] = c;
            continue;
        }
        const dpnode *l = &dp[n->left], *r = &dp[n->right];
        int k;
        d->count = l->count + r->count;
        float lc = dp_leaf(area, d->count);
        float nc = area * NODE_COST + dp_dist(l, r, RP_BVH_WIDTH, &k);
        d->c[0] = lc <= nc ? lc : nc;
        for (int j = 1; j < DP_J; j++) {
            float c = dp_dist(l, r, j + 1, &k);
            d->c[j] = c < d->c[j - 1] ? c : d->c[j - 1];
        }
    }
    return dp;
}

/* The forest of at most j roots of least cost for x's subtree, appended to
 * out[*nk] (the fewest roots that give it; left to right) */
static void dp_forest(const builder *b, const dpnode *dp, uint32_t x, int j, uint32_t *out,
                      int *nk) {
    for (;;) {
        const bnode *n = &b->bn[x];
        while (j > 1 && dp[x].c[j - 1] == dp[x].c[j - 2])
            j--;
        if (n->leaf || j == 1) {
            out[(*nk)++] = x;
            return;
        }
        int k;
        (void)dp_dist(&dp[n->left], &dp[n->right], j, &k);
        dp_forest(b, dp, n->left, k, out, nk);
        x = n->right; /* the right side: a loop, not a call */
        j -= k;
    }
}

/* Collapse: the wide nodes and leaves that dp_costs chose.  A node's inner
 * children are numbered together (consecutive indices), and then each
 * child's subtree in turn, depth first (Embree's layout): the nodes below
 * any node lie in one run of indices after it, and the leaves' blocks,
 * packed in node order (pack_leaves), in one run of blocks, so the lower
 * part of a ray's path from the root stays within a few pages.  Sets
 * s->levels (the nodes on the longest path). */
static rp_status collapse(const builder *b, rp_scene *s) {
    /* The wide nodes: the root, and one for each binary inner node that
     * some forest (dp_forest) keeps as an inner root; a binary node is in
     * one forest at most, and the binary tree has (nbn - 1) / 2 inner
     * nodes (every inner node has two children).  So cap = nbn / 2 + 1
     * holds every wide node, and the arrays below never grow. */
    size_t cap = b->nbn / 2 + 1, nn = 1, tn = 0;
    uint32_t levels = 1;
    dpnode *dp = dp_costs(b);
    rp_bvh_node *nodes = rp_big_alloc(cap * sizeof *nodes, 64);
    struct wide { /* wide node k: its binary node, its level (root: 1) */
        uint32_t bn, level;
    } *wide = rp_big_alloc(cap * sizeof *wide, 64);
    uint32_t *todo = rp_big_alloc(cap * sizeof *todo, 64); /* the nodes numbered, not made */
    if (!dp || !nodes || !wide || !todo) {
        free(dp);
        free(wide);
        free(todo);
        free(nodes);
        return RP_ERR_NOMEM;
    }
    wide[0].bn = 0;
    wide[0].level = 1;
    todo[tn++] = 0;
    while (tn) {
        size_t w = todo[--tn], n0 = nn;
        const bnode *root = &b->bn[wide[w].bn];
        uint32_t kids[RP_BVH_WIDTH];
        int nk = 0;
        if (root->leaf) {
            if (root->right) /* an empty scene has an empty leaf */
                kids[nk++] = wide[w].bn;
        } else {
            int k;
            (void)dp_dist(&dp[root->left], &dp[root->right], RP_BVH_WIDTH, &k);
            dp_forest(b, dp, root->left, k, kids, &nk);
            dp_forest(b, dp, root->right, RP_BVH_WIDTH - k, kids, &nk);
        }
        rp_bvh_node *nd = &nodes[w];
        for (int k = 0; k < RP_BVH_WIDTH; k++) {
            rp_aabb box = box_empty();
            uint32_t child = RP_NO_HIT, count = 0;
            if (k < nk) {
                uint32_t x = kids[k];
                const bnode *c = &b->bn[x];
                box = c->box;
                if (c->leaf) {
                    child = c->left;
                    count = c->right;
                } else if (dp[x].count <= RP_LEAF_MAX &&
                           dp_leaf(box_area(&c->box), dp[x].count) <= dp[x].c[0]) {
                    /* a subtree as one leaf: its triangles are one range
                     * (the partitions keep each side's together), from
                     * its leftmost leaf's first on */
                    while (!b->bn[x].leaf)
                        x = b->bn[x].left;
                    child = b->bn[x].left;
                    count = dp[kids[k]].count;
                } else {
                    child = (uint32_t)nn; /* nn < cap: the bound above */
                    wide[nn].bn = x;
                    wide[nn++].level = wide[w].level + 1;
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
        /* the children numbered here made next, the first first: depth
         * first (every node is numbered once, so todo holds at most nn) */
        for (size_t c = nn; c-- > n0;) {
            todo[tn++] = (uint32_t)c;
            if (wide[c].level > levels)
                levels = wide[c].level;
        }
    }
    free(dp);
    free(wide);
    free(todo);
    s->nodes = nodes;
    s->nnodes = nn;
    s->levels = levels;
    return RP_OK;
}

/* The leaves' triangles into blocks, leaf by leaf in node order; child[k]
 * of a leaf becomes its first block.  Lanes past a leaf's count repeat its
 * last triangle (scene.h). */
#define PACK_AHEAD 4
/* The blocks go into the records' memory (b->rec, b->reg bytes, dead
 * once the binary tree is made) when they fit: memory already touched,
 * where fresh pages cost a fault and a clear each (a quarter of a
 * 4.8M-triangle build).  Then b->rec belongs to the scene.  The blocks take
 * at least 40 bytes a triangle and the records' memory is REC_BYTES (48)
 * a triangle, so at most 8 bytes a triangle of it stay unused (never
 * touched, not counted by rp_scene_bytes); they fit while the leaves fill
 * their blocks to 3.4 triangles on average (bunny: 3.9). */
/* The leaves of nodes [i0, i1) into blocks from block `at` on. */
static void pack_range(const builder *b, rp_scene *s, rp_tri4 *bl, size_t i0, size_t i1,
                       size_t at) {
    for (size_t i = i0; i < i1; i++) {
        rp_bvh_node *nd = &s->nodes[i];
#if defined(__GNUC__)
        /* the triangles are read in tree order, from anywhere: those of
         * the leaves PACK_AHEAD nodes on are asked for now (within the
         * range: the nodes past it may be another thread's, being
         * rewritten) */
        if (i + PACK_AHEAD < i1) {
            const rp_bvh_node *pf = &s->nodes[i + PACK_AHEAD];
            for (int k = 0; k < RP_BVH_WIDTH; k++)
                for (uint32_t j = 0; j < pf->count[k]; j++)
                    __builtin_prefetch(&s->tris[b->idx[pf->child[k] + j]]);
        }
#endif
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
}

/* the threaded packing: chunk c is nodes [c * PACK_CHUNK, (c + 1) *
 * PACK_CHUNK), its blocks from first[c] on (each node's blocks land where
 * one thread would put them) */
#define PACK_CHUNK 4096
typedef struct ppack {
    const builder *b;
    rp_scene *s;
    rp_tri4 *bl;
    const size_t *first;
} ppack;

static void ppack_chunk(void *ctx, size_t c, unsigned slot) {
    (void)slot;
    ppack *p = ctx;
    size_t i0 = c * PACK_CHUNK, i1 = i0 + PACK_CHUNK < p->s->nnodes ? i0 + PACK_CHUNK : p->s->nnodes;
    pack_range(p->b, p->s, p->bl, i0, i1, p->first[c]);
}

static rp_status pack_leaves(builder *b, rp_scene *s) {
    size_t nc = (s->nnodes + PACK_CHUNK - 1) / PACK_CHUNK;
    size_t *first = b->threads > 1 && nc > 1 ? malloc(nc * sizeof *first) : NULL;
    size_t nb = 0;
    for (size_t i = 0; i < s->nnodes; i++) {
        if (first && i % PACK_CHUNK == 0)
            first[i / PACK_CHUNK] = nb;
        for (int k = 0; k < RP_BVH_WIDTH; k++)
            nb += (s->nodes[i].count[k] + RP_TRI_BLOCK - 1) / RP_TRI_BLOCK;
    }
    size_t bytes = (nb ? nb : 1) * sizeof(rp_tri4);
    rp_tri4 *bl;
    if (bytes <= b->reg) {
        bl = (rp_tri4 *)(void *)b->rec;
        b->rec = NULL;
    } else if (!(bl = rp_big_alloc(bytes, 64))) {
        free(first);
        return RP_ERR_NOMEM;
    }
    if (first) {
        ppack p = {b, s, bl, first};
        par_for(b->threads, nc, ppack_chunk, &p);
        free(first);
    } else {
        pack_range(b, s, bl, 0, s->nnodes, 0);
    }
    s->blocks = bl;
    s->nblocks = nb;
    return RP_OK;
}

/* The triangles' box records rec[i0, i1) (idx: the identity) and their
 * boxes, centroids' boxes and largest |coordinate|, folded in order. */
static void init_range(const rp_triangle *tris, bx *rec, uint32_t *idx, size_t i0, size_t i1,
                       bx *box_out, bx *cb_out, float *bound_out) {
    float bound = 0.0f;
    bx box = bx_empty(), cb = bx_empty();
    for (size_t i = i0; i < i1; i++) {
        const rp_triangle *t = &tris[i];
        bx r;
        r.lo[0] = mn(mn(t->v0.x, t->v1.x), t->v2.x);
        r.lo[1] = mn(mn(t->v0.y, t->v1.y), t->v2.y);
        r.lo[2] = mn(mn(t->v0.z, t->v1.z), t->v2.z);
        r.hi[0] = mx(mx(t->v0.x, t->v1.x), t->v2.x);
        r.hi[1] = mx(mx(t->v0.y, t->v1.y), t->v2.y);
        r.hi[2] = mx(mx(t->v0.z, t->v1.z), t->v2.z);
        r.lo[3] = 0.0f;
        r.hi[3] = 0.0f;
        rec[i] = r;
        idx[i] = (uint32_t)i;
        bx c = bx_cen(&r);
        box = bx_union(box, &r);
        cb = bx_union(cb, &c);
        bound = mx(bound, mx(mx(fabsf(r.lo[0]), fabsf(r.hi[0])),
                             mx(mx(fabsf(r.lo[1]), fabsf(r.hi[1])),
                                mx(fabsf(r.lo[2]), fabsf(r.hi[2])))));
    }
    *box_out = box;
    *cb_out = cb;
    *bound_out = bound;
}

/* the threaded records: chunk c is triangles [c * INIT_CHUNK, ...), its
 * folds merged in chunk order afterwards (the same bits as one pass, as
 * in bin_range) */
#define INIT_CHUNK 65536
typedef struct pinit {
    const rp_triangle *tris;
    bx *rec;
    uint32_t *idx;
    size_t n;
    bx *box, *cb;
    float *bound;
} pinit;

static void pinit_chunk(void *ctx, size_t c, unsigned slot) {
    (void)slot;
    pinit *p = ctx;
    size_t i0 = c * INIT_CHUNK, i1 = i0 + INIT_CHUNK < p->n ? i0 + INIT_CHUNK : p->n;
    init_range(p->tris, p->rec, p->idx, i0, i1, &p->box[c], &p->cb[c], &p->bound[c]);
}

static void init_records(const builder *b, const rp_scene *s, size_t n, bx *box, bx *cb,
                         float *bound) {
    size_t nc = (n + INIT_CHUNK - 1) / INIT_CHUNK;
    bx *cbox = NULL, *ccb = NULL;
    float *cbound = NULL;
    if (b->threads > 1 && nc > 1) {
        cbox = malloc(nc * sizeof *cbox);
        ccb = malloc(nc * sizeof *ccb);
        cbound = malloc(nc * sizeof *cbound);
    }
    if (!cbox || !ccb || !cbound) { /* one thread (or no memory for the chunks' folds) */
        init_range(s->tris, b->rec, b->idx, 0, n, box, cb, bound);
    } else {
        pinit p = {s->tris, b->rec, b->idx, n, cbox, ccb, cbound};
        par_for(b->threads, nc, pinit_chunk, &p);
        *box = bx_empty();
        *cb = bx_empty();
        *bound = 0.0f;
        for (size_t c = 0; c < nc; c++) {
            *box = bx_union(*box, &cbox[c]);
            *cb = bx_union(*cb, &ccb[c]);
            *bound = mx(*bound, cbound[c]);
        }
    }
    free(cbox);
    free(ccb);
    free(cbound);
}

rp_status rp_scene_build_bvh(rp_scene *s, uint32_t **scratch) {
    size_t n = s->ntris;
    builder b;
    memset(&b, 0, sizeof b);
    b.threads = s->build_threads;
    b.reg = (n ? n : 1) * REC_BYTES;
    b.rec = rp_big_alloc(b.reg, 64);
    b.idx = rp_big_alloc((n ? n : 1) * sizeof *b.idx, 64);
    /* the binary nodes: 2 * leaves - 1, reserved at once for leaves of 2
     * triangles on average (bunny: 4; only the pages used are touched),
     * grown by reserve_bn past that */
    b.cap = n + 64;
    b.bn = rp_big_alloc(b.cap * sizeof *b.bn, 64);
    size_t ns = n < SCRATCH_MAX ? (n ? n : 1) : SCRATCH_MAX;
    if (posix_memalign((void **)&b.trec, 32, ns * sizeof *b.trec) != 0)
        b.trec = NULL;
    b.tidx = malloc(ns * sizeof *b.tidx);
    rp_status st = RP_ERR_NOMEM;
    if (!b.rec || !b.idx || !b.trec || !b.tidx || !b.bn)
        goto out;
    float bound = 0.0f;
    bx box, cb;
    init_records(&b, s, n, &box, &cb, &bound);
    if ((st = build_binary(&b, n, &box, &cb)) != RP_OK)
        goto out;
    free(b.trec);
    b.trec = NULL;
    free(b.tidx);
    b.tidx = NULL;
    if ((st = collapse(&b, s)) != RP_OK)
        goto out;
    if ((st = pack_leaves(&b, s)) != RP_OK) {
        free(s->nodes);
        s->nodes = NULL;
        s->nnodes = 0;
        goto out;
    }
    s->bound = bound;
    s->span = 0.0f;
    for (int a = 0; a < 3; a++) /* (an empty scene's box is inverted: 0) */
        if (box.hi[a] - box.lo[a] > s->span)
            s->span = box.hi[a] - box.lo[a];
    if (s->span > FLT_MAX) /* (a side that overflowed: no ray without end is short) */
        s->span = FLT_MAX;
    *scratch = b.idx; /* n entries, no longer needed here: the caller's slot_of */
    b.idx = NULL;
    /* the blocks are all the queries need */
    free(s->tris);
    s->tris = NULL;
    s->cap_tris = 0;
out:
    free(b.trec);
    free(b.tidx);
    free(b.rec);
    free(b.idx);
    free(b.bn);
    return st;
}
