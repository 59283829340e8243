/*
 * prepare.h - rp_rays_prepare's loop for a SIMD variant (part of the
 * template src/simd/kernels.h): rp_ref_prepare (src/scalar/ref.h) on V_W
 * rays a step.  1 / d is a correctly rounded division in every lane, as the
 * reference's, in every rounding mode and under FTZ and DAZ (the vector
 * division follows MXCSR or FPCR as the scalar one does); a ray whose
 * origin or direction has an infinite or NaN component gets NaN in all
 * three reciprocals (the reference's isfinite is |x| < inf here: false for
 * both, true for every finite value, a denormal included).  The last
 * partial step loads and stores only its m lanes (block.h's ld_f and
 * vf_storeu_mask).  A table entry (rp_kernels.rays_prepare): the public
 * call checks the arrays first.  It replaces the reference's loop, about
 * 12 cycles a ray (three scalar divisions), on every batch a caller
 * prepares: a renderer's primary rays cost 120-180 cycles each.
 */

/* rays i .. i+m-1 (m <= V_W) */
RP_INLINE void prepare_step(rp_rays *r, size_t i, size_t m) {
    const vf inf = vf_set1(INFINITY);
    vf o[3] = {ld_f(r->ox, i, m), ld_f(r->oy, i, m), ld_f(r->oz, i, m)};
    vf d[3] = {ld_f(r->dx, i, m), ld_f(r->dy, i, m), ld_f(r->dz, i, m)};
    vm fin = m_lanes((size_t)V_W);
    for (int a = 0; a < 3; a++) {
        fin = m_and(fin, vf_lt(vf_xorsign(o[a], o[a]), inf));
        fin = m_and(fin, vf_lt(vf_xorsign(d[a], d[a]), inf));
    }
    float *out[3] = {r->rdx, r->rdy, r->rdz};
    for (int a = 0; a < 3; a++) {
        vf rd = vf_select(fin, vf_div(vf_set1(1.0f), d[a]), vf_set1(NAN));
        if (m == V_W)
            vf_storeu(out[a] + i, rd);
        else
            vf_storeu_mask(out[a] + i, m_lanes(m), rd);
    }
}

static void rays_prepare(rp_rays *r) {
    size_t n = r->n, i = 0;
    for (; n - i >= V_W; i += V_W)
        prepare_step(r, i, V_W);
    if (i < n)
        prepare_step(r, i, n - i);
}
