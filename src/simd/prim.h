/*
 * prim.h - part 2 of the SIMD template (src/simd/kernels.h): the
 * per-primitive steps, each lane performing the operations of
 * src/scalar/ref.h in the same order: the box slab (box_valid_1/_v,
 * slab_axis, slab_bc, slab; slab_bc_oct with the planes chosen once for a
 * packet of one octant: lanes_octant, packet_oct), Moller-Trumbore
 * (tri_cand, tri_t; the edges prepared per call: block.h's tri_edges), spheres
 * (sphere_cand), planes (plane_cand), the watertight test (wt_pick,
 * wt_permute, wt_cand, wt_finish, with the rare lane-by-lane cases handed to
 * rp_ref_wt_exact and its kin), and the kind-generic steps the loops call:
 * test_cand (the division-free candidate decision), tri_late (the rest of a
 * triangle's decision) and test_t (the divisions).  Relies on block.h
 * (vray, vprim, veval, K_*) and on src/scalar/ref.h.
 */

/* ------------------------------------------------------------------ */
/* The per-lane tests, operation for operation as in ref.h               */
/* ------------------------------------------------------------------ */

/* rp_ref_box_valid of one box */
static inline int box_valid_1(const float *p) {
    int vx = p[0] <= p[3];
    int vy = p[1] <= p[4];
    int vz = p[2] <= p[5];
    return vx & vy & vz;
}

static inline vm box_valid_v(const vprim *b) {
    vm vx = vf_le(b->f[0], b->f[3]);
    vm vy = vf_le(b->f[1], b->f[4]);
    vm vz = vf_le(b->f[2], b->f[5]);
    return m_and(m_and(vx, vy), vz);
}

/* One axis of rp_ref_slab, its planes already chosen: bn near, bf far. */
RP_INLINE void slab_axis_nf(vf o, vf rd, vf bn, vf bf, vf *tn, vf *tf) {
    vf t0 = vf_sub(bn, o);
    t0 = vf_mul(t0, rd);
    vf t1 = vf_sub(bf, o);
    t1 = vf_mul(t1, rd);
    *tn = vf_max(t0, *tn);
    *tf = vf_min(t1, *tf);
}

/* One axis of rp_ref_slab. */
RP_INLINE void slab_axis(vf o, vf rd, vm neg, vf lo, vf hi, vf *tn, vf *tf) {
    vf bn = lo, bf = hi;
    vf_cswap(neg, &bn, &bf);
    slab_axis_nf(o, rd, bn, bf, tn, tf);
}

/* plane - o for a plane in memory (p) broadcast to every lane; no: the
 * lanes' -o, made once per packet (vf_neg), used only where the layer's
 * arithmetic takes a broadcast from memory as an operand (RP_V_BCAST_OP:
 * AVX-512's {1to16}).  There it is plane + (-o), which folds the broadcast
 * into the addition (the subtraction cannot: its broadcast operand is the
 * subtrahend).  The same bits: IEEE 754 defines x - y as x + (-y) in every
 * rounding mode, addition commutes (zeros' signs included), and DAZ reads
 * a denormal o and -o as zeros of their own signs; only a NaN's payload
 * may differ where plane and o are both NaN, and no slab value is stored
 * but a hit's (tn <= tf: no NaN).  Why: on a Zen 4 core a 512-bit
 * broadcast from memory costs a vector operation of its own (AVX-512 box
 * packets of one octant 1.13 -> 0.89 cycles per test, aabb/avx512/octant,
 * three alternated runs; bench/ab.sh), while AVX2's 256-bit broadcast is
 * a load alone, and without the embedded operand -o would be three more
 * registers live in the loop (AVX2 spilled one: that row 1.04 -> 1.24). */
RP_INLINE vf plane_minus(const float *p, vf o, vf no) {
#ifdef RP_V_BCAST_OP
    (void)o;
    return vf_add_bcast(no, p);
#else
    (void)no;
    return vf_sub(vf_bcast(p), o);
#endif
}

/* One axis of rp_ref_slab from its planes' differences: dn = near - o, df
 * = far - o. */
RP_INLINE void slab_axis_d(vf rd, vf dn, vf df, vf *tn, vf *tf) {
    *tn = vf_max(vf_mul(dn, rd), *tn);
    *tf = vf_min(vf_mul(df, rd), *tf);
}

/* rp_ref_slab of one box (at p: lo x y z, hi x y z) broadcast to every lane,
 * without the ray and box validity: clips [*tn, *tf].  Each lane's near
 * and far plane of an axis: vf_planes picks them straight from the box in
 * memory; with RP_V_BCAST_OP both planes' differences are made as
 * plane_minus and picked by the signs instead (the same per lane: (rd < 0
 * ? hi : lo) - o is rd < 0 ? hi - o : lo - o).  no: the lanes' -o
 * (plane_minus). */
RP_INLINE vm slab_bc(const vray *r, const vf *no, const float *p, vf *tn, vf *tf) {
    const vf o[3] = {r->ox, r->oy, r->oz}, rd[3] = {r->rdx, r->rdy, r->rdz};
    const vm neg[3] = {r->negx, r->negy, r->negz};
    for (int a = 0; a < 3; a++) {
#ifdef RP_V_BCAST_OP
        vf dl = plane_minus(p + a, o[a], no[a]), dh = plane_minus(p + a + 3, o[a], no[a]);
        slab_axis_d(rd[a], vf_select(neg[a], dh, dl), vf_select(neg[a], dl, dh), tn, tf);
#else
        (void)no;
        vf bn, bf;
        vf_planes(p + a, neg[a], &bn, &bf);
        slab_axis_nf(o[a], rd[a], bn, bf, tn, tf);
#endif
    }
    return vf_le(*tn, *tf);
}

/* Where axis a's near and far planes lie among a box's floats: lo x y z
 * then hi x y z, each field stride floats after the last (1 in an rp_aabb,
 * RP_BVH_WIDTH among a node's children); lo is near unless rd[a] < 0
 * (neg), the reference's choice. */
static inline int plane_near_off(int a, int neg, int stride) { return (a + 3 * neg) * stride; }
static inline int plane_far_off(int a, int neg, int stride) { return (a + 3 - 3 * neg) * stride; }

/* slab_bc for a packet whose lanes share the signs of rd (a camera's rays,
 * mostly): each axis' near and far plane is the same for every lane, so it
 * is broadcast from its place in the box (near[a], far[a]: offsets of the
 * fields, chosen once per packet by packet_oct) instead of picked lane by
 * lane; the same operations per lane otherwise. */
RP_INLINE vm slab_bc_oct(const vray *r, const vf *no, const float *p, const int *near,
                         const int *far, vf *tn, vf *tf) {
    const vf o[3] = {r->ox, r->oy, r->oz}, rd[3] = {r->rdx, r->rdy, r->rdz};
    for (int a = 0; a < 3; a++)
        slab_axis_d(rd[a], plane_minus(p + near[a], o[a], no[a]),
                    plane_minus(p + far[a], o[a], no[a]), tn, tf);
    return vf_le(*tn, *tf);
}

/* The signs of rd that the lanes of m share (bit a: rd[a] < 0, the
 * reference's choice of axis a's near plane), or -1 where they differ on
 * some axis.  The box packets (packet_oct) and the scene packets
 * (box_ray_setup) choose their planes once by it. */
RP_INLINE int lanes_octant(const vray *r, vm m) {
    unsigned l = m_bits(m);
    const vm neg[3] = {r->negx, r->negy, r->negz};
    int oct = 0;
    for (int a = 0; a < 3; a++) {
        unsigned n = m_bits(neg[a]) & l;
        if (n == l)
            oct |= 1 << a;
        else if (n)
            return -1;
    }
    return oct;
}

/* Whether the live lanes of rays i .. i+m-1 (active, valid) share the
 * signs of rd; if so, near[a] and far[a] are the offsets of axis a's near
 * and far plane in a box (lo x y z, hi x y z), for slab_bc_oct.  (Of the
 * rays only rd is read: ld_rays' other loads are dead here.) */
RP_INLINE int packet_oct(const rp_rays *rays, const uint8_t *active, size_t i, size_t m,
                         int near[3], int far[3]) {
    vray r;
    ld_rays(rays, i, m, NEED_RD, &r);
    int oct = lanes_octant(&r, m_and(ld_active(active, i, m), vf_eq(r.rdx, r.rdx)));
    if (oct < 0)
        return 0;
    for (int a = 0; a < 3; a++) {
        near[a] = plane_near_off(a, (oct >> a) & 1, 1);
        far[a] = plane_far_off(a, (oct >> a) & 1, 1);
    }
    return 1;
}

/* rp_ref_slab without the ray and box validity: clips [*tn, *tf].
 * sorted: b's fields are already the near planes (f[0..2]) and the far
 * planes (f[3..5]) of the ray (one ray in every lane: chosen once, in
 * scalar); otherwise each lane chooses by its rd < 0 mask. */
RP_INLINE vm slab(const vray *r, const vprim *b, int sorted, vf *tn, vf *tf) {
    if (sorted) {
        slab_axis_nf(r->ox, r->rdx, b->f[0], b->f[3], tn, tf);
        slab_axis_nf(r->oy, r->rdy, b->f[1], b->f[4], tn, tf);
        slab_axis_nf(r->oz, r->rdz, b->f[2], b->f[5], tn, tf);
    } else {
        slab_axis(r->ox, r->rdx, r->negx, b->f[0], b->f[3], tn, tf);
        slab_axis(r->oy, r->rdy, r->negy, b->f[1], b->f[4], tn, tf);
        slab_axis(r->oz, r->rdz, r->negz, b->f[2], b->f[5], tn, tf);
    }
    return vf_le(*tn, *tf);
}

/* a - field k of a primitive: f[k], its lanes; or, where every lane holds
 * the one primitive at bsrc (not NULL) and the layer takes a broadcast as
 * an operand (RP_V_BCAST_OP, see plane_minus), a - bsrc[k] with the
 * broadcast folded into the subtraction: the same operation on the same
 * values, without a broadcast of its own where that field has no other
 * use (a 512-bit broadcast from memory costs a vector operation on Zen 4). */
RP_INLINE vf minus_field(vf a, const vf *f, const float *bsrc, int k) {
#ifdef RP_V_BCAST_OP
    if (bsrc)
        return vf_sub_bcast(a, bsrc + k);
#else
    (void)bsrc;
#endif
    return vf_sub(a, f[k]);
}

/* rp_ref_tri_eval without the ray's validity (and, without culling, the
 * det != 0 of tri_late).  With RP_I_EDGES in flags, p holds v0, e1, e2.
 * bsrc: the triangle's floats when every lane holds it (minus_field), or
 * NULL. */
RP_INLINE vm tri_cand(const vray *r, const vprim *p, unsigned flags, veval *e,
                      const float *bsrc) {
    const vf *f = p->f;
    /* without prepared edges v0 is broadcast for them anyway */
    const float *s0 = (flags & RP_I_EDGES) ? bsrc : NULL;
    vf e1x, e1y, e1z, e2x, e2y, e2z;
    if (flags & RP_I_EDGES) {
        e1x = f[3], e1y = f[4], e1z = f[5];
        e2x = f[6], e2y = f[7], e2z = f[8];
    } else {
        e1x = vf_sub(f[3], f[0]);
        e1y = vf_sub(f[4], f[1]);
        e1z = vf_sub(f[5], f[2]);
        e2x = vf_sub(f[6], f[0]);
        e2y = vf_sub(f[7], f[1]);
        e2z = vf_sub(f[8], f[2]);
    }
    vf a, b;

    a = vf_mul(r->dy, e2z); b = vf_mul(r->dz, e2y); vf px = vf_sub(a, b);
    a = vf_mul(r->dz, e2x); b = vf_mul(r->dx, e2z); vf py = vf_sub(a, b);
    a = vf_mul(r->dx, e2y); b = vf_mul(r->dy, e2x); vf pz = vf_sub(a, b);
    a = vf_mul(e1x, px); b = vf_mul(e1y, py); vf det = vf_add(a, b);
    a = vf_mul(e1z, pz); det = vf_add(det, a);
    vf sx = minus_field(r->ox, f, s0, 0);
    vf sy = minus_field(r->oy, f, s0, 1);
    vf sz = minus_field(r->oz, f, s0, 2);
    a = vf_mul(sx, px); b = vf_mul(sy, py); vf uu = vf_add(a, b);
    a = vf_mul(sz, pz); uu = vf_add(uu, a);
    a = vf_mul(sy, e1z); b = vf_mul(sz, e1y); vf qx = vf_sub(a, b);
    a = vf_mul(sz, e1x); b = vf_mul(sx, e1z); vf qy = vf_sub(a, b);
    a = vf_mul(sx, e1y); b = vf_mul(sy, e1x); vf qz = vf_sub(a, b);
    a = vf_mul(r->dx, qx); b = vf_mul(r->dy, qy); vf vv = vf_add(a, b);
    a = vf_mul(r->dz, qz); vv = vf_add(vv, a);
    /* tt = dot(e2, q) is needed only for t: tri_t, on candidate steps */

    vf zero = vf_set1(0.0f);
    vf us = vf_xorsign(uu, det);
    vf vs = vf_xorsign(vv, det);
    vf adet = vf_xorsign(det, det);
    vf uvs = vf_add(us, vs);
    /* us >= 0 & vs >= 0 as min(us, vs) >= 0, one operation less: equal
     * wherever neither is NaN (-0 and +0 both pass either way), and where
     * one is, uvs is NaN and fails uvs <= adet, whichever operand the
     * ISA's min returns */
    vm inside = m_and(vf_ge(vf_min(us, vs), zero), vf_le(uvs, adet));
    e->det = det;
    e->uu = uu;
    e->vv = vv;
    e->qx = qx;
    e->qy = qy;
    e->qz = qz;
    e->e2x = e2x;
    e->e2y = e2y;
    e->e2z = e2z;
    /* without culling, det != 0 is checked by tri_late, on candidate steps
     * only: a det of 0 passes the inside test only with uu = vv = 0 */
    return (flags & RP_CULL_BACKFACE) ? m_and(inside, vf_gt(det, zero)) : inside;
}

/* t = tt / det of rp_ref_tri_eval / rp_ref_tri_t, with tt = dot(e2, q). */
RP_INLINE vf tri_t(const veval *e) {
    vf a = vf_mul(e->e2x, e->qx);
    vf b = vf_mul(e->e2y, e->qy);
    vf tt = vf_add(a, b);
    a = vf_mul(e->e2z, e->qz);
    tt = vf_add(tt, a);
    return vf_div(tt, e->det);
}

/* rp_ref_sphere up to the candidate decision. */
RP_INLINE vm sphere_cand(const vray *r, const vprim *p, veval *e, const float *bsrc) {
    const vf *f = p->f;
    vf ocx = minus_field(r->ox, f, bsrc, 0);
    vf ocy = minus_field(r->oy, f, bsrc, 1);
    vf ocz = minus_field(r->oz, f, bsrc, 2);
    vf x, y;
    x = vf_mul(r->dx, r->dx); y = vf_mul(r->dy, r->dy); vf a = vf_add(x, y);
    x = vf_mul(r->dz, r->dz); a = vf_add(a, x);
    x = vf_mul(r->dx, ocx); y = vf_mul(r->dy, ocy); vf b = vf_add(x, y);
    x = vf_mul(r->dz, ocz); b = vf_add(b, x);
    x = vf_mul(ocx, ocx); y = vf_mul(ocy, ocy); vf c = vf_add(x, y);
    x = vf_mul(ocz, ocz); c = vf_add(c, x);
    vf rr = vf_mul(f[3], f[3]);
    c = vf_sub(c, rr);
    vf bb = vf_mul(b, b);
    vf ac = vf_mul(a, c);
    vf disc = vf_sub(bb, ac);
    vf zero = vf_set1(0.0f);
    e->a = a;
    e->b = b;
    e->disc = disc;
    return m_and(vf_ge(disc, zero), vf_ge(f[3], zero));
}

/* rp_ref_plane up to the candidate decision. */
RP_INLINE vm plane_cand(const vray *r, const vprim *p, veval *e) {
    const vf *f = p->f;
    vf x, y;
    x = vf_mul(f[0], r->dx); y = vf_mul(f[1], r->dy); vf denom = vf_add(x, y);
    x = vf_mul(f[2], r->dz); denom = vf_add(denom, x);
    x = vf_mul(f[0], r->ox); y = vf_mul(f[1], r->oy); vf no = vf_add(x, y);
    x = vf_mul(f[2], r->oz); no = vf_add(no, x);
    e->num = vf_sub(f[3], no);
    e->denom = denom;
    return vf_neq(denom, vf_set1(0.0f));
}

/* The lanes of bits: rp_ref_wt_exact, lane by lane (rare: an edge function
 * 0 or NaN in float); in[k] = its inside decision.  xy: the sheared ax, ay,
 * bx, by, cx, cy. */
static RP_NOINLINE void wt_exact_lanes(unsigned bits, float xy[6][V_W], float *u, float *v,
                                       float *w, uint8_t *in) {
    for (int k = 0; k < V_W; k++)
        in[k] = ((bits >> k) & 1u) &&
                rp_ref_wt_exact(xy[0][k], xy[1][k], xy[2][k], xy[3][k], xy[4][k], xy[5][k],
                                &u[k], &v[k], &w[k]);
}

/* The lanes where an edge function is 0 or NaN (rp_ref_wt_undecided). */
RP_INLINE vm wt_undecided(const veval *e) {
    vf zero = vf_set1(0.0f);
    vm du = m_or(vf_lt(e->wu, zero), vf_gt(e->wu, zero));
    vm dv = m_or(vf_lt(e->uu, zero), vf_gt(e->uu, zero));
    vm dw = m_or(vf_lt(e->vv, zero), vf_gt(e->vv, zero));
    return m_andnot(m_lanes(V_W), m_and(m_and(du, dv), dw));
}

/* The vertices of a triangle (9 floats at p) in the ray's frame, lane by
 * lane: v[3k + 0, 1, 2] = vertex k's kx, ky and kz components.  Packets:
 * vf_pick of each lane's axis, which reads 4 floats, so p[9] too: the
 * caller passes a padded copy for the last triangle of the array. */
RP_INLINE void wt_pick(const vray *r, const float *p, vf *v) {
    if (r->wkx >= 0) { /* one frame for the packet: broadcasts */
        for (int k = 0; k < 3; k++) {
            v[3 * k + 0] = vf_bcast(p + 3 * k + r->wkx);
            v[3 * k + 1] = vf_bcast(p + 3 * k + r->wky);
            v[3 * k + 2] = vf_bcast(p + 3 * k + r->wkz);
        }
        return;
    }
    for (int k = 0; k < 3; k++) {
        v[3 * k + 0] = vf_pick(p + 3 * k, r->wpx);
        v[3 * k + 1] = vf_pick(p + 3 * k, r->wpy);
        v[3 * k + 2] = vf_pick(p + 3 * k, r->wpz);
    }
}
/* wt_pick of one frame (r->wkx >= 0) from a triangle whose 9 floats lie
 * stride floats apart (a scene's leaf block). */
RP_INLINE void wt_pick_strided(const vray *r, const float *p, int stride, vf *v) {
    for (int k = 0; k < 3; k++) {
        v[3 * k + 0] = vf_bcast(p + stride * (3 * k + r->wkx));
        v[3 * k + 1] = vf_bcast(p + stride * (3 * k + r->wky));
        v[3 * k + 2] = vf_bcast(p + stride * (3 * k + r->wkz));
    }
}
/* wt_pick of mixed frames (r->wkx < 0) from a triangle whose 9 floats lie
 * stride floats apart: each component broadcast, each lane's axis chosen
 * by wt_setup_v's selects (kz = 0: kx, ky = 1, 2; kz = 1: 2, 0; kz = 2:
 * 0, 1).  Three operations a component against vf_pick's two, but no 16-byte
 * load of floats just stored one by one (a scene's leaf block is structure
 * of arrays, so vf_pick needed a copy, and its reload waited on the stores:
 * a store-forwarding stall per vertex).  Where the layer has RP_V_PICKR
 * (SSE4.1, AVX2), the three broadcasts are blended into one register and each
 * component is picked from it by the lane's index (wpx, wpy, wpz), 8
 * one-uop operations a vertex against 3 broadcasts and 6 selects. */
RP_INLINE void wt_pick_sel(const vray *r, const float *p, int stride, int nvert, vf *v) {
    for (int k = 0; k < nvert; k++) {
        vf x = vf_bcast(p + stride * (3 * k)), y = vf_bcast(p + stride * (3 * k + 1));
        vf z = vf_bcast(p + stride * (3 * k + 2));
#ifdef RP_V_PICKR /* the layer picks from registers by the lanes' indices */
        vf t = vf_xyz(x, y, z);
        v[3 * k + 0] = vf_pickr(t, r->wpx);
        v[3 * k + 1] = vf_pickr(t, r->wpy);
        v[3 * k + 2] = vf_pickr(t, r->wpz);
#else
        v[3 * k + 0] = vf_select(r->wz2, x, vf_select(r->wz1, z, y));
        v[3 * k + 1] = vf_select(r->wz2, y, vf_select(r->wz1, x, z));
        v[3 * k + 2] = vf_select(r->wz2, z, vf_select(r->wz1, y, x));
#endif
    }
}
/* One ray in every lane (bc_ray): the axes are ints, so the fields of W
 * triangles (f, from ld_prims) are just renamed. */
RP_INLINE void wt_permute(const vray *r, const vprim *f, vprim *out) {
    for (int k = 0; k < 3; k++) {
        out->f[3 * k + 0] = f->f[3 * k + r->wkx];
        out->f[3 * k + 1] = f->f[3 * k + r->wky];
        out->f[3 * k + 2] = f->f[3 * k + r->wkz];
    }
}

/* The inside test of U, V, W on float values (NaN is neither): the
 * reference's for lanes where no edge function is 0 or NaN. */
RP_INLINE vm wt_inside(const veval *e) {
    vf zero = vf_set1(0.0f);
    vm neg = m_and(m_and(vf_le(e->wu, zero), vf_le(e->uu, zero)), vf_le(e->vv, zero));
    vm pos = m_and(m_and(vf_ge(e->wu, zero), vf_ge(e->uu, zero)), vf_ge(e->vv, zero));
    return m_or(neg, pos);
}

/* rp_ref_wt_eval up to the inside decision, the vertices already in the
 * ray's frame (wt_pick / wt_permute).  Without exact (the hot path): the
 * float edge functions only, and the lanes that may be candidates: not
 * (some edge function < 0 and some > 0).  A nonzero float edge function
 * that is not NaN has the exact sign even when a product overflows
 * (rounding is monotonic), so the double recomputation of the reference
 * can turn such a lane into a candidate only if a zero or a NaN makes it
 * look undecided here; tri_late then decides exactly, on those rare steps.
 * With exact: as the reference, returning the lanes inside.
 * q: each vertex's components in the frame less the origin's, v[kx] -
 * o[kx], v[ky] - o[ky], v[kz] - o[kz] (rp_ref_wt_vertex's subtractions):
 * wt_cand makes them from the picked vertices, wt_cand_bc from memory. */
RP_INLINE vm wt_cand_q(const vray *r, const vf q[9], veval *e, int exact) {
    vf xy[6], z[3], a;
    for (int k = 0; k < 3; k++) { /* rp_ref_wt_vertex */
        vf qx = q[3 * k + 0];
        vf qy = q[3 * k + 1];
        z[k] = q[3 * k + 2];
        a = vf_mul(r->wsx, z[k]);
        xy[2 * k] = vf_sub(qx, a);
        a = vf_mul(r->wsy, z[k]);
        xy[2 * k + 1] = vf_sub(qy, a);
    }
    const vf ax = xy[0], ay = xy[1], bx = xy[2], by = xy[3], cx = xy[4], cy = xy[5];
    vf b;
    a = vf_mul(cx, by); b = vf_mul(cy, bx); vf u = vf_sub(a, b);
    a = vf_mul(ax, cy); b = vf_mul(ay, cx); vf v = vf_sub(a, b);
    a = vf_mul(bx, ay); b = vf_mul(by, ax); vf w = vf_sub(a, b);
    e->wu = u;
    e->uu = v; /* u = V / det, v = W / det, as Moller-Trumbore's uu, vv */
    e->vv = w;
    e->wz0 = z[0];
    e->wz1 = z[1];
    e->wz2 = z[2];
    vf zero = vf_set1(0.0f);
    if (!exact) { /* none < 0 or none > 0 (NaN is neither): ANDs of compares,
                   * which AVX-512 fuses into masked compares */
        vm pos = m_and(m_and(vf_nlt(u, zero), vf_nlt(v, zero)), vf_nlt(w, zero));
        vm neg = m_and(m_and(vf_ngt(u, zero), vf_ngt(v, zero)), vf_ngt(w, zero));
        return m_or(pos, neg);
    }
    /* the reference's decision: float signs where all three decide, the
     * exact one (rp_ref_wt_exact) in the other lanes */
    vm in = wt_inside(e);
    vm und = wt_undecided(e);
    if (m_any(und)) {
        float xs[6][V_W], us[V_W], vs[V_W], ws[V_W];
        uint8_t ib[V_W];
        for (int k = 0; k < 6; k++)
            vf_storeu(xs[k], xy[k]);
        vf_storeu(us, u);
        vf_storeu(vs, v);
        vf_storeu(ws, w);
        wt_exact_lanes(m_bits(und), xs, us, vs, ws, ib);
        e->wu = vf_loadu(us);
        e->uu = vf_loadu(vs);
        e->vv = vf_loadu(ws);
        in = m_or(m_andnot(in, und), m_and(m_from_bytes(ib), und));
    }
    return in;
}

RP_INLINE vm wt_cand(const vray *r, const vprim *p, veval *e, int exact) {
    const vf *f = p->f;
    vf q[9];
    for (int k = 0; k < 3; k++) {
        q[3 * k + 0] = vf_sub(f[3 * k + 0], r->wox);
        q[3 * k + 1] = vf_sub(f[3 * k + 1], r->woy);
        q[3 * k + 2] = vf_sub(f[3 * k + 2], r->woz);
    }
    return wt_cand_q(r, q, e, exact);
}
#ifdef RP_V_BCAST_OP
/* wt_cand_bc's nwo, made once per packet: the lanes' -wox, -woy, -woz
 * where on (a watertight packet), else zeros. */
RP_INLINE void wt_neg_origin(const vray *r, int on, vf nwo[3]) {
    nwo[0] = on ? vf_neg(r->wox) : vf_set1(0.0f);
    nwo[1] = on ? vf_neg(r->woy) : vf_set1(0.0f);
    nwo[2] = on ? vf_neg(r->woz) : vf_set1(0.0f);
}
/* wt_cand (not exact) for a packet in one frame (r->wkx >= 0) and the
 * triangle at p in every lane: each component's broadcast folded into
 * its subtraction, as plane_minus does (v + (-o), nwo: the lanes' -wox,
 * -woy, -woz), so no broadcast of its own. */
RP_INLINE vm wt_cand_bc(const vray *r, const float *p, const vf nwo[3], veval *e) {
    vf q[9];
    const int ax[3] = {r->wkx, r->wky, r->wkz};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++)
            q[3 * k + c] = vf_add_bcast(nwo[c], p + 3 * k + ax[c]);
    return wt_cand_q(r, q, e, 0);
}
#endif

/* The division-free part of a test of any kind: the candidate lanes
 * (before the ray's validity, the box's validity and the lane masks).
 * best is the running best t: the slab clips against it as the reference
 * does.  sorted: see slab.  bsrc: the primitive's floats when every lane
 * holds it (bc_prim), else NULL (minus_field). */
RP_INLINE vm test_cand(int kind, const vray *r, const vprim *p, vf best, unsigned flags,
                       int sorted, veval *e, const float *bsrc) {
    if (kind == K_BOX) {
        vf tn = r->tmin;
        vf tf = best;
        vm h = slab(r, p, sorted, &tn, &tf);
        e->t = tn;
        return h;
    }
    if (kind == K_TRI)
        return tri_cand(r, p, flags, e, bsrc);
    if (kind == K_WT)
        return wt_cand(r, p, e, 0);
    if (kind == K_SPH)
        return sphere_cand(r, p, e, bsrc);
    return plane_cand(r, p, e);
}

/* The rest of rp_ref_wt_eval and rp_ref_wt_t on the inside lanes c: det
 * (rp_ref_wt_detf), the last tests (rp_ref_wt_usable) and t, the plane's
 * intersection clamped to the kz range (rp_ref_wt_tplane), operation for
 * operation; pv: the vertices in the ray's frame.  Returns the candidates,
 * sets e->t. */
/* n of W triangles in the ray's frame, lane by lane (rp_ref_wt_normal);
 * f: their vertex components in that frame. */
static RP_NOINLINE void wt_normal_lanes(unsigned bits, float f[9][V_W], float n[3][V_W]) {
    for (int k = 0; k < V_W; k++) {
        float v[9], nn[3] = {0.0f, 0.0f, 0.0f};
        if ((bits >> k) & 1u) {
            for (int i = 0; i < 9; i++)
                v[i] = f[i][k];
            rp_ref_wt_normal(v, nn);
        }
        for (int i = 0; i < 3; i++)
            n[i][k] = nn[i];
    }
}

/* p: the triangle (world frame) in every lane (packets; pv, its vertices in
 * the lanes' frames, may then be NULL), or NULL: then the lanes' triangles
 * are those of pv (one ray, W triangles).  below (the scenes' walks, whose
 * bounce and shadow rays start on a triangle): the lanes whose t is
 * proven below tmin before the triangle's pad and slabs are dropped, as
 * the one-ray walk's qray_tplane_k does (its comment says why). */
RP_INLINE vm wt_finish(unsigned flags, const vray *r, const float *p, const vprim *pv, vm c,
                       vf best, veval *e, int below) {
    vf zero = vf_set1(0.0f);
    vf det = vf_add(e->wu, e->uu);
    det = vf_add(det, e->vv);
    c = m_and(c, (flags & RP_CULL_BACKFACE) ? vf_gt(vf_xorsign(det, r->wdkz), zero)
                                            : vf_neq(det, zero));
    /* t will be clamped to [lo, hi] (rp_ref_wt_tplane, the same operations):
     * a lane with lo > best or hi < tmin cannot be accepted, so the plane's
     * t is computed only where some lane can (the lanes dropped here would
     * be rejected by the acceptance anyway) */
    vf z0 = vf_mul(r->wsz, e->wz0), z1 = vf_mul(r->wsz, e->wz1), z2 = vf_mul(r->wsz, e->wz2);
    vf lo = vf_min(z1, z0), hi = vf_max(z1, z0);
    lo = vf_min(z2, lo);
    hi = vf_max(z2, hi);
    c = m_andnot(c, m_or(vf_gt(lo, best), vf_lt(hi, r->tmin)));
    if (!m_any(c)) {
        e->t = zero;
        return c;
    }
    vf n[3];
    if (p) { /* one normal, in each lane's frame */
        float nw[12] = {0.0f}; /* wt_pick reads three "vertices" */
        rp_ref_wt_normal(p, nw);
        vprim np;
        if (r->wkx >= 0)
            wt_pick(r, nw, np.f); /* the first one is n */
        else /* (nw was just stored: no 16-byte reload) */
            wt_pick_sel(r, nw, 1, 1, np.f);
        n[0] = np.f[0];
        n[1] = np.f[1];
        n[2] = np.f[2];
    } else {
        float f[9][V_W], nl[3][V_W];
        for (int i = 0; i < 9; i++)
            vf_storeu(f[i], pv->f[i]);
        wt_normal_lanes(m_bits(c), f, nl);
        for (int i = 0; i < 3; i++)
            n[i] = vf_loadu(nl[i]);
    }
    vprim vall; /* the vertices in the lanes' frames */
    const vf *v;
    if (pv) {
        v = pv->f;
    } else {
        if (r->wkx >= 0)
            wt_pick(r, p, vall.f); /* p: 12 floats readable (see wt_pick) */
        else /* (p may be a copy just stored: no 16-byte reloads) */
            wt_pick_sel(r, p, 1, 3, vall.f);
        v = vall.f;
    }
    const vf o[3] = {r->wox, r->woy, r->woz};
    const vf d[3] = {r->wdkx, r->wdky, r->wdkz};
    vf q[3], a, b;
    for (int k = 0; k < 3; k++)
        q[k] = vf_sub(v[k], o[k]);
    a = vf_mul(n[0], q[0]); b = vf_mul(n[1], q[1]); vf num = vf_add(a, b);
    a = vf_mul(n[2], q[2]); num = vf_add(num, a);
    a = vf_mul(n[0], d[0]); b = vf_mul(n[1], d[1]); vf den = vf_add(a, b);
    a = vf_mul(n[2], d[2]); den = vf_add(den, a);
    vf t = vf_div(num, den);
    /* the triangle's kx and ky ranges (rp_ref_wt_axis) */
    const vf rd2[2] = {r->wrdkx, r->wrdky};
    vf l[2], h[2];
    for (int k = 0; k < 2; k++) {
        l[k] = vf_min(v[3 + k], v[k]);
        h[k] = vf_max(v[3 + k], v[k]);
        l[k] = vf_min(v[6 + k], l[k]);
        h[k] = vf_max(v[6 + k], h[k]);
    }
    if (below) { /* (qray_tplane_k) */
        vm bl = vf_lt(lo, r->tmin);
        for (int k = 0; k < 2; k++) {
            vf t0 = vf_mul(vf_sub(vf_select(vf_lt(rd2[k], zero), h[k], l[k]), o[k]), rd2[k]);
            bl = m_and(bl, vf_lt(t0, r->tmin));
        }
        c = m_andnot(c, m_andnot(bl, vf_le(r->tmin, t))); /* (not tmin <= t: less, or NaN) */
        if (!m_any(c)) {
            e->t = zero;
            return c;
        }
    }
    /* the clamp to the grown kx and ky slabs (rp_ref_wt_tplane): the
     * triangle's own bound (rp_ref_wt_tri_inf, world order) and pad
     * (rp_ref_wt_pad), then rp_ref_wt_axis on the axes whose rd bounds */
    vf tinf;
    if (p) {
        tinf = vf_set1(rp_ref_wt_tri_inf(p));
    } else { /* one ray (bc_ray): the frame is r->wkx, wky, wkz */
        int pos[3];
        pos[r->wkx] = 0;
        pos[r->wky] = 1;
        pos[r->wkz] = 2;
        tinf = vf_xorsign(v[pos[0]], v[pos[0]]);
        for (int i = 1; i < 9; i++) {
            vf x = v[3 * (i / 3) + pos[i % 3]];
            tinf = vf_max(vf_xorsign(x, x), tinf);
        }
    }
    vf pm = vf_max(vf_xorsign(r->ox, r->ox), vf_xorsign(r->oy, r->oy));
    pm = vf_max(vf_xorsign(r->oz, r->oz), pm);
    pm = vf_add(pm, tinf);
    vf pad = vf_mul(pm, vf_set1(0x1p-19f));
    for (int k = 0; k < 2; k++) {
        vf ar = vf_xorsign(rd2[k], rd2[k]);
        vm bnd = m_and(vf_gt(ar, zero), vf_lt(ar, vf_set1(0x1.fffffep+127f)));
        vm ng = vf_lt(rd2[k], zero);
        vf om = vf_sub(o[k], pad), op = vf_add(o[k], pad);
        vf on = vf_select(ng, om, op), of = vf_select(ng, op, om);
        vf t0 = vf_sub(vf_select(ng, h[k], l[k]), on);
        vf t1 = vf_sub(vf_select(ng, l[k], h[k]), of);
        t0 = vf_mul(t0, rd2[k]);
        t1 = vf_mul(t1, rd2[k]);
        lo = vf_select(bnd, vf_max(t0, lo), lo);
        hi = vf_select(bnd, vf_min(t1, hi), hi);
    }
    t = vf_max(t, lo);
    t = vf_min(t, hi);
    e->t = vf_select(vf_gt(lo, hi), vf_set1(NAN), t);
    return c;
}

/* u = V / det and v = W / det in every lane, det = rp_ref_wt_det(U, V, W)
 * (rp_ref_wt_bary), four lanes at a time in double: the q layer's vqd,
 * whose widening, add, divide and rounding back are the reference's scalar
 * ones lane by lane.  The caller puts U = 1, V = W = 0 in the lanes with
 * no hit kept (det = 1: no division by zero).  Against a division in
 * double per lane and coordinate (two per hit, each a scalar divsd). */
RP_INLINE void wt_bary_v(vf U, vf V, vf W, vf *u, vf *v) {
    _Alignas(64) float a[V_W], b[V_W], c[V_W];
    vf_storeu(a, U);
    vf_storeu(b, V);
    vf_storeu(c, W);
    for (int g = 0; g < V_W; g += 4) {
        vqd du = qd_of(q_load(a + g)), dv = qd_of(q_load(b + g)), dw = qd_of(q_load(c + g));
        vqd det = qd_add(qd_add(du, dv), dw);
        q_store(b + g, q_of_d(qd_div(dv, det)));
        q_store(c + g, q_of_d(qd_div(dw, det)));
    }
    *u = vf_loadu(b);
    *v = vf_loadu(c);
}

/* The rest of a triangle's candidate decision (see tri_cand, wt_cand), on
 * the steps where c (test_cand's candidates) has a lane: the lanes that stay
 * candidates.  Watertight: the exact edge functions where an inside lane has
 * a zero one (the vertices again: f, or picked anew from p when f is NULL,
 * which keeps them out of registers on the hot path), then det and culling. */
RP_INLINE vm tri_late_b(int kind, unsigned flags, const vray *r, const float *p,
                        const vprim *f, vm c, vf best, veval *e, int below) {
    vf zero = vf_set1(0.0f);
    if (kind == K_WT) {
        vprim pv;
        if (m_any(m_and(c, wt_undecided(e)))) {
            if (!f) {
                wt_pick(r, p, pv.f);
                f = &pv;
            }
            c = m_and(c, wt_cand(r, f, e, 1));
        } else {
            c = m_and(c, wt_inside(e)); /* every lane of c decided in float */
        }
        if (!m_any(c)) {
            e->t = zero;
            return c;
        }
        return wt_finish(flags, r, p, f, c, best, e, below);
    }
    return (flags & RP_CULL_BACKFACE) ? c : m_and(c, vf_neq(e->det, zero));
}
/* tri_late without wt_finish's early drop below tmin (the kernels: their
 * rays seldom start on a triangle, and the test would cost every
 * candidate step) */
RP_INLINE vm tri_late(int kind, unsigned flags, const vray *r, const float *p,
                      const vprim *f, vm c, vf best, veval *e) {
    return tri_late_b(kind, flags, r, p, f, c, best, e, 0);
}

/* t of the candidates c (the divisions; called only when a lane is one;
 * lanes outside c get some t). */
RP_INLINE void test_t(int kind, const vray *r, vm c, veval *e) {
    if (kind == K_TRI) {
        e->t = tri_t(e);
    } else if (kind == K_WT) {
        /* t: wt_finish, with the decision */
    } else if (kind == K_SPH) {
        vf sq = vf_sqrt(e->disc);
        vf nb = vf_neg(e->b);
        vf t0 = vf_sub(nb, sq);
        t0 = vf_div(t0, e->a);
        vm near = vf_ge(t0, r->tmin);
        e->t = t0;
        /* the far root only where a candidate's near one is below tmin
         * (origin inside the sphere, or the sphere behind the ray): a
         * division less on most steps */
        if (m_any(m_andnot(c, near))) {
            vf t1 = vf_add(nb, sq);
            t1 = vf_div(t1, e->a);
            e->t = vf_select(near, t0, t1);
        }
    } else if (kind == K_PLN) {
        e->t = vf_div(e->num, e->denom);
    }
}
