/*
 * check.c - the one argument check of the API layer: rp_check_args walks a
 * call's list of {pointer, bytes, role} entries (internal.h) in order and
 * returns the first status a bad argument gets (a status entry's own,
 * RP_ERR_NULL, RP_ERR_ALIGN), then RP_ERR_ALIAS if an output overlaps an
 * input or another output; and the older span-based helpers the scene
 * entry points use (rp_check_rays, rp_check_hits, rp_check_overlaps), now
 * built on the same lists.  The entry points call rp_check_args only when
 * the inlined fast path of check.h cannot say RP_OK by itself, so this file
 * is exact rather than fast; its lists have at most ~30 entries, so it is
 * O(1) all the same.
 */
#include "check.h"

typedef rp_span span;

/* [a, a + na) and [b, b + nb) share a byte (empty or NULL ranges never do) */
static int ranges_overlap(uintptr_t a, size_t na, uintptr_t b, size_t nb) {
    return a && b && na && nb && a < b + nb && b < a + na;
}

rp_status rp_check_args(const rp_arg *a, size_t n) {
    for (size_t k = 0; k < n; k++) {
        if (a[k].role & RP_ARG_STATUS) {
            if (a[k].bytes)
                return (rp_status)a[k].bytes;
            continue;
        }
        if (!a[k].p && a[k].bytes && !(a[k].role & RP_ARG_OPT))
            return RP_ERR_NULL;
        if ((a[k].role & RP_ARG_ALIGN) && !rp_aligned4(a[k].p))
            return RP_ERR_ALIGN;
    }
    for (size_t k = 0; k < n; k++) {
        if (!(a[k].role & RP_ARG_OUT))
            continue;
        for (size_t j = 0; j < n; j++) {
            int other = (a[j].role & RP_ARG_IN) || ((a[j].role & RP_ARG_OUT) && j > k);
            if (j != k && other &&
                ranges_overlap((uintptr_t)a[k].p, a[k].bytes, (uintptr_t)a[j].p, a[j].bytes))
                return RP_ERR_ALIAS;
        }
    }
    return RP_OK;
}

/* Outputs must not overlap inputs nor each other (the scene's checks). */
rp_status rp_check_overlaps(const span *in, size_t nin, const span *out, size_t nout) {
    for (size_t i = 0; i < nout; i++) {
        for (size_t j = 0; j < nin; j++)
            if (ranges_overlap((uintptr_t)out[i].p, out[i].bytes, (uintptr_t)in[j].p, in[j].bytes))
                return RP_ERR_ALIAS;
        for (size_t j = i + 1; j < nout; j++)
            if (ranges_overlap((uintptr_t)out[i].p, out[i].bytes, (uintptr_t)out[j].p, out[j].bytes))
                return RP_ERR_ALIAS;
    }
    return RP_OK;
}

/* The rays' arrays: present, aligned, sized, prepared.  Fills the 11 input
 * spans (tmax included; closest kernels treat it as an output as well). */
rp_status rp_check_rays(const rp_rays *r, span in[11]) {
    if (!r)
        return RP_ERR_NULL;
    rp_arg a[ARGS_RAYS];
    args_rays(r, RP_ARG_IN, a);
    rp_status s = rp_check_args(a, ARGS_RAYS);
    if (s)
        return s;
    for (int k = 0; k < 11; k++) {
        in[k].p = a[1 + k].p;
        in[k].bytes = a[1 + k].bytes;
    }
    return RP_OK;
}

/* The hit record arrays t, u, v, prim as output spans. */
rp_status rp_check_hits(const rp_hits *h, size_t n, span out[4]) {
    rp_arg a[ARGS_HITS];
    args_hits(h, n, RP_ARG_OUT, a);
    rp_status s = rp_check_args(a, ARGS_HITS);
    if (s)
        return s;
    for (int k = 0; k < 4; k++) {
        out[k].p = a[2 + k].p;
        out[k].bytes = a[2 + k].bytes;
    }
    return RP_OK;
}
