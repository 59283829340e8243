/*
 * statuses.c - rp_statuses, the argument checks against a model: random
 * argument layouts (the caller's arrays and batches laid out as
 * rp_rays_alloc / rp_hits_alloc do, all inside one buffer; pointers moved
 * onto other arrays, into padding, off by a byte; NULL, misaligned,
 * unprepared, n mismatched, index_base near RP_NO_HIT, unknown flags) go
 * through the twelve checked entry points, and each status must be the one
 * a plain model of the rules in docs/SEMANTICS.md ("Arguments") gives, in
 * the order the entry points always checked them (per pointer NULL before
 * alignment; overlaps last).  On any status but RP_OK the whole buffer
 * must be unchanged: nothing written.  The library decides most calls on
 * an inlined fast path (src/api/check.h); this keeps it exact.
 * Usage: rp_statuses [ITERATIONS [SEED]]; prints "N passed, N failed".
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raypack.h"

#define PREPARED_MAGIC 0x52505250u /* rp_rays.prepared_ after rp_rays_prepare (src/internal.h) */

/* ---- the model ---- */
typedef struct sp { const void *p; size_t b; } sp;

static int overlap(sp a, sp b) {
    uintptr_t x = (uintptr_t)a.p, y = (uintptr_t)b.p;
    return x && y && a.b && b.b && x < y + b.b && y < x + a.b;
}
/* outputs against inputs and against each other */
static rp_status m_alias(const sp *in, int nin, const sp *out, int nout) {
    for (int i = 0; i < nout; i++) {
        for (int j = 0; j < nin; j++)
            if (overlap(out[i], in[j])) return RP_ERR_ALIAS;
        for (int j = i + 1; j < nout; j++)
            if (overlap(out[i], out[j])) return RP_ERR_ALIAS;
    }
    return RP_OK;
}
static int misaligned(const void *p) { return ((uintptr_t)p & 3u) != 0; }

/* rays: in[0..10] = ox oy oz dx dy dz rdx rdy rdz tmin tmax */
static rp_status m_rays(const rp_rays *r, sp in[11]) {
    if (!r) return RP_ERR_NULL;
    if (r->n > SIZE_MAX / 4) return RP_ERR_COUNT;
    const float *a[11] = {r->ox, r->oy, r->oz, r->dx, r->dy, r->dz,
                          r->rdx, r->rdy, r->rdz, r->tmin, r->tmax};
    for (int k = 0; k < 11; k++) {
        if (!a[k] && r->n) return RP_ERR_NULL;
        if (misaligned(a[k])) return RP_ERR_ALIGN;
        in[k].p = a[k];
        in[k].b = r->n * 4;
    }
    if (r->prepared_ != PREPARED_MAGIC || r->prepared_n_ != r->n) return RP_ERR_NOT_PREPARED;
    return RP_OK;
}
static rp_status m_prims(const void *p, size_t count, size_t elem, uint32_t base, int indexed,
                         sp *s) {
    if (count > SIZE_MAX / elem) return RP_ERR_COUNT;
    if (indexed && count > (size_t)(RP_NO_HIT - base)) return RP_ERR_COUNT;
    if (count && !p) return RP_ERR_NULL;
    if (count && misaligned(p)) return RP_ERR_ALIGN;
    s->p = p;
    s->b = count * elem;
    return RP_OK;
}
/* out[0..3] = t u v prim */
static rp_status m_hits(const rp_hits *h, size_t n, sp out[4]) {
    if (!h) return RP_ERR_NULL;
    if (h->n != n) return RP_ERR_SIZE_MISMATCH;
    const void *a[4] = {h->t, h->u, h->v, h->prim};
    for (int k = 0; k < 4; k++) {
        if (!a[k] && n) return RP_ERR_NULL;
        if (misaligned(a[k])) return RP_ERR_ALIGN;
        out[k].p = a[k];
        out[k].b = n * 4;
    }
    return RP_OK;
}
static int bad_flags(unsigned f) { return (f & ~(RP_CULL_BACKFACE | RP_WATERTIGHT)) != 0; }

static rp_status m_intersect(const rp_rays *r, const uint8_t *act, const void *box,
                             const uint8_t *hit, const float *tn, const float *tf) {
    sp in[13], out[3];
    rp_status s = m_rays(r, in);
    if (s) return s;
    if ((!box || !hit) && r->n) return RP_ERR_NULL;
    if (misaligned(box) || misaligned(tn) || misaligned(tf)) return RP_ERR_ALIGN;
    in[11] = (sp){act, r->n};
    in[12] = (sp){box, 24};
    out[0] = (sp){hit, r->n};
    out[1] = (sp){tn, r->n * 4};
    out[2] = (sp){tf, r->n * 4};
    return m_alias(in, 13, out, 3);
}
static rp_status m_closest(const rp_rays *r, const uint8_t *act, const void *p, size_t count,
                           size_t elem, uint32_t base, const rp_hits *h) {
    sp in[13], out[5];
    rp_status s = m_rays(r, in);
    if (s) return s;
    in[11] = (sp){act, r->n};
    if ((s = m_prims(p, count, elem, base, 1, &in[12]))) return s;
    if ((s = m_hits(h, r->n, out))) return s;
    out[4] = in[10]; /* tmax is written */
    if ((s = m_alias(in, 10, out, 5))) return s;
    return m_alias(in + 11, 2, out, 5);
}
static rp_status m_occluded(const rp_rays *r, const uint8_t *act, const void *p, size_t count,
                            unsigned flags, const uint8_t *occ) {
    sp in[13], out[1];
    rp_status s = m_rays(r, in);
    if (s) return s;
    in[11] = (sp){act, r->n};
    if ((s = m_prims(p, count, 36, 0, 0, &in[12]))) return s;
    if (!occ && r->n) return RP_ERR_NULL;
    if (bad_flags(flags)) return RP_ERR_INVALID;
    out[0] = (sp){occ, r->n};
    return m_alias(in, 13, out, 1);
}
static rp_status m_normals(const rp_rays *r, const rp_hits *h, const void *p, size_t count,
                           size_t elem, uint32_t base) {
    sp in[16], out[7];
    rp_status s = m_rays(r, in);
    if (s) return s;
    if ((s = m_prims(p, count, elem, base, 1, &in[11]))) return s;
    if ((s = m_hits(h, r->n, out))) return s;
    const float *nn[3] = {h->nx, h->ny, h->nz};
    for (int k = 0; k < 3; k++) {
        if (!nn[k] && r->n) return RP_ERR_NULL;
        if (misaligned(nn[k])) return RP_ERR_ALIGN;
        out[4 + k] = (sp){nn[k], r->n * 4};
    }
    memcpy(in + 12, out, 4 * sizeof *in); /* t, u, v, prim are read */
    return m_alias(in, 16, out + 4, 3);
}
static rp_status m_prepare(const rp_rays *r) {
    if (!r) return RP_ERR_NULL;
    if (r->n > SIZE_MAX / 4) return RP_ERR_COUNT;
    if (!r->n) return RP_OK;
    const float *a[11] = {r->ox, r->oy, r->oz, r->dx, r->dy, r->dz,
                          r->tmin, r->tmax, r->rdx, r->rdy, r->rdz};
    sp in[8], out[3];
    for (int k = 0; k < 11; k++) {
        if (!a[k]) return RP_ERR_NULL;
        if (misaligned(a[k])) return RP_ERR_ALIGN;
        if (k < 8) in[k] = (sp){a[k], r->n * 4};
        else out[k - 8] = (sp){a[k], r->n * 4};
    }
    return m_alias(in, 8, out, 3);
}
static rp_status m_reset(const rp_hits *h) {
    if (!h) return RP_ERR_NULL;
    if (!h->n) return RP_OK;
    const void *a[7] = {h->t, h->u, h->v, h->nx, h->ny, h->nz, h->prim};
    for (int k = 0; k < 7; k++) {
        if (!a[k]) return RP_ERR_NULL;
        if (misaligned(a[k])) return RP_ERR_ALIGN;
    }
    return RP_OK;
}

/* ---- random layouts ---- */
static uint64_t rng;
static uint32_t rnd(void) {
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

#define NB (1u << 14) /* floats in the buffer */
#define MAXN 70
static float *buf;
static float *shadow;

/* somewhere in the buffer with room for `bytes` (usually 4-aligned) */
static void *anywhere(size_t bytes) {
    if (rnd() % 100 < 3) return NULL;
    size_t off = rnd() % (NB * 4 - bytes - 64);
    if (rnd() % 100 < 80) off &= ~(size_t)3;
    return (char *)buf + off;
}

static size_t padded(size_t n) { return (n + 15) / 16 * 16; }

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 20000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed5eedull;
    printf("rp_statuses: %ld iterations, seed 0x%" PRIx64 "\n", iters, rng);
    buf = aligned_alloc(64, NB * 4);
    shadow = aligned_alloc(64, NB * 4);
    if (!buf || !shadow) return 2;
    for (size_t i = 0; i < NB; i++)
        buf[i] = (float)(int)(rnd() % 9) - 4.0f;
    unsigned long passed = 0, failed = 0;
    static const char *const names[12] = {
        "rp_rays_prepare", "rp_intersect_aabb", "rp_closest_aabb", "rp_closest_triangle",
        "rp_occluded_triangle", "rp_closest_sphere", "rp_closest_plane", "rp_hits_normals_aabb",
        "rp_hits_normals_triangle", "rp_hits_normals_sphere", "rp_hits_normals_plane",
        "rp_hits_reset"};
    for (long it = 0; it < iters; it++) {
        size_t n = rnd() % 5 == 0 ? rnd() % 3 : 1 + rnd() % MAXN, per = padded(n);
        rp_rays r;
        rp_hits h;
        memset(&r, 0, sizeof r);
        memset(&h, 0, sizeof h);
        r.n = h.n = n;
        float **ra[11] = {&r.ox, &r.oy, &r.oz, &r.dx, &r.dy, &r.dz,
                          &r.tmin, &r.tmax, &r.rdx, &r.rdy, &r.rdz};
        float **ha[7] = {&h.t, &h.u, &h.v, (float **)(void *)&h.prim, &h.nx, &h.ny, &h.nz};
        /* rays: as rp_rays_alloc lays them out (block_ set), or the caller's */
        if (rnd() % 2 && n) {
            float *b = buf + 64 * (rnd() % 4);
            for (int k = 0; k < 11; k++) *ra[k] = b + k * per;
            r.block_ = b;
        } else {
            for (int k = 0; k < 11; k++)
                *ra[k] = rnd() % 8 ? buf + 1024 + 128 * k + (rnd() % 3 == 0 ? rnd() % 8 : 0)
                                   : (float *)anywhere(n * 4);
        }
        float *hb = buf + 4096 + (rnd() % 8 == 0 ? 0 : 64 * (rnd() % 4));
        if (rnd() % 8 == 0 && r.block_) hb = (float *)r.block_ + 11 * per; /* right after the rays */
        if (rnd() % 2 && n) {
            for (int k = 0; k < 7; k++) *ha[k] = hb + k * per;
            h.block_ = hb;
        } else {
            for (int k = 0; k < 7; k++)
                *ha[k] = rnd() % 8 ? buf + 6144 + 128 * k + (rnd() % 3 == 0 ? rnd() % 8 : 0)
                                   : (float *)anywhere(n * 4);
        }
        /* move an array: onto another, into padding, a byte off */
        for (int moves = rnd() % 3; moves > 0; moves--) {
            float *src = rnd() % 2 ? *ra[rnd() % 11] : *ha[rnd() % 7];
            if (rnd() % 3 == 0) src = (float *)anywhere(n * 4);
            if (src && rnd() % 2)
                src = (float *)(void *)((char *)src + (int)(rnd() % 9) - 4 + 4 * (int)(rnd() % MAXN));
            if (src && ((char *)src < (char *)buf || (char *)src + n * 4 > (char *)(buf + NB)))
                src = NULL;
            if (rnd() % 2) *ra[rnd() % 11] = src;
            else *ha[rnd() % 7] = src;
        }
        rp_status st[12], want[12];
        want[0] = m_prepare(&r);
        memcpy(shadow, buf, NB * 4);
        st[0] = rp_rays_prepare(&r);
        int wrote0 = memcmp(shadow, buf, NB * 4) != 0;
        if (rnd() % 8 == 0) { r.prepared_ = 0; }
        if (rnd() % 12 == 0) h.n = n + 1;
        if (rnd() % 24 == 0) r.n = n + 1; /* prepared for another n */
        const uint8_t *act = rnd() % 2 ? NULL : (const uint8_t *)anywhere(n);
        size_t count = rnd() % 5;
        const void *prims = rnd() % 3 ? (const void *)(buf + 8192 + rnd() % 64)
                                      : (const void *)anywhere(count * 36 + 4);
        if (prims && rnd() % 5 == 0) prims = (const char *)prims + 1 + rnd() % 3;
        uint32_t base = rnd() % 16 == 0 ? RP_NO_HIT - rnd() % 4 : rnd() % 100;
        unsigned flags = rnd() % 10 == 0 ? 1u << (rnd() % 8) : rnd() % 4;
        uint8_t *hit = (uint8_t *)anywhere(n);
        uint8_t *occ = (uint8_t *)anywhere(n);
        float *tn = rnd() % 3 ? (float *)anywhere(n * 4) : NULL;
        float *tf = rnd() % 3 ? (float *)anywhere(n * 4) : NULL;
        const rp_aabb *box = (const rp_aabb *)(rnd() % 2 ? (const void *)(buf + 9000)
                                                         : anywhere(24));
        rp_rays *rp = rnd() % 40 == 0 ? NULL : &r;
        rp_hits *hp = rnd() % 40 == 0 ? NULL : &h;
        for (int k = 1; k < 12; k++) {
            memcpy(shadow, buf, NB * 4);
            switch (k) {
            case 1: want[k] = m_intersect(rp, act, box, hit, tn, tf);
                st[k] = rp_intersect_aabb(rp, act, box, hit, tn, tf); break;
            case 2: want[k] = m_closest(rp, act, prims, count, 24, base, hp);
                st[k] = rp_closest_aabb(rp, act, prims, count, base, hp); break;
            case 3: want[k] = m_closest(rp, act, prims, count, 36, base, hp);
                if (!want[k] && bad_flags(flags)) want[k] = RP_ERR_INVALID;
                st[k] = rp_closest_triangle(rp, act, prims, count, base, flags, hp); break;
            case 4: want[k] = m_occluded(rp, act, prims, count, flags, occ);
                st[k] = rp_occluded_triangle(rp, act, prims, count, flags, occ); break;
            case 5: want[k] = m_closest(rp, act, prims, count, 16, base, hp);
                st[k] = rp_closest_sphere(rp, act, prims, count, base, hp); break;
            case 6: want[k] = m_closest(rp, act, prims, count, 16, base, hp);
                st[k] = rp_closest_plane(rp, act, prims, count, base, hp); break;
            case 7: want[k] = m_normals(rp, hp, prims, count, 24, base);
                st[k] = rp_hits_normals_aabb(rp, hp, prims, count, base); break;
            case 8: want[k] = m_normals(rp, hp, prims, count, 36, base);
                st[k] = rp_hits_normals_triangle(rp, hp, prims, count, base); break;
            case 9: want[k] = m_normals(rp, hp, prims, count, 16, base);
                st[k] = rp_hits_normals_sphere(rp, hp, prims, count, base); break;
            case 10: want[k] = m_normals(rp, hp, prims, count, 16, base);
                st[k] = rp_hits_normals_plane(rp, hp, prims, count, base); break;
            default: want[k] = m_reset(hp);
                st[k] = rp_hits_reset(hp); break;
            }
            int wrote = memcmp(shadow, buf, NB * 4) != 0;
            if (st[k] != want[k] || (st[k] != RP_OK && wrote)) {
                if (failed < 10)
                    printf("iteration %ld: %s returned %d (%s), the model %d (%s)%s\n", it,
                           names[k], (int)st[k], rp_status_string(st[k]), (int)want[k],
                           rp_status_string(want[k]), st[k] != RP_OK && wrote ? "; and wrote" : "");
                failed++;
            } else {
                passed++;
            }
        }
        if (st[0] != want[0] || (st[0] != RP_OK && wrote0)) {
            if (failed < 10)
                printf("iteration %ld: rp_rays_prepare returned %d, the model %d\n", it,
                       (int)st[0], (int)want[0]);
            failed++;
        } else {
            passed++;
        }
    }
    printf("%lu passed, %lu failed\n", passed, failed);
    free(buf);
    free(shadow);
    return failed ? 1 : 0;
}
