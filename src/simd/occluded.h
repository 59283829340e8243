/*
 * occluded.h - part 4 of the SIMD template (src/simd/kernels.h): the any-hit
 * query of triangles.  occluded_packet and occluded_across are the two
 * shapes of closest.h (packets for n >= W, one ray against W triangles for
 * n < W) stopping at a lane's first hit; occluded chooses between them, and
 * occluded_triangle is the table's entry point (instantiated per flags
 * value).  Relies on block.h and prim.h.
 */

/* Any hit: lanes leave the packet as soon as they are occluded, and the
 * packet stops when none is left.  Writes only 1s.  *occ: the lanes
 * occluded by the call's earlier chunks (RP_I_EDGES), which are not tested
 * again; updated.  Whether a lane is left is asked where it can change,
 * after a step with a hit, not on every step, and only the occluded lanes'
 * bytes are visited at the end (Sapphire Rapids, three alternated runs of
 * occluded/<variant>/64x64: AVX2 2.56 -> 2.49 cycles per test, AVX-512
 * 1.80 -> 1.75, SSE4.1 5.55 -> 5.48, watertight -0.2% to -2.4%). */
RP_INLINE void occluded_packet(int kind, const rp_rays *rays, const uint8_t *active,
                               const float *tris, size_t count, unsigned flags, uint8_t *occluded,
                               size_t i, size_t m, vm *occ_io) {
    vray r;
    ld_rays(rays, i, m, kind == K_WT ? NEED_D | NEED_RD | NEED_WT : NEED_D, &r);
    vm occ = *occ_io;
    vm todo = m_andnot(m_and(ld_active(active, i, m), vf_eq(r.rdx, r.rdx)), occ);
    if (kind == K_WT)
        wt_uniform(&r, todo);
    float last[12] = {0}; /* as in closest_packet */
    if (kind == K_WT)
        memcpy(last, tris + (count - 1) * 9, 9 * sizeof(float));
#ifdef RP_V_BCAST_OP
    vf nwo[3];
    wt_neg_origin(&r, kind == K_WT, nwo);
#endif
    if (!m_any(todo))
        count = 0;
    for (size_t j = 0; j < count; j++) {
        vprim pv;
        veval e;
        vm c;
        if (kind == K_WT) {
#ifdef RP_V_BCAST_OP
            if (r.wkx >= 0)
                c = wt_cand_bc(&r, tris + j * 9, nwo, &e);
            else
#endif
            {
                wt_pick(&r, j + 1 < count ? tris + j * 9 : last, pv.f);
                c = wt_cand(&r, &pv, &e, 0);
            }
        } else {
            bc_prim(tris + j * 9, 9, &pv);
            c = tri_cand(&r, &pv, flags, &e, tris + j * 9);
        }
        c = m_and(c, todo);
        if (!m_any(c))
            continue;
        c = tri_late(kind, flags, &r, j + 1 < count ? tris + j * 9 : last, NULL, c, r.tmax, &e);
        test_t(kind, &r, c, &e);
        vm h = m_and(m_and(c, vf_ge(e.t, r.tmin)), vf_le(e.t, r.tmax));
        occ = m_or(occ, h);
        todo = m_andnot(todo, h);
        if (!m_any(todo))
            break;
    }
    *occ_io = occ;
    for (unsigned bits = m_bits(occ); bits; bits &= bits - 1u)
        occluded[i + (size_t)__builtin_ctz(bits)] = 1;
}

/* One step of occluded_across: triangles j .. j+m-1 (m <= V_W) against ray
 * r; 1 when one of them occludes it.  Called with m = V_W in the loop and
 * once for a partial tail (as across_step in closest.h). */
RP_INLINE int occluded_step(int kind, const vray *r, const float *tris, size_t j, size_t m,
                            unsigned flags) {
    vprim pv, nv;
    veval e;
    vm lanes = ld_prims(tris + j * 9, 9, m, &pv);
    vm c;
    if (kind == K_WT) {
        wt_permute(r, &pv, &nv);
        c = wt_cand(r, &nv, &e, 0);
    } else {
        c = tri_cand(r, &pv, flags, &e, NULL);
    }
    c = m_and(c, lanes);
    if (!m_any(c))
        return 0;
    c = tri_late(kind, flags, r, NULL, &nv, c, r->tmax, &e);
    test_t(kind, r, c, &e);
    vm h = m_and(m_and(c, vf_ge(e.t, r->tmin)), vf_le(e.t, r->tmax));
    return m_any(h);
}

/* Active ray i against W triangles per step (occluded_step): occluded[i]
 * set at the first step with a hit in [tmin, tmax]. */
RP_INLINE void occluded_across(int kind, const rp_rays *rays, const float *tris, size_t count,
                               unsigned flags, uint8_t *occluded, size_t i) {
    float rdx = rays->rdx[i];
    if (!(rdx == rdx))
        return;
    vray r;
    bc_ray(rays, i, kind == K_WT ? NEED_WT : 0, &r);
    size_t full = count - count % V_W;
    for (size_t j = 0; j < full; j += V_W)
        if (occluded_step(kind, &r, tris, j, V_W, flags)) {
            occluded[i] = 1;
            return;
        }
    if (full < count && occluded_step(kind, &r, tris, full, count - full, flags))
        occluded[i] = 1;
}

RP_INLINE void occluded(int kind, const rp_rays *rays, const uint8_t *active,
                        const rp_triangle *tris, size_t count, unsigned flags,
                        uint8_t *occluded) {
    const float *tf = (const float *)tris;
    size_t n = rays->n;
    if (use_across(n, count)) {
        for (size_t i = 0; i < n; i++)
            if (!active || active[i])
                occluded_across(kind, rays, tf, count, flags, occluded, i);
        return;
    }
    if (kind == K_TRI && n >= RP_EDGE_RAYS) {
        /* edges once per chunk (RP_I_EDGES) for a group of packets, each
         * packet's occluded lanes kept from chunk to chunk */
        enum { GROUP = 8 };
        float pe[RP_EDGE_CHUNK * 9];
        for (size_t i0 = 0; i0 < n; i0 += GROUP * V_W) {
            vm occ[GROUP];
            for (int g = 0; g < GROUP; g++)
                occ[g] = m_lanes(0);
            for (size_t j = 0; j < count; j += RP_EDGE_CHUNK) {
                size_t c = tri_edges(tf, count, j, pe);
                for (int g = 0; g < GROUP && i0 + (size_t)g * V_W < n; g++) {
                    size_t i = i0 + (size_t)g * V_W;
                    occluded_packet(K_TRI, rays, active, pe, c, flags | RP_I_EDGES, occluded, i,
                                    min_w(n - i), &occ[g]);
                }
            }
        }
        return;
    }
    for (size_t i = 0; i < n; i += V_W) {
        vm occ = m_lanes(0);
        occluded_packet(kind, rays, active, tf, count, flags, occluded, i, min_w(n - i), &occ);
    }
}

/* One function per flags value (noinline), as closest_triangle's. */
typedef void (*occluded_triangle_fn)(const rp_rays *, const uint8_t *, const rp_triangle *,
                                     size_t, uint8_t *);
#define RP_OCCLUDED_TRI(sfx, kind, fl)                                                            \
    static __attribute__((noinline)) void occluded_triangle_##sfx(                               \
        const rp_rays *rays, const uint8_t *active, const rp_triangle *tris, size_t count,        \
        uint8_t *occluded_out) {                                                                  \
        occluded(kind, rays, active, tris, count, fl, occluded_out);                              \
    }
RP_TRI_FLAGS(RP_OCCLUDED_TRI)
#undef RP_OCCLUDED_TRI
static const occluded_triangle_fn occluded_triangle_of[2][2] =
    RP_TRI_FLAGS_TABLE(occluded_triangle_);

static void occluded_triangle(const rp_rays *rays, const uint8_t *active, const rp_triangle *tris,
                              size_t count, unsigned flags, uint8_t *occluded_out) {
    RP_TRI_FLAGS_OF(occluded_triangle_of, flags)(rays, active, tris, count, occluded_out);
}
