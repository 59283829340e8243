/*
 * internal.c - rp_check's tests of internal functions, as dav1d's checkasm
 * tests each DSP function rather than only the decoder's output: the steps
 * of the scene traversals that every SIMD variant has (the one-ray node
 * test, the one-ray leaf-block filter, the packet box test, the packet
 * node step by lanes, the packet's frustum and segments' box, the one-ray
 * set-ups made a packet at a time), reached through the variant's table
 * (rp_kernels: scene_node_ray, scene_block_ray, scene_box_packet,
 * scene_lane_nodes, scene_frustum_packet, scene_seg_packet,
 * scene_ray_setup), against the scalar reference they stand for in
 * src/scalar/ref.h (the set-ups: against the one-ray set-up), on random
 * and special inputs:
 *   internal_node_ray    every child that rp_ref_slab_wt_steps passes
 *                        (line & range) passes, with an entry at most its
 *                        rn (the plain rays' short form has a margin:
 *                        qray_slabs_short); empty children never pass; the
 *                        children passed beyond the reference's are
 *                        counted, and a run of 100 cases or more where
 *                        most of those it rejects passed fails;
 *   internal_box_packet  the same, per lane, for packets of 1 to 37 rays
 *                        (several packets, partial ones, shared and mixed
 *                        octants and frames);
 *   internal_lane_nodes  a mixed-sign packet's node step by lanes
 *                        (scene_lane_nodes, the one-ray short form lane by
 *                        lane): every child that rp_ref_slab_wt_steps
 *                        passes for a ray passes for it, with a packet
 *                        entry at most that ray's rn; empty children never
 *                        pass; packets of 1 to 37 rays, mostly plain
 *                        directions, as the walk takes this step only
 *                        where every ray is (the rays it left out are
 *                        counted); the children passed beyond the
 *                        reference's are counted, and a run of 100 cases
 *                        or more where most of those it rejects passed
 *                        fails;
 *   internal_lane_boxes  the same bound for the packets' child-by-child
 *                        test from those values (scene_lane_nodes with
 *                        boxes: box_test_margin, packets of mixed signs or
 *                        one octant), each ray's own entry at most its rn;
 *   internal_frustum     a packet's frustum node test (scene_frustum_packet,
 *                        the walk's for a packet of one octant): every
 *                        child that one of the packet's rays passes
 *                        (rp_ref_slab_wt_steps, with its best t) passes,
 *                        with an entry at most that ray's; packets of one
 *                        octant with one origin (as a camera's) or apart,
 *                        boxes and best t at the reference's boundaries;
 *                        the packets without a frustum are counted, and a
 *                        run of 100 cases or more where none had one fails;
 *   internal_segments    the box around a packet's segments (scene_seg_packet,
 *                        the walk's sieve for packets of rays that end):
 *                        every child that one of the packet's rays passes
 *                        with its best t passes; the same cases as
 *                        internal_frustum, of any signs, each ray's best
 *                        its tmax; the packets without a box are counted,
 *                        and a run of 100 cases or more where none had
 *                        one fails;
 *   internal_ray_setup   the one-ray walks' set-ups made from their
 *                        packets' lanes (scene_ray_setup: qray_lanes_setup,
 *                        qray_lane) against qray_setup's, every field a walk
 *                        reads, bit for bit; packets of 1 to 37 rays, with
 *                        ties between |d| components, NaN and infinite
 *                        origins, huge and tiny scales; the rays set up
 *                        from the lanes are counted, and a run of 100 cases
 *                        or more with none fails;
 *   internal_block_ray   no lane dropped that the reference hits in
 *                        [tmin, best] (rp_ref_wt_eval, rp_ref_wt_t), no bit
 *                        past the leaf's count, and each lane kept with
 *                        rp_ref_wt_t's t bit for bit, in [tmin, best]; the
 *                        lanes dropped are counted, so a filter that drops
 *                        nothing shows.  A quarter of the cases put the
 *                        ray's origin inside lane 0's triangle, as a bounce
 *                        ray's, with tmin a small offset or that lane's own
 *                        t and its float neighbours.
 * The best t of a case is often the reference's own entry or exit of a
 * child, or a triangle's t, or their float neighbours, so the strict and
 * non-strict comparisons are tested at their boundaries.  rp_check links
 * the static library for these (the tables are hidden in the shared one).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal_check.h"
#include "internal.h"
#include "scalar/ref.h"
#include "scene/scene.h"

/* splitmix64: the cases depend on the seed and the case number only */
typedef struct irng {
    uint64_t s;
} irng;
static uint64_t inext(irng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint32_t ibelow(irng *r, uint32_t n) { return (uint32_t)(((inext(r) >> 32) * n) >> 32); }
static float iunit(irng *r) { return (float)(inext(r) >> 40) * 0x1p-24f; }
static float irange(irng *r, float lo, float hi) {
    float u = iunit(r);
    return lo + u * (hi - lo);
}

/* a scale for a case: everyday, large, small, huge, tiny */
static float iscale(irng *r) {
    static const float s[] = {1.0f, 1.0f, 1.0f, 1000.0f, 1e-3f, 1e30f, 1e-30f};
    uint32_t k = ibelow(r, 7);
    return s[k];
}

/* a direction component: random, or 0, -0, a denormal, huge (random only
 * while iplain is set) */
static int iplain;
static float idir(irng *r) {
    if (iplain)
        return irange(r, -1.0f, 1.0f);
    uint32_t k = ibelow(r, 20);
    switch (k) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return 1e-41f;
    case 3: return -3e-39f;
    case 4: return 1e30f;
    default: return irange(r, -1.0f, 1.0f);
    }
}

/* Ray i of rays: an origin at scale s, a direction with special components
 * at times, tmin 0 or a little more. */
static void iray(irng *r, rp_rays *rays, size_t i, float s, const float *dshare) {
    float o[3], d[3];
    for (int a = 0; a < 3; a++) {
        o[a] = irange(r, -s, s);
        if (ibelow(r, 30) == 0)
            o[a] = 0.0f;
        d[a] = dshare ? dshare[a] * irange(r, 0.5f, 1.5f) : idir(r);
    }
    if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)
        d[ibelow(r, 3)] = 1.0f;
    rays->ox[i] = o[0];
    rays->oy[i] = o[1];
    rays->oz[i] = o[2];
    rays->dx[i] = d[0];
    rays->dy[i] = d[1];
    rays->dz[i] = d[2];
    rays->tmin[i] = ibelow(r, 3) == 0 ? irange(r, 0.0f, 1e-3f) * s : 0.0f;
    rays->tmax[i] = INFINITY;
}

static rp_ray1 iray1(const rp_rays *rays, size_t i, float tmax) {
    rp_ray1 q = {rays->ox[i],  rays->oy[i],  rays->oz[i],  rays->dx[i], rays->dy[i], rays->dz[i],
                 rays->rdx[i], rays->rdy[i], rays->rdz[i], rays->tmin[i], tmax};
    return q;
}

/* A box near ray i (around a point along it, or anywhere at scale s):
 * sometimes flat on an axis, sometimes with a face through the point. */
static void ibox(irng *r, const rp_rays *rays, size_t i, float s, float lo[3], float hi[3]) {
    float t = irange(r, -0.5f, 2.0f) * s;
    const float o[3] = {rays->ox[i], rays->oy[i], rays->oz[i]};
    const float d[3] = {rays->dx[i], rays->dy[i], rays->dz[i]};
    int near = ibelow(r, 4) != 0;
    for (int a = 0; a < 3; a++) {
        float c = near ? o[a] + t * (isfinite(d[a]) && fabsf(d[a]) <= 1.0f ? d[a] : 0.0f)
                       : irange(r, -s, s);
        float e0 = irange(r, 0.0f, 0.3f) * s, e1 = irange(r, 0.0f, 0.3f) * s;
        uint32_t k = ibelow(r, 12);
        if (k == 0)
            e0 = e1 = 0.0f; /* flat */
        else if (k == 1)
            e0 = 0.0f; /* a face through the point */
        lo[a] = c - e0;
        hi[a] = c + e1;
        if (!(lo[a] <= hi[a]) || !isfinite(lo[a]) || !isfinite(hi[a]))
            lo[a] = hi[a] = 0.0f;
    }
}

static float maxabs3(const float *v, float m) {
    for (int a = 0; a < 3; a++)
        if (fabsf(v[a]) > m)
            m = fabsf(v[a]);
    return m;
}

/* best: inf, random, or a reference boundary (entry, exit) or its neighbour */
static float ibest(irng *r, float s, const float *bounds, int nb) {
    uint32_t k = ibelow(r, 8);
    if (k == 0 || nb == 0)
        return INFINITY;
    if (k == 1)
        return irange(r, 0.0f, 2.0f) * s;
    float b = bounds[ibelow(r, (uint32_t)nb)];
    if (!isfinite(b) || b < 0.0f)
        return irange(r, 0.0f, 2.0f) * s;
    if (k == 2)
        return nextafterf(b, INFINITY);
    if (k == 3)
        return nextafterf(b, -INFINITY);
    return b;
}

static int fsame(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

/* The internal checks, by the function each tests. */
enum {
    I_NODE_RAY,   /* scene_node_ray: one ray against a wide node's children */
    I_BOX_PACKET, /* scene_box_packet: a packet against one child */
    I_BLOCK_RAY,  /* scene_block_ray: one ray against a leaf's block */
    I_LANE_NODES, /* scene_lane_nodes: each ray of a packet against a node */
    I_LANE_BOXES, /* scene_lane_nodes, boxes: the same child by child */
    I_FRUSTUM,    /* scene_frustum_packet: a packet's frustum sieve */
    I_SEGMENTS,   /* scene_seg_packet: the box around a packet's segments */
    I_RAY_SETUP,  /* scene_ray_setup: the one-ray set-ups from a packet's lanes */
    NINTERNAL
};
static const char *const inames[NINTERNAL] = {
    [I_NODE_RAY] = "internal_node_ray",     [I_BOX_PACKET] = "internal_box_packet",
    [I_BLOCK_RAY] = "internal_block_ray",   [I_LANE_NODES] = "internal_lane_nodes",
    [I_LANE_BOXES] = "internal_lane_boxes",
    [I_FRUSTUM] = "internal_frustum",       [I_SEGMENTS] = "internal_segments",
    [I_RAY_SETUP] = "internal_ray_setup"};

int rpc_internal_selected(const char *kernel_list) {
    for (int f = 0; f < NINTERNAL; f++)
        if (rpc_name_selected(kernel_list, inames[f]))
            return 1;
    return 0;
}

/* One node case: a ray, RP_BVH_WIDTH children (some empty), a best t. */
typedef struct ncase {
    _Alignas(64) rp_bvh_node nd; /* as the scene's: the variants load it aligned */
    rp_rays rays;                /* n rays */
    float bound;
    float best[40];
    unsigned flags; /* I_RAY_SETUP: the query's (RP_WATERTIGHT or not) */
} ncase;

/* Child k's box of nd. */
static rp_aabb child_box(const rp_bvh_node *nd, int k) {
    rp_aabb b = {{nd->lo[0][k], nd->lo[1][k], nd->lo[2][k]}, {nd->hi[0][k], nd->hi[1][k], nd->hi[2][k]}};
    return b;
}

/* The reference's slab values of ray i (best inf) for child k of nd. */
static void node_steps(const ncase *c, size_t i, int k, rp_slab_wt_steps *st) {
    rp_ray1 q = iray1(&c->rays, i, INFINITY);
    rp_wt_ray w = rp_ref_wt_setup(&q);
    rp_aabb b = child_box(&c->nd, k);
    rp_ref_slab_wt_steps(&q, &w, &b, rp_ref_wt_pad(&q, c->bound), st);
}

/* A node at the float limit (one node case in four): rays from the origin
 * or near it, |d| a power of two near 2^-100 (|rd| near 2^100, exact), and
 * boxes out where a slab value (b - o) * rd reaches FLT_MAX or overflows.
 * Per child and axis: a box well inside, a near plane past the limit (inf,
 * or FLT_MAX where the rounding saturates), or a far plane stepped until the
 * reference's value for it is FLT_MAX exactly (under ray 0).  max |o| +
 * bound times |rd| is then past 2^125, where the variants must take their
 * full node test: the reference lets a box pass (its line test) whose far
 * plane gives FLT_MAX, as a saturated overflow it cannot tell from a larger
 * value, even when another axis's near plane gave inf, and a short test
 * that only asks tn <= tf would drop it.  Before this case no test failed
 * when the 2^125 condition was dropped from the variants' plain rays. */
static void node_at_limit(irng *r, ncase *c, size_t n) {
    int e[3];
    float sg[3];
    for (int a = 0; a < 3; a++) {
        e[a] = 98 + (int)ibelow(r, 5);
        sg[a] = ibelow(r, 2) ? -1.0f : 1.0f;
    }
    for (size_t i = 0; i < n; i++) {
        float o[3], d[3];
        for (int a = 0; a < 3; a++) {
            o[a] = ibelow(r, 2) ? 0.0f : irange(r, -1.0f, 1.0f);
            d[a] = sg[a] * ldexpf(1.0f, -e[a]);
        }
        c->rays.ox[i] = o[0];
        c->rays.oy[i] = o[1];
        c->rays.oz[i] = o[2];
        c->rays.dx[i] = d[0];
        c->rays.dy[i] = d[1];
        c->rays.dz[i] = d[2];
        c->rays.tmin[i] = 0.0f;
        c->rays.tmax[i] = INFINITY;
    }
    rp_rays all = c->rays;
    all.n = 40;
    if (rp_rays_prepare(&all) != RP_OK)
        abort();
    int mode[RP_BVH_WIDTH][3];
    float m = 0.0f;
    for (int k = 0; k < RP_BVH_WIDTH; k++) {
        if (c->nd.child[k] == RP_NO_HIT)
            continue;
        for (int a = 0; a < 3; a++) {
            float lim = ldexpf(0x1.fffffep+127f, -e[a]); /* (b - o) * rd = FLT_MAX */
            float lo, hi;
            mode[k][a] = (int)ibelow(r, 3);
            if (mode[k][a] == 0) {
                lo = lim * irange(r, 0.1f, 0.6f);
                hi = lim * irange(r, 0.6f, 0.99f);
            } else if (mode[k][a] == 1) {
                lo = lim * irange(r, 1.0f, 1.5f);
                lo = nextafterf(lo, INFINITY);
                hi = lo * irange(r, 1.0f, 1.2f);
            } else {
                lo = lim * irange(r, 0.1f, 0.9f);
                hi = lim;
            }
            /* along the ray: the box on the side the direction points to */
            c->nd.lo[a][k] = sg[a] > 0.0f ? lo : -hi;
            c->nd.hi[a][k] = sg[a] > 0.0f ? hi : -lo;
            m = maxabs3((const float[3]){lo, hi, 0.0f}, m);
        }
    }
    c->bound = m * 1.25f; /* still a bound after the steps below */
    for (int k = 0; k < RP_BVH_WIDTH; k++) {
        if (c->nd.child[k] == RP_NO_HIT)
            continue;
        for (int a = 0; a < 3; a++) {
            if (mode[k][a] != 2)
                continue;
            /* the far plane: hi along +d, lo along -d; step it by one float
             * until the reference's far value is FLT_MAX (a few steps: the
             * pad and the rounding move it by some units in the last place) */
            float *far = sg[a] > 0.0f ? &c->nd.hi[a][k] : &c->nd.lo[a][k];
            for (int step = 0; step < 64; step++) {
                rp_slab_wt_steps st;
                node_steps(c, 0, k, &st);
                if (st.t1[a] == 0x1.fffffep+127f)
                    break;
                int outward = st.t1[a] < 0x1.fffffep+127f; /* farther along d */
                *far = nextafterf(*far, (outward == (sg[a] > 0.0f)) ? INFINITY : -INFINITY);
            }
        }
    }
}

static void gen_node(irng *r, ncase *c, size_t n) {
    float s = iscale(r);
    float dsh[3];
    int share = ibelow(r, 2) == 0; /* one octant and frame for the packet */
    for (int a = 0; a < 3; a++)
        dsh[a] = irange(r, 0.2f, 1.0f) * (ibelow(r, 2) ? -1.0f : 1.0f);
    for (size_t i = 0; i < n; i++)
        iray(r, &c->rays, i, s, share ? dsh : NULL);
    if (share && ibelow(r, 2) == 0) /* one origin too, as a camera's rays (box_uniform) */
        for (size_t i = 1; i < n; i++) {
            c->rays.ox[i] = c->rays.ox[0];
            c->rays.oy[i] = c->rays.oy[0];
            c->rays.oz[i] = c->rays.oz[0];
        }
    rp_rays all = c->rays; /* prepared whole, as allocated */
    all.n = 40;
    if (rp_rays_prepare(&all) != RP_OK)
        abort();
    float m = 0.0f;
    for (int k = 0; k < RP_BVH_WIDTH; k++) {
        float lo[3], hi[3];
        int empty = ibelow(r, 6) == 0;
        ibox(r, &c->rays, ibelow(r, (uint32_t)n), s, lo, hi);
        for (int a = 0; a < 3; a++) {
            c->nd.lo[a][k] = empty ? INFINITY : lo[a];
            c->nd.hi[a][k] = empty ? -INFINITY : hi[a];
        }
        c->nd.child[k] = empty ? RP_NO_HIT : (uint32_t)k + 1u;
        c->nd.count[k] = empty ? 0u : ibelow(r, 9);
        if (!empty) {
            m = maxabs3(lo, m);
            m = maxabs3(hi, m);
        }
    }
    c->bound = ibelow(r, 4) == 0 ? m * irange(r, 1.0f, 4.0f) : m;
    if (ibelow(r, 4) == 0)
        node_at_limit(r, c, n);
}

/* The reference for ray i and child k with best t: hit and entry. */
static int ref_child(const ncase *c, size_t i, int k, float best, float *entry) {
    if (c->nd.child[k] == RP_NO_HIT)
        return 0;
    rp_ray1 q = iray1(&c->rays, i, best);
    rp_wt_ray w = rp_ref_wt_setup(&q);
    rp_aabb b = child_box(&c->nd, k);
    return rp_ref_slab_wt_entry(&q, &w, &b, rp_ref_wt_pad(&q, c->bound), entry);
}

static void print_ray(const rp_rays *rays, size_t i) {
    printf("    ray o=(%a, %a, %a) d=(%a, %a, %a) tmin=%a\n", (double)rays->ox[i],
           (double)rays->oy[i], (double)rays->oz[i], (double)rays->dx[i], (double)rays->dy[i],
           (double)rays->dz[i], (double)rays->tmin[i]);
}

static void print_box(const rp_bvh_node *nd, int k) {
    printf("    child %d box (%a, %a, %a) - (%a, %a, %a)%s\n", k, (double)nd->lo[0][k],
           (double)nd->lo[1][k], (double)nd->lo[2][k], (double)nd->hi[0][k], (double)nd->hi[1][k],
           (double)nd->hi[2][k], nd->child[k] == RP_NO_HIT ? " (empty)" : "");
}

/* node_ray: 1 if the variant fails the reference (printed when pr): every
 * child the reference passes passes, with an entry at most the
 * reference's (its short form for plain rays takes a margin:
 * qray_slabs_short in src/scene/traverse_ray.h; every other ray gets the
 * reference's bits, which meet this too), and an empty child never passes.
 * Counted: the children the reference rejects (*rej) and those of them the
 * variant passes (*extra); a run where most of them passed fails
 * (rpc_internal_run), so a test that passes everything cannot. */
static int check_node(const rp_kernels *kt, const ncase *c, int pr, unsigned long *rej,
                      unsigned long *extra) {
    float ent[RP_BVH_WIDTH];
    unsigned h = kt->scene_node_ray(&c->rays, 0, c->bound, &c->nd, c->best[0], ent);
    int bad = (h >> RP_BVH_WIDTH) != 0;
    for (int k = 0; k < RP_BVH_WIDTH; k++) {
        float e = 0.0f;
        int x = ref_child(c, 0, k, c->best[0], &e);
        int got = (h >> k) & 1u;
        int empty = c->nd.child[k] == RP_NO_HIT;
        int d = (x && !got) || (x && !(ent[k] <= e)) || (empty && got);
        if (!x && !empty) {
            *rej += 1;
            *extra += got;
        }
        if (d && pr) {
            printf("    child %d: reference hit %d entry %a, variant hit %d entry %a (best %a, "
                   "bound %a)\n",
                   k, x, (double)e, got, (double)ent[k], (double)c->best[0], (double)c->bound);
            print_box(&c->nd, k);
        }
        bad |= d;
    }
    if (bad && pr)
        print_ray(&c->rays, 0);
    return bad;
}

static int check_packet(const rp_kernels *kt, const ncase *c, size_t n, int k, int pr) {
    uint8_t hit[40];
    float ent[40];
    kt->scene_box_packet(&c->rays, 0, n, c->bound, &c->nd, k, c->best, hit, ent);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        float e = 0.0f;
        int x = ref_child(c, i, k, c->best[i], &e);
        int d = hit[i] != x || (x && !fsame(e, ent[i]));
        if (d && pr && bad < 2) {
            printf("    ray %zu of %zu, child %d: reference hit %d entry %a, variant hit %d entry "
                   "%a (best %a)\n",
                   i, n, k, x, (double)e, hit[i], (double)ent[i], (double)c->best[i]);
            print_ray(&c->rays, i);
            print_box(&c->nd, k);
        }
        bad += d;
    }
    return bad != 0;
}

/* A packet's sieve, its frustum (seg 0: scene_frustum_packet) or the box
 * around its segments (seg 1: scene_seg_packet): 1 if it drops a child that
 * one of its rays passes (the reference, with the ray's best t), or (the
 * frustum) gives that child an entry above the ray's; *pk, *none: packets,
 * and packets without one. */
static int check_sieve(const rp_kernels *kt, const ncase *c, size_t n, int seg, int pr,
                       unsigned long *pk, unsigned long *none) {
    int bad = 0;
    for (size_t i = 0; i < n;) {
        size_t w = 0;
        unsigned h = 0;
        float ent[RP_BVH_WIDTH];
        int took = seg ? kt->scene_seg_packet(&c->rays, i, n - i, c->bound, &c->nd, c->best + i,
                                              &w, &h)
                       : kt->scene_frustum_packet(&c->rays, i, n - i, c->bound, &c->nd,
                                                  c->best + i, &w, &h, ent);
        if (w == 0)
            return 1; /* (no progress: a broken entry point) */
        (*pk)++;
        *none += !took;
        for (size_t l = i; took && l < i + w; l++)
            for (int k = 0; k < RP_BVH_WIDTH; k++) {
                float e = 0.0f;
                if (!ref_child(c, l, k, c->best[l], &e))
                    continue;
                int d = !((h >> k) & 1u) || (!seg && !(ent[k] <= e));
                if (d && pr && bad < 2) {
                    printf("    ray %zu (packet of %zu from ray %zu), child %d: reference entry "
                           "%a (best %a), %s %s",
                           l, w, i, k, (double)e, (double)c->best[l], seg ? "box" : "frustum",
                           (h >> k) & 1u ? "passes" : "drops it");
                    if (!seg)
                        printf(", entry %a", (double)ent[k]);
                    printf("\n");
                    print_ray(&c->rays, l);
                    print_box(&c->nd, k);
                }
                bad += d;
            }
        i += w;
    }
    return bad != 0;
}

/* lane_nodes (boxes: box_test_margin): 1 if the variant fails the reference (a child the
 * reference passes for a ray not passed for it, a packet entry above that
 * ray's, an empty child passed); *out: the rays left out (their packet not
 * plain, or a ray's one-ray set-up not from the lanes); *rej, *extra as
 * check_node's. */
static int check_lanes(const rp_kernels *kt, const ncase *c, size_t n, int boxes, int pr,
                       unsigned long *out, unsigned long *rej, unsigned long *extra) {
    static uint8_t hit[40 * RP_BVH_WIDTH];
    static float em[40 * RP_BVH_WIDTH];
    kt->scene_lane_nodes(&c->rays, 0, n, c->bound, &c->nd, c->best, hit, em, boxes);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t at = i * RP_BVH_WIDTH;
        if (isnan(em[at])) { /* left out: then no bit either */
            for (int k = 0; k < RP_BVH_WIDTH; k++)
                bad |= hit[at + (size_t)k] != 0;
            (*out)++;
            continue;
        }
        for (int k = 0; k < RP_BVH_WIDTH; k++) {
            float e = 0.0f;
            int x = ref_child(c, i, k, c->best[i], &e);
            int got = hit[at + (size_t)k] != 0;
            int empty = c->nd.child[k] == RP_NO_HIT;
            /* a superset of the reference's children, the packet's entry
             * at most this ray's (a bound, as the one-ray short form's) */
            int d = (x && !got) || (x && !(em[at + (size_t)k] <= e)) || (empty && got);
            if (!x && !empty) {
                *rej += 1;
                *extra += got;
            }
            if (d && pr && bad < 2) {
                printf("    ray %zu of %zu, child %d: reference hit %d entry %a, variant hit %d "
                       "packet entry %a (best %a)\n",
                       i, n, k, x, (double)e, got, (double)em[at + (size_t)k],
                       (double)c->best[i]);
                print_ray(&c->rays, i);
                print_box(&c->nd, k);
            }
            bad += d;
        }
    }
    return bad != 0;
}

/* One block case: a ray, four triangles near it (the lanes past n repeat
 * lane n - 1), a best t. */
typedef struct bcase {
    _Alignas(64) rp_tri4 b; /* as the scene's: the variants load it aligned */
    rp_rays rays;
    unsigned n;
    float bound, best;
} bcase;

static rp_triangle block_tri(const rp_tri4 *b, int j) {
    rp_triangle t;
    float *f = (float *)(void *)&t;
    for (int q = 0; q < 9; q++)
        f[q] = b->v[q][j];
    return t;
}

/* the reference's hit of lane j in [tmin, best] */
static int ref_lane(const bcase *c, int j) {
    rp_ray1 q = iray1(&c->rays, 0, c->best);
    rp_wt_ray w = rp_ref_wt_setup(&q);
    rp_triangle t = block_tri(&c->b, j);
    rp_wt_eval e = rp_ref_wt_eval(&q, &w, &t, RP_WATERTIGHT);
    if (!e.candidate)
        return 0;
    float tt = rp_ref_wt_t(&q, &w, &t, &e);
    return (tt >= q.tmin) & (tt <= q.tmax);
}

static float ref_lane_t(const bcase *c, int j) {
    rp_ray1 q = iray1(&c->rays, 0, INFINITY);
    rp_wt_ray w = rp_ref_wt_setup(&q);
    rp_triangle t = block_tri(&c->b, j);
    rp_wt_eval e = rp_ref_wt_eval(&q, &w, &t, RP_WATERTIGHT);
    return e.candidate ? rp_ref_wt_t(&q, &w, &t, &e) : NAN;
}

static void gen_block(irng *r, bcase *c) {
    float s = iscale(r);
    iray(r, &c->rays, 0, s, NULL);
    rp_rays all = c->rays;
    all.n = 40;
    if (rp_rays_prepare(&all) != RP_OK)
        abort();
    const float o[3] = {c->rays.ox[0], c->rays.oy[0], c->rays.oz[0]};
    const float d[3] = {c->rays.dx[0], c->rays.dy[0], c->rays.dz[0]};
    c->n = 1u + ibelow(r, 4);
    float m = 0.0f;
    for (unsigned j = 0; j < 4; j++) {
        if (j >= c->n) { /* padding: the leaf's last triangle again */
            for (int q = 0; q < 9; q++)
                c->b.v[q][j] = c->b.v[q][c->n - 1];
            c->b.index[j] = c->b.index[c->n - 1];
            continue;
        }
        float t = irange(r, -0.5f, 2.0f) * s, sz = irange(r, 0.01f, 0.5f) * s;
        float p[3];
        for (int a = 0; a < 3; a++)
            p[a] = o[a] + t * (isfinite(d[a]) && fabsf(d[a]) <= 1.0f ? d[a] : 0.0f);
        uint32_t style = ibelow(r, 8);
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++) {
                float x = p[a] + irange(r, -sz, sz);
                if (style == 0 && v == 0)
                    x = p[a]; /* a vertex on the ray */
                if (!isfinite(x))
                    x = 0.0f;
                c->b.v[3 * v + a][j] = x;
                m = fabsf(x) > m ? fabsf(x) : m;
            }
        if (style == 1) /* an edge through the point: v2 mirrors v1 */
            for (int a = 0; a < 3; a++)
                c->b.v[6 + a][j] = p[a] - (c->b.v[3 + a][j] - p[a]);
        c->b.index[j] = j;
    }
    /* a bounce or shadow ray's own triangle in lane 0: the origin inside it
     * (the vertices o + a, o + b, o - a - b), tmin at a renderer's offset
     * or at the reference's t of that lane and its float neighbours, where
     * a filter that decided t < tmin without the reference's t would err */
    int own = ibelow(r, 4) == 0;
    if (own) {
        float sz = irange(r, 0.01f, 0.5f) * s;
        for (int a = 0; a < 3; a++) {
            float x = irange(r, -sz, sz), y = irange(r, -sz, sz);
            float v[3] = {o[a] + x, o[a] + y, (o[a] - x) - y};
            for (int q = 0; q < 3; q++) {
                if (!isfinite(v[q]))
                    v[q] = 0.0f;
                c->b.v[3 * q + a][0] = v[q];
                m = fabsf(v[q]) > m ? fabsf(v[q]) : m;
            }
        }
        for (unsigned j = c->n; j < 4; j++) /* the padding again */
            for (int q = 0; q < 9; q++)
                c->b.v[q][j] = c->b.v[q][c->n - 1];
        c->rays.tmin[0] = ibelow(r, 2) ? 1e-4f * s : 1e-7f * s;
    }
    c->bound = m;
    c->best = INFINITY;
    if (own && ibelow(r, 2)) {
        float t = ref_lane_t(c, 0);
        if (isfinite(t) && t > 0.0f) {
            uint32_t w = ibelow(r, 3);
            c->rays.tmin[0] = w == 0 ? t : w == 1 ? nextafterf(t, INFINITY) : nextafterf(t, 0.0f);
        }
    }
    uint32_t k = ibelow(r, 6);
    if (k >= 2) { /* at a triangle's own t, or next to it */
        float t = ref_lane_t(c, (int)ibelow(r, c->n));
        if (isfinite(t) && t >= 0.0f)
            c->best = k == 2 ? nextafterf(t, -INFINITY) : k == 3 ? nextafterf(t, INFINITY) : t;
    } else if (k == 1) {
        c->best = irange(r, 0.0f, 2.0f) * s;
    }
}

/* rp_ref_wt_t of lane j (any lane: t does not depend on the inside
 * decision) */
static float ref_lane_tt(const bcase *c, int j) {
    rp_ray1 q = iray1(&c->rays, 0, c->best);
    rp_wt_ray w = rp_ref_wt_setup(&q);
    rp_triangle t = block_tri(&c->b, j);
    rp_wt_eval e = rp_ref_wt_eval(&q, &w, &t, RP_WATERTIGHT);
    return rp_ref_wt_t(&q, &w, &t, &e);
}

static int check_block(const rp_kernels *kt, const bcase *c, int pr, unsigned long *dropped) {
    float tl[4];
    unsigned h = kt->scene_block_ray(&c->rays, 0, c->bound, &c->b, c->n, c->best, tl);
    int bad = (h >> c->n) != 0;
    if (bad && pr)
        printf("    bits past the count %u: 0x%x\n", c->n, h);
    for (unsigned j = 0; j < c->n; j++) {
        int x = ref_lane(c, (int)j);
        int kept = (h >> j) & 1u;
        *dropped += !kept;
        if (kept) {
            float rt = ref_lane_tt(c, (int)j);
            uint32_t a, b;
            memcpy(&a, &tl[j], 4);
            memcpy(&b, &rt, 4);
            if (a != b || !(tl[j] >= c->rays.tmin[0] && tl[j] <= c->best)) {
                bad = 1;
                if (pr) {
                    printf("    lane %u kept with t %a, the reference's t %a (tmin %a, best %a)\n", j,
                           (double)tl[j], (double)rt, (double)c->rays.tmin[0], (double)c->best);
                    print_ray(&c->rays, 0);
                }
            }
        }
        if (x && !kept) {
            bad = 1;
            if (pr) {
                printf("    lane %u dropped, the reference hits it (best %a)\n", j, (double)c->best);
                print_ray(&c->rays, 0);
            }
        }
    }
    return bad;
}

/* What a check counts besides pass and fail, summed over a run. */
typedef struct istats {
    unsigned long dropped, lanes; /* I_BLOCK_RAY: lanes dropped, lanes */
    unsigned long left, rays_n;   /* I_LANE_NODES: rays left out, rays */
    unsigned long pk, none;       /* I_FRUSTUM, I_SEGMENTS: packets, without a sieve */
    unsigned long rej, extra;     /* I_NODE_RAY, I_LANE_NODES: children the reference
                                   * rejects, and of them those the variant passes */
    unsigned long srays, sfast;   /* I_RAY_SETUP: rays, those set up from the lanes */
} istats;

/* Check f on table kt for the case made (nc for every check but
 * I_BLOCK_RAY, bc for it; n rays): 1 when it fails.  pr: print the
 * differences (a second pass over a failed case, counting nothing). */
static int internal_check(int f, const rp_kernels *kt, const ncase *nc, const bcase *bc,
                          size_t n, int pr, istats *st) {
    istats scratch = {0};
    if (pr)
        st = &scratch;
    int bad = 0;
    switch (f) {
    case I_NODE_RAY:
        return check_node(kt, nc, pr, &st->rej, &st->extra);
    case I_BOX_PACKET:
        for (int k = 0; k < RP_BVH_WIDTH; k++)
            bad |= check_packet(kt, nc, n, k, pr);
        return bad;
    case I_BLOCK_RAY:
        st->lanes += bc->n;
        return check_block(kt, bc, pr, &st->dropped);
    case I_LANE_NODES:
    case I_LANE_BOXES:
        st->rays_n += n;
        return check_lanes(kt, nc, n, f == I_LANE_BOXES, pr, &st->left, &st->rej, &st->extra);
    case I_FRUSTUM:
    case I_SEGMENTS:
        return check_sieve(kt, nc, n, f == I_SEGMENTS, pr, &st->pk, &st->none);
    case I_RAY_SETUP: {
        size_t fast = 0;
        size_t nb = kt->scene_ray_setup(&nc->rays, n, nc->bound, nc->flags, &fast);
        st->srays += n;
        st->sfast += fast;
        if (nb && pr) {
            printf("    %zu of %zu rays' set-ups differ from qray_setup's (%s, bound %a); "
                   "the rays:\n",
                   nb, n, (nc->flags & RP_WATERTIGHT) ? "watertight" : "Moller-Trumbore",
                   (double)nc->bound);
            for (size_t i = 0; i < n; i++)
                print_ray(&nc->rays, i);
        }
        return nb != 0;
    }
    }
    return 1;
}

/* I_RAY_SETUP's rays beyond gen_node's: at times |d| components that tie
 * (the frame's axis choice), an origin component NaN or infinite, a NaN
 * or reversed range (prepared again: 1 / d, NaN where o is not finite),
 * a NaN origin after that; the query's flags. */
static void setup_specials(irng *r, ncase *c, size_t n) {
    rp_rays *rays = &c->rays;
    float *o[3] = {rays->ox, rays->oy, rays->oz}, *d[3] = {rays->dx, rays->dy, rays->dz};
    for (size_t i = 0; i < n; i++) {
        uint32_t k = ibelow(r, 12);
        int a = (int)ibelow(r, 3), b = (a + 1 + (int)ibelow(r, 2)) % 3;
        if (k == 0)
            d[b][i] = d[a][i];
        else if (k == 1)
            d[b][i] = -d[a][i];
        else if (k == 2)
            o[a][i] = NAN;
        else if (k == 3)
            o[a][i] = ibelow(r, 2) ? INFINITY : -INFINITY;
        else if (k == 4)
            rays->tmin[i] = NAN;
        else if (k == 5)
            rays->tmin[i] = rays->tmax[i] = 1.0f;
        else if (k == 6)
            rays->tmax[i] = 0.0f;
    }
    rp_rays all = *rays;
    all.n = 40;
    if (rp_rays_prepare(&all) != RP_OK)
        abort();
    /* and an origin made NaN after rp_rays_prepare (1 / d still finite: a
     * caller's array changed after preparing), which only the lanes' own
     * NaN test keeps from their set-up */
    for (size_t i = 0; i < n; i++)
        if (ibelow(r, 12) == 0)
            o[ibelow(r, 3)][i] = NAN;
    c->flags = ibelow(r, 2) ? RP_WATERTIGHT : 0u;
}

/* Makes case it of check f: a node case with its rays and best t in nc, or
 * (I_BLOCK_RAY) a block case in bc; returns the rays' count. */
static size_t internal_case(int f, uint64_t seed, uint64_t it, const rp_rays *rays, ncase *nc,
                            bcase *bc) {
    irng r = {seed ^ (0x51ed2701u * (uint64_t)(f + 1)) ^ (it * 0x9e3779b97f4a7c15ULL)};
    if (f == I_BLOCK_RAY) {
        bc->rays = *rays;
        bc->rays.n = 1;
        gen_block(&r, bc);
        return 1;
    }
    size_t n = f == I_NODE_RAY ? 1 : 1 + ibelow(&r, 37);
    nc->rays = *rays;
    nc->rays.n = n;
    iplain = (f == I_LANE_NODES || f == I_LANE_BOXES || f == I_FRUSTUM || f == I_SEGMENTS ||
              f == I_RAY_SETUP) &&
             ibelow(&r, 4) != 0;
    gen_node(&r, nc, n);
    iplain = 0;
    if (f == I_RAY_SETUP) {
        setup_specials(&r, nc, n);
        return n;
    }
    /* best per ray: a boundary of the reference's (child 0..3) */
    for (size_t i = 0; i < n; i++) {
        float bnd[2 * RP_BVH_WIDTH];
        int nb = 0;
        for (int k = 0; k < RP_BVH_WIDTH; k++) {
            rp_slab_wt_steps st;
            if (nc->nd.child[k] == RP_NO_HIT)
                continue;
            node_steps(nc, i, k, &st);
            bnd[nb++] = st.rn;
            bnd[nb++] = st.rf;
        }
        nc->best[i] = ibest(&r, 1.0f, bnd, nb);
    }
    return n;
}

void rpc_internal_run(const char *kernel_list, uint64_t seed, uint64_t iterations,
                      const rp_isa *isas, int nisa, unsigned long *passed,
                      unsigned long *failed, unsigned long *vpass, unsigned long *vfail) {
    rp_rays rays;
    if (rp_rays_alloc(40, &rays) != RP_OK) {
        printf("rp_check: internal: out of memory\n");
        (*failed)++;
        return;
    }
    static ncase nc;
    static bcase bc;
    for (int f = 0; f < NINTERNAL; f++) {
        if (!rpc_name_selected(kernel_list, inames[f]))
            continue;
        unsigned long kf[RP_ISA_COUNT] = {0};
        istats st = {0};
        int tested = 0;
        for (int v = 0; v < nisa; v++) {
            rp_set_isa(isas[v]);
            const rp_kernels *kt = rp_kernels_active();
            if (!kt->scene_node_ray) /* the scalar table: the reference itself */
                continue;
            tested = 1;
            int printed = 0;
            for (uint64_t it = 0; it < iterations; it++) {
                size_t n = internal_case(f, seed, it, &rays, &nc, &bc);
                int bad = internal_check(f, kt, &nc, &bc, n, 0, &st);
                if (bad && printed < 2) {
                    printf("FAIL %s %s: case %" PRIu64 " (seed %" PRIu64 ")\n", inames[f],
                           rp_isa_name(isas[v]), it, seed);
                    internal_check(f, kt, &nc, &bc, n, 1, &st);
                    printed++;
                }
                if (bad) {
                    kf[isas[v]]++;
                    vfail[isas[v]]++;
                    (*failed)++;
                } else {
                    vpass[isas[v]]++;
                    (*passed)++;
                }
            }
        }
        rp_set_isa(RP_ISA_AUTO);
        if (!tested)
            continue;
        printf("  %-24s", inames[f]);
        for (int v = 0; v < nisa; v++)
            if (isas[v] != RP_ISA_SCALAR)
                printf(" %s:%s", rp_isa_name(isas[v]), kf[isas[v]] ? "FAILED" : "ok");
        if (f == I_BLOCK_RAY)
            printf(" (%lu of %lu lanes dropped)", st.dropped, st.lanes);
        if (f == I_NODE_RAY) {
            printf(" (%lu of %lu children the reference rejects passed)", st.extra, st.rej);
            if (iterations >= 100 && 2 * st.extra > st.rej) { /* a test that rejects nothing */
                printf(" FAILED: most passed");
                (*failed)++;
            }
        }
        if (f == I_LANE_NODES || f == I_LANE_BOXES) {
            printf(" (%lu of %lu rays in packets left out: not plain or not fast; %lu of %lu "
                   "children the reference rejects passed)",
                   st.left, st.rays_n, st.extra, st.rej);
            if (iterations >= 100 && 2 * st.extra > st.rej) { /* a test that rejects nothing */
                printf(" FAILED: most passed");
                (*failed)++;
            }
        }
        if (f == I_RAY_SETUP) {
            printf(" (%lu of %lu rays set up from their packets' lanes)", st.sfast, st.srays);
            if (iterations >= 100 && st.sfast == 0) { /* a test of qray_setup against itself */
                printf(" FAILED: none");
                (*failed)++;
            }
        }
        if (f == I_FRUSTUM || f == I_SEGMENTS) {
            const char *what = f == I_FRUSTUM ? "frustum" : "box";
            printf(" (%lu of %lu packets without a %s)", st.none, st.pk, what);
            if (iterations >= 100 && st.none == st.pk) { /* a test that tested nothing */
                printf(" FAILED: no packet had a %s", what);
                (*failed)++;
            }
        }
        printf("\n");
        fflush(stdout);
    }
    rp_rays_free(&rays);
}
