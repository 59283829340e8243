/*
 * test_tri_edges.c - Moller-Trumbore on rays aimed at the edges and
 * vertices of triangles, where the reference's u, v or u + v - det is
 * zero or a rounding error from it, so that any difference in a variant's
 * arithmetic (an operation reordered, a comparison made strict, a product
 * computed another way) changes which rays hit.  Batches of 64 rays (at
 * least three packets on every variant: the kernels' prepared-edge path)
 * against 40 random triangles, at scales from 2^-60 (products in the
 * denormal range) to 2^40; each variant's rp_closest_triangle (with and
 * without culling) and rp_occluded_triangle must return the scalar
 * variant's bits, in every floating-point environment this host can set
 * (tests/fpenv.h).  rp_check compares the same kernels on random inputs,
 * where such rays are rare.  (Written for a prefilter of the packet step
 * that was measured and not kept, docs/PERFORMANCE-LOG.md: with its
 * margins at zero, or at 2^-9 of their proven size, every variant failed
 * here.)
 *
 * RP_TEST_ISAS (comma-separated) limits the variants (isas.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fpenv.h"
#include "batch.h"
#include "isas.h"
#include "raypack.h"
#include "rng.h"
#include "tap.h"

enum { NRAYS = 64, NTRIS = 40, BATCHES = 60 };


/* One batch's inputs: triangles at scale L, rays aimed at their edges. */
typedef struct inputs {
    rp_triangle t[NTRIS];
    float o[NRAYS][3], d[NRAYS][3];
} inputs;

static void make_inputs(inputs *in, float L) {
    for (int k = 0; k < NTRIS; k++) {
        float *v = &in->t[k].v0.x;
        for (int q = 0; q < 9; q++)
            v[q] = range(-L, L);
    }
    for (int i = 0; i < NRAYS; i++) {
        const float *v = &in->t[rnd() % NTRIS].v0.x;
        int a = (int)(rnd() % 3), b = (a + 1 + (int)(rnd() % 2)) % 3;
        unsigned kind = rnd() % 4; /* vertex a, vertex b, a point between */
        float lam = kind == 0 ? 0.0f : kind == 1 ? 1.0f : unit();
        float p[3];
        for (int q = 0; q < 3; q++) {
            p[q] = v[3 * a + q] + lam * (v[3 * b + q] - v[3 * a + q]);
            in->o[i][q] = range(-4 * L, 4 * L);
            in->d[i][q] = p[q] - in->o[i][q];
        }
        if (rnd() % 4 == 0) /* a unit direction now and then */
            for (int q = 0; q < 3; q++)
                in->d[i][q] /= 4 * L;
    }
}

static void load(tb *b, const inputs *in) {
    for (int i = 0; i < NRAYS; i++)
        tb_ray(b, (size_t)i, in->o[i][0], in->o[i][1], in->o[i][2], in->d[i][0], in->d[i][1],
               in->d[i][2], 0.0f, INFINITY);
    tb_prepare(b);
}

/* The results of isa on in: closest (flags), then occluded (flags). */
typedef struct out {
    float t[NRAYS], u[NRAYS], v[NRAYS], tmax[NRAYS];
    uint32_t prim[NRAYS];
    uint8_t occl[NRAYS];
} out;

static void run(rp_isa isa, const inputs *in, unsigned flags, tb *b, out *o) {
    tb_must(rp_set_isa(isa), "rp_set_isa");
    load(b, in);
    tb_must(rp_closest_triangle(&b->r, NULL, in->t, NTRIS, 0, flags, &b->h), "closest");
    memcpy(o->t, b->h.t, sizeof o->t);
    memcpy(o->u, b->h.u, sizeof o->u);
    memcpy(o->v, b->h.v, sizeof o->v);
    memcpy(o->tmax, b->r.tmax, sizeof o->tmax);
    memcpy(o->prim, b->h.prim, sizeof o->prim);
    load(b, in);
    memset(o->occl, 0, sizeof o->occl);
    tb_must(rp_occluded_triangle(&b->r, NULL, in->t, NTRIS, flags, o->occl), "occluded");
}

int main(void) {
    static const float scales[] = {0x1p-60f, 0x1p-20f, 0x1p-3f, 1.0f, 0x1p10f, 0x1p40f};
    unsigned isas = tested_isas("test_tri_edges") & ~(1u << RP_ISA_SCALAR);
    unsigned native = rp_isa_native();
    tb b;
    tb_init(&b, NRAYS);
    for (int f = 0; f < RP_FPENV_COUNT; f++) {
        rp_fpenv_saved saved;
        int emulated_ok;
        int set = rp_fpenv_set(rp_fpenv_names[f], &saved, &emulated_ok);
        if (set != 1) {
            rp_fpenv_restore(&saved);
            tap_skip("this host cannot set it", "fpenv %s", rp_fpenv_names[f]);
            continue;
        }
        unsigned long bad[RP_ISA_COUNT] = {0}, hits = 0, occl = 0;
        rng = 0x7f4a7c159e3779b9ull + (uint64_t)f;
        for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++)
            for (int k = 0; k < BATCHES; k++) {
                static inputs in;
                make_inputs(&in, scales[s]);
                for (unsigned flags = 0; flags <= RP_CULL_BACKFACE; flags += RP_CULL_BACKFACE) {
                    static out ref, got;
                    run(RP_ISA_SCALAR, &in, flags, &b, &ref);
                    for (int i = 0; i < NRAYS; i++) {
                        hits += ref.prim[i] != RP_NO_HIT;
                        occl += ref.occl[i];
                    }
                    for (int isa = 0; isa < RP_ISA_COUNT; isa++) {
                        if (!((isas >> isa) & 1u))
                            continue;
                        if (!emulated_ok && !((native >> isa) & 1u))
                            continue; /* (fpenv.h: emulated DAZ min/max) */
                        run((rp_isa)isa, &in, flags, &b, &got);
                        if (memcmp(&ref, &got, sizeof ref)) {
                            if (!bad[isa])
                                tap_diag("%s, fpenv %s, scale %a, batch %d, flags %u: differs "
                                         "from scalar",
                                         rp_isa_name((rp_isa)isa), rp_fpenv_names[f],
                                         (double)scales[s], k, flags);
                            bad[isa]++;
                        }
                    }
                }
            }
        rp_fpenv_restore(&saved);
        for (int isa = 0; isa < RP_ISA_COUNT; isa++)
            if ((isas >> isa) & 1u) {
                if (!emulated_ok && !((native >> isa) & 1u))
                    tap_skip("emulated DAZ differs by design (tests/fpenv.h)", "%s, fpenv %s",
                             rp_isa_name((rp_isa)isa), rp_fpenv_names[f]);
                else
                    tap_ok(!bad[isa], "%s, fpenv %s: edge and vertex rays as scalar (%lu batches "
                           "differ)", rp_isa_name((rp_isa)isa), rp_fpenv_names[f], bad[isa]);
            }
        /* the inputs do what they are for: many hits on edges and vertices */
        tap_ok(hits > 1000 && occl > 1000, "fpenv %s: %lu closest hits, %lu occluded",
               rp_fpenv_names[f], hits, occl);
    }
    tb_free(&b);
    rp_set_isa(RP_ISA_AUTO);
    return tap_done();
}
