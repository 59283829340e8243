/*
 * traverse_ray.h - the one-ray traversal of a scene, for incoherent rays
 * (diffuse and glossy bounces, ambient occlusion): one ray at a time, the
 * lanes over a node's children (the node layer n_*: 8 lanes with AVX, so
 * an 8-wide node in one register, else the q layer's 4 lanes twice) and
 * over a leaf block's four triangles (the 4-lane layer q_* that every
 * variant has; x86: src/x86/layer.h, NEON: the vector layer itself).
 * Included by traverse_simd.h.
 *   - Children: rp_ref_slab_wt_entry with the ray's values broadcast and a
 *     child's box in each lane, the same operations (the grown origin, the
 *     near and far planes chosen once per ray by the signs of rd); for a
 *     plain ray a short form with a fused multiply-subtract and a margin,
 *     which passes a superset of the reference's children with entries at
 *     most its entries (qray_slabs_short).
 *   - Triangles: the float edge functions of rp_ref_wt_eval, the same
 *     operations lane by lane.  A lane whose three edge functions have
 *     strictly mixed signs (one < 0, one > 0) is outside by the reference's
 *     own decision (its double recomputation keeps every nonzero float
 *     sign: see rp_ref_wt_exact), and so is one whose kz range
 *     (rp_ref_wt_tplane's clamp) lies beyond the best hit or before tmin;
 *     then the reference's t, lane by lane (qray_tplane: rp_ref_wt_t's
 *     operations, the normal in double), drops the lanes whose t is not
 *     in [tmin, best] (a lane whose plane's t is already below tmin, with
 *     the kz range and the kx and ky near planes, is dropped before the
 *     triangle's pad and grown slabs: a bounce ray's own triangle);
 *     every other lane goes through the reference's
 *     inside decision itself (rp_ref_wt_eval).  So every hit kept is the
 *     reference's, and only lanes the reference rejects are dropped.
 *   - Without RP_WATERTIGHT (Moller-Trumbore): rp_ref_tri_eval's inside
 *     decision lane by lane, the same operations (the sign of det applied
 *     as the negation 0 - x, the same value for every x but a zero, whose
 *     sign no comparison or sum here sees); the lanes inside go through
 *     the reference itself (rp_ref_tri_eval, rp_ref_tri_t) and
 *     rp_ref_mt_in_box.
 * Pruning is rp_scene_closest_ref's (traverse.c): a subtree is skipped only
 * when its entry is strictly beyond the best t.  The result is the minimum
 * (t, scene index), as every traversal's, in any visit order.
 */

/* The node layer where the variant has no wider one: the q layer. */
#ifndef RP_N_LANES
#define RP_N_LANES 4
typedef vq vn;
static inline vn n_set1(float x) { return q_set1(x); }
static inline vn n_load(const float *p) { return q_load(p); }
static inline void n_store(float *p, vn a) { q_store(p, a); }
static inline vn n_add(vn a, vn b) { return q_add(a, b); }
static inline vn n_sub(vn a, vn b) { return q_sub(a, b); }
static inline vn n_mul(vn a, vn b) { return q_mul(a, b); }
static inline vn n_min(vn a, vn b) { return q_min(a, b); }
static inline vn n_max(vn a, vn b) { return q_max(a, b); }
static inline vn n_lt(vn a, vn b) { return q_lt(a, b); }
static inline vn n_le(vn a, vn b) { return q_le(a, b); }
static inline vn n_gt(vn a, vn b) { return q_gt(a, b); }
static inline vn n_eq(vn a, vn b) { return q_eq(a, b); }
static inline vn n_and(vn a, vn b) { return q_and(a, b); }
static inline vn n_or(vn a, vn b) { return q_or(a, b); }
static inline vn n_sel(vn m, vn a, vn b) { return q_sel(m, a, b); } /* m ? a : b */
static inline unsigned n_bits(vn m) { return q_bits(m); }
#if defined(RP_Q_FMADD) /* the q layer's fused a * b + c (NEON) */
#define RP_N_FMADD 1
static inline vn n_fmadd(vn a, vn b, vn c) { return q_fmadd(a, b, c); }
#endif
#endif
#if RP_BVH_WIDTH % RP_N_LANES
#error "the node layer's lanes must divide RP_BVH_WIDTH"
#endif

/* The children among the node layer's lanes of child indices at child that
 * are not empty (RP_NO_HIT, a NaN's bits, unlike any index, which is a
 * finite float or a denormal equal to itself under DAZ too): a bit per
 * lane.  One load and compare. */
RP_INLINE unsigned n_children(const uint32_t *child) {
    vn ch = n_load((const float *)(const void *)child);
    return n_bits(n_eq(ch, ch));
}

/* A node's near and far planes for each octant of rd (bit a: rd[a] < 0):
 * the offsets of plane_near_off of x, y, z, then of plane_far_off (prim.h),
 * in floats (lo[3][W], hi[3][W]).  One pointer a ray: the six offsets made
 * and stored per ray were about 20 instructions of its set-up. */
#define RP_QN(a, o) (((a) + 3 * ((o) >> (a) & 1)) * RP_BVH_WIDTH)
#define RP_QF(a, o) (((a) + 3 - 3 * ((o) >> (a) & 1)) * RP_BVH_WIDTH)
#define RP_QOFF(o) {RP_QN(0, o), RP_QN(1, o), RP_QN(2, o), RP_QF(0, o), RP_QF(1, o), RP_QF(2, o)}
static const int qray_offs[8][6] = {RP_QOFF(0), RP_QOFF(1), RP_QOFF(2), RP_QOFF(3),
                                    RP_QOFF(4), RP_QOFF(5), RP_QOFF(6), RP_QOFF(7)};
#undef RP_QOFF
#undef RP_QF
#undef RP_QN

/* One ray's state: the reference's frame and pad, and the broadcasts. */
typedef struct qray {
    rp_ray1 r; /* r.tmax: the best t so far (closest) */
    rp_wt_ray w;
    /* the box test's values, axes x, y, z (the reference's order, so that
     * the running max and min give its bits, a zero's sign included):
     * grown origins (near, far plane), 1 / d */
    vn on[3], of[3], rd[3];
    /* the short form's (qray_slabs_short): the grown origins grown by a
     * further margin, times rd, negated */
    vn nonr[3], nofr[3];
    /* the float offsets of the near planes x, y, z then the far ones in a
     * node (lo[3][W], hi[3][W]): qray_offs's row for the signs of rd */
    const int *off;
    unsigned loose;          /* (of those) axes with rd 0, NaN or +-FLT_MAX: they bound nothing */
    unsigned rloose;         /* loose, and kx or ky with an infinite rd: out of the range */
    /* the watertight leaf test's (qray_block, qray_tplane; made only with
     * RP_WATERTIGHT, as mo and md only without): */
    vq wo[3], wsx, wsy, wsz; /* o[kx], o[ky], o[kz]; the shear */
    float fd[3], frd2[2];    /* d in the frame; rd[kx], rd[ky] (qray_tplane) */
    vq mo[3], md[3];         /* o, d (world axes): the Moller-Trumbore test (only without
                              * RP_WATERTIGHT) */
    float pad;               /* rp_ref_wt_pad (rp_ref_mt_in_box) */
    float om;                /* max |o| in rp_ref_wt_pad's order (a triangle's pad) */
    unsigned bd;             /* world axes whose rd bounds (rp_ref_wt_bounding) */
    float tshort;            /* tmin if the ray is plain (vbox_ray's plain,
                              * traverse_simd.h), else NaN: the node test's
                              * short form holds where tshort <= best (qray_nodeN) */
} qray;

/* Ray i's state.  flags: the query's (without RP_WATERTIGHT the
 * Moller-Trumbore broadcasts too).  No branch on the ray's values but
 * (maybe) on plain, below. */
RP_INLINE void qray_setup(const rp_rays *rays, size_t i, float bound, unsigned flags, qray *q) {
    rp_ray1 r = {rays->ox[i], rays->oy[i], rays->oz[i], rays->dx[i], rays->dy[i],
                 rays->dz[i], rays->rdx[i], rays->rdy[i], rays->rdz[i], rays->tmin[i],
                 rays->tmax[i]};
    q->r = r;
    q->w = rp_ref_wt_setup(&r);
    float pad = rp_ref_wt_pad(&r, bound);
    const float o[3] = {r.ox, r.oy, r.oz}, rd[3] = {r.rdx, r.rdy, r.rdz};
    const float d[3] = {r.dx, r.dy, r.dz};
    q->pad = pad;
    q->om = rp_maxf(fabsf(o[2]), rp_maxf(fabsf(o[0]), fabsf(o[1]))); /* (rp_ref_wt_pad) */
    if (!(flags & RP_WATERTIGHT))
        for (int a = 0; a < 3; a++) {
            q->mo[a] = q_set1(o[a]);
            q->md[a] = q_set1(d[a]);
        }
    /* plain: every rd finite, nonzero, below FLT_MAX in magnitude, m =
     * max |o| + bound below 2^127 and m * |rd| < 2^125 (vbox_ray's plain
     * in traverse_simd.h) */
    float m = rp_maxf(fabsf(o[2]), rp_maxf(fabsf(o[1]), fabsf(o[0]))) + bound;
    /* the short form's margin (qray_slabs_short): 2^-18 (m + pad) */
    float xm = (m + pad) * 0x1p-18f;
    unsigned oct = 0;
    for (int a = 0; a < 3; a++) { /* the box test: world axes, the reference's order */
        int neg = rd[a] < 0.0f;
        /* rp_ref_slab_wt_steps: on = o +- pad toward the near plane, of
         * the other way: o + sp and o - sp with sp = pad signed as rd
         * (o - pad is o + (-pad) exactly: IEEE 754 defines it so).  The
         * sign bit of rd is rd < 0 wherever on and of are read: an axis
         * whose rd is 0, -0 or NaN is loose, and qray_nodeN puts +-inf in
         * place of its slab values.  No branch: the sign follows the
         * direction, random on incoherent rays, where gcc's branch on it
         * was mispredicted about every other ray, and no conversion: the
         * first node test waits on these */
        float sp = rp_xorsign(pad, rd[a]);
        float on = o[a] + sp, of = o[a] - sp;
        q->on[a] = n_set1(on);
        q->of[a] = n_set1(of);
        q->rd[a] = n_set1(rd[a]);
        float sx = rp_xorsign(xm, rd[a]);
        /* -((on + sx) * rd), -((of - sx) * rd) (negation: exact), in the
         * vector layer as qray_lanes_setup makes them: clang, which
         * assumes round-to-nearest, rewrote the scalar negated product
         * into a product with a negated factor, whose rounding differs
         * under directed rounding (rp_check --fpenv=upward's
         * internal_ray_setup in the ASan build); either value meets the
         * margin's argument (qray_slabs_short), but the two set-ups must
         * agree bit for bit */
        float nr[4], fr[4];
        vq nz = q_set1(-0.0f), vrd = q_set1(rd[a]), vsx = q_set1(sx);
        q_store(nr, q_xor(q_mul(q_add(q_set1(on), vsx), vrd), nz));
        q_store(fr, q_xor(q_mul(q_sub(q_set1(of), vsx), vrd), nz));
        q->nonr[a] = n_set1(nr[0]);
        q->nofr[a] = n_set1(fr[0]);
        oct |= (unsigned)neg << a;
    }
    q->off = qray_offs[oct];
    /* The flags, the three axes in the lanes of one vector (lane 3 unused):
     * loose where |rd| is not > 0 (0 or NaN: not rd < 0 and not rd > 0)
     * or is FLT_MAX; bounding as rp_ref_wt_bounding; the range
     * (rp_ref_slab_wt_steps): kz's loose bit, kx's and ky's not bounding */
    /* (from registers: four floats stored and loaded back as one vector
     * cannot be forwarded from the stores; bench/where.py put 3% of the
     * one-ray walk's samples on that load, though the timed rows did not
     * move: the set-up is off the walk's critical path) */
    vq ard = q_abs(q_set4(rd[0], rd[1], rd[2], 1.0f));
    unsigned pos = q_bits(q_gt(ard, q_set1(0.0f)));
    unsigned big = q_bits(q_eq(ard, q_set1(0x1.fffffep+127f)));
    unsigned fin = q_bits(q_lt(ard, q_set1(0x1.fffffep+127f)));
    unsigned small = q_bits(q_lt(q_mul(q_set1(m), ard), q_set1(0x1p125f)));
    /* and m * |rd| >= 2^-100: the short form's margin beyond underflow */
    unsigned notiny = ~q_bits(q_lt(q_mul(q_set1(m), ard), q_set1(0x1p-100f)));
    unsigned lz = (~pos | big) & 7u, bd = pos & fin & 7u, kzb = 1u << q->w.kz;
    q->loose = lz;
    q->bd = bd;
    q->rloose = (lz & kzb) | (~bd & 7u & ~kzb);
    int plain = (m < 0x1p127f) & ((bd & small & notiny & 7u) == 7u);
    /* (plain is the same for nearly every ray of a batch, so a branch on
     * it, if gcc makes one, is predicted; a branch-free form, a NaN's bits
     * or'ed into tmin's, made the one-ray shadow walk 1181.4 -> 1189.3
     * instructions a ray: bench/instr.sh, AVX2, bunny) */
    q->tshort = plain ? r.tmin : NAN;
    if (!(flags & RP_WATERTIGHT))
        return;
    const int ax[3] = {q->w.kx, q->w.ky, q->w.kz};
    for (int k = 0; k < 3; k++) { /* the triangle tests: the ray's frame */
        int a = ax[k];
        q->wo[k] = q_set1(o[a]);
        q->fd[k] = d[a];
        if (k < 2)
            q->frd2[k] = rd[a];
    }
    q->wsx = q_set1(q->w.sx);
    q->wsy = q_set1(q->w.sy);
    q->wsz = q_set1(q->w.sz);
}

/* The set-ups of a packet's V_W rays made at once (qray_lanes_setup):
 * the arithmetic of qray_setup in the vector layer's lanes, the same
 * operations lane by lane, so the same bits; then qray_lane fills one
 * ray's qray from its lane with broadcasts and copies.  qray_setup alone
 * was about 345 instructions a ray (callgrind, AVX2, bunny diffuse, one
 * ray: a quarter of the walk's 1446); a lane's share of this is about a
 * third of that.  Only the lanes where every value is ordinary take it
 * (fast: plain as qray_setup decides it, and no NaN in the origin, so that
 * no maximum's operand order matters): any other ray is set up by
 * qray_setup itself. */
typedef struct qray_lanes {
    float on[3][V_W], of[3][V_W], nonr[3][V_W], nofr[3][V_W]; /* qray's, per lane */
    float pad[V_W], om[V_W];
    float wo[3][V_W], fd[3][V_W], frd2[2][V_W]; /* the frame's: o, d, rd[kx], rd[ky] */
    float sx[V_W], sy[V_W], sz[V_W];
    unsigned fast;   /* the lanes qray_lane fills (bit l: lane l) */
    unsigned z1, z2; /* the frame's axis (wt_setup_v): kz = 1, kz = 2 */
} qray_lanes;

/* The lanes of v (its watertight frame made: wt_setup_v) into *L. */
RP_INLINE void qray_lanes_setup(const vray *v, float bound, qray_lanes *L) {
    const vf o[3] = {v->ox, v->oy, v->oz}, rd[3] = {v->rdx, v->rdy, v->rdz};
    vf ao[3];
    vm fast = m_and(m_and(vf_eq(o[0], o[0]), vf_eq(o[1], o[1])), vf_eq(o[2], o[2])); /* no NaN in o */
    for (int a = 0; a < 3; a++)
        ao[a] = vf_xorsign(o[a], o[a]); /* |o| */
    vf om = vf_max(ao[2], vf_max(ao[0], ao[1])); /* rp_ref_wt_pad's order */
    vf pad = vf_mul(vf_add(om, vf_set1(bound)), vf_set1(0x1p-19f));
    /* qray_setup's m, plain and margin, its order (which no NaN changes) */
    vf m = vf_add(vf_max(ao[2], vf_max(ao[1], ao[0])), vf_set1(bound));
    vf xm = vf_mul(vf_add(m, pad), vf_set1(0x1p-18f));
    fast = m_and(fast, vf_lt(m, vf_set1(0x1p127f)));
    vf nz = vf_set1(-0.0f);
    for (int a = 0; a < 3; a++) {
        vf ard = vf_xorsign(rd[a], rd[a]), mr = vf_mul(m, ard);
        /* bounding (|rd| > 0 and finite, not FLT_MAX), small, not tiny */
        vm ok = m_and(vf_gt(ard, vf_set1(0.0f)), vf_lt(ard, vf_set1(0x1.fffffep+127f)));
        ok = m_and(ok, m_andnot(vf_lt(mr, vf_set1(0x1p125f)), vf_lt(mr, vf_set1(0x1p-100f))));
        fast = m_and(fast, ok);
        vf sp = vf_xorsign(pad, rd[a]);
        vf on = vf_add(o[a], sp), of = vf_sub(o[a], sp);
        vf sx = vf_xorsign(xm, rd[a]);
        vf_storeu(L->on[a], on);
        vf_storeu(L->of[a], of);
        vf_storeu(L->nonr[a], vf_xorsign(vf_mul(vf_add(on, sx), rd[a]), nz)); /* -x: exact */
        vf_storeu(L->nofr[a], vf_xorsign(vf_mul(vf_sub(of, sx), rd[a]), nz));
    }
    vf_storeu(L->pad, pad);
    vf_storeu(L->om, om);
    vf_storeu(L->wo[0], v->wox);
    vf_storeu(L->wo[1], v->woy);
    vf_storeu(L->wo[2], v->woz);
    vf_storeu(L->fd[0], v->wdkx);
    vf_storeu(L->fd[1], v->wdky);
    vf_storeu(L->fd[2], v->wdkz);
    vf_storeu(L->frd2[0], v->wrdkx);
    vf_storeu(L->frd2[1], v->wrdky);
    vf_storeu(L->sx, v->wsx);
    vf_storeu(L->sy, v->wsy);
    vf_storeu(L->sz, v->wsz);
    L->fast = m_bits(fast);
    L->z2 = m_bits(v->wz2);
    L->z1 = m_bits(v->wz1);
}

/* The lanes of rays i .. i+w-1 (w <= V_W) into *L, from the arrays. */
RP_INLINE void qray_lanes_load(const rp_rays *rays, size_t i, size_t w, float bound,
                               qray_lanes *L) {
    vray v;
    ld_rays(rays, i, w, NEED_D | NEED_RD, &v);
    wt_setup_v(&v);
    qray_lanes_setup(&v, bound, L);
}

/* Ray i + l's state (lane l of L, made from rays i ..): as qray_setup. */
RP_INLINE void qray_lane(const qray_lanes *L, const rp_rays *rays, size_t i, int l, float bound,
                         unsigned flags, qray *q) {
    size_t j = i + (size_t)l;
    if (!((L->fast >> l) & 1u)) { /* rare: a ray with a value out of the ordinary */
        qray_setup(rays, j, bound, flags, q);
        return;
    }
    rp_ray1 r = {rays->ox[j], rays->oy[j], rays->oz[j], rays->dx[j], rays->dy[j],
                 rays->dz[j], rays->rdx[j], rays->rdy[j], rays->rdz[j], rays->tmin[j],
                 rays->tmax[j]};
    q->r = r;
    /* rp_ref_wt_setup's axes from wt_setup_v's masks: kz = 1 where |dy| >
     * |dx|, 2 where |dz| > the larger (z2 wins) */
    int y = (int)((L->z1 >> l) & 1u), z = (int)((L->z2 >> l) & 1u);
    int kz = y + z * (2 - y);
    int kx = kz == 2 ? 0 : kz + 1, ky = kx == 2 ? 0 : kx + 1;
    q->w = (rp_wt_ray){kx, ky, kz, L->sx[l], L->sy[l], L->sz[l], L->fd[2][l]};
    q->pad = L->pad[l];
    q->om = L->om[l];
    const float o[3] = {r.ox, r.oy, r.oz}, rd[3] = {r.rdx, r.rdy, r.rdz};
    const float d[3] = {r.dx, r.dy, r.dz};
    if (!(flags & RP_WATERTIGHT))
        for (int a = 0; a < 3; a++) {
            q->mo[a] = q_set1(o[a]);
            q->md[a] = q_set1(d[a]);
        }
    unsigned oct = 0;
    for (int a = 0; a < 3; a++) {
        oct |= (unsigned)(rd[a] < 0.0f) << a;
        q->on[a] = n_set1(L->on[a][l]);
        q->of[a] = n_set1(L->of[a][l]);
        q->rd[a] = n_set1(rd[a]);
        q->nonr[a] = n_set1(L->nonr[a][l]);
        q->nofr[a] = n_set1(L->nofr[a][l]);
    }
    q->off = qray_offs[oct];
    /* a plain ray: every rd bounding, none loose (qray_setup's flags), and
     * tshort its tmin */
    q->loose = 0;
    q->bd = 7;
    q->rloose = 0;
    q->tshort = r.tmin;
    if (!(flags & RP_WATERTIGHT))
        return;
    for (int k = 0; k < 3; k++) {
        q->wo[k] = q_set1(L->wo[k][l]);
        q->fd[k] = L->fd[k][l];
    }
    q->frd2[0] = L->frd2[0][l];
    q->frd2[1] = L->frd2[1][l];
    q->wsx = q_set1(L->sx[l]);
    q->wsy = q_set1(L->sy[l]);
    q->wsz = q_set1(L->sz[l]);
}

/* One ray's slab value at a plane of a node's children (the plane's W
 * floats at p): (plane - o) * rd, o the ray's grown origin toward that
 * plane and rd its 1 / d on the plane's axis, broadcast. */
RP_INLINE vn node_plane(const float *p, vn o, vn rd) { return n_mul(n_sub(n_load(p), o), rd); }

/* The short form of the node test (box_fast's, traverse_simd.h: no NaN,
 * no infinity, no +-FLT_MAX in any slab value, tmin <= best): the
 * children passed (a mask), *tn their entries.  The entries are the
 * reference's running max, in the order y, x, then z.  The pass test,
 * max(tn, tmin) <= min(tf, best), takes its operands in another grouping,
 * max(max(y, x), max(z, tmin)): with no NaN the same values up to a
 * zero's sign, which no comparison sees, so the same decision, and one max
 * and one min fewer on the path from the node's loads to the mask that
 * picks the next node.  The one-ray walk waits on that path at every node
 * (its node's rows come from the child the last mask chose): one-ray rows
 * 0-4% faster on Sapphire Rapids, 2-4% on the 1.2M-triangle mesh
 * (docs/PERFORMANCE-LOG.md). */
RP_INLINE vn node_short(const vn t0[3], const vn t1[3], vn tmin, vn best, vn *tn) {
    vn n = n_max(t0[1], t0[0]), f = n_min(t1[1], t1[0]);
    vn lhs = n_max(n, n_max(t0[2], tmin)), rhs = n_min(n_min(t1[2], best), f);
    *tn = n_max(t0[2], n);
    return n_le(lhs, rhs);
}

/* The six slab values of a node's children for ray q. */
RP_INLINE void qray_slabs(const qray *q, const float *base, vn t0[3], vn t1[3]) {
    for (int a = 0; a < 3; a++) {
        t0[a] = node_plane(base + q->off[a], q->on[a], q->rd[a]);
        t1[a] = node_plane(base + q->off[3 + a], q->of[a], q->rd[a]);
    }
}

#ifndef RP_N_FMADD
static inline vn n_fmadd(vn a, vn b, vn c) { return n_add(n_mul(a, b), c); }
#endif

/* The six slab values of the short form (a plain ray, qray_nodeN): plane *
 * rd - onr, one fused operation where the ISA has one (n_fmadd), where the
 * reference computes (plane - on) * rd, so the node's loads are one
 * operation from the entry instead of two.  The walk waits on that path
 * at every node (node_short).  It is computed as plane * rd + nonr with
 * nonr = -onr stored negated by qray_setup: x + (-y) is x - y by IEEE
 * 754's definition of subtraction (every rounding, a zero's sign
 * included), so the same value, fused or not, and a multiply-add on every
 * ISA (NEON's FMLA has no form that subtracts the addend: with onr it
 * negated it at every node).  onr = on' * rd, on' the grown origin on
 * moved a further x = 2^-18 (m + pad) the same way (of' likewise), m =
 * max |o| + bound, so that every t0 here is at most the reference's t0 and
 * every t1 at least its t1: a superset of its children, with entries at
 * most its entries, so a conservative test and pruning (the result is the
 * reference's, as for the packets' frustum).  Why, for rd > 0 (rd < 0 is
 * the same mirrored), u = 2^-23 (one rounding's relative error in any
 * rounding mode), |plane| <= bound, so |plane - on|, |on'| <= M = m + pad:
 *   - the exact plane * rd - on' * rd is (plane - on) rd - x' rd, x' >= x
 *     - u M the distance on' actually moved (its two roundings);
 *   - rounding on' * rd, then the subtraction (fused: once; unfused: the
 *     product too) moves it by at most 3u M rd;
 *   - the reference's fl(fl(plane - on) * rd) is below (plane - on) rd by
 *     at most 2u M rd;
 *   - so t0 here <= reference t0 when x' rd > 5u M rd plus the underflow
 *     terms (at most 2^-126 per rounding, flush-to-zero included), and x'
 *     >= 31u M: m |rd| >= 2^-100 (plain) makes x' rd >= 2^-119 >> 2^-123.
 *   Overflow: plain keeps m |rd| < 2^125, so no product or difference
 *   reaches 2^127; an empty child's infinite planes give +-inf as before.
 * rp_check's internal_node_ray checks the superset and the entries at the
 * reference's boundaries (and counts the children passed beyond the
 * reference's); test_scene and rp_check's scene checks, the results.
 * (The packets' lane-by-lane node test, lane_nodes in traverse_simd.h,
 * makes the same values from both planes of an axis, ordered.) */
RP_INLINE void qray_slabs_short(const qray *q, const float *base, vn t0[3], vn t1[3]) {
    for (int a = 0; a < 3; a++) {
        t0[a] = n_fmadd(n_load(base + q->off[a]), q->rd[a], q->nonr[a]);
        t1[a] = n_fmadd(n_load(base + q->off[3 + a]), q->rd[a], q->nofr[a]);
    }
}

/* The children of nd that may hold a hit in [tmin, best]: a bit per child;
 * ent[k]: child k's range entry (rn). */
RP_INLINE unsigned qray_nodeN(const qray *q, const float *base, const uint32_t *child,
                              float best, float *ent) {
    vn t0[3], t1[3];
    /* (the slab values are computed inside each branch: computed before
     * it, gcc kept all six for both paths and spilled them to the stack) */
    if (q->tshort <= best) { /* plain and tmin <= best (NaN: neither) */
        qray_slabs_short(q, base, t0, t1);
        /* box_fast's short form (traverse_simd.h): no NaN, no infinity, no
         * +-FLT_MAX in any slab value, tmin <= best.  An empty child's
         * inverted box (lo +inf, hi -inf) fails here without the child
         * check of the general form below: its near plane is +inf where rd
         * > 0 and -inf where rd < 0, its far plane the other, and on, of
         * and rd are finite and rd nonzero, so (plane - on) * rd is +inf
         * and (plane - of) * rd is -inf on every axis, in every rounding
         * mode and under FTZ and DAZ (infinities are exact); max(+inf,
         * tmin) <= min(-inf, best) is false.  (test_scene's trees have
         * empty slots wherever a node has fewer children than lanes.) */
        (void)child;
        vn tn;
        vn pass = node_short(t0, t1, n_set1(q->r.tmin), n_set1(best), &tn);
        n_store(ent, tn);
        return n_bits(pass);
    }
    qray_slabs(q, base, t0, t1);
    if (q->loose) /* rare: a flushed or saturated 1 / d, or a NaN component */
        for (int a = 0; a < 3; a++)
            if ((q->loose >> a) & 1u) {
                t0[a] = n_set1(-INFINITY);
                t1[a] = n_set1(INFINITY);
            }
    /* the reference's running max and min, in its order x, y, z: a NaN,
     * the first operand, leaves the running value as it is in any order,
     * but the sign of a zero entry (max(-0, +0) is its second operand)
     * depends on the order (rp_check --fpenv=towardzero found a ray whose
     * kx, ky, kz order gave -0 where the reference gives +0) */
    vn tn = n_max(t0[0], n_set1(-INFINITY)), tf = n_min(t1[0], n_set1(INFINITY));
    tn = n_max(t0[1], tn);
    tf = n_min(t1[1], tf);
    tn = n_max(t0[2], tn);
    tf = n_min(t1[2], tf);
    /* the range [rn, rf]: tn, tf unless kx or ky has an infinite rd (rare:
     * an axis-parallel ray, or 1 / d overflowing under directed rounding),
     * which bounds the line but not the range (rp_ref_slab_wt_steps) */
    vn rn = tn, rf = tf;
    if (q->rloose != q->loose) {
        rn = n_set1(-INFINITY);
        rf = n_set1(INFINITY);
        for (int a = 0; a < 3; a++)
            if (!((q->rloose >> a) & 1u)) {
                rn = n_max(t0[a], rn);
                rf = n_min(t1[a], rf);
            }
    }
    /* line & !(rn > best) & !(rf < tmin) */
    unsigned out = n_bits(n_or(n_gt(rn, n_set1(best)), n_lt(rf, n_set1(q->r.tmin))));
    /* FLT_MAX: a saturated overflow (rp_ref_slab_wt_steps) */
    vn line = n_or(n_le(tn, tf), n_or(n_eq(tf, n_set1(0x1.fffffep+127f)),
                                      n_eq(tn, n_set1(-0x1.fffffep+127f))));
    unsigned h = n_bits(line) & ~out;
    /* empty children (child RP_NO_HIT: a NaN's bits, unlike any index,
     * which is a finite float or a denormal equal to itself under DAZ too):
     * their inverted boxes may pass where NaN slab values bound nothing (a
     * grown origin that overflowed to inf gives inf - inf; the fuzz
     * corpus's wt_closest_fpenv_upward).  One load and compare: always. */
    h &= n_children(child);
    n_store(ent, rn);
    return h;
}

/* The children of nd that may hold a hit in [tmin, best]: a bit per child;
 * ent[k]: child k's range entry (rn). */
RP_INLINE unsigned qray_node(const qray *q, const rp_bvh_node *nd, float best,
                             float ent[RP_BVH_WIDTH]) {
    unsigned h = 0;
    for (int k = 0; k < RP_BVH_WIDTH; k += RP_N_LANES)
        h |= qray_nodeN(q, &nd->lo[0][k], &nd->child[k], best, ent + k) << k;
    return h;
}

/* The lanes of a block that hold one of a leaf's triangles, where n of them
 * are left from the block on (n <= RP_LEAF_MAX): a load where the shift of
 * a clamped count took six instructions a block. */
static const unsigned char qray_lanes_left[RP_LEAF_MAX + 1] = {0, 1, 3, 7, 15, 15, 15, 15, 15};
#if RP_LEAF_MAX != 8 || RP_TRI_BLOCK != 4
#error "qray_lanes_left: a row per count up to RP_LEAF_MAX, four lanes a block"
#endif

/* The lanes of c (kept by qray_block) whose t is in [tmin, best], and
 * t[4] the t of block b's four triangles for ray q: rp_ref_wt_t_frame lane
 * by lane, the same operations in the same order (kz, the ray's, a
 * constant: the frame's rows at fixed offsets).  The kz range [min zk, max
 * zk], the normal in double (rp_ref_wt_normal: the vqd layer widens
 * exactly and rounds once, as the reference's casts), the plane's t, the
 * triangle's own pad (rp_ref_wt_tri_inf, a maximum of |v|, the same in any
 * order of the nine), the grown kx and ky slabs where rd bounds
 * (rp_ref_wt_axis) and the clamp.  It replaces a scalar rp_ref_wt_t_frame
 * per candidate lane, about 260 instructions each (callgrind, AVX2, bunny
 * diffuse), with about 150 for the four lanes (its share of a diffuse ray:
 * 1.07 calls, 160 instructions). */
RP_INLINE unsigned qray_tplane_k(const qray *q, const rp_tri4 *b, unsigned c, float best,
                                  float tout[4], const int kz) {
    const int kx = kz == 2 ? 0 : kz + 1, ky = kx == 2 ? 0 : kx + 1;
    vq v[9];
    for (int k = 0; k < 3; k++) {
        v[3 * k] = q_load(b->v[3 * k + kx]);
        v[3 * k + 1] = q_load(b->v[3 * k + ky]);
        v[3 * k + 2] = q_load(b->v[3 * k + kz]);
    }
    /* the kz range (rp_ref_wt_tplane), again: kept from qray_block_k, its
     * values were spilled there */
    vq z0 = q_mul(q->wsz, q_sub(v[2], q->wo[2]));
    vq z1 = q_mul(q->wsz, q_sub(v[5], q->wo[2]));
    vq z2 = q_mul(q->wsz, q_sub(v[8], q->wo[2]));
    vq lo = q_min(z1, z0), hi = q_max(z1, z0);
    lo = q_min(z2, lo);
    hi = q_max(z2, hi);
    vqd e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        vqd p0 = qd_of(v[k]);
        e1[k] = qd_sub(qd_of(v[3 + k]), p0);
        e2[k] = qd_sub(qd_of(v[6 + k]), p0);
    }
    vq n[3];
    n[0] = q_of_d(qd_sub(qd_mul(e1[1], e2[2]), qd_mul(e1[2], e2[1])));
    n[1] = q_of_d(qd_sub(qd_mul(e1[2], e2[0]), qd_mul(e1[0], e2[2])));
    n[2] = q_of_d(qd_sub(qd_mul(e1[0], e2[1]), qd_mul(e1[1], e2[0])));
    vq a, m;
    vq p[3];
    for (int k = 0; k < 3; k++)
        p[k] = q_sub(v[k], q->wo[k]);
    a = q_mul(n[0], p[0]); m = q_mul(n[1], p[1]); vq num = q_add(a, m);
    a = q_mul(n[2], p[2]); num = q_add(num, a);
    a = q_mul(n[0], q_set1(q->fd[0])); m = q_mul(n[1], q_set1(q->fd[1])); vq den = q_add(a, m);
    a = q_mul(n[2], q_set1(q->fd[2])); den = q_add(den, a);
    vq t = q_div(num, den);
    /* Below tmin without the grown slabs: t < tmin (or NaN, which the
     * clamp makes lo), the kz range's lo < tmin, and each kx, ky slab's
     * near value from the ungrown origin, fl(fl(near - o) * rd), < tmin.
     * That value bounds the reference's t0 from above (its origin grown
     * by pad >= 0 moves away from the near plane, and rounding is
     * monotonic, FTZ included), so the reference's lo = max(kz lo, t0 of
     * the bounding kx, ky) is below tmin, max(t, lo) too, and the clamped
     * t: rejected.  A bounce or shadow ray's own triangle (its t around
     * 0) is dropped here, before the triangle's pad and slabs: callgrind,
     * AVX2, bunny, one ray: diffuse 1480.7 -> 1443.0 instructions a ray,
     * shadow 1330.2 -> 1311.4.  A NaN anywhere fails a comparison, and
     * a kx or ky whose rd does not bound keeps the lane. */
    vq tmin = q_set1(q->r.tmin);
    vq below = q_lt(lo, tmin);
    vq l[2], h[2]; /* the triangles' kx and ky ranges (rp_ref_wt_axis) */
    for (int k = 0; k < 2; k++) {
        vq rd = q_set1(q->frd2[k]);
        l[k] = q_min(v[3 + k], v[k]);
        h[k] = q_max(v[3 + k], v[k]);
        l[k] = q_min(v[6 + k], l[k]);
        h[k] = q_max(v[6 + k], h[k]);
        vq t0 = q_mul(q_sub(q_sel(q_lt(rd, q_set1(0.0f)), h[k], l[k]), q->wo[k]), rd);
        below = q_and(below, q_lt(t0, tmin));
    }
    c &= ~(q_bits(below) & ~q_bits(q_le(tmin, t))); /* (not tmin <= t: less, or NaN) */
    if (!c)
        return 0;
    vq inf = q_abs(v[0]);
    for (int k = 1; k < 9; k++)
        inf = q_max(q_abs(v[k]), inf);
    vq pad = q_mul(q_add(q_set1(q->om), inf), q_set1(0x1p-19f));
    const int ax[2] = {kx, ky};
    for (int k = 0; k < 2; k++) {
        if (!((q->bd >> ax[k]) & 1u)) /* rare: a flushed, saturated or infinite rd */
            continue;
        vq rd = q_set1(q->frd2[k]);
        vq neg = q_lt(rd, q_set1(0.0f));
        vq sp = q_xor(pad, q_and(rd, q_set1(-0.0f))); /* rp_xorsign(pad, rd) */
        vq on = q_add(q->wo[k], sp), of = q_sub(q->wo[k], sp);
        vq t0 = q_mul(q_sub(q_sel(neg, h[k], l[k]), on), rd);
        vq t1 = q_mul(q_sub(q_sel(neg, l[k], h[k]), of), rd);
        lo = q_max(t0, lo);
        hi = q_min(t1, hi);
    }
    t = q_max(t, lo); /* NaN t: lo */
    t = q_min(t, hi);
    t = q_sel(q_gt(lo, hi), q_set1(NAN), t);
    q_store(tout, t);
    return c & q_bits(q_and(q_le(q_set1(q->r.tmin), t), q_le(t, q_set1(best)))); /* (NaN: out) */
}

/* qray_tplane_k for the ray's kz (as qray_block): the lanes of c whose t is
 * in [tmin, best], t[4] the lanes' t. */
RP_INLINE unsigned qray_tplane(const qray *q, const rp_tri4 *b, unsigned c, float best,
                               float t[4]) {
    switch (q->w.kz) {
    case 0:
        return qray_tplane_k(q, b, c, best, t, 0);
    case 1:
        return qray_tplane_k(q, b, c, best, t, 1);
    default:
        return qray_tplane_k(q, b, c, best, t, 2);
    }
}

/* The lanes of block b (of which the first n are the leaf's, n <=
 * RP_LEAF_MAX counting the leaf's blocks after b) that may hold a hit in
 * [tmin, best]: the edge functions' signs and the kz range. */
RP_INLINE unsigned qray_block_k(const qray *q, const rp_tri4 *b, unsigned n, float best,
                                const int kz) {
    /* kz (the ray's, q->w.kz) a constant here: the rows of the frame's
     * axes are then constant offsets into the block (qray_block) */
    const int kx = kz == 2 ? 0 : kz + 1, ky = kx == 2 ? 0 : kx + 1;
#if defined(__GNUC__)
    /* b as the compiler cannot see it: the three copies load the same nine
     * rows, which gcc hoisted above qray_block's switch, spilling five of
     * them to reload them in the copy (five vector stores and loads a
     * block); with the rows loaded here, the one-ray shadow walk ran 5-7%
     * faster (docs/PERFORMANCE-LOG.md, the paired rows, 2026-11-30) */
    __asm__("" : "+r"(b));
#endif
    vq xy[6], z[3];
    for (int k = 0; k < 3; k++) { /* rp_ref_wt_vertex */
        vq qx = q_sub(q_load(b->v[3 * k + kx]), q->wo[0]);
        vq qy = q_sub(q_load(b->v[3 * k + ky]), q->wo[1]);
        z[k] = q_sub(q_load(b->v[3 * k + kz]), q->wo[2]);
        xy[2 * k] = q_sub(qx, q_mul(q->wsx, z[k]));
        xy[2 * k + 1] = q_sub(qy, q_mul(q->wsy, z[k]));
    }
    vq u = q_sub(q_mul(xy[4], xy[3]), q_mul(xy[5], xy[2]));
    vq v = q_sub(q_mul(xy[0], xy[5]), q_mul(xy[1], xy[4]));
    vq w = q_sub(q_mul(xy[2], xy[1]), q_mul(xy[3], xy[0]));
    vq zero = q_set1(0.0f);
    vq neg = q_or(q_or(q_lt(u, zero), q_lt(v, zero)), q_lt(w, zero));
    vq pos = q_or(q_or(q_gt(u, zero), q_gt(v, zero)), q_gt(w, zero));
    unsigned c = ~q_bits(q_and(neg, pos)) & qray_lanes_left[n];
    if (!c)
        return 0;
    /* t is clamped to [lo, hi] of the kz values (rp_ref_wt_tplane) */
    vq z0 = q_mul(q->wsz, z[0]), z1 = q_mul(q->wsz, z[1]), z2 = q_mul(q->wsz, z[2]);
    vq lo = q_min(z1, z0), hi = q_max(z1, z0);
    lo = q_min(z2, lo);
    hi = q_max(z2, hi);
    return c & ~q_bits(q_or(q_gt(lo, q_set1(best)), q_lt(hi, q_set1(q->r.tmin))));
}

/* qray_block_k for the ray's kz: one copy per frame, each loading the
 * block's rows at fixed offsets (AVX2, bunny, bench/instr.sh: 1.1% fewer
 * instructions per diffuse ray, 1.2% shadow, than rows looked up). */
RP_INLINE unsigned qray_block(const qray *q, const rp_tri4 *b, unsigned n, float best) {
    switch (q->w.kz) {
    case 0:
        return qray_block_k(q, b, n, best, 0);
    case 1:
        return qray_block_k(q, b, n, best, 1);
    default:
        return qray_block_k(q, b, n, best, 2);
    }
}

/* The lanes of block b (of which the first n are the leaf's, n <=
 * RP_LEAF_MAX as in qray_block_k) inside their triangle by
 * rp_ref_tri_eval's decision (det usable, the barycentric signs and sum),
 * the same operations in the same order, and whose t = tt / det
 * (rp_ref_tri_t, the same bits) lies in [tmin, best]: a lane outside
 * fails qray_leaf's test of t whatever the rest says, and best only
 * decreases within a leaf, so the filter drops no lane the reference
 * keeps.  (Without it every lane inside its triangle, most of them at a t
 * outside the ray's range, went through the scalar reference: rp_trace's
 * ambient-occlusion rays one at a time, Moller-Trumbore, were 12% slower
 * than watertight ones, whose block test already filters by t.) */
RP_INLINE unsigned qray_block_mt(const qray *q, const rp_tri4 *b, unsigned n, unsigned flags,
                                 float best) {
    vq v0x = q_load(b->v[0]), v0y = q_load(b->v[1]), v0z = q_load(b->v[2]);
    vq e1x = q_sub(q_load(b->v[3]), v0x);
    vq e1y = q_sub(q_load(b->v[4]), v0y);
    vq e1z = q_sub(q_load(b->v[5]), v0z);
    vq e2x = q_sub(q_load(b->v[6]), v0x);
    vq e2y = q_sub(q_load(b->v[7]), v0y);
    vq e2z = q_sub(q_load(b->v[8]), v0z);
    const vq *d = q->md;
    vq a, c;
    a = q_mul(d[1], e2z); c = q_mul(d[2], e2y); vq px = q_sub(a, c);
    a = q_mul(d[2], e2x); c = q_mul(d[0], e2z); vq py = q_sub(a, c);
    a = q_mul(d[0], e2y); c = q_mul(d[1], e2x); vq pz = q_sub(a, c);
    a = q_mul(e1x, px); c = q_mul(e1y, py); vq det = q_add(a, c);
    a = q_mul(e1z, pz); det = q_add(det, a);
    vq sx = q_sub(q->mo[0], v0x), sy = q_sub(q->mo[1], v0y), sz = q_sub(q->mo[2], v0z);
    a = q_mul(sx, px); c = q_mul(sy, py); vq uu = q_add(a, c);
    a = q_mul(sz, pz); uu = q_add(uu, a);
    a = q_mul(sy, e1z); c = q_mul(sz, e1y); vq qx = q_sub(a, c);
    a = q_mul(sz, e1x); c = q_mul(sx, e1z); vq qy = q_sub(a, c);
    a = q_mul(sx, e1y); c = q_mul(sy, e1x); vq qz = q_sub(a, c);
    a = q_mul(d[0], qx); c = q_mul(d[1], qy); vq vv = q_add(a, c);
    a = q_mul(d[2], qz); vv = q_add(vv, a);
    vq zero = q_set1(0.0f);
    /* det > 0: us = uu, vs = vv, |det| = det */
    vq in = q_and(q_and(q_gt(det, zero), q_le(zero, uu)),
                  q_and(q_le(zero, vv), q_le(q_add(uu, vv), det)));
    if (!(flags & RP_CULL_BACKFACE)) { /* det < 0: us = -uu, vs = -vv, |det| = -det */
        vq nu = q_sub(zero, uu), nv = q_sub(zero, vv);
        in = q_or(in, q_and(q_and(q_lt(det, zero), q_le(zero, nu)),
                            q_and(q_le(zero, nv), q_le(q_add(nu, nv), q_sub(zero, det)))));
    }
    if (!q_bits(in))
        return 0;
    a = q_mul(e2x, qx); c = q_mul(e2y, qy); vq tt = q_add(a, c);
    a = q_mul(e2z, qz); tt = q_add(tt, a);
    vq t = q_div(tt, det);
    in = q_and(in, q_and(q_le(q_set1(q->r.tmin), t), q_le(t, q_set1(best))));
    return q_bits(in) & qray_lanes_left[n];
}

typedef struct qbest {
    uint32_t g; /* scene index of the best hit, or RP_NO_HIT */
    size_t slot;
    int has;    /* the record held a hit before this call */
} qbest;

/* The leaf (count triangles from block first): closest keeps the best in
 * q->r.tmax and *bb; any hit returns 1 at the first.  Each lane the block
 * filter keeps goes through the reference: its t first (t outside [tmin,
 * best], or a tie that does not win, is rejected whatever the rest says),
 * then the rest of the decision.  Watertight: the t of rp_ref_wt_t_frame
 * does not depend on the 2D decision, so qray_block computes it for the
 * block's lanes at once and on a bounce ray the origin's own triangle (t
 * near 0 < tmin) is dropped before rp_ref_wt_eval; Moller-Trumbore:
 * rp_ref_tri_eval decides and gives t, then rp_ref_mt_in_box. */
RP_INLINE int qray_leaf(const rp_scene *s, qray *q, uint32_t first, uint32_t count,
                        unsigned flags, int closest, qbest *bb) {
    int wt = (flags & RP_WATERTIGHT) != 0;
    const rp_tri4 *b = &s->blocks[first];
    for (uint32_t j = 0; j < count; j += RP_TRI_BLOCK, b++) {
        float tw[4]; /* watertight: the lanes' t (qray_tplane) */
        unsigned c;
        if (wt) {
            c = qray_block(q, b, count - j, q->r.tmax);
            if (c)
                c = qray_tplane(q, b, c, q->r.tmax, tw);
        } else {
            c = qray_block_mt(q, b, count - j, flags, q->r.tmax);
        }
        while (c) {
            int l = __builtin_ctz(c);
            c &= c - 1u;
            size_t slot = (size_t)(b - s->blocks) * RP_TRI_BLOCK + (size_t)l;
            rp_triangle tri; /* watertight: copied out only once t is accepted */
            float t;
            if (wt) {
                t = tw[l];
            } else {
                rp_scene_tri(s, slot, &tri);
                rp_tri_eval e = rp_ref_tri_eval(&q->r, &tri, flags);
                if (!e.candidate)
                    continue;
                t = rp_ref_tri_t(&e);
                if (!rp_ref_mt_in_box(&q->r, &q->w, &tri, q->pad, t))
                    continue;
            }
            uint32_t g = b->index[l];
            int tie_ok = !closest || (bb->g != RP_NO_HIT ? g < bb->g : !bb->has);
            if (!((t >= q->r.tmin) & (t <= q->r.tmax) & ((t < q->r.tmax) | tie_ok)))
                continue;
            if (wt) {
                rp_scene_tri(s, slot, &tri);
                if (!rp_ref_wt_eval(&q->r, &q->w, &tri, flags).candidate)
                    continue;
            }
            if (!closest)
                return 1;
            q->r.tmax = t;
            bb->g = g;
            bb->slot = slot;
        }
    }
    return 0;
}

/* Closest: writes ray i's record (and tmax, mesh) for the best hit bb, if
 * any, as rp_scene_closest_ref does (u, v recomputed by the reference). */
RP_INLINE void qray_finish(const rp_scene *s, rp_rays *rays, size_t i, const qray *q,
                           const qbest *bb, unsigned flags, rp_hits *hits, uint32_t *mesh) {
    if (bb->g == RP_NO_HIT)
        return;
    rp_triangle tri;
    rp_scene_tri(s, bb->slot, &tri);
    float u, v;
    if (flags & RP_WATERTIGHT) {
        rp_wt_eval e = rp_ref_wt_eval(&q->r, &q->w, &tri, flags);
        rp_ref_wt_uv(&e, &u, &v);
    } else {
        rp_tri_eval e = rp_ref_tri_eval(&q->r, &tri, flags);
        rp_ref_tri_uv(&e, &u, &v);
    }
    uint32_t m = rp_scene_mesh_of(s, bb->g);
    rays->tmax[i] = q->r.tmax;
    hits->t[i] = q->r.tmax;
    hits->u[i] = u;
    hits->v[i] = v;
    hits->prim[i] = bb->g - s->mesh_first[m];
    if (mesh)
        mesh[i] = m;
}

/* (A stacked child: qentry, scene.h.) */

/* The walk of one ray (set up in q, q->r.tmax its best t so far, bb its
 * best hit) from the stacked child e down: closest keeps the best in
 * q->r.tmax and *bb; any hit returns 1 at the first.  The nearest child
 * hit is visited next without the stack (the only one, most often), the
 * others are pushed farthest first; leaves are tested when popped.  (The
 * reference tests a node's leaves before its inner children; the order
 * changes nothing in the result, a minimum.)  stack: room for RP_BVH_WIDTH
 * * s->levels + 1 entries (at most RP_BVH_WIDTH - 1 pushed per level of
 * the path from the root).  scene_ray walks from the root; the packets
 * (traverse_simd.h) hand it the subtree of a node where one lane is left. */
RP_INLINE int scene_ray_walk(const rp_scene *s, qray *q, qentry e0, unsigned flags, int closest,
                             qbest *bb, qentry *stack) {
    size_t sp = 0;
    stack[sp++] = e0;
    while (sp) {
        qentry e = stack[--sp];
        if (e.entry > q->r.tmax)
            continue;
        for (;;) {
            if (e.count) {
                if (qray_leaf(s, q, e.child, e.count, flags, closest, bb))
                    return 1;
                break;
            }
            const rp_bvh_node *nd = &s->nodes[e.child];
            float ent[RP_BVH_WIDTH];
            unsigned h = qray_node(q, nd, q->r.tmax, ent);
            if (!h)
                break;
            int k = __builtin_ctz(h);
            h &= h - 1u;
            if (!h) { /* one child */
                e = (qentry){nd->child[k], nd->count[k], ent[k]};
                continue;
            }
            if (!closest) { /* any hit ends the walk: no order needed, and no
                             * entry (best stays tmax, which every child
                             * pushed has passed) */
                for (; h; h &= h - 1u) {
                    int c = __builtin_ctz(h);
                    rp_scene_prefetch(s, nd->child[c], nd->count[c]);
                    stack[sp++] = (qentry){nd->child[c], nd->count[c], -INFINITY};
                }
                e = (qentry){nd->child[k], nd->count[k], -INFINITY};
                continue;
            }
            /* two or more: by entry, nearest first (equal entries keep
             * child order) */
            int k2 = __builtin_ctz(h);
            h &= h - 1u;
            /* by a mask, not a branch: which of two children a ray meets
             * first is a coin toss on incoherent rays (gcc made the
             * conditional a branch, which callgrind's model mispredicted
             * 0.8 times per diffuse ray) */
            int swap = -(int)(ent[k2] < ent[k]);
            int near = k ^ ((k ^ k2) & swap), far = near ^ k ^ k2;
            if (!h) { /* two, the most common case: the far one pushed */
                rp_scene_prefetch(s, nd->child[far], nd->count[far]);
                stack[sp++] = (qentry){nd->child[far], nd->count[far], ent[far]};
                e = (qentry){nd->child[near], nd->count[near], ent[near]};
                continue;
            }
            int kid[RP_BVH_WIDTH], n = 2;
            kid[0] = near;
            kid[1] = far;
            while (h) {
                k = __builtin_ctz(h);
                h &= h - 1u;
                int j = n++;
                while (j > 0 && ent[kid[j - 1]] > ent[k]) {
                    kid[j] = kid[j - 1];
                    j--;
                }
                kid[j] = k;
            }
            for (int c = n; c-- > 1;) {
                rp_scene_prefetch(s, nd->child[kid[c]], nd->count[kid[c]]);
                stack[sp++] = (qentry){nd->child[kid[c]], nd->count[kid[c]], ent[kid[c]]};
            }
            e = (qentry){nd->child[kid[0]], nd->count[kid[0]], ent[kid[0]]};
        }
    }
    return 0;
}

/* Ray i down the tree from the root, set up from lane i - i0 of L (rays
 * i0 ..).  Closest: writes its record (and tmax, mesh) as
 * rp_scene_closest_ref does; any hit: returns 1 when occluded. */
RP_INLINE int scene_ray(const rp_scene *s, rp_rays *rays, size_t i, unsigned flags,
                        rp_hits *hits, uint32_t *mesh, int closest, qentry *stack,
                        const qray_lanes *L, size_t i0) {
    qray q;
    qray_lane(L, rays, i0, (int)(i - i0), s->bound, flags, &q);
    qbest bb = {RP_NO_HIT, 0, closest && hits->prim[i] != RP_NO_HIT};
    if (scene_ray_walk(s, &q, (qentry){0, 0, -INFINITY}, flags, closest, &bb, stack))
        return 1;
    if (closest)
        qray_finish(s, rays, i, &q, &bb, flags, hits, mesh);
    return 0;
}
