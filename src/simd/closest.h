/*
 * closest.h - part 3 of the SIMD template (src/simd/kernels.h): the closest
 * hit.  put_hits writes a packet's new hits; closest_packet (W rays, one
 * broadcast primitive per step; n >= W), closest_across (one ray against
 * W primitives per step; n < W) and, where the layer defines RP_V_PAIR,
 * closest_pair (at most W/2 rays in both halves, two triangles per step)
 * are the reference's loop lane by lane, and closest chooses between them
 * (and, for packets, prepares Moller-Trumbore edges per chunk of triangles
 * and box planes per packet of one octant).  Then the table's entry points:
 * intersect_aabb (one box against every ray: hit, tnear, tfar),
 * closest_aabb, closest_triangle (instantiated per flags value),
 * closest_sphere and closest_plane.  Relies on block.h and prim.h.
 */

/* ------------------------------------------------------------------ */
/* Closest hit                                                           */
/* ------------------------------------------------------------------ */

/* Writes the new hits of a packet: every lane of upd has one.  A full block
 * whose lanes are all active is stored as whole vectors (the lanes without a
 * new hit rewrite the values just loaded, bit for bit); otherwise by masked
 * stores of the lanes of upd, only where the reference writes. */
RP_INLINE void put_hits(rp_rays *rays, rp_hits *hits, size_t i, size_t m, vm act, vm upd,
                        vf best, vi prim, vf u, vf v) {
    if (m == V_W && m_bits(act) == V_ALL) {
        vf_storeu(rays->tmax + i, best);
        vf_storeu(hits->t + i, vf_select(upd, best, vf_loadu(hits->t + i)));
        vf_storeu(hits->u + i, vf_select(upd, u, vf_loadu(hits->u + i)));
        vf_storeu(hits->v + i, vf_select(upd, v, vf_loadu(hits->v + i)));
        vi_storeu(hits->prim + i, prim);
        return;
    }
    vf_storeu_mask(rays->tmax + i, upd, best);
    vf_storeu_mask(hits->t + i, upd, best);
    vf_storeu_mask(hits->u + i, upd, u);
    vf_storeu_mask(hits->v + i, upd, v);
    vi_storeu_mask(hits->prim + i, upd, prim);
}

/* Rays i .. i+m-1 against every primitive, one broadcast primitive per
 * step; the running best of each lane stays in registers.  Per lane this is
 * the reference's loop: same tests, same order, same acceptance.  Lanes
 * that do not take part (inactive, invalid ray, padding) start with a NaN
 * best, which no test accepts (t <= NaN is false, and the slab's
 * tf = min(t1, NaN) stays NaN), so no per-test lane mask is needed.
 * Boxes: near, far (not NULL) are the planes every live lane uses
 * (packet_oct), broadcast from their places instead of picked per lane. */
RP_INLINE void closest_packet(int kind, rp_rays *rays, const uint8_t *active,
                              const float *prims, size_t count, uint32_t base,
                              unsigned flags, rp_hits *hits, size_t i, size_t m,
                              const int *near, const int *far) {
    const int nf = K_FLOATS(kind);
    vray r;
    ld_rays(rays, i, m,
            kind == K_BOX ? NEED_RD : kind == K_WT ? NEED_D | NEED_RD | NEED_WT : NEED_D, &r);
    vm act = ld_active(active, i, m);
    vm live = m_and(act, vf_eq(r.rdx, r.rdx)); /* an invalid ray hits nothing */
    if (!m_any(live))
        return;
    if (kind == K_WT)
        wt_uniform(&r, live);
    vi prim = ld_prim_index(hits->prim, i, m);
    vm nothas = vi_eq(prim, vi_set1(RP_NO_HIT));
    vf best = vf_select(live, r.tmax, vf_set1(NAN));
    vm upd = m_lanes(0);
    vf zero = vf_set1(0.0f);
    vf buu = zero, bvv = zero, bdet = vf_set1(1.0f);
    const vf no[3] = {vf_neg(r.ox), vf_neg(r.oy), vf_neg(r.oz)};
#ifdef RP_V_BCAST_OP
    vf nwo[3];
    wt_neg_origin(&r, kind == K_WT, nwo);
#endif
    /* the last triangle, padded: vf_pick reads one float past a triangle */
    float last[12] = {0};
    if (kind == K_WT)
        memcpy(last, prims + (count - 1) * 9, 9 * sizeof(float));

    size_t j0 = 0;
#ifdef RP_V_BOX2
    if (kind == K_BOX) {
        /* Where the layer asks for it (RP_V_BOX2): two boxes a step and
         * one branch for both, so half the mask extractions, tests and
         * loop counts.  Box j + 1's slab sees the best t from before box
         * j's acceptance, which is at least the best after it: its lanes
         * that pass are a superset of those that pass under the newer
         * best, with the same entries tn, and a lane of that superset
         * with tn <= the newer best passes under it too (tn <= tf was
         * shown with tf clipped by the larger best, and tn <= best is the
         * clip's other half).  The acceptance below, against the best and
         * record after box j, asks tn < best (or an empty record), which
         * implies tn <= best: so box j + 1 accepts exactly the lanes the
         * reference's loop does, in the same order. */
        for (; j0 + 1 < count; j0 += 2) {
            const float *p0 = prims + j0 * (size_t)nf, *p1 = p0 + nf;
            vf tn0 = r.tmin, tf0 = best, tn1 = r.tmin, tf1 = best;
            vm c0 = near ? slab_bc_oct(&r, no, p0, near, far, &tn0, &tf0)
                         : slab_bc(&r, no, p0, &tn0, &tf0);
            vm c1 = near ? slab_bc_oct(&r, no, p1, near, far, &tn1, &tf1)
                         : slab_bc(&r, no, p1, &tn1, &tf1);
            if (!m_any(m_or(c0, c1)))
                continue;
            for (int h = 0; h < 2; h++) {
                vm c = h ? c1 : c0;
                if (!m_any(c))
                    continue;
                vprim pv;
                bc_prim(h ? p1 : p0, nf, &pv);
                vf t = h ? tn1 : tn0;
                vm acc = m_and(m_and(c, box_valid_v(&pv)), m_or(vf_lt(t, best), nothas));
                if (!m_any(acc))
                    continue;
                best = vf_select(acc, t, best);
                nothas = m_andnot(nothas, acc);
                upd = m_or(upd, acc);
                prim = vi_select(acc, vi_set1(base + (uint32_t)(j0 + (size_t)h)), prim);
            }
        }
    }
#endif
    for (size_t j = j0; j < count; j++) {
        const float *p = prims + j * (size_t)nf;
        vprim pv;
        veval e;
        vm c;
        if (kind == K_BOX) {
            vf tn = r.tmin, tf = best;
            c = near ? slab_bc_oct(&r, no, p, near, far, &tn, &tf) : slab_bc(&r, no, p, &tn, &tf);
            e.t = tn;
        } else if (kind == K_WT) {
#ifdef RP_V_BCAST_OP
            if (r.wkx >= 0)
                c = m_and(wt_cand_bc(&r, p, nwo, &e), live);
            else
#endif
            {
                wt_pick(&r, j + 1 < count ? p : last, pv.f);
                c = m_and(wt_cand(&r, &pv, &e, 0), live); /* a NaN lane is undecided there */
            }
        } else {
            bc_prim(p, nf, &pv);
            c = test_cand(kind, &r, &pv, best, flags, 0, &e, p);
        }
        vm acc;
        if (kind == K_BOX) {
            /* most steps miss in every lane: test that first, with the
             * fewest vector operations (the slab and one compare); the
             * broadcast box's validity (uniform across the lanes) and the
             * acceptance are then computed on the rare steps that hit.
             * (Vector compares of the broadcasts, not scalar ones: the
             * compiler would hoist scalar compares into the hot path and
             * broadcast the fields from registers rather than memory.) */
            if (!m_any(c))
                continue;
            bc_prim(p, nf, &pv);
            c = m_and(c, box_valid_v(&pv));
            /* tmin <= tn <= best already holds for a slab hit */
            acc = m_and(c, m_or(vf_lt(e.t, best), nothas));
        } else {
            if (!m_any(c))
                continue;
            if (K_IS_TRI(kind))
                c = tri_late(kind, flags, &r, j + 1 < count ? p : last, NULL, c, best, &e);
            test_t(kind, &r, c, &e);
            /* rp_ref_accept */
            acc = m_and(m_and(c, vf_ge(e.t, r.tmin)), vf_le(e.t, best));
            acc = m_and(acc, m_or(vf_lt(e.t, best), nothas));
        }
        /* acceptances are rare after the first few primitives */
        if (!m_any(acc))
            continue;
        best = vf_select(acc, e.t, best);
        nothas = m_andnot(nothas, acc);
        upd = m_or(upd, acc);
        prim = vi_select(acc, vi_set1(base + (uint32_t)j), prim);
        if (K_IS_TRI(kind)) { /* watertight: U in bdet (det is rp_ref_wt_det) */
            buu = vf_select(acc, e.uu, buu);
            bvv = vf_select(acc, e.vv, bvv);
            bdet = vf_select(acc, kind == K_WT ? e.wu : e.det, bdet);
        }
    }
    if (!m_any(upd))
        return;
    vf u = zero, v = zero;
    if (kind == K_TRI) { /* rp_ref_tri_uv, for the kept hits only */
        u = vf_div(buu, bdet);
        v = vf_div(bvv, bdet);
    } else if (kind == K_WT) { /* rp_ref_wt_uv (lanes without a kept hit:
                                 * U = 1, V = W = 0 from the start) */
        wt_bary_v(bdet, buu, bvv, &u, &v);
    }
    put_hits(rays, hits, i, m, act, upd, vf_select(upd, best, r.tmax), prim, u, v);
}

#ifdef RP_V_PAIR
/* Moller-Trumbore (kind K_TRI) for m <= W / 2 rays (i = 0, one packet):
 * the rays in both halves of the lanes, triangle j in the low half and
 * j + 1 in the high half, so a step tests two triangles (closest_packet
 * would leave half of the lanes empty).  Per lane this is still the
 * reference's loop: both triangles are tested against the best at the
 * start of the step, then accepted in index order: j by the rule as in
 * closest_packet, j + 1 by the same rule against j's t where j was
 * accepted (best only decreases, and a kept j makes the record non-empty,
 * so that rule is t < t_j).  An odd last triangle is paired with itself
 * (its copy, j + 1 = count, never passes t < t_j).  Results in the low
 * half; the state (best, nothas) is kept in both halves. */
RP_INLINE void closest_pair(rp_rays *rays, const uint8_t *active, const float *prims,
                            size_t count, uint32_t base, unsigned flags, rp_hits *hits, size_t m) {
    const int nf = K_FLOATS(K_TRI);
    vray r;
    if (m == V_W / 2) { /* each array read in both halves at once */
        r.ox = vf_loadu_dup(rays->ox);
        r.oy = vf_loadu_dup(rays->oy);
        r.oz = vf_loadu_dup(rays->oz);
        r.dx = vf_loadu_dup(rays->dx);
        r.dy = vf_loadu_dup(rays->dy);
        r.dz = vf_loadu_dup(rays->dz);
        r.rdx = vf_loadu_dup(rays->rdx);
        r.tmin = vf_loadu_dup(rays->tmin);
        r.tmax = vf_loadu_dup(rays->tmax);
    } else {
        ld_rays(rays, 0, m, NEED_D, &r);
        r.ox = vf_dup_lo(r.ox);
        r.oy = vf_dup_lo(r.oy);
        r.oz = vf_dup_lo(r.oz);
        r.dx = vf_dup_lo(r.dx);
        r.dy = vf_dup_lo(r.dy);
        r.dz = vf_dup_lo(r.dz);
        r.rdx = vf_dup_lo(r.rdx);
        r.tmin = vf_dup_lo(r.tmin);
        r.tmax = vf_dup_lo(r.tmax);
    }
    vm act = ld_active(active, 0, m); /* the low half */
    vm live = m_and(act, vf_eq(r.rdx, r.rdx)); /* an invalid ray hits nothing */
    if (!m_any(live))
        return;
    vf tmax = r.tmax;
    vi prim = ld_prim_index(hits->prim, 0, m); /* low half */
    vm nothas = m_dup_lo(vi_eq(prim, vi_set1(RP_NO_HIT)));
    vf best = vf_dup_lo(vf_select(live, tmax, vf_set1(NAN)));
    vm upd = m_lanes(0); /* low half */
    vf zero = vf_set1(0.0f);
    vf buu = zero, bvv = zero, bdet = vf_set1(1.0f); /* low half */

    for (size_t j = 0; j < count; j += 2) {
        const float *p = prims + j * (size_t)nf;
        vprim pv;
        veval e;
        bc_prim2(p, j + 1 < count ? p + nf : p, nf, pv.f);
        vm c = test_cand(K_TRI, &r, &pv, best, flags, 0, &e, NULL);
        if (!m_any(c))
            continue;
        c = tri_late(K_TRI, flags, &r, NULL, &pv, c, best, &e);
        test_t(K_TRI, &r, c, &e);
        /* rp_ref_accept against the best at the start of the step */
        vm acc = m_and(m_and(c, vf_ge(e.t, r.tmin)), vf_le(e.t, best));
        acc = m_and(acc, m_or(vf_lt(e.t, best), nothas));
        if (!m_any(acc))
            continue;
        /* j + 1 after j: moved to the low half, it must beat j's t where
         * j was accepted */
        vm acc0 = m_lo(acc);
        vf t1 = vf_swap_halves(e.t);
        vm acc1 = m_and(m_hi_to_lo(acc), m_or(m_andnot(m_lanes(V_W / 2), acc0), vf_lt(t1, e.t)));
        vm any = m_or(acc0, acc1);
        vf nb = vf_select(acc1, t1, vf_select(acc0, e.t, best));
        best = vf_dup_lo(nb);
        nothas = m_andnot(nothas, m_dup_lo(any));
        upd = m_or(upd, any);
        prim = vi_select(acc1, vi_set1(base + (uint32_t)j + 1u),
                         vi_select(acc0, vi_set1(base + (uint32_t)j), prim));
        buu = vf_select(acc1, vf_swap_halves(e.uu), vf_select(acc0, e.uu, buu));
        bvv = vf_select(acc1, vf_swap_halves(e.vv), vf_select(acc0, e.vv, bvv));
        bdet = vf_select(acc1, vf_swap_halves(e.det), vf_select(acc0, e.det, bdet));
    }
    if (!m_any(upd))
        return;
    /* rp_ref_tri_uv, for the kept hits only */
    vf u = vf_div(buu, bdet);
    vf v = vf_div(bvv, bdet);
    put_hits(rays, hits, 0, m, act, upd, vf_select(upd, best, tmax), prim, u, v);
}
#endif

/* closest_across's running best: t, whether the record held a hit, the
 * primitive, and (triangles) the barycentric numerators and det. */
typedef struct across_best {
    float best;
    int has;
    size_t best_j;
    float buu, bvv, bdet;
} across_best;

/* One step of closest_across: primitives j .. j+m-1 (m <= V_W) against ray
 * r.  Called with m = V_W in the loop and once for a partial tail, so that
 * a full step is the block transposition alone: with one step for both,
 * gcc 12 joined ld_prims' two paths through the stack (the transposed
 * fields stored and loaded back at every step).  Sapphire Rapids, four
 * alternated runs of `rp_bench --benchmark_filter='^(aabb|tri)/(avx2|
 * avx512|sse41)/(pick|8x8|packet)$'`, medians, cycles per test: box
 * picking AVX-512 2.62 -> 1.90, AVX2 2.44 -> 2.26, SSE4.1 3.80 -> 3.50;
 * triangle picking 2-4% faster; the packet rows within 3%. */
RP_INLINE void across_step(int kind, const vray *r, const float *prims, size_t j, size_t m,
                           unsigned flags, const int oct, across_best *ab) {
    const int nf = K_FLOATS(kind);
    /* boxes: one ray in every lane, so each axis' near and far planes are
     * chosen once per step by the ray's sign (the reference's rd < 0; bit
     * a of oct for axis a), by swapping whole vectors instead of 6 per-lane
     * selects */
    const int negx = oct & 1, negy = (oct >> 1) & 1, negz = (oct >> 2) & 1;
    vprim pv, nv;
    veval e;
    vm lanes = ld_prims(prims + j * (size_t)nf, nf, m, &pv);
    float best = ab->best;
    vf vbest = vf_set1(best);
    const vprim *tp = &pv;
    if (kind == K_WT) {
        wt_permute(r, &pv, &nv);
        tp = &nv;
    } else if (kind == K_BOX) {
        nv.f[0] = negx ? pv.f[3] : pv.f[0];
        nv.f[3] = negx ? pv.f[0] : pv.f[3];
        nv.f[1] = negy ? pv.f[4] : pv.f[1];
        nv.f[4] = negy ? pv.f[1] : pv.f[4];
        nv.f[2] = negz ? pv.f[5] : pv.f[2];
        nv.f[5] = negz ? pv.f[2] : pv.f[5];
        tp = &nv;
    }
    vm c = m_and(test_cand(kind, r, tp, vbest, flags, 1, &e, NULL), lanes);
    if (!m_any(c))
        return;
    if (kind == K_BOX) /* the boxes' validity, on the steps that hit */
        c = m_and(c, box_valid_v(&pv));
    if (K_IS_TRI(kind))
        c = tri_late(kind, flags, r, NULL, tp, c, vbest, &e);
    test_t(kind, r, c, &e);
    vm acc = m_and(m_and(c, vf_ge(e.t, r->tmin)), vf_le(e.t, vbest));
    unsigned bits = m_bits(acc);
    if (!bits)
        return;
    float tb[V_W], ub[V_W], vb[V_W], db[V_W];
    vf_storeu(tb, e.t);
    if (K_IS_TRI(kind)) { /* watertight: U in db */
        vf_storeu(ub, e.uu);
        vf_storeu(vb, e.vv);
        vf_storeu(db, kind == K_WT ? e.wu : e.det);
    }
    for (size_t k = 0; k < V_W; k++) {
        if (!((bits >> k) & 1u))
            continue;
        float t = tb[k];
        if ((t <= ab->best) & ((t < ab->best) | !ab->has)) {
            ab->best = t;
            ab->has = 1;
            ab->best_j = j + k;
            if (K_IS_TRI(kind)) {
                ab->buu = ub[k];
                ab->bvv = vb[k];
                ab->bdet = db[k];
            }
        }
    }
}

/* Active ray i against W primitives per step.  The lanes are tested against
 * the best t at the start of the step; those that pass are resolved in index
 * order with the reference's scalar acceptance, which is exact because the
 * best only decreases (a slab hit clipped by the older, larger best still
 * needs tn <= best, which the scalar check adds). */
RP_INLINE void closest_across(int kind, rp_rays *rays, const float *prims, size_t count,
                              uint32_t base, unsigned flags, rp_hits *hits, size_t i) {
    float rdx = rays->rdx[i];
    if (!(rdx == rdx)) /* an invalid ray hits nothing */
        return;
    vray r;
    bc_ray(rays, i, kind == K_WT ? NEED_WT : 0, &r);
    across_best ab = {rays->tmax[i], hits->prim[i] != RP_NO_HIT, SIZE_MAX, 0.0f, 0.0f, 1.0f};
    const int oct = (rays->rdx[i] < 0.0f) | (rays->rdy[i] < 0.0f) << 1 | (rays->rdz[i] < 0.0f) << 2;
    size_t full = count - count % V_W;
    for (size_t j = 0; j < full; j += V_W)
        across_step(kind, &r, prims, j, V_W, flags, oct, &ab);
    if (full < count)
        across_step(kind, &r, prims, full, count - full, flags, oct, &ab);
    if (ab.best_j == SIZE_MAX)
        return;
    rays->tmax[i] = ab.best;
    hits->t[i] = ab.best;
    float u = 0.0f, v = 0.0f;
    if (kind == K_TRI) {
        u = ab.buu / ab.bdet;
        v = ab.bvv / ab.bdet;
    } else if (kind == K_WT) { /* rp_ref_wt_uv, U in bdet */
        double det = rp_ref_wt_det(ab.bdet, ab.buu, ab.bvv);
        u = rp_ref_wt_bary(ab.buu, det);
        v = rp_ref_wt_bary(ab.bvv, det);
    }
    hits->u[i] = u;
    hits->v[i] = v;
    hits->prim[i] = base + (uint32_t)ab.best_j;
}

/* Rays i .. i+m-1 (m <= V_W) against every primitive: box packets of one
 * octant by packet_oct's planes.  closest calls it with m = V_W for the
 * full blocks and once for the tail, as closest_across does its steps
 * (across_step: triangles 8 x 8 AVX2 3.49 -> 3.38 cycles per test, the
 * other packet rows within 2%). */
RP_INLINE void closest_block(int kind, rp_rays *rays, const uint8_t *active, const float *pf,
                             size_t count, uint32_t base, unsigned flags, rp_hits *hits,
                             size_t i, size_t m) {
    int near[3], far[3];
    if (kind == K_BOX && packet_oct(rays, active, i, m, near, far))
        closest_packet(K_BOX, rays, active, pf, count, base, flags, hits, i, m, near, far);
    else
        closest_packet(kind, rays, active, pf, count, base, flags, hits, i, m, NULL, NULL);
}

RP_INLINE void closest(int kind, rp_rays *rays, const uint8_t *active, const void *prims,
                       size_t count, uint32_t base, unsigned flags, rp_hits *hits) {
    const float *pf = (const float *)prims;
    size_t n = rays->n;
#ifdef RP_V_PAIR
    /* pairs for 5 to 8 rays whatever the count: on a Sapphire Rapids core
     * a pair step costs about what closest_across spends per ray on W
     * triangles, so pairs win from 5 rays on (8 x 64: 998 -> 504 ns,
     * 6 x 64: 639 -> 488, 5 x 64: equal, 4 x 64: 366 -> 463, medians of 3);
     * below that, where closest_packet would run */
    if (kind == K_TRI && n <= V_W / 2 && (n >= 5 || !use_across(n, count))) {
        closest_pair(rays, active, pf, count, base, flags, hits, n);
        return;
    }
#endif
    if (use_across(n, count)) {
        for (size_t i = 0; i < n; i++)
            if (!active || active[i])
                closest_across(kind, rays, pf, count, base, flags, hits, i);
        return;
    }
    if (kind == K_TRI && n >= RP_EDGE_RAYS) { /* edges once per chunk for every packet */
        float pe[RP_EDGE_CHUNK * 9];
        for (size_t j = 0; j < count; j += RP_EDGE_CHUNK) {
            size_t c = tri_edges(pf, count, j, pe);
            size_t full = n - n % V_W;
            for (size_t i = 0; i < full; i += V_W)
                closest_packet(K_TRI, rays, active, pe, c, base + (uint32_t)j,
                               flags | RP_I_EDGES, hits, i, V_W, NULL, NULL);
            if (full < n)
                closest_packet(K_TRI, rays, active, pe, c, base + (uint32_t)j,
                               flags | RP_I_EDGES, hits, full, n - full, NULL, NULL);
        }
        return;
    }
    size_t full = n - n % V_W;
    for (size_t i = 0; i < full; i += V_W)
        closest_block(kind, rays, active, pf, count, base, flags, hits, i, V_W);
    if (full < n)
        closest_block(kind, rays, active, pf, count, base, flags, hits, full, n - full);
}

/* ------------------------------------------------------------------ */
/* The kernels                                                           */
/* ------------------------------------------------------------------ */

/* Rays i .. i+m-1 of r against the broadcast box b (box_ok: its validity
 * in every lane); act: the lanes that take part (all of a full block when
 * full, which stores whole vectors). */
RP_INLINE void aabb_block(const rp_rays *r, const vprim *b, vm box_ok, size_t i, size_t m,
                          vm act, int full, uint8_t *hit, float *tnear, float *tfar) {
    vray v;
    ld_rays(r, i, m, NEED_RD, &v);
    vf tn = v.tmin, tf = v.tmax;
    vm h = slab(&v, b, 0, &tn, &tf);
    h = m_and(m_and(h, vf_eq(v.rdx, v.rdx)), box_ok);
    if (full) {
        m_store01(hit + i, h);
        if (tnear)
            vf_storeu(tnear + i, tn);
        if (tfar)
            vf_storeu(tfar + i, tf);
        return;
    }
    m_store01_mask(hit + i, act, h);
    if (tnear)
        vf_storeu_mask(tnear + i, act, tn);
    if (tfar)
        vf_storeu_mask(tfar + i, act, tf);
}

/* The common call, out of line: no active mask, both tnear and tfar, a
 * valid box, n a multiple of W (n > 0).  Whole vectors only, no mask or
 * NULL test in the loop, and few values live, so no stack realignment or
 * register spills (the general function below keeps three loops' worth of
 * state).  The rays' struct is copied to a local: its array pointers stay
 * in registers (the stores to hit, tnear, tfar cannot change them). */
static __attribute__((noinline)) void aabb_plain(const rp_rays *rays, const float *bp,
                                                 uint8_t *hit, float *tnear, float *tfar) {
    if (!tnear || !tfar) /* never: the caller's condition; the loop tests neither */
        __builtin_unreachable();
    const rp_rays r = *rays;
    vprim b;
    bc_prim(bp, 6, &b);
    for (size_t i = 0; i < r.n; i += V_W)
        aabb_block(&r, &b, m_lanes(V_W), i, V_W, m_lanes(V_W), 1, hit, tnear, tfar);
}

/* Every other call.  Fewer than W rays without masked loads run the
 * reference's loop (the same results by definition: one partial block
 * would be copied lane by lane, array by array); the full blocks of a call
 * without an active mask run a loop of their own with no tail test.  (Its
 * copies per box validity, 20ded7c, went with the valid box's common call
 * to aabb_plain.) */
static __attribute__((noinline)) void aabb_general(const rp_rays *rays, const uint8_t *active,
                                                   const rp_aabb *box, uint8_t *hit,
                                                   float *tnear, float *tfar) {
#ifndef RP_V_MASKED_F
    if (rays->n < V_W) { /* a partial block would be copied lane by lane */
        rp_kernels_scalar.intersect_aabb(rays, active, box, hit, tnear, tfar);
        return;
    }
#endif
    const rp_rays r = *rays;
    const float *bp = (const float *)box;
    vprim b;
    bc_prim(bp, 6, &b);
    const int ok = box_valid_1(bp);
    vm box_ok = m_lanes(ok ? V_W : 0);
    const size_t n = r.n;
    size_t i = 0;
    if (!active)
        for (; n - i >= V_W; i += V_W)
            aabb_block(&r, &b, box_ok, i, V_W, m_lanes(V_W), 1, hit, tnear, tfar);
    for (; i < n; i += V_W) {
        size_t m = min_w(n - i);
        vm act = ld_active(active, i, m);
        unsigned abits = m_bits(act);
        if (!abits)
            continue;
        aabb_block(&r, &b, box_ok, i, m, act, m == V_W && abits == V_ALL, hit, tnear, tfar);
    }
}

/* The table's entry: the common call (aabb_plain) or every other
 * (aabb_general), each a tail call. */
static void intersect_aabb(const rp_rays *rays, const uint8_t *active, const rp_aabb *box,
                           uint8_t *hit, float *tnear, float *tfar) {
    const float *bp = (const float *)box;
    if (!active && tnear && tfar && rays->n % V_W == 0 && box_valid_1(bp))
        aabb_plain(rays, bp, hit, tnear, tfar);
    else
        aabb_general(rays, active, box, hit, tnear, tfar);
}

static void closest_aabb(rp_rays *rays, const uint8_t *active, const rp_aabb *boxes,
                         size_t count, uint32_t base, rp_hits *hits) {
    closest(K_BOX, rays, active, boxes, count, base, 0, hits);
}

/* The triangle kernels are instantiated per flags value (a constant after
 * inlining), so the choice of test and culling costs nothing per step; each
 * instance a function of its own (noinline), as the scene walks are
 * (src/scene/traverse_simd.h): the four inlined into one function made it
 * the file's largest after scene_query (79 KB of AVX2 code), slow to
 * compile for its size, and the call is one per kernel call. */
typedef void (*closest_triangle_fn)(rp_rays *, const uint8_t *, const rp_triangle *, size_t,
                                    uint32_t, rp_hits *);
#define RP_CLOSEST_TRI(sfx, kind, fl)                                                             \
    static __attribute__((noinline)) void closest_triangle_##sfx(                                \
        rp_rays *rays, const uint8_t *active, const rp_triangle *tris, size_t count,              \
        uint32_t base, rp_hits *hits) {                                                           \
        closest(kind, rays, active, tris, count, base, fl, hits);                                 \
    }
RP_TRI_FLAGS(RP_CLOSEST_TRI)
#undef RP_CLOSEST_TRI
static const closest_triangle_fn closest_triangle_of[2][2] =
    RP_TRI_FLAGS_TABLE(closest_triangle_);

static void closest_triangle(rp_rays *rays, const uint8_t *active, const rp_triangle *tris,
                             size_t count, uint32_t base, unsigned flags, rp_hits *hits) {
    RP_TRI_FLAGS_OF(closest_triangle_of, flags)(rays, active, tris, count, base, hits);
}

static void closest_sphere(rp_rays *rays, const uint8_t *active, const rp_sphere *spheres,
                           size_t count, uint32_t base, rp_hits *hits) {
    closest(K_SPH, rays, active, spheres, count, base, 0, hits);
}

static void closest_plane(rp_rays *rays, const uint8_t *active, const rp_plane *planes,
                          size_t count, uint32_t base, rp_hits *hits) {
    closest(K_PLN, rays, active, planes, count, base, 0, hits);
}
