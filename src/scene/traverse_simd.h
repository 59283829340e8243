/*
 * traverse_simd.h - the scene traversals, written once for every SIMD
 * variant (included by src/simd/kernels.h, after the vector layer and the
 * per-primitive steps).  Two shapes, chosen by the hints RP_COHERENT /
 * RP_INCOHERENT; without one, packets, which were measured faster than the
 * one-ray traversal on every benchmark row but incoherent bounces on the
 * 1.2M-triangle mesh (a one-ray walk waits on each node's memory in turn;
 * README, "Scenes against Embree 3"):
 *   - packets (here): W rays walk the tree together (Wald's packets, for
 *     the coherent rays of a camera or of shadows toward one light);
 *   - one ray at a time (traverse_ray.h): lanes over a node's children and
 *     a leaf block's triangles, for incoherent rays.
 * A packet whose rays' direction signs differ (bounces) hands a node or a
 * leaf where one lane is left to the one-ray walk (lone_walk; not a
 * Moller-Trumbore leaf where the layer groups lanes: mt_few), and on AVX2
 * tests its nodes lane by lane, a node's children in one register
 * (lane_nodes); the AVX-512 variant walks such packets as AVX2 does, in
 * packets of 8 in 256-bit registers, on cores that split 512-bit
 * operations and on large scenes elsewhere (but packets of short rays:
 * packet_short), and on the former packets
 * of one octant too where their lanes part ways (scene_packets;
 * RP_SIMD_NARROW_PACKETS, src/avx512/scene8_avx512.c).  The same tests
 * either way, so the same results.
 * Packets: a child is entered when the conservative box test of the
 * reference (rp_ref_slab_wt_entry, here for W rays against one broadcast
 * box, or one ray against a node's boxes, the same operations lane by
 * lane) passes for some lane whose best t its entry does not exceed; a
 * node's boxes are all tested as it is entered, before any of its leaves
 * (so with the best t it was entered with); a leaf's triangles go through the watertight
 * packet step of the brute-force kernels (wt_pick, wt_cand, tri_late).  A
 * lane may so test more triangles than the reference traversal would, never
 * fewer, and every acceptance is the reference's (nearer, or equal t and a
 * lower scene index), so each lane's result is the minimum (t, scene index)
 * over all the scene's triangles: what rp_scene_closest_ref and brute force
 * return.  Without RP_WATERTIGHT a leaf's triangles go through the
 * Moller-Trumbore step of the brute-force kernels (tri_cand, tri_late,
 * tri_t) and a hit counts where it passes rp_ref_mt_in_box (mt_in_box: the
 * box test on the triangle's own box): the minimum over those hits, in any
 * visit order, which is rp_scene_closest_ref's (docs/SEMANTICS.md).
 */
#include "scene/scene.h"

#define RP_SCENE_STACK 128 /* stack entries on the C stack: trees of up to 15 levels of 8-wide nodes */

/* The counts of scene_packets' choice of width (pstat), kept only by the
 * variants that choose (the AVX-512 variant's 16-lane walk, which defines
 * RP_SIMD_ADAPT_ON, and its 8-lane one, RP_SIMD_PACKETS_FN). */
#if defined(RP_SIMD_ADAPT_ON) || defined(RP_SIMD_PACKETS_FN)
#define PSTAT(x) ((void)(x))
#else
#define PSTAT(x) ((void)sizeof(x)) /* (not evaluated) */
#endif

#include "scene/traverse_ray.h" /* the one-ray walk, which packets hand lone lanes to */

/* The packet's ray state for the box test: the grown origins (near and far
 * plane of each axis, by the lane's sign: rp_ref_slab_wt_entry). */
typedef struct vbox_ray {
    vf on[3], of[3];
    vm rd0[3]; /* rd == 0 or |rd| == FLT_MAX (flushed or saturated): the axis bounds nothing */
    int any_rd0;
    /* kx or ky of the lane with an infinite rd: it bounds the line, not the
     * range (rp_ref_slab_wt_steps, rp_ref_wt_bounding) */
    vm rinf[3];
    int any_rinf;
    /* when the live lanes share the signs of rd (bit a: rd[a] < 0), the
     * near and far planes are chosen once (no per-lane swap), else -1 */
    int oct;
    /* the lanes where no slab value can be NaN, infinite or +-FLT_MAX:
     * every rd finite, nonzero and below FLT_MAX in magnitude, m = max |o|
     * + bound (as rp_ref_wt_pad has it) below 2^127, so that the grown
     * origins o +- m * 2^-19 are finite, and m * |rd| < 2^125 on every
     * axis, so that (plane - grown origin) * rd stays below 2^126 in
     * magnitude for any plane of the scene (|plane| <= bound) in every
     * rounding mode (each rounding moves a value by a factor of at most
     * 1 +- 2^-23); box_fast */
    vm plain;
    int fast; /* box_fast */
    /* box_uniform: fast, one octant, and every live lane's grown origins
     * the same bits (a camera's rays: one origin, one sign per axis); then
     * uon, uof are those origins and a node's plane - origin differences
     * are made once for its children (node_diffs, box_test_uni) */
    int uni;
    float uon[3], uof[3];
} vbox_ray;

RP_INLINE void box_ray_setup(const vray *r, vm live, float bound, vbox_ray *b) {
    vf ax = vf_xorsign(r->ox, r->ox), ay = vf_xorsign(r->oy, r->oy);
    vf az = vf_xorsign(r->oz, r->oz);
    vf m = vf_max(ax, ay); /* rp_ref_wt_pad */
    m = vf_max(az, m);
    m = vf_add(m, vf_set1(bound));
    vf pad = vf_mul(m, vf_set1(0x1p-19f));
    const vf rd[3] = {r->rdx, r->rdy, r->rdz};
    b->plain = vf_lt(m, vf_set1(0x1p127f)); /* no grown origin overflows */
    for (int a = 0; a < 3; a++) {
        vf ard = vf_xorsign(rd[a], rd[a]); /* |rd| */
        b->plain = m_and(b->plain, m_and(m_and(vf_gt(ard, vf_set1(0.0f)),
                                               vf_lt(ard, vf_set1(0x1.fffffep+127f))),
                                         vf_lt(vf_mul(m, ard), vf_set1(0x1p125f))));
    }
    const vf o[3] = {r->ox, r->oy, r->oz};
    const vm neg[3] = {r->negx, r->negy, r->negz};
    vf zero = vf_set1(0.0f);
    b->any_rd0 = b->any_rinf = 0;
    const vm kz[3] = {m_andnot(live, m_or(r->wz1, r->wz2)), m_andnot(r->wz1, r->wz2), r->wz2};
    for (int k = 0; k < 3; k++) {
        vf lo = vf_sub(o[k], pad), hi = vf_add(o[k], pad);
        b->on[k] = vf_select(neg[k], lo, hi);
        b->of[k] = vf_select(neg[k], hi, lo);
        b->rd0[k] = m_or(vf_eq(rd[k], zero), /* rp_ref_slab_wt_steps */
                         vf_eq(vf_xorsign(rd[k], rd[k]), vf_set1(0x1.fffffep+127f)));
        b->any_rd0 |= m_any(b->rd0[k]);
        b->rinf[k] = m_andnot(vf_eq(vf_xorsign(rd[k], rd[k]), vf_set1(INFINITY)), kz[k]);
        b->any_rinf |= m_any(m_and(b->rinf[k], live));
    }
    b->oct = lanes_octant(r, live);
}

/* Whether box_test may take its short form for the lanes live with ranges
 * [tmin, tmax]: every live lane plain and tmin <= tmax (neither NaN).
 * Then no slab value is NaN or +-FLT_MAX or infinite (and an axis with rd
 * 0 or infinite does not occur), so the reference's line test is tn <= tf,
 * its range test !(tn > tmax) & !(tf < tmin), and the three together are
 * max(tn, tmin) <= min(tf, tmax); the running max and min start from the
 * x axis's values instead of -inf and +inf, the same values with no NaN.
 * The same bits as the long form (rp_check's internal_box_packet checks
 * both against the reference); a scene traversal keeps tmin <= best, so
 * it decides once per packet. */
RP_INLINE int box_fast(const vbox_ray *b, vm live, vf tmin, vf tmax) {
    vm ok = m_and(b->plain, vf_le(tmin, tmax));
    return m_bits(m_and(ok, live)) == m_bits(live);
}

/* The slab values of axis a of the box at blo, bhi (box_test_at): t0 at
 * the near plane from the near grown origin, t1 at the far plane. */
RP_INLINE void box_slab(const vray *r, const vbox_ray *b, const float *blo, const float *bhi,
                        int stride, int a, vf *t0, vf *t1) {
    const vf rd[3] = {r->rdx, r->rdy, r->rdz};
    const vm neg[3] = {r->negx, r->negy, r->negz};
    vf lo, hi; /* the near plane, the far one */
    const float *pl = blo + a * stride, *ph = bhi + a * stride;
    if (b->oct >= 0) {
        int n = (b->oct >> a) & 1;
        lo = vf_bcast(n ? ph : pl);
        hi = vf_bcast(n ? pl : ph);
    } else {
        lo = vf_bcast(pl);
        hi = vf_bcast(ph);
        vf_cswap(neg[a], &lo, &hi);
    }
    *t0 = vf_mul(vf_sub(lo, b->on[a]), rd[a]);
    *t1 = vf_mul(vf_sub(hi, b->of[a]), rd[a]);
}

/* The short form's range test from a box's six slab values t0 (near) and
 * t1 (far) per axis (box_fast: no NaN, no infinity, no +-FLT_MAX, tmin <=
 * tmax): line & !(tn > tmax) & !(tf < tmin), as max(tn, tmin) <= min(tf,
 * tmax); *entry: tn, the running max in the order y, x, then z. */
RP_INLINE vm box_short(const vf t0[3], const vf t1[3], vf tmin, vf tmax, vf *entry) {
    vf tn = vf_max(t0[1], t0[0]), tf = vf_min(t1[1], t1[0]);
    tn = vf_max(t0[2], tn);
    tf = vf_min(t1[2], tf);
    *entry = tn;
    return vf_le(vf_max(tn, tmin), vf_min(tf, tmax));
}

/* rp_ref_slab_wt_entry of the box whose lo and hi of axis a are at
 * lo[a * stride], hi[a * stride], for W rays on [tmin, tmax]; *entry: the
 * range's entry; fast: box_fast's answer for these lanes and range. */
RP_INLINE vm box_test_at(const vray *r, const vbox_ray *b, const float *blo, const float *bhi,
                         int stride, vf tmin, vf tmax, int fast, vf *entry) {
    vf t0s[3], t1s[3];
    for (int a = 0; a < 3; a++)
        box_slab(r, b, blo, bhi, stride, a, &t0s[a], &t1s[a]);
    if (fast) /* no NaN, no infinity, no +-FLT_MAX (box_fast) */
        return box_short(t0s, t1s, tmin, tmax, entry);
    vf tn = vf_set1(-INFINITY), tf = vf_set1(INFINITY);
    for (int a = 0; a < 3; a++) {
        if (b->any_rd0) {
            t0s[a] = vf_select(b->rd0[a], vf_set1(-INFINITY), t0s[a]);
            t1s[a] = vf_select(b->rd0[a], vf_set1(INFINITY), t1s[a]);
        }
        tn = vf_max(t0s[a], tn);
        tf = vf_min(t1s[a], tf);
    }
    /* the range [rn, rf]: tn, tf unless a lane's kx or ky has an infinite
     * rd (rare: an axis-parallel ray, or 1 / d overflowing under directed
     * rounding), which bounds the line but not the range */
    vf rn = tn, rf = tf;
    if (b->any_rinf) {
        rn = vf_set1(-INFINITY);
        rf = vf_set1(INFINITY);
        for (int a = 0; a < 3; a++) {
            rn = vf_max(vf_select(b->rinf[a], vf_set1(-INFINITY), t0s[a]), rn);
            rf = vf_min(vf_select(b->rinf[a], vf_set1(INFINITY), t1s[a]), rf);
        }
    }
    /* range: !(rn > tmax) & !(rf < tmin) */
    vm out = m_or(vf_gt(rn, tmax), vf_lt(rf, tmin));
    /* FLT_MAX: a saturated overflow (rp_ref_slab_wt_steps) */
    vm line = m_or(vf_le(tn, tf), m_or(vf_eq(tf, vf_set1(0x1.fffffep+127f)),
                                       vf_eq(tn, vf_set1(-0x1.fffffep+127f))));
    *entry = rn;
    return m_andnot(line, out);
}

/* rp_ref_slab_wt_entry for child k of nd, W rays; *entry: the range's entry. */
RP_INLINE vm box_test(const vray *r, const vbox_ray *b, const rp_bvh_node *nd, int k,
                      vf tmax, vf *entry) {
    return box_test_at(r, b, &nd->lo[0][k], &nd->hi[0][k], RP_BVH_WIDTH, r->tmin, tmax, b->fast,
                       entry);
}

/* Whether the packet's live lanes share their grown origins bit for bit
 * (value and sign: no NaN in the short form), with one octant and the
 * short form (b->fast); sets b->uni, b->uon, b->uof. */
RP_INLINE void box_uniform(vbox_ray *b, vm live) {
    b->uni = 0;
    if (!b->fast || b->oct < 0 || !m_any(live))
        return;
    int l = __builtin_ctz(m_bits(live));
    const vf one = vf_set1(1.0f);
    vm same = live;
    for (int a = 0; a < 3; a++) {
        float on[V_W], of[V_W];
        vf_storeu(on, b->on[a]);
        vf_storeu(of, b->of[a]);
        b->uon[a] = on[l];
        b->uof[a] = of[l];
        vf von = vf_set1(on[l]), vof = vf_set1(of[l]);
        same = m_and(same, m_and(vf_eq(b->on[a], von),
                                 vf_eq(vf_xorsign(one, b->on[a]), vf_xorsign(one, von))));
        same = m_and(same, m_and(vf_eq(b->of[a], vof),
                                 vf_eq(vf_xorsign(one, b->of[a]), vf_xorsign(one, vof))));
    }
    b->uni = m_bits(same) == m_bits(live);
}

/* For a packet with b->uni: the node's near and far planes less the
 * packet's grown origins, per axis for all its children at once (the node
 * layer's lanes over the children): dn[a][k] = near plane of child k -
 * uon[a], df[a][k] = far plane - uof[a].  These are the differences the
 * short form of box_test computes in every lane of every child's test (a
 * lane's grown origin is uon, uof), the same operation on the same
 * values, so the same bits; the node pays RP_BVH_WIDTH / RP_N_LANES
 * subtractions per plane instead of W-lane ones per child. */
RP_INLINE void node_diffs(const vbox_ray *b, const rp_bvh_node *nd, float dn[3][RP_BVH_WIDTH],
                          float df[3][RP_BVH_WIDTH]) {
    for (int a = 0; a < 3; a++) {
        int neg = (b->oct >> a) & 1;
        const float *pn = neg ? nd->hi[a] : nd->lo[a], *pf = neg ? nd->lo[a] : nd->hi[a];
        vn on = n_set1(b->uon[a]), of = n_set1(b->uof[a]);
        for (int k = 0; k < RP_BVH_WIDTH; k += RP_N_LANES) {
            n_store(&dn[a][k], n_sub(n_load(pn + k), on));
            n_store(&df[a][k], n_sub(n_load(pf + k), of));
        }
    }
}

/* box_test of child k for a packet with b->uni, from node_diffs' dn, df:
 * the short form of box_test_at with each slab value (plane - origin) * rd
 * made from the difference computed once. */
RP_INLINE vm box_test_uni(const vray *r, const float dn[3][RP_BVH_WIDTH],
                          const float df[3][RP_BVH_WIDTH], int k, vf tmax, vf *entry) {
    const vf rd[3] = {r->rdx, r->rdy, r->rdz};
    vf t0[3], t1[3];
    for (int a = 0; a < 3; a++) {
        t0[a] = vf_mul(vf_bcast(&dn[a][k]), rd[a]);
        t1[a] = vf_mul(vf_bcast(&df[a][k]), rd[a]);
    }
    return box_short(t0, t1, r->tmin, tmax, entry);
}

/* Child k's box test in a packet's node step: box_test_uni from the
 * node's differences (node_diffs, made when b->uni) or box_test. */
RP_INLINE vm box_test_child(const vray *r, const vbox_ray *b, const rp_bvh_node *nd, int k,
                            const float dn[3][RP_BVH_WIDTH], const float df[3][RP_BVH_WIDTH],
                            vf tmax, vf *entry) {
    return b->uni ? box_test_uni(r, dn, df, k, tmax, entry) : box_test(r, b, nd, k, tmax, entry);
}

/* The lanes' margins by plane, from their one-ray set-ups L: clo for a
 * node's lo plane, the near plane's (nonr) where the lane's rd > 0 and the
 * far plane's (nofr) where rd < 0, chi for its hi plane the other
 * (box_test_margin; lane_nodes' rows, lane_box_setup). */
RP_INLINE void lane_margins(const vray *r, const qray_lanes *L, vf clo[3], vf chi[3]) {
    const vm neg[3] = {r->negx, r->negy, r->negz};
    for (int a = 0; a < 3; a++) {
        vf nonr = vf_loadu(L->nonr[a]), nofr = vf_loadu(L->nofr[a]);
        clo[a] = vf_select(neg[a], nofr, nonr);
        chi[a] = vf_select(neg[a], nonr, nofr);
    }
}

/* box_test's short form for a packet whose live lanes all have their
 * one-ray set-up from the lanes (qray_lanes' fast: lane_nodes' condition):
 * each lane's slab values from both planes of an axis with its margins by
 * plane (clo, chi: lane_margins), as lane_nodes makes them (the argument is
 * there), so a superset of box_test's lanes with entries at most its
 * entries: conservative.  Mixed signs (oct < 0): the two values ordered by
 * min and max, where box_test takes two differences, two products and the
 * lanes' swap of the planes; one octant: the near and far value by the
 * octant's sign, two fused operations an axis where box_test takes two
 * differences and two products.  An empty child would pass mixed signs:
 * the walk tests only the valid ones. */
RP_INLINE vm box_test_margin(const vray *r, int oct, const vf clo[3], const vf chi[3],
                             const rp_bvh_node *nd, int k, vf tmax, vf *entry) {
    const vf rd[3] = {r->rdx, r->rdy, r->rdz};
    vf t0[3], t1[3];
    for (int a = 0; a < 3; a++) {
        vf tl = vf_fmadd(vf_bcast(&nd->lo[a][k]), rd[a], clo[a]);
        vf th = vf_fmadd(vf_bcast(&nd->hi[a][k]), rd[a], chi[a]);
        if (oct < 0) {
            t0[a] = vf_min(tl, th);
            t1[a] = vf_max(tl, th);
        } else {
            int neg = (oct >> a) & 1;
            t0[a] = neg ? th : tl;
            t1[a] = neg ? tl : th;
        }
    }
    return box_short(t0, t1, r->tmin, tmax, entry);
}

/* packet_walk's test of child k: the lanes not done (todo) that pass its
 * box into *h (its entry into *entry); returns child k's bit where one of
 * them is in play (lone: play, the lanes the stacked entry carries).
 * clo, chi: box_test_margin's margins, or NULL. */
RP_INLINE unsigned child_step(const vray *r, const vbox_ray *b, const rp_bvh_node *nd, int k,
                              const float dn[3][RP_BVH_WIDTH], const float df[3][RP_BVH_WIDTH],
                              const vf *clo, const vf *chi, vf best, vm todo, unsigned play,
                              int lone, vm *h, vf *entry) {
    *h = m_and(clo ? box_test_margin(r, b->oct, clo, chi, nd, k, best, entry)
                   : box_test_child(r, b, nd, k, dn, df, best, entry),
               todo);
    unsigned hb = lone ? m_bits(*h) & play : m_bits(*h);
    return (unsigned)(hb != 0) << k;
}

/* rp_ref_mt_in_box for the triangle at p (9 floats, stride floats apart)
 * and each lane's t: the box test on the triangle's box over [t, t]. */
RP_INLINE vm mt_in_box(const vray *r, const vbox_ray *b, const float *p, int stride, vf t) {
    float lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        float x = p[stride * a], y = p[stride * (3 + a)], z = p[stride * (6 + a)];
        lo[a] = rp_minf(rp_minf(x, y), z);
        hi[a] = rp_maxf(rp_maxf(x, y), z);
    }
    vf entry;
    return m_and(vf_eq(t, t), box_test_at(r, b, lo, hi, 1, t, t, 0, &entry));
}

/* The lanes of a packet whose record a triangle at scene index g with
 * candidates c and t replaces: nearer, or (rare, scalar) the same t and a
 * lower index than the best so far (or an empty record for the first). */
RP_INLINE vm scene_accept(vm c, vf t, vf tmin, vf best, uint32_t g, vi bgv, vm nothas0) {
    vm in = m_and(m_and(c, vf_ge(t, tmin)), vf_le(t, best));
    vm acc = m_and(in, vf_lt(t, best));
    vm tie = m_andnot(in, acc);
    if (m_any(tie)) {
        unsigned tb = m_bits(tie), nb = m_bits(nothas0);
        uint32_t bg[V_W];
        vi_storeu(bg, bgv);
        uint8_t ok[V_W];
        for (int l = 0; l < V_W; l++)
            ok[l] = ((tb >> l) & 1u) &&
                    (bg[l] != RP_NO_HIT ? g < bg[l] : ((nb >> l) & 1u) != 0);
        acc = m_or(acc, m_and(tie, m_from_bytes(ok)));
    }
    return acc;
}

/* (A stacked node of a packet: pentry, scene.h.) */

/* Horizontal minimum of the lanes of m (m not empty): lanes outside m
 * +inf, NaN (bounds nothing) -inf, then the layer's vf_hmin_lanes in
 * registers (log2(V_W) min steps, no store and scalar reload).  With no
 * NaN left the order does not change the minimum's value, only maybe the
 * sign of a zero, which the traversal only compares. */
RP_INLINE float vf_hmin(vf a, vm m) {
    a = vf_select(vf_eq(a, a), a, vf_set1(-INFINITY));
    return vf_hmin_lanes(vf_select(m, a, vf_set1(INFINITY)));
}

/* The packet's frustum (Embree's coherent traversal; Wald, Boulos and
 * Shirley 2007, "Ray tracing deformable scenes using dynamic bounding
 * volume hierarchies"): bounds over the live lanes of a packet of one
 * octant with box_fast's short form, such that a child some lane passes
 * (box_test) passes frustum_node, which tests a node's children together,
 * eight to a register (the node layer), instead of each child for every
 * lane.  Why it is conservative: IEEE 754 operations are monotone in each
 * operand in every rounding mode, and so with FTZ and DAZ (a flushed
 * value keeps its order).  A lane's slab value t0 = (near - on) * rd
 * (box_slab) with rd > 0 (the octant's sign on that axis) rises with near
 * - on, which falls as on rises, so the difference from the greatest on,
 * d0, is at most the lane's; and for a fixed d0, d0 * x is monotone in x,
 * so t0 is at least the least of d0 * rdlo and d0 * rdhi, the least and
 * greatest rd of the lanes.  With rd < 0 the least on, and the same two
 * products.  The far value t1 = (far - of) * rd is at most the greatest of
 * d1 * rdlo and d1 * rdhi, d1 from the least of (rd > 0) or the greatest
 * (rd < 0).  So for every lane, max over the axes of the bounds of t0 and
 * the least tmin are at most its max(tn, tmin), and the least of the
 * bounds of t1 and the greatest best at least its min(tf, best): a lane
 * passes only where the frustum does.  In the short form every value is
 * finite and rd nonzero (box_fast), so no product is NaN; an empty
 * child's inverted box (lo +inf, hi -inf) gives +inf for every t0 bound
 * and -inf for every t1 bound, and fails (as in qray_nodeN).  The entry it
 * gives a child is at most every lane's: the pop's test (best >= entry)
 * drops no lane that could pass. */
typedef struct pfrustum {
    float o0[3], o1[3];     /* the grown origin each near (o0) and far (o1) difference is made from */
    float rdlo[3], rdhi[3]; /* least and greatest rd of the lanes */
    float tmin, best;       /* least tmin, greatest best t of the lanes in play */
} pfrustum;

/* Horizontal maximum of the lanes of m (m not empty; a NaN: +inf). */
RP_INLINE float vf_hmax(vf a, vm m) { return -vf_hmin(vf_xorsign(a, vf_set1(-1.0f)), m); }

/* The frustum of the live lanes of a packet with b->fast and b->oct >= 0;
 * best: each lane's best t (tmax). */
RP_INLINE void frustum_setup(const vray *r, const vbox_ray *b, vm live, vf best, pfrustum *f) {
    const vf rd[3] = {r->rdx, r->rdy, r->rdz};
    for (int a = 0; a < 3; a++) {
        int neg = (b->oct >> a) & 1;
        if (b->uni) { /* one grown origin (box_uniform) */
            f->o0[a] = b->uon[a];
            f->o1[a] = b->uof[a];
        } else {
            f->o0[a] = neg ? vf_hmin(b->on[a], live) : vf_hmax(b->on[a], live);
            f->o1[a] = neg ? vf_hmax(b->of[a], live) : vf_hmin(b->of[a], live);
        }
        f->rdlo[a] = vf_hmin(rd[a], live);
        f->rdhi[a] = vf_hmax(rd[a], live);
    }
    f->tmin = vf_hmin(r->tmin, live);
    f->best = vf_hmax(best, live);
}

/* The children of nd that the frustum passes (a bit per child; every
 * child some lane passes is among them); ent[k]: a bound below every
 * lane's entry into child k (ent NULL: not wanted, as by WALK_SIFT, whose
 * lanes' own tests give the entries). */
RP_INLINE unsigned frustum_node(const pfrustum *f, const rp_bvh_node *nd, int oct,
                                float ent[RP_BVH_WIDTH]) {
    unsigned h = 0;
    for (int kk = 0; kk < RP_BVH_WIDTH; kk += RP_N_LANES) {
        vn t0[3], t1[3];
        for (int a = 0; a < 3; a++) {
            int neg = (oct >> a) & 1;
            const float *pn = neg ? nd->hi[a] : nd->lo[a], *pf = neg ? nd->lo[a] : nd->hi[a];
            vn d0 = n_sub(n_load(pn + kk), n_set1(f->o0[a]));
            vn d1 = n_sub(n_load(pf + kk), n_set1(f->o1[a]));
            vn lo = n_set1(f->rdlo[a]), hi = n_set1(f->rdhi[a]);
            t0[a] = n_min(n_mul(d0, lo), n_mul(d0, hi));
            t1[a] = n_max(n_mul(d1, lo), n_mul(d1, hi));
        }
        vn tn;
        vn pass = node_short(t0, t1, n_set1(f->tmin), n_set1(f->best), &tn);
        if (ent)
            n_store(ent + kk, tn);
        h |= n_bits(pass) << kk;
    }
    return h;
}

/* The box around a packet's segments, for packets whose rays end
 * (ambient occlusion): every lane's stretch [tmin, tmax] of its line, from
 * its grown origins, bounded outward.  A child whose box misses it is
 * passed by no lane, so a packet of mixed signs, which has no frustum,
 * tests its lanes only on the children that meet it (seg_node), as a
 * packet of one octant does on those its frustum passes (WALK_SIFT).
 * Why it is conservative: in box_test's short form (box_fast: every value
 * finite, rd nonzero and finite, tmin <= tmax) a lane that passes a child
 * has, on each axis, t0 = (near - on) * rd <= tmax and t1 = (far - of) *
 * rd >= tmin, each a product of a rounded difference, rounded (best <=
 * tmax; on, of: the grown origins).  With rd > 0 (near = lo, far = hi)
 * the first gives lo - on <= tmax / rd + (|lo - on| + |tmax / rd|) 2^-21
 * + 2^-125 (|d| + 1): each rounding moves a value by at most 2^-23 of it
 * or, flushed to zero, by less than 2^-126, in every rounding mode; and
 * 1 / rd = d (1 + e), |e| <= 2^-22, for |d| <= 2^100 (rd = 1 / d rounded,
 * a normal number).  So lo <= on + tmax d + (|on| + |tmax d|) 2^-20 +
 * 2^-124 (|d| + 1), and the second gives hi >= of + tmin d less the same
 * margin with of, tmin.  With rd < 0 (near = hi, far = lo) the same two
 * with the sides swapped: hi >= on + tmax d - margin, lo <= of + tmin d +
 * margin.  So with A = on + tmax d and B = of + tmin d, every lane that
 * passes a child has lo <= max(A + ma, B + mb) and hi >= min(A - ma, B -
 * mb), where seg_setup's ma = (|on| + |tmax d|) 2^-18 + |d| 2^-120 +
 * 2^-100 (and mb with of, tmin) is more than that margin plus the errors
 * of computing A, B, the margins and the sums in float (a few roundings of
 * 2^-23 each of values below |on| + |tmax d| + ma, and of 2^-126).  The
 * maximum and minimum over the lanes are exact.  seg_setup takes packets
 * only where no value is infinite or NaN: tmin and tmax finite, |d| <=
 * 2^100 and |tmax d|, |tmin d| < 2^126 on every axis, so that with |on|,
 * |of| < 2^127 (box_fast's plain) every sum stays finite.  rp_check
 * --coherent's ambient-occlusion cases and test_scene's reach it. */
typedef struct pseg {
    float hi[3], lo[3]; /* per axis: a child passes where its lo <= hi[a] and its hi >= lo[a] */
} pseg;

/* The box of the live lanes' segments of a packet with b->fast; 0 (no
 * box) where a lane's values fall outside what the argument above covers. */
RP_INLINE int seg_setup(const vray *r, const vbox_ray *b, vm live, pseg *g) {
    const vf d[3] = {r->dx, r->dy, r->dz};
    const vf lim = vf_set1(0x1p126f), rel = vf_set1(0x1p-18f);
    const vf dabs = vf_set1(0x1p-120f), abs0 = vf_set1(0x1p-100f);
    vm ok = m_and(vf_lt(vf_xorsign(r->tmax, r->tmax), vf_set1(INFINITY)),
                  vf_lt(vf_xorsign(r->tmin, r->tmin), vf_set1(INFINITY)));
    vf pa[3], pb[3];
    for (int a = 0; a < 3; a++) {
        pa[a] = vf_mul(r->tmax, d[a]);
        pb[a] = vf_mul(r->tmin, d[a]);
        ok = m_and(ok, vf_le(vf_xorsign(d[a], d[a]), vf_set1(0x1p100f)));
        ok = m_and(ok, m_and(vf_lt(vf_xorsign(pa[a], pa[a]), lim),
                             vf_lt(vf_xorsign(pb[a], pb[a]), lim)));
    }
    if (m_bits(m_and(ok, live)) != m_bits(live))
        return 0;
    for (int a = 0; a < 3; a++) {
        vf ad = vf_xorsign(d[a], d[a]);
        vf A = vf_add(b->on[a], pa[a]), B = vf_add(b->of[a], pb[a]);
        vf m0 = vf_add(vf_mul(ad, dabs), abs0);
        vf ma = vf_add(vf_mul(vf_add(vf_xorsign(b->on[a], b->on[a]),
                                     vf_xorsign(pa[a], pa[a])), rel), m0);
        vf mb = vf_add(vf_mul(vf_add(vf_xorsign(b->of[a], b->of[a]),
                                     vf_xorsign(pb[a], pb[a])), rel), m0);
        g->hi[a] = vf_hmax(vf_max(vf_add(A, ma), vf_add(B, mb)), live);
        g->lo[a] = vf_hmin(vf_min(vf_sub(A, ma), vf_sub(B, mb)), live);
    }
    return 1;
}

/* The children of nd whose boxes meet the segments' box (a bit per
 * child; every child some lane passes is among them).  An empty child
 * (lo +inf, hi -inf) fails. */
RP_INLINE unsigned seg_node(const pseg *g, const rp_bvh_node *nd) {
    unsigned h = 0;
    for (int kk = 0; kk < RP_BVH_WIDTH; kk += RP_N_LANES) {
        vn in = n_le(n_load(nd->lo[0] + kk), n_set1(g->hi[0]));
        in = n_and(in, n_le(n_set1(g->lo[0]), n_load(nd->hi[0] + kk)));
        for (int a = 1; a < 3; a++) {
            in = n_and(in, n_le(n_load(nd->lo[a] + kk), n_set1(g->hi[a])));
            in = n_and(in, n_le(n_set1(g->lo[a]), n_load(nd->hi[a] + kk)));
        }
        h |= n_bits(in) << kk;
    }
    return h;
}

/* The mask of lane l alone. */
RP_INLINE vm lane_mask(int l) {
    /* from registers: a mask loaded from bytes just stored waits for
     * them (a store that cannot be forwarded to a wider load) */
    return m_andnot(m_lanes((size_t)l + 1u), m_lanes((size_t)l));
}

/* The packet's lone-lane walks: qs (V_W rays' set-ups, made when a lane
 * is first handed over: ready; from the packet's lanes, qray_lanes_setup),
 * the lanes whose best hit a walk found (viaslot; its slot in slot_of),
 * the lanes a walk occluded or gave a new best (upd). */
typedef struct lone_walks {
    qray *qs;
    const qray_lanes *lanes;
    unsigned ready, viaslot, upd;
    size_t slot_of[V_W];
} lone_walks;

/* Lane l of the packet (ray i + l) alone from the stacked child e (a node,
 * or a leaf: count > 0) with its best t (lane l of *best) and hit (lane l
 * of *bgv; has: the record held a hit before the call), as scene_ray_walk.
 * Closest: a new best goes into *best, *bgv and lw; any hit: returns 1
 * when occluded.  Out of line: inlined, its walk's registers and stack
 * weighed on the packet loop (AVX2, bunny, one copy of the loop: 480
 * instructions per primary ray against 457 out of line). */
#if defined(__GNUC__)
#define RP_OUTLINE static __attribute__((noinline))
#else
#define RP_OUTLINE static
#endif
RP_OUTLINE int lone_walk(const rp_scene *s, rp_rays *rays, size_t i, int l, qentry e,
                        unsigned flags, int closest, vf *best, vi *bgv, int has,
                        lone_walks *lw, qentry *rstack) {
    qray *q = &lw->qs[l];
    if (!((lw->ready >> l) & 1u)) {
        qray_lane(lw->lanes, rays, i, l, s->bound, flags, q);
        lw->ready |= 1u << l;
    }
    float bt[V_W];
    uint32_t bg[V_W];
    vf_storeu(bt, *best);
    vi_storeu(bg, *bgv);
    q->r.tmax = bt[l];
    qbest bb = {bg[l], SIZE_MAX, has};
    int occ = e.count ? qray_leaf(s, q, e.child, e.count, flags, closest, &bb)
                      : scene_ray_walk(s, q, e, flags, closest, &bb, rstack);
    if (!closest) {
        lw->upd |= (unsigned)occ << l;
        return occ;
    }
    if (bb.slot != SIZE_MAX) { /* a new best (into lane l by selects: a vector
                                * loaded over a lane just stored would wait
                                * for the store) */
        vm ml = lane_mask(l);
        *best = vf_select(ml, vf_set1(q->r.tmax), *best);
        *bgv = vi_select(ml, vi_set1(bb.g), *bgv);
        lw->slot_of[l] = bb.slot;
        lw->viaslot |= 1u << l;
        lw->upd |= 1u << l;
    }
    return 0;
}

/* A mixed-sign packet's lanes as one-ray node tests (lane_nodes): each
 * lane in play tests a node's children eight to a register (the node
 * layer: qray_nodeN's short form, traverse_ray.h), instead of each child
 * being tested for all the packet's lanes (box_test).  Diffuse packets
 * have few lanes in play at most nodes, and the children test of a lane
 * costs about what a child's test of the packet does.  Only where box_test
 * takes its short form (br->fast: every live lane plain, tmin <= tmax) and
 * every live lane has its one-ray set-up from the packet's lanes
 * (qray_lanes: fast, which adds m |rd| >= 2^-100 and no NaN origin, the
 * short form's conditions): t0 = near * rd + nonr, t1 = far * rd + nofr
 * with the lane's margins (qray_slabs_short's values), so each lane passes
 * every child box_test's lane passes, with an entry at most its entry (a
 * superset: conservative, as the one-ray walk's node test), in one fused
 * operation a plane where box_test's form takes two (callgrind, AVX2,
 * diffuse packets: bunny 1304 -> 1232 instructions a ray, 1.2M triangles
 * 1824 -> 1737).  Empty children are masked out (lane_nodes).
 * A pushed child's entry is then the least over the lanes in play that
 * pass it: never above the entry of a lane it carries, so the lanes in
 * play where it is popped are still all that may hit. */
/* The most lanes in play for which a node goes by lanes; 0: never.  AVX2
 * (8 lanes) only, where it was measured faster at every count (Sapphire
 * Rapids, 3 alternated runs, diffuse against rtcIntersect1: bunny 1.09 ->
 * 1.16, 1.2M triangles 0.91 -> 0.93; by lanes only below the node's
 * child count: 1.14 -> 1.16, 0.89 -> 0.95).  Slower with 16 lanes
 * (AVX-512: 1.36 -> 1.22 at every count, 1.38 -> 1.30 at <= 4 lanes), and
 * with 4 (SSE4.1, whose node layer takes a node in two halves: 0.83 ->
 * 0.78, 0.75 -> 0.71); NEON, also 4 lanes, follows SSE4.1 unmeasured. */
#if !defined(LANE_NODES_MAX)
#define LANE_NODES_MAX (V_W == 8 ? 8 : 0)
#endif
/* Row l: lane l's bit (1 << l) in every node-layer lane (lane_nodes). */
#define RP_LB(l) {1u << (l), 1u << (l), 1u << (l), 1u << (l), 1u << (l), 1u << (l), 1u << (l), 1u << (l)}
static const _Alignas(32) uint32_t lane_bit_rows[16][8] = {
    RP_LB(0), RP_LB(1), RP_LB(2),  RP_LB(3),  RP_LB(4),  RP_LB(5),  RP_LB(6),  RP_LB(7),
    RP_LB(8), RP_LB(9), RP_LB(10), RP_LB(11), RP_LB(12), RP_LB(13), RP_LB(14), RP_LB(15)};
#undef RP_LB
#if V_W > 16 || RP_N_LANES > 8
#error "lane_bit_rows: a row per packet lane, a column per node-layer lane"
#endif
typedef struct lane_box {
    float rd[3][V_W], tmin[V_W];
    float clo[3][V_W], chi[3][V_W]; /* each lane's margin for the lo and the hi plane */
} lane_box;

/* lane_nodes' rows for the packet's rays r: each lane's 1 / d, tmin, and
 * its margins by plane (lane_margins' clo, chi). */
RP_INLINE void lane_box_setup(const vray *r, const vf clo[3], const vf chi[3], lane_box *lb) {
    const vf rd[3] = {r->rdx, r->rdy, r->rdz};
    for (int a = 0; a < 3; a++) {
        vf_storeu(lb->rd[a], rd[a]);
        vf_storeu(lb->clo[a], clo[a]);
        vf_storeu(lb->chi[a], chi[a]);
    }
    vf_storeu(lb->tmin, r->tmin);
}

/* The children of nd that some lane of play passes (bit k): lanes[k] the
 * lanes that pass child k, emin[k] the smallest entry among them (+inf
 * where none does); bt: each lane's best t.  The node's six rows are
 * loaded once for every lane, and each lane's slab values made from both
 * planes of an axis, lo and hi, then ordered: t0 = min, t1 = max.  These
 * are qray_slabs_short's values (the near plane's, the far plane's): with
 * rd > 0, lo <= hi and the margins nonr <= nofr (qray_lanes_setup: the
 * near one from the origin moved forward, the far one back), the exact lo
 * * rd + nonr is at most hi * rd + nofr, and rounding keeps that order
 * (rd < 0 likewise, hi the near plane), so the minimum is the near
 * plane's value (up to a zero's sign where the two are equal, which no
 * comparison sees).  An empty child's inverted box would pass that way
 * (its ordered values are -inf and +inf): the empty slots are masked out
 * (n_children).  Where the planes were picked by each lane's offsets,
 * the loop made six offset loads and six indexed plane loads a lane. */
RP_INLINE unsigned lane_nodes(const lane_box *lb, const rp_bvh_node *nd, unsigned play,
                              const float *bt, uint32_t lanes[RP_BVH_WIDTH],
                              float emin[RP_BVH_WIDTH]) {
    unsigned hit = 0;
    for (int kk = 0; kk < RP_BVH_WIDTH; kk += RP_N_LANES) {
        vn lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = n_load(&nd->lo[a][kk]);
            hi[a] = n_load(&nd->hi[a][kk]);
        }
        vn acc = n_set1(0.0f), em = n_set1(INFINITY);
        unsigned h = 0;
        for (unsigned p = play; p; p &= p - 1u) {
            int l = __builtin_ctz(p);
            vn t0[3], t1[3], tn;
            for (int a = 0; a < 3; a++) {
                vn rd = n_set1(lb->rd[a][l]);
                vn tl = n_fmadd(lo[a], rd, n_set1(lb->clo[a][l]));
                vn th = n_fmadd(hi[a], rd, n_set1(lb->chi[a][l]));
                t0[a] = n_min(tl, th);
                t1[a] = n_max(tl, th);
            }
            vn pass = node_short(t0, t1, n_set1(lb->tmin[l]), n_set1(bt[l]), &tn);
            h |= n_bits(pass);
            /* lane l's bit in each child passed (the bits as a float's:
             * and, or, select and stores only, no arithmetic on them; the
             * bit from a table: one and with a load, where a shift and a
             * broadcast took three more; with the entries' select, where
             * two ands and an or were: diffuse packets 1234 -> 1201
             * instructions a ray on bunny, 1738 -> 1698 at 1.2M triangles,
             * callgrind, AVX2) */
            acc = n_or(acc, n_and(pass, n_load((const float *)(const void *)lane_bit_rows[l])));
            em = n_min(n_sel(pass, tn, n_set1(INFINITY)), em);
        }
        float a8[RP_N_LANES];
        n_store(a8, acc);
        memcpy(lanes + kk, a8, sizeof a8);
        n_store(emin + kk, em);
        hit |= (h & n_children(&nd->child[kk])) << kk;
    }
    return hit;
}

/* A Moller-Trumbore leaf where few of a packet's lanes are in play (the
 * lanes hb, at most 2 * FEW_G): before a block's triangles go one by one
 * across the packet's lanes (tri_cand with the triangle broadcast), the
 * lanes in play go FEW_G at a time, one to each group of four lanes, with
 * the block's four triangles across each group (its rows as they are
 * stored, vf_dup4), so one or two steps cover the block where four did.
 * Each lane makes tri_cand's and tri_t's operations on its ray and
 * triangle, so the values the one-by-one steps would make; a block none of
 * whose pairs is a candidate with tmin <= t <= lim (each lane's best t as
 * the leaf is entered, or tmax: no later best is larger) can give no lane
 * in play a hit scene_accept takes, and is skipped.  Any other block goes
 * through the steps as before.  A lane not in hb did not pass the leaf's
 * box (or its best is below the entry), so has no hit there that
 * rp_ref_mt_in_box passes: the steps' todo lanes beyond hb find nothing
 * the skip loses.  Diffuse packets at 1.2M triangles: 51% of their packet
 * leaf visits have two lanes in play, 28% three, 13% four (AVX2, a count,
 * 2026-11-30). */
#if defined(RP_V_PERM)
#define FEW_G (V_W / RP_TRI_BLOCK)
typedef struct mt_few {
    vray r[2]; /* ox .. dz only: what tri_cand reads */
    vf tmin[2], lim[2];
    int n; /* passes: 1 or 2 */
} mt_few;

RP_INLINE void mt_few_setup(const vray *r, vf lim, unsigned hb, mt_few *f) {
    int n = 0;
    for (; hb && n < 2; n++) {
        vi idx = vi_set1((uint32_t)__builtin_ctz(hb)); /* groups past the lanes: the first again */
        for (int g = 0; g < FEW_G && hb; g++, hb &= hb - 1u) {
            vm grp = m_andnot(m_lanes((size_t)(RP_TRI_BLOCK * (g + 1))),
                              m_lanes((size_t)(RP_TRI_BLOCK * g)));
            idx = vi_select(grp, vi_set1((uint32_t)__builtin_ctz(hb)), idx);
        }
        vray *q = &f->r[n];
        q->ox = vf_perm(r->ox, idx);
        q->oy = vf_perm(r->oy, idx);
        q->oz = vf_perm(r->oz, idx);
        q->dx = vf_perm(r->dx, idx);
        q->dy = vf_perm(r->dy, idx);
        q->dz = vf_perm(r->dz, idx);
        f->tmin[n] = vf_perm(r->tmin, idx);
        f->lim[n] = vf_perm(lim, idx);
    }
    f->n = n;
}

/* Whether block bk (edges ed) may hold a hit for a lane of f (above). */
RP_INLINE int mt_few_block(const mt_few *f, const rp_tri4 *bk,
                           const float ed[6][RP_TRI_BLOCK], unsigned flags) {
    vprim pv;
    for (int q = 0; q < 3; q++)
        pv.f[q] = vf_dup4(bk->v[q]);
    for (int q = 0; q < 6; q++)
        pv.f[3 + q] = vf_dup4(ed[q]);
    for (int g = 0; g < f->n; g++) {
        veval e;
        vm c = tri_cand(&f->r[g], &pv, flags | RP_I_EDGES, &e, NULL);
        if (!m_any(c))
            continue;
        vf t = tri_t(&e);
        if (m_any(m_and(c, m_and(vf_ge(t, f->tmin[g]), vf_le(t, f->lim[g])))))
            return 1;
    }
    return 0;
}
#endif

/* One packet (rays i .. i+m-1) down the tree.  closest: keep the nearest;
 * else any hit (occluded[]).  A stacked node carries the lanes that hit
 * its box; popped, it is walked by those of them still in play (not done,
 * best t at or beyond its entry).  In a packet whose rays' direction signs
 * differ (bounces), a node where one lane is left goes to the one-ray walk
 * (scene_ray_walk, traverse_ray.h) with that lane's best t and hit, its
 * children eight to a register instead of the ray in one lane of each
 * child's test: diffuse packets visit more than a quarter of their nodes
 * with one lane left (docs/PERFORMANCE-LOG.md).  The walk keeps its hit
 * as a slot whose u, v the reference recomputes at the end (qray_finish),
 * the packet as U, V, W; the same values either way, the reference's.  rstack, qs: the walk's
 * stack (as scene_ray's) and room for V_W rays' set-ups, made when a lane
 * is first handed over. */
/* How packet_walk finds a node's children (its frustum argument, a
 * constant in each of scene_packet's copies): */
enum {
    WALK_LANES,   /* every child's box for every lane (box_test_child) */
    WALK_FRUSTUM, /* the children by the packet's frustum alone, a leaf's box
                   * by each lane as it is reached (one origin: a camera) */
    WALK_SIFT     /* the children the frustum passes, then their boxes for
                   * every lane (one octant, origins apart: shadow rays) */
};
RP_INLINE rp_status packet_walk(const rp_scene *s, rp_rays *rays, unsigned flags, rp_hits *hits,
                                uint32_t *mesh, uint8_t *occluded, int closest, size_t i,
                                size_t m, pentry *stack, size_t cap, qentry *rstack, qray *qs,
                                const vray *r, const vbox_ray *br, vm live, pstat *ps,
                                const int lone, const int frustum);

/* Whether every live lane of the packet ends within a quarter of the
 * scene's longest side (tmax <= span / 4; a NaN tmax is not): short rays,
 * as ambient-occlusion rays are, whose packets stay together however their
 * directions' signs differ (scene_packets). */
RP_INLINE int packet_short(const rp_scene *s, const vray *r, vm live) {
    return vf_hmax(r->tmax, live) <= 0.25f * s->span;
}

/* Which mixed-sign packets scene_packet hands to another width's walk
 * (RP_SIMD_NARROW_PACKETS; scene_packets chooses): */
enum {
    MIXED_STAY,   /* none */
    MIXED_NARROW, /* every one */
    MIXED_LONG    /* those not short (packet_short) */
};

RP_INLINE rp_status scene_packet(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                                 unsigned flags, rp_hits *hits, uint32_t *mesh,
                                 uint8_t *occluded, int closest, size_t i, size_t m,
                                 pentry *stack, size_t cap, qentry *rstack, qray *qs,
                                 pstat *ps, int mixed8) {
    vray r;
    ld_rays(rays, i, m, NEED_D | NEED_RD, &r); /* the frame below (NEED_WT's) */
    vm act = ld_active(active, i, m);
    vm live = m_and(act, vf_eq(r.rdx, r.rdx));
    if (!m_any(live))
        return RP_OK;
#if defined(RP_SIMD_NARROW_PACKETS)
    /* mixed signs: another width's packets (the AVX-512 variant's 8-lane
     * packets, kernels_avx512.c) where mixed8 says so, before this
     * packet's watertight frame (divisions) is made for nothing */
    if (mixed8 != MIXED_STAY && lanes_octant(&r, live) < 0 &&
        (mixed8 == MIXED_NARROW || !packet_short(s, &r, live)))
        return RP_SIMD_NARROW_PACKETS(s, rays, active, flags, hits, mesh, occluded, closest, i,
                                      m, stack, cap, rstack, ps);
#else
    (void)mixed8;
#endif
    wt_setup_v(&r);
    wt_uniform(&r, live);
    vbox_ray br;
    box_ray_setup(&r, live, s->bound, &br);
    br.fast = box_fast(&br, live, r.tmin, r.tmax);
    box_uniform(&br, live);
    /* two copies of the walk: one that hands lone lanes over, for mixed
     * signs, and one with no call in its loop.  (One copy with lone a
     * runtime value: AVX2, bunny, 457 instructions per primary ray and 1461
     * per diffuse ray against these copies' 462 and 1403, and primary rays
     * at 1.2M triangles about 10% slower in one timed comparison.) */
    PSTAT(ps->packets++);
    if (br.oct < 0) {
        PSTAT(ps->mixed++);
        PSTAT(ps->mlong += !packet_short(s, &r, live));
        return packet_walk(s, rays, flags, hits, mesh, occluded, closest, i, m, stack, cap,
                           rstack, qs, &r, &br, live, ps, 1, WALK_LANES);
    }
    if (br.fast && br.uni) /* a third copy: the frustum's */
        return packet_walk(s, rays, flags, hits, mesh, occluded, closest, i, m, stack, cap,
                           rstack, qs, &r, &br, live, ps, 0, WALK_FRUSTUM);
    /* A fourth: any hit, one octant, origins apart (shadow rays from a
     * tile's surface points toward a light), the frustum as a sieve before
     * the lanes' box tests, as Embree's coherent packets do (its
     * occludedCoherent).  The frustum of spread origins is too loose to
     * walk by alone (shadow rays 14.4 -> 10.4 Mrays/s in rp_trace,
     * docs/PERFORMANCE-LOG.md), but a child it fails needs no lane's test.
     * AMD Zen 4, 2026-11-28, one thread: rp_trace's shadow rays 14.3-14.9
     * -> 16.7-17.0 Mrays/s (three alternated runs); bench/ab.sh, three
     * runs, shadow rows over Embree's: AVX2 +2% to +8%, AVX-512 -2% to
     * +11% (bunny, x4, x16).  Closest-hit packets of that kind (rarer: a
     * camera's rays share their origin) were not faster this way. */
    if (br.fast && !closest)
        return packet_walk(s, rays, flags, hits, mesh, occluded, closest, i, m, stack, cap,
                           rstack, qs, &r, &br, live, ps, 0, WALK_SIFT);
    return packet_walk(s, rays, flags, hits, mesh, occluded, closest, i, m, stack, cap, rstack,
                       qs, &r, &br, live, ps, 0, WALK_LANES);
}

/* scene_packet's walk, for the packet's rays *r (box set-up *br, lanes
 * live); lone: hand a lane left alone over to the one-ray walk. */
RP_INLINE rp_status packet_walk(const rp_scene *s, rp_rays *rays, unsigned flags, rp_hits *hits,
                                uint32_t *mesh, uint8_t *occluded, int closest, size_t i,
                                size_t m, pentry *stack, size_t cap, qentry *rstack, qray *qs,
                                const vray *r, const vbox_ray *br, vm live, pstat *ps,
                                const int lone, const int frustum) {
    vf best = vf_select(live, r->tmax, vf_set1(NAN)); /* NaN: a lane out of the game */
    vm nothas0 = closest ? vi_eq(ld_prim_index(hits->prim, i, m), vi_set1(RP_NO_HIT))
                         : m_lanes(0);
    vi bgv = vi_set1(RP_NO_HIT); /* scene index of each lane's best hit, or RP_NO_HIT */
    vm upd = m_lanes(0), todo = live;
    vf bu = vf_set1(0.0f), bv = bu, bw = bu; /* U, V, W of the kept hits */
    lone_walks lw;
    qray_lanes ql;
    lw.qs = qs;
    lw.lanes = &ql;
    lw.ready = lw.viaslot = lw.upd = 0;
    /* the lanes' set-ups: for lone walks, and for the margins of
     * box_test_margin wherever the children are tested lane by lane (not
     * the frustum's walk) in the short form */
    const int margins = lone || (frustum != WALK_FRUSTUM && br->fast);
    if (margins) /* (at once, from registers: a pointer to r for lone_walk would
                  * keep r in memory for every copy of the walk, primary rays'
                  * too: 297 -> 303 instructions a ray) */
        qray_lanes_setup(r, s->bound, &ql);
    /* mixed signs, short form, rays that end: the segments' box as a
     * sieve, and the children it passes tested child by child, also where
     * lane_nodes would test them lane by lane (8 lanes: rp_trace's AO rays,
     * AMD Zen 4, one thread, --isa avx2 10.2-10.3 -> 10.5-10.9 Mrays/s,
     * RP_AVX512_MIXED=8 10.2-10.4 -> 10.7-10.8, two alternated runs) */
    pseg seg;
    const int segs = lone && br->fast && seg_setup(r, br, live, &seg);
    /* short form, every live lane's one-ray set-up from the lanes: mixed
     * signs and no segments' box, the nodes by lane_nodes; else the
     * children's boxes with the lanes' margins (box_test_margin) */
    const int lanesfast = margins && br->fast && (ql.fast & m_bits(live)) == m_bits(live);
    const int perlane = LANE_NODES_MAX > 0 && lone && lanesfast && !segs;
    vf mlo[3], mhi[3];
    if (lanesfast)
        lane_margins(r, &ql, mlo, mhi);
    const vf *clo = lanesfast ? mlo : NULL, *chi = mhi;
    lane_box lb;
    if (perlane)
        lane_box_setup(r, mlo, mhi, &lb);
    /* one octant, short form: a node's children by the packet's frustum
     * (fr: alone; sift: before the lanes' tests) */
    const int fr = frustum == WALK_FRUSTUM; /* (scene_packet: !lone, br->fast, br->oct >= 0, br->uni) */
    const int sift = frustum == WALK_SIFT;  /* (!lone, !closest, br->fast, br->oct >= 0) */
    pfrustum fru = {0};
    if (fr || sift)
        frustum_setup(r, br, live, r->tmax, &fru);
    size_t sp = 0;
    stack[sp++] = (pentry){0, -INFINITY, m_bits(live)};
    while (sp && m_any(todo)) {
        pentry pe = stack[--sp];
        /* the lanes in play: not done, best at or beyond the entry (NaN
         * lanes: out), and in the box */
        unsigned play = m_bits(m_and(todo, vf_ge(best, vf_set1(pe.entry))));
        if (lone) /* (in the other copy the masks cost more than they save:
                   * 469 -> 465 instructions per primary ray) */
            play &= pe.lanes;
        if (!play)
            continue;
        if (lone && !(play & (play - 1u))) { /* one lane: its own walk */
            int l = __builtin_ctz(play);
            if (lone_walk(s, rays, i, l, (qentry){pe.node, 0, pe.entry}, flags, closest, &best,
                          &bgv, !((m_bits(nothas0) >> l) & 1u), &lw, rstack))
                todo = m_andnot(todo, lane_mask(l));
            continue;
        }
        const rp_bvh_node *nd = &s->nodes[pe.node];
        pentry kids[RP_BVH_WIDTH];
        int nk = 0;
        /* Every child's box first, then the children hit, in child order:
         * no branch per child on whether it is hit (or empty), which
         * incoherent packets make random (callgrind's model put 3.7
         * mispredictions per diffuse ray on the two).  An empty child
         * (RP_NO_HIT, an inverted box) is tested too and dropped by the
         * mask.  The boxes see the best t as the node is entered: a leaf
         * child's hits may lower it before a later child is entered, which
         * then could have been skipped; entering it anyway only tests more
         * (the result is a minimum). */
        vf ents[RP_BVH_WIDTH];
        vm hs[RP_BVH_WIDTH];
        uint32_t lanes[RP_BVH_WIDTH];
        float emin[RP_BVH_WIDTH];
        unsigned hit = 0;
        /* by lanes where few lanes are in play (LANE_NODES_MAX) */
        const int bylane = perlane && (LANE_NODES_MAX >= V_W || /* (then every count) */
                                       __builtin_popcount(play) <= LANE_NODES_MAX);
        float fe[RP_BVH_WIDTH];
        if (fr) {
            hit = frustum_node(&fru, nd, br->oct, fe);
        } else if (bylane) {
            float bt[V_W];
            vf_storeu(bt, best);
            hit = lane_nodes(&lb, nd, play, bt, lanes, emin);
        } else {
            /* the node's children that are not empty (n_children), tested
             * up to the last one (the build fills a node's slots in order;
             * at least two) */
            unsigned valid = 0;
            for (int k = 0; k < RP_BVH_WIDTH; k += RP_N_LANES)
                valid |= n_children(&nd->child[k]) << k;
            int nv = valid ? 32 - __builtin_clz(valid) : 0;
            nv = nv < 2 ? 2 : nv;
            float dn[3][RP_BVH_WIDTH], df[3][RP_BVH_WIDTH];
            if (br->uni)
                node_diffs(br, nd, dn, df);
            if (sift || segs) { /* the lanes' tests only where the frustum
                                 * or the segments' box passes (a child some
                                 * lane passes is among them) */
                unsigned q = valid & (sift ? frustum_node(&fru, nd, br->oct, NULL)
                                           : seg_node(&seg, nd));
                for (; q; q &= q - 1u) {
                    int k = __builtin_ctz(q);
                    hit |= child_step(r, br, nd, k, dn, df, clo, chi, best, todo, play, lone,
                                      &hs[k], &ents[k]);
                }
            } else { /* (a loop of its own: no trip count from data) */
                for (int k = 0; k < nv; k++)
                    hit |= child_step(r, br, nd, k, dn, df, clo, chi, best, todo, play, lone,
                                      &hs[k], &ents[k]);
                hit &= valid;
            }
        }
        for (; hit; hit &= hit - 1u) {
            int k = __builtin_ctz(hit);
            vf entry = vf_set1(0.0f);
            vm h = m_lanes(0);
            unsigned hb;
            if (bylane) { /* (a leaf before may have ended lanes) */
                hb = lanes[k] & m_bits(todo);
            } else if (fr) { /* every lane not done; a leaf's box below */
                h = todo;
                hb = m_bits(h);
            } else {
                entry = ents[k];
                h = m_and(hs[k], todo);
                hb = lone ? m_bits(h) & play : m_bits(h);
            }
            if (!hb)
                continue;
            if (nd->count[k]) { /* a leaf: its triangles now */
                if (fr) { /* the lanes that pass its box */
                    hb = m_bits(m_and(box_test(r, br, nd, k, best, &entry), todo));
                    if (!hb)
                        continue;
                }
                if (!lone) { /* (scene_packets' choice of width) */
                    PSTAT(ps->leaves++);
                    PSTAT(ps->lanes += (unsigned)__builtin_popcount(hb));
                }
                int newbest = 0;
                /* for one lane: its blocks by the one-ray walk (but a
                 * Moller-Trumbore leaf where the layer groups lanes: mt_few,
                 * the lane in every group, a block a step) */
#if defined(RP_V_PERM)
                const int lone_leaf = lone && (flags & RP_WATERTIGHT);
#else
                const int lone_leaf = lone;
#endif
                if (lone_leaf && !(hb & (hb - 1u))) {
                    int l = __builtin_ctz(hb);
                    if (lone_walk(s, rays, i, l, (qentry){nd->child[k], nd->count[k], 0.0f},
                                  flags, closest, &best, &bgv,
                                  !((m_bits(nothas0) >> l) & 1u), &lw, rstack))
                        todo = m_andnot(todo, lane_mask(l));
                    continue;
                }
                size_t p0 = (size_t)nd->child[k] * RP_TRI_BLOCK;
#if defined(RP_V_PERM)
                mt_few few;
                const int fewer = !(flags & RP_WATERTIGHT) &&
                                  __builtin_popcount(hb) <= 2 * FEW_G;
                if (fewer)
                    mt_few_setup(r, closest ? best : r->tmax, hb, &few);
#endif
                /* Moller-Trumbore: a block's edges e1 = v1 - v0, e2 = v2 -
                 * v0 made once for its four triangles (the reference's own
                 * subtractions, so the same bits), as the brute-force
                 * kernels prepare theirs (RP_I_EDGES) */
                _Alignas(16) float ed[6][RP_TRI_BLOCK];
                for (size_t p = p0; p < p0 + nd->count[k]; p++) {
                    const rp_tri4 *bk = &s->blocks[p / RP_TRI_BLOCK];
                    const float *sp0 = &bk->v[0][p % RP_TRI_BLOCK]; /* stride 4 */
                    float tp[12]; /* the triangle as 9 floats (vf_pick reads one past) */
                    vprim pv;
                    veval e;
                    vm c;
                    if (!(flags & RP_WATERTIGHT)) { /* Moller-Trumbore */
                        if (p % RP_TRI_BLOCK == 0) { /* (four lanes a block: traverse_ray.h) */
                            for (int q = 0; q < 6; q++)
                                q_store(ed[q], q_sub(q_load(bk->v[3 + q]), q_load(bk->v[q % 3])));
#if defined(RP_V_PERM)
                            if (fewer && !mt_few_block(&few, bk, ed, flags)) {
                                p |= RP_TRI_BLOCK - 1; /* the next block */
                                continue;
                            }
#endif
                        }
                        for (int q = 0; q < 3; q++)
                            pv.f[q] = vf_bcast(&sp0[RP_TRI_BLOCK * q]);
                        for (int q = 0; q < 6; q++)
                            pv.f[3 + q] = vf_bcast(&ed[q][p % RP_TRI_BLOCK]);
                        c = m_and(tri_cand(r, &pv, flags | RP_I_EDGES, &e, NULL), todo);
                        if (!m_any(c))
                            continue;
                        c = tri_late(K_TRI, flags, r, NULL, &pv, c, best, &e);
                        if (!m_any(c))
                            continue;
                        e.t = tri_t(&e);
                    } else {
                        if (r->wkx >= 0) /* one frame: broadcasts from the block */
                            wt_pick_strided(r, sp0, RP_TRI_BLOCK, pv.f);
                        else /* each lane's frame: broadcasts and selects */
                            wt_pick_sel(r, sp0, RP_TRI_BLOCK, 3, pv.f);
                        c = m_and(wt_cand(r, &pv, &e, 0), todo);
                        if (!m_any(c))
                            continue;
                        for (int q = 0; q < 9; q++) /* the triangle for the normal */
                            tp[q] = sp0[RP_TRI_BLOCK * q];
                        tp[9] = tp[10] = tp[11] = 0.0f;
                        c = tri_late_b(K_WT, flags, r, tp, NULL, c, closest ? best : r->tmax, &e, 1);
                        if (!m_any(c))
                            continue;
                    }
                    uint32_t g = bk->index[p % RP_TRI_BLOCK];
                    vm acc = closest ? scene_accept(c, e.t, r->tmin, best, g, bgv, nothas0)
                                     : m_and(m_and(c, vf_ge(e.t, r->tmin)), vf_le(e.t, r->tmax));
                    if (!(flags & RP_WATERTIGHT) && m_any(acc)) /* rp_ref_mt_in_box */
                        acc = m_and(acc, mt_in_box(r, br, sp0, RP_TRI_BLOCK, e.t));
                    if (!m_any(acc))
                        continue;
                    upd = m_or(upd, acc);
                    if (!closest) {
                        todo = m_andnot(todo, acc);
                        continue;
                    }
                    /* what u, v are made of: watertight U, V, W (wt_cand);
                     * Moller-Trumbore det, uu, vv (rp_ref_tri_uv) */
                    best = vf_select(acc, e.t, best);
                    bu = vf_select(acc, (flags & RP_WATERTIGHT) ? e.wu : e.det, bu);
                    bv = vf_select(acc, e.uu, bv);
                    bw = vf_select(acc, e.vv, bw);
                    lw.viaslot &= ~m_bits(acc);
                    /* one select (a branch and a store per lane here made
                     * AVX-512 primary rays 16% slower: docs/PERFORMANCE-LOG.md) */
                    bgv = vi_select(acc, vi_set1(g), bgv);
                    newbest = 1;
                }
                if (fr && newbest) /* the frustum's bound on the best t */
                    fru.best = vf_hmax(best, todo);
                continue;
            }
            /* an inner node: on the stack, nearest popped first; any hit
             * (occluded) needs no order and no entry (best stays each
             * lane's tmax, which box_test has already checked) */
            if (!closest) {
                kids[nk++] = (pentry){nd->child[k], -INFINITY, hb};
                continue;
            }
            float en = bylane ? emin[k] : fr ? fe[k] : vf_hmin(entry, h);
            int j = nk++;
            while (j > 0 && kids[j - 1].entry < en) {
                kids[j] = kids[j - 1];
                j--;
            }
            kids[j] = (pentry){nd->child[k], en, hb};
        }
        if (sp + (size_t)nk > cap)
            return RP_ERR_NOMEM; /* cannot happen: cap = RP_BVH_WIDTH * levels + 1 */
        for (int j = 0; j < nk; j++) { /* farthest first */
            if (j + 1 < nk) /* (the nearest is popped next) */
                rp_scene_prefetch(s, kids[j].node, 0);
            stack[sp++] = kids[j];
        }
    }
    unsigned ub = m_bits(upd) | lw.upd;
    if (!ub)
        return RP_OK;
    if (!closest) {
        for (size_t l = 0; l < m; l++)
            if ((ub >> l) & 1u)
                occluded[i + l] = 1;
        return RP_OK;
    }
    /* u, v of the packet's kept hits, all lanes at once (a lane without
     * one: U = 1, V = W = 0, so no division by zero); a lone walk's hit
     * (viaslot) is finished by the reference below */
    float tb[V_W], uo[V_W], vo[V_W];
    uint32_t bg[V_W];
    vi_storeu(bg, bgv);
    vf_storeu(tb, best);
    {
        vf one = vf_set1(1.0f), zero = vf_set1(0.0f), u, v;
        bu = vf_select(upd, bu, one);
        bv = vf_select(upd, bv, zero);
        bw = vf_select(upd, bw, zero);
        if (flags & RP_WATERTIGHT) { /* U, V, W: rp_ref_wt_uv */
            wt_bary_v(bu, bv, bw, &u, &v);
        } else { /* det, uu, vv: rp_ref_tri_uv */
            u = vf_div(bv, bu);
            v = vf_div(bw, bu);
        }
        vf_storeu(uo, u);
        vf_storeu(vo, v);
    }
    uint32_t lo = 0; /* the last lane's mesh: a packet's hits are mostly on one */
    for (size_t l = 0; l < m; l++) {
        if (!((ub >> l) & 1u))
            continue;
        if ((lw.viaslot >> l) & 1u) { /* a walk's hit: u, v by the reference */
            qbest bb = {bg[l], lw.slot_of[l], 0};
            qs[l].r.tmax = tb[l];
            qray_finish(s, rays, i + l, &qs[l], &bb, flags, hits, mesh);
            continue;
        }
        if (!(bg[l] >= s->mesh_first[lo] && bg[l] < s->mesh_first[lo + 1]))
            lo = rp_scene_mesh_of(s, bg[l]);
        rays->tmax[i + l] = tb[l];
        hits->t[i + l] = tb[l];
        hits->u[i + l] = uo[l];
        hits->v[i + l] = vo[l];
        hits->prim[i + l] = bg[l] - s->mesh_first[lo];
        if (mesh)
            mesh[i + l] = lo;
    }
    return RP_OK;
}

RP_INLINE void scene_rays(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                          unsigned flags, rp_hits *hits, uint32_t *mesh, uint8_t *occluded,
                          int closest, size_t i, size_t m, qentry *rstack) {
    for (size_t i0 = i; i0 < i + m; i0 += V_W) { /* the set-ups V_W at a time */
        size_t w = min_w(i + m - i0);
        qray_lanes L;
        qray_lanes_load(rays, i0, w, s->bound, &L);
        for (size_t l = i0; l < i0 + w; l++) {
            if ((active && !active[l]) || !(rays->rdx[l] == rays->rdx[l]))
                continue;
            if (scene_ray(s, rays, l, flags, hits, mesh, closest, rstack, &L, i0))
                occluded[l] = 1;
        }
    }
}

/* The eight queries a scene walk is instantiated for, X(suffix, flags,
 * closest): test (Moller-Trumbore or watertight), culling, closest or any
 * hit; and a table of the instances prefix##suffix, indexed
 * [closest][watertight][cull] (RP_TRI_FLAGS_OF, src/simd/block.h, picks
 * within [closest]). */
#define RP_SCENE_QUERIES(X)                                                                       \
    X(mt_any, 0, 0)                                                                               \
    X(mt_cull_any, RP_CULL_BACKFACE, 0)                                                           \
    X(wt_any, RP_WATERTIGHT, 0)                                                                   \
    X(wt_cull_any, RP_WATERTIGHT | RP_CULL_BACKFACE, 0)                                           \
    X(mt_closest, 0, 1)                                                                           \
    X(mt_cull_closest, RP_CULL_BACKFACE, 1)                                                       \
    X(wt_closest, RP_WATERTIGHT, 1)                                                               \
    X(wt_cull_closest, RP_WATERTIGHT | RP_CULL_BACKFACE, 1)
#define RP_SCENE_QUERY_TABLE(p)                                                                   \
    {{{p##mt_any, p##mt_cull_any}, {p##wt_any, p##wt_cull_any}},                                  \
     {{p##mt_closest, p##mt_cull_closest}, {p##wt_closest, p##wt_cull_closest}}}

/* scene_packet, one function per test, culling and query (closest or any
 * hit): the flags and closest constants inside, so that each holds only
 * its own walks (four copies of packet_walk, scene_packet), not every
 * flag's and both queries' inlined into scene_query.  Inlined there, with
 * closest a variable, the AVX2 file's scene_query was 155 KB of code (the
 * 16 walks' copies), and the compilers' register allocation, superlinear in
 * a function's size, took most of the build: clang -O1 with the
 * sanitizers, 184 s for kernels_sse41.c (Zen 3).  One call per packet. */
typedef rp_status (*scene_packet_fn)(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                                     rp_hits *hits, uint32_t *mesh, uint8_t *occluded, size_t i,
                                     size_t m, pentry *stack, size_t cap, qentry *rstack,
                                     qray *qs, pstat *ps, int mixed8);
#define RP_SCENE_PACKET(sfx, fl, cl)                                                              \
    static __attribute__((noinline)) rp_status scene_packet_##sfx(                               \
        const rp_scene *s, rp_rays *rays, const uint8_t *active, rp_hits *hits, uint32_t *mesh,  \
        uint8_t *occluded, size_t i, size_t m, pentry *stack, size_t cap, qentry *rstack,        \
        qray *qs, pstat *ps, int mixed8) {                                                        \
        return scene_packet(s, rays, active, fl, hits, mesh, occluded, cl, i, m, stack, cap,      \
                            rstack, qs, ps, mixed8);                                              \
    }
RP_SCENE_QUERIES(RP_SCENE_PACKET)
#undef RP_SCENE_PACKET
static const scene_packet_fn scene_packet_of[2][2][2] = RP_SCENE_QUERY_TABLE(scene_packet_);

/* Rays i0 .. i1-1 as packets of V_W (scene_packet_of's function for the
 * flags and query); stacks as scene_query's. */
/* Where the variant defines RP_SIMD_ADAPT_ON (AVX-512 on cores that split
 * 512-bit operations), scene_packets picks the width of its packets of one
 * octant as it goes: all 16 lanes, or two packets of 8 (the narrow walk),
 * by the lanes in play per leaf visit over the last RP_ADAPT_WINDOW
 * packets.  16-ray packets that meet leaves with fewer than 3 lanes in
 * play on average (a camera's rays on triangles a pixel or two wide) go 8
 * wide, and 8-ray packets back to 16 above 2.6 lanes.  Measured on AMD
 * Zen 4 (docs/PERFORMANCE-LOG.md): the 16-lane walk met its leaves with
 * 2.2-2.5 lanes on the 1.2M-triangle bunny, where 8 lanes were 4-11%
 * faster, 3.9-5.0 on rp_trace's 1.06M-triangle scene and 5.5-6.4 on the
 * 75k-triangle bunny, where 16 were 15-20% faster; the 8-lane walk met
 * them with 2.1-2.3, 3.0-3.7 and 4.2-4.7.  The same tests either way, so
 * the same results; the choice follows only timing-free counts, so it is
 * the same on every run.  And where more than half the window's packets
 * had mixed direction signs (diffuse bounces), which RP_SIMD_MIXED_ON
 * walks 8 wide anyway, the next window goes to the narrow walk whole, as
 * ae614d0's rule sent whole queries on large scenes, rather than each
 * 16-ray packet being loaded and set up before its hand-off (diffuse rays
 * at 1.2M triangles, three alternated runs each against the code before
 * the frustum: 0.95x without this rule, 0.99x with it, both within this
 * VM's noise; at 4.8M not measured apart).
 * Except short rays (RP_SIMD_MIXED_LONG_ON: mix8 = MIXED_LONG, on every
 * scene where 512-bit operations split, on large ones elsewhere): a mixed-sign
 * packet whose rays all end within a quarter of the scene's longest side
 * (packet_short: ambient occlusion) stays 16 wide, and only the others
 * count toward a narrow window.  rp_trace's AO rays, AMD Zen 4,
 * 2026-11-28, one thread, Mrays/s 8 wide -> 16 wide: its built-in scene
 * (rays 5% of its span) at --detail 2, 8 and 16: 12.8 -> 15.1, 10.6 ->
 * 12.2, 7.7 -> 8.8; the bunny (16% of its span) 8.9 -> 10.7; and with 1,
 * 2 and 8 rays per hit (origins not shared; shared by 2 and 8), 8.7 ->
 * 9.8, 9.4 -> 10.8, 11.1 -> 12.8 on the built-in scene, 7.8 -> 8.3, 8.8
 * -> 9.6, 9.9 -> 11.4 on the bunny.  Diffuse bounces (no end) keep the
 * 8-lane walk, which wins there from 300k triangles on Zen 4 and from
 * 1.2M on Sapphire Rapids (src/dispatch.c).
 * Lengths between a quarter of the span and no end were not measured; a
 * window rule on lanes in play per node, tried first, swung between the
 * widths on AO (its 8- and 16-lane counts overlap diffuse's). */
#define RP_ADAPT_WINDOW 8

RP_INLINE rp_status scene_packets(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                                  unsigned flags, rp_hits *hits, uint32_t *mesh,
                                  uint8_t *occluded, int closest, size_t i0, size_t i1,
                                  pentry *stack, size_t cap, qentry *rstack, qray *qs,
                                  pstat *ps) {
    scene_packet_fn packet_of = RP_TRI_FLAGS_OF(scene_packet_of[closest != 0], flags);
    rp_status st = RP_OK;
    int mix8 = MIXED_STAY; /* mixed signs: to the narrow walk (scene_packet's mixed8) */
#if defined(RP_SIMD_NARROW_PACKETS)
    mix8 = RP_SIMD_MIXED_ON ? MIXED_NARROW
           : RP_SIMD_MIXED_LONG_ON(s) ? MIXED_LONG /* short packets stay */
                                      : MIXED_STAY;
#endif
#if defined(RP_SIMD_ADAPT_ON) && defined(RP_SIMD_NARROW_PACKETS)
    const int adapt = RP_SIMD_ADAPT_ON;
    int narrow = 0, oct8 = 0; /* this window whole, one octant: to the narrow walk */
    unsigned seen = 0;
    *ps = (pstat){0, 0, 0, 0, 0};
#endif
    for (size_t i = i0; i < i1 && !st; i += V_W) {
        size_t m = min_w(i1 - i);
#if defined(RP_SIMD_ADAPT_ON) && defined(RP_SIMD_NARROW_PACKETS)
        if (adapt && narrow)
            st = RP_SIMD_NARROW_PACKETS(s, rays, active, flags, hits, mesh, occluded, closest, i,
                                        m, stack, cap, rstack, ps);
        else
#endif
            st = packet_of(s, rays, active, hits, mesh, occluded, i, m, stack, cap, rstack, qs, ps,
                           mix8);
#if defined(RP_SIMD_ADAPT_ON) && defined(RP_SIMD_NARROW_PACKETS)
        if (adapt && ++seen == RP_ADAPT_WINDOW) {
            if (ps->leaves) /* lanes per leaf visit below 3 (16 wide), above 2.6 (8) */
                oct8 = narrow ? ps->lanes * 10u <= ps->leaves * 26u
                              : ps->lanes * 10u < ps->leaves * 30u;
            /* mostly mixed signs that mix8 hands over: the window whole */
            narrow = (mix8 != MIXED_STAY &&
                      (mix8 == MIXED_NARROW ? ps->mixed : ps->mlong) * 2u > ps->packets)
                         ? 1
                         : oct8;
            *ps = (pstat){0, 0, 0, 0, 0};
            seen = 0;
        }
#endif
    }
    return st;
}

#if defined(RP_SIMD_PACKETS_FN)
/* This width's packets for another width of the same variant (the AVX-512
 * variant's mixed-sign packets, src/avx512/scene8_avx512.c), with its
 * stacks: the prototype is in scene.h. */
rp_status RP_SIMD_PACKETS_FN(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                             unsigned flags, rp_hits *hits, uint32_t *mesh, uint8_t *occluded,
                             int closest, size_t i, size_t m, pentry *stack, size_t cap,
                             qentry *rstack, pstat *ps) {
    qray qs[V_W];
    return scene_packets(s, rays, active, flags, hits, mesh, occluded, closest, i, i + m, stack,
                         cap, rstack, qs, ps);
}
#else
/* The one-ray walk (RP_INCOHERENT) of rays i .. i+m-1, one function per
 * test, culling and query (closest or any hit): the flags and closest
 * constants inside, and the walk compiled as a function of its own.
 * Inlined into scene_query with the flags as variables, it kept the
 * Moller-Trumbore code beside the watertight test and spilled the walk's
 * state around every leaf (callgrind, AVX2 bunny diffuse, bench/instr.sh:
 * 1650 -> 1562 instructions per ray).  (Not RP_NOINLINE, which is also
 * cold: gcc then optimized for size and left the small loops rolled, 1963
 * per ray.)  The packets are functions of their own in the same way
 * (scene_packet_of). */
typedef void (*scene_rays_fn)(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                              rp_hits *hits, uint32_t *mesh, uint8_t *occluded, size_t i,
                              size_t m, qentry *rstack);
#define RP_SCENE_RAYS(sfx, fl, cl)                                                                \
    static __attribute__((noinline)) void scene_rays_##sfx(                                      \
        const rp_scene *s, rp_rays *rays, const uint8_t *active, rp_hits *hits, uint32_t *mesh,  \
        uint8_t *occluded, size_t i, size_t m, qentry *rstack) {                                  \
        scene_rays(s, rays, active, fl, hits, mesh, occluded, cl, i, m, rstack);                  \
    }
RP_SCENE_QUERIES(RP_SCENE_RAYS)
#undef RP_SCENE_RAYS
static const scene_rays_fn scene_rays_of[2][2][2] = RP_SCENE_QUERY_TABLE(scene_rays_);

static rp_status scene_query(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                             unsigned flags, rp_hits *hits, uint32_t *mesh, uint8_t *occluded,
                             int closest) {
    /* Both walks are depth first: a node pops one entry and pushes at most
     * RP_BVH_WIDTH, so the stack never holds more than RP_BVH_WIDTH entries
     * per level on the path from the root, plus one.  (It was nnodes
     * entries: 1.2 MB for a one-ray call on the bunny, freshly mapped and
     * faulted in on every call.) */
    pentry local[RP_SCENE_STACK];
    qentry rlocal[RP_SCENE_STACK];
    qray qs[V_W]; /* the packets' lone-lane walks (scene_packet) */
    size_t cap = (size_t)RP_BVH_WIDTH * s->levels + 1;
    if (cap < RP_SCENE_STACK)
        cap = RP_SCENE_STACK;
    pentry *stack = cap == RP_SCENE_STACK ? local : malloc(cap * sizeof *stack);
    qentry *rstack = cap == RP_SCENE_STACK ? rlocal : malloc(cap * sizeof *rstack);
    if (!stack || !rstack) {
        if (stack != local)
            free(stack);
        if (rstack != rlocal)
            free(rstack);
        return RP_ERR_NOMEM;
    }
    rp_status st = RP_OK;
    pstat ps = {0, 0, 0, 0, 0};
    if (flags & RP_INCOHERENT) {
        scene_rays_fn rays_walk = RP_TRI_FLAGS_OF(scene_rays_of[closest != 0], flags);
        for (size_t i = 0; i < rays->n; i += V_W)
            rays_walk(s, rays, active, hits, mesh, occluded, i, min_w(rays->n - i), rstack);
    } else {
#if defined(RP_SIMD_NARROW_PACKETS) && defined(RP_SIMD_NARROW_ON)
        if (RP_SIMD_NARROW_ON(s)) /* every packet another width's (the AVX-512
                                   * variant's 8 lanes on large scenes) */
            st = RP_SIMD_NARROW_PACKETS(s, rays, active, flags, hits, mesh, occluded, closest, 0,
                                       rays->n, stack, cap, rstack, &ps);
        else
#endif
            st = scene_packets(s, rays, active, flags, hits, mesh, occluded, closest, 0,
                               rays->n, stack, cap, rstack, qs, &ps);
    }
    if (stack != local)
        free(stack);
    if (rstack != rlocal)
        free(rstack);
    return st;
}

static rp_status scene_closest(const rp_scene *s, rp_rays *rays, const uint8_t *active,
                               unsigned flags, rp_hits *hits, uint32_t *mesh) {
    return scene_query(s, rays, active, flags, hits, mesh, NULL, 1);
}

static rp_status scene_occluded(const rp_scene *s, const rp_rays *rays, const uint8_t *active,
                                unsigned flags, uint8_t *occluded) {
    /* rays is only read on this path */
    return scene_query(s, (rp_rays *)(uintptr_t)rays, active, flags, NULL, NULL, occluded, 0);
}

/* Internal functions exposed to rp_check through the table (checkasm-style:
 * each is compared there with the scalar reference it stands for, on
 * random and special inputs), one ray or one packet, no argument checks:
 *   - scene_node_ray: the one-ray node test (qray_node) of ray i against
 *     node nd with best t: the children that pass (bit k), their kz
 *     entries; the reference is rp_ref_slab_wt_steps per child box;
 *   - scene_block_ray: the one-ray leaf-block filter (qray_block): the
 *     lanes kept of the first n of block b; it may keep a lane the
 *     reference rejects, never drop one the reference hits in [tmin, best];
 *     t[l] of a lane l kept is rp_ref_wt_t's, bit for bit, in [tmin, best];
 *   - scene_box_packet: the packet box test (box_test) of rays i .. i+m-1
 *     (any m: packets of V_W) against child k of nd with per-ray best t
 *     (best[0] for ray i): hit bytes and kz entries; an empty child is
 *     a miss for every ray, as scene_packet skips it before box_test;
 *   - scene_lane_nodes: a mixed-sign packet's node step by lanes
 *     (lane_nodes) for rays i .. i+m-1 (packets of V_W; each packet's live
 *     lanes all in play) against nd with per-ray best t: hit[W j + k]
 *     whether ray i+j passes child k, emin[W j + k] the least entry among
 *     the rays of its packet that pass child k (+inf where none does).  A
 *     packet where box_test would not take its short form (a live ray not
 *     plain, or tmin > best) or a live ray's one-ray set-up is not from
 *     the lanes (qray_lanes' fast), which the walk does not test by lanes,
 *     is left out: hit 0 and emin NaN for its rays.  With boxes, the same
 *     packets' valid children by box_test_margin instead (the walk's
 *     child-by-child test from the same values), emin[W j + k] ray i+j's
 *     own entry;
 *   - scene_frustum_packet: the frustum node test (frustum_setup,
 *     frustum_node) of the packet of rays i .. i+w-1 (*w = min(m, V_W))
 *     with per-ray best t against nd: the children it passes (*hit, bit
 *     k) and its entries; returns 0 (nothing written) where the walk
 *     would use no frustum whatever the origins (a live lane not plain,
 *     tmin > best, mixed signs, or no live lane).  It must pass every
 *     child that one of the packet's rays passes (rp_ref_slab_wt_steps),
 *     with an entry at most that ray's: a bound, tested as one;
 *   - scene_seg_packet: the segments' box (seg_setup, seg_node) of the
 *     packet of rays i .. i+w-1 (*w = min(m, V_W)), each ray's segment
 *     [tmin, best]: the children that meet it (*hit, bit k); returns 0
 *     (nothing written) where the walk would take no box (a live lane not
 *     plain, tmin > best, a best or tmin not finite, |d| > 2^100, or no
 *     live lane), whatever the signs.  It must pass every child that one
 *     of the packet's rays passes;
 *   - scene_ray_setup: the one-ray walks' set-ups of rays 0 .. m-1 made
 *     from their packets' lanes (qray_lanes_setup, qray_lane), each
 *     against qray_setup's, every field a walk reads, bit for bit: the
 *     count of rays that differ, and in *fast the rays set up from the
 *     lanes (the others take qray_setup itself). */
static unsigned scene_node_ray(const rp_rays *rays, size_t i, float bound,
                               const rp_bvh_node *nd, float best, float *ent) {
    qray q;
    qray_setup(rays, i, bound, RP_WATERTIGHT, &q);
    return qray_node(&q, nd, best, ent);
}

static unsigned scene_block_ray(const rp_rays *rays, size_t i, float bound, const rp_tri4 *b,
                                unsigned n, float best, float *t) {
    qray q;
    qray_setup(rays, i, bound, RP_WATERTIGHT, &q);
    unsigned c = qray_block(&q, b, n, best);
    return c ? qray_tplane(&q, b, c, best, t) : 0;
}

/* The packet of rays i0 .. i0+w-1 as scene_packet sets it up, with best t
 * best[0 .. w-1] (NaN past w) in b and box_fast's answer for them in
 * br->fast; returns the live lanes. */
static vm check_packet_setup(const rp_rays *rays, size_t i0, size_t w, float bound,
                             const float *best, vray *r, vbox_ray *br, float b[V_W]) {
    ld_rays(rays, i0, w, NEED_D | NEED_RD | NEED_WT, r);
    vm live = m_and(m_lanes((int)w), vf_eq(r->rdx, r->rdx));
    wt_uniform(r, live);
    box_ray_setup(r, live, bound, br);
    for (int l = 0; l < V_W; l++)
        b[l] = (size_t)l < w ? best[l] : NAN;
    br->fast = box_fast(br, live, r->tmin, vf_loadu(b));
    box_uniform(br, live);
    return live;
}

/* Whether a and b hold the same bits in every field of a qray that a walk
 * reads (mo, md only without RP_WATERTIGHT, the frame's wo, ws*, fd, frd2
 * only with it: qray_setup makes each only then). */
static int qray_same(const qray *a, const qray *b, unsigned flags) {
#define RP_SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)
    int same = RP_SAME(r) && RP_SAME(w) && RP_SAME(rd) && RP_SAME(on) && RP_SAME(of) &&
               RP_SAME(nonr) && RP_SAME(nofr) && RP_SAME(off) &&
               RP_SAME(loose) && RP_SAME(rloose) && RP_SAME(pad) && RP_SAME(om) && RP_SAME(bd) &&
               RP_SAME(tshort);
    if (flags & RP_WATERTIGHT)
        same = same && RP_SAME(wo) && RP_SAME(wsx) && RP_SAME(wsy) && RP_SAME(wsz) &&
               RP_SAME(fd) && RP_SAME(frd2);
    else
        same = same && RP_SAME(mo) && RP_SAME(md);
#undef RP_SAME
    return same;
}

static size_t scene_ray_setup(const rp_rays *rays, size_t m, float bound, unsigned flags,
                              size_t *fast) {
    size_t bad = 0;
    *fast = 0;
    for (size_t i0 = 0; i0 < m; i0 += V_W) {
        size_t w = min_w(m - i0);
        qray_lanes L;
        qray_lanes_load(rays, i0, w, bound, &L);
        for (size_t l = 0; l < w; l++) {
            qray a, b;
            qray_lane(&L, rays, i0, (int)l, bound, flags, &a);
            qray_setup(rays, i0 + l, bound, flags, &b);
            bad += !qray_same(&a, &b, flags);
            *fast += (L.fast >> l) & 1u;
        }
    }
    return bad;
}

static void scene_box_packet(const rp_rays *rays, size_t i, size_t m, float bound,
                             const rp_bvh_node *nd, int k, const float *best, uint8_t *hit,
                             float *entry) {
    if (nd->child[k] == RP_NO_HIT) { /* scene_packet skips empty children */
        memset(hit, 0, m);
        return;
    }
    for (size_t i0 = i; i0 < i + m; i0 += V_W) { /* packets of V_W rays */
        size_t w = min_w(i + m - i0);
        vray r;
        vbox_ray br;
        float b[V_W], e[V_W];
        vm live = check_packet_setup(rays, i0, w, bound, best + (i0 - i), &r, &br, b);
        vf ev;
        float dn[3][RP_BVH_WIDTH], df[3][RP_BVH_WIDTH];
        if (br.uni) /* scene_packet's step for one origin */
            node_diffs(&br, nd, dn, df);
        unsigned h = m_bits(m_and(box_test_child(&r, &br, nd, k, dn, df, vf_loadu(b), &ev), live));
        vf_storeu(e, ev);
        for (size_t l = 0; l < w; l++) {
            hit[i0 - i + l] = (uint8_t)((h >> l) & 1u);
            entry[i0 - i + l] = e[l];
        }
    }
}

static int scene_frustum_packet(const rp_rays *rays, size_t i, size_t m, float bound,
                                const rp_bvh_node *nd, const float *best, size_t *w,
                                unsigned *hit, float *entry) {
    *w = min_w(m);
    vray r;
    vbox_ray br;
    float b[V_W];
    vm live = check_packet_setup(rays, i, *w, bound, best, &r, &br, b);
    if (!m_any(live) || !br.fast || br.oct < 0)
        return 0;
    pfrustum f;
    frustum_setup(&r, &br, live, vf_loadu(b), &f);
    *hit = frustum_node(&f, nd, br.oct, entry);
    return 1;
}

static int scene_seg_packet(const rp_rays *rays, size_t i, size_t m, float bound,
                            const rp_bvh_node *nd, const float *best, size_t *w,
                            unsigned *hit) {
    *w = min_w(m);
    vray r;
    vbox_ray br;
    float b[V_W];
    vm live = check_packet_setup(rays, i, *w, bound, best, &r, &br, b);
    if (!m_any(live) || !br.fast)
        return 0;
    r.tmax = vf_loadu(b); /* (the walk's best t is at most the tmax it took) */
    pseg g;
    if (!seg_setup(&r, &br, live, &g))
        return 0;
    *hit = seg_node(&g, nd);
    return 1;
}

static void scene_lane_nodes(const rp_rays *rays, size_t i, size_t m, float bound,
                             const rp_bvh_node *nd, const float *best, uint8_t *hit,
                             float *emin, int boxes) {
    for (size_t i0 = i; i0 < i + m; i0 += V_W) { /* packets of V_W rays */
        size_t w = min_w(i + m - i0);
        vray r;
        vbox_ray br;
        float b[V_W];
        vm live = check_packet_setup(rays, i0, w, bound, best + (i0 - i), &r, &br, b);
        qray_lanes L;
        qray_lanes_setup(&r, bound, &L);
        int fast = m_any(live) && br.fast && (L.fast & m_bits(live)) == m_bits(live);
        uint32_t lanes[RP_BVH_WIDTH] = {0};
        float em[RP_BVH_WIDTH], le[RP_BVH_WIDTH][V_W];
        unsigned h = 0;
        vf clo[3], chi[3];
        if (fast)
            lane_margins(&r, &L, clo, chi);
        if (fast && !boxes) {
            lane_box lb;
            lane_box_setup(&r, clo, chi, &lb);
            h = lane_nodes(&lb, nd, m_bits(live), b, lanes, em);
        } else if (fast) { /* the valid children, as the walk tests them */
            for (int k = 0; k < RP_BVH_WIDTH; k++) {
                vf e;
                vm p = m_and(box_test_margin(&r, br.oct, clo, chi, nd, k, vf_loadu(b), &e), live);
                vf_storeu(le[k], e);
                lanes[k] = nd->child[k] != RP_NO_HIT ? m_bits(p) : 0;
                h |= (unsigned)(lanes[k] != 0) << k;
            }
        }
        for (size_t l = 0; l < w; l++)
            for (int k = 0; k < RP_BVH_WIDTH; k++) {
                size_t at = (i0 - i + l) * RP_BVH_WIDTH + (size_t)k;
                hit[at] = (uint8_t)(fast && ((h >> k) & 1u) && ((lanes[k] >> l) & 1u));
                emin[at] = !fast ? NAN : boxes ? le[k][l] : em[k];
            }
    }
}
#endif /* RP_SIMD_PACKETS_FN */
