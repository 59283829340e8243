/*
 * test_scene_normals.c - rp_scene_normals.  On scenes of several meshes
 * (soups and indexed meshes: shared vertices, duplicate and degenerate
 * triangles, empty meshes; unit, huge and tiny coordinates) and rays aimed
 * at vertices, edges and faces, the normals rp_scene_normals writes for the
 * hits of rp_scene_closest (every runnable variant, with and without
 * RP_WATERTIGHT and culling) must be bit for bit those rp_hits_normals_triangle
 * writes for the same triangle taken from the caller's own arrays, and rays
 * without a hit must keep what their normal arrays held.  Independently of
 * that routine, each normal is checked in double: parallel to cross(e1, e2)
 * of the caller's triangle, facing the ray.  A one-mesh soup's hits feed
 * rp_hits_normals_triangle directly (index_base 0).  Every bad argument gets
 * its status with nothing written: the whole memory the call can see is
 * compared with memcmp.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raypack.h"
#include "rng.h"
#include "tap.h"


#define MAXM 6

/* The caller's meshes: each as the triangles it stands for (for an indexed
 * mesh, expanded from the caller's xyz and indices). */
typedef struct world {
    rp_scene *s;
    int nm;
    rp_triangle *tris[MAXM];
    size_t count[MAXM];
    size_t total;
} world;

static void gen_soup(rp_triangle *t, size_t k, float scale, float size) {
    for (size_t j = 0; j < k; j++) {
        float c[3] = {range(-1, 1) * scale, range(-1, 1) * scale, range(-1, 1) * scale};
        float *f = (float *)(void *)&t[j];
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++)
                f[3 * v + a] = c[a] + range(-1, 1) * size;
        unsigned r = rnd() % 100;
        if (j > 0 && r < 12) /* duplicate */
            t[j] = t[j - 1];
        else if (j > 0 && r < 24) { /* shares an edge, reversed */
            t[j].v0 = t[j - 1].v2;
            t[j].v1 = t[j - 1].v1;
        } else if (r < 28) /* a point */
            t[j].v1 = t[j].v2 = t[j].v0;
        else if (r < 32) /* two equal vertices */
            t[j].v2 = t[j].v1;
        else if (r < 36) { /* collinear */
            t[j].v2.x = t[j].v0.x + (t[j].v1.x - t[j].v0.x) * 2.0f;
            t[j].v2.y = t[j].v0.y + (t[j].v1.y - t[j].v0.y) * 2.0f;
            t[j].v2.z = t[j].v0.z + (t[j].v1.z - t[j].v0.z) * 2.0f;
        }
    }
}

/* An indexed mesh: a k x k patch of shared vertices (a bumpy sheet, two
 * triangles per cell) plus some triangles between random vertices. */
static size_t gen_indexed(float **xyz_out, uint32_t **idx_out, size_t *nv_out, int k, size_t extra,
                          float scale) {
    size_t nv = (size_t)k * (size_t)k;
    size_t nt = 2 * (size_t)(k - 1) * (size_t)(k - 1) + extra;
    float *xyz = malloc(3 * nv * sizeof *xyz);
    uint32_t *idx = malloc(3 * nt * sizeof *idx + 4);
    float cz = range(-1, 1) * scale;
    for (int y = 0; y < k; y++)
        for (int x = 0; x < k; x++) {
            float *p = xyz + 3 * ((size_t)y * (size_t)k + (size_t)x);
            p[0] = ((float)x / (float)(k - 1) * 2.0f - 1.0f) * scale;
            p[1] = ((float)y / (float)(k - 1) * 2.0f - 1.0f) * scale;
            p[2] = cz + range(-0.2f, 0.2f) * scale;
        }
    size_t t = 0;
    for (int y = 0; y + 1 < k; y++)
        for (int x = 0; x + 1 < k; x++) {
            uint32_t a = (uint32_t)(y * k + x), b = a + 1, c = a + (uint32_t)k, d = c + 1;
            uint32_t q[6] = {a, b, d, a, d, c};
            memcpy(idx + 3 * t, q, sizeof q);
            t += 2;
        }
    for (size_t j = 0; j < extra; j++, t++)
        for (int c = 0; c < 3; c++)
            idx[3 * t + (size_t)c] = rnd() % (uint32_t)nv; /* repeated vertices too */
    *xyz_out = xyz;
    *idx_out = idx;
    *nv_out = nv;
    return nt;
}

static void expand(rp_triangle *t, const float *xyz, const uint32_t *idx, size_t nt) {
    for (size_t j = 0; j < nt; j++)
        for (int c = 0; c < 3; c++)
            memcpy((float *)(void *)&t[j] + 3 * c, xyz + 3 * (size_t)idx[3 * j + (size_t)c], 12);
}

/* kinds: 's' soup of n triangles, 'i' indexed patch (n = its side), 'e' empty */
static void make_world(world *w, const char *kinds, const size_t *sizes, float scale, float size) {
    memset(w, 0, sizeof *w);
    if (rp_scene_create(&w->s) != RP_OK)
        abort();
    for (int m = 0; kinds[m]; m++) {
        uint32_t id = 999;
        rp_status st;
        if (kinds[m] == 'i') {
            float *xyz;
            uint32_t *idx;
            size_t nv;
            size_t nt = gen_indexed(&xyz, &idx, &nv, (int)sizes[m], sizes[m], scale);
            w->tris[m] = malloc(nt * sizeof(rp_triangle));
            expand(w->tris[m], xyz, idx, nt);
            w->count[m] = nt;
            st = rp_scene_add_mesh(w->s, xyz, nv, idx, nt, &id);
            free(xyz);
            free(idx);
        } else {
            size_t n = kinds[m] == 'e' ? 0 : sizes[m];
            w->tris[m] = malloc((n + 1) * sizeof(rp_triangle));
            gen_soup(w->tris[m], n, scale, size);
            w->count[m] = n;
            st = rp_scene_add_soup(w->s, w->tris[m], n, &id);
        }
        if (st != RP_OK || id != (uint32_t)m)
            abort();
        w->total += w->count[m];
        w->nm++;
    }
    if (rp_scene_build(w->s) != RP_OK)
        abort();
}

static void free_world(world *w) {
    rp_scene_free(w->s);
    for (int m = 0; m < w->nm; m++)
        free(w->tris[m]);
}

/* Rays aimed at a vertex, an edge point or the inside of a random triangle
 * (a quarter random), from all around: front and back faces are hit. */
static void make_rays(rp_rays *r, const world *w, float scale) {
    for (size_t i = 0; i < r->n; i++) {
        float o[3], p[3];
        for (int a = 0; a < 3; a++)
            o[a] = range(-3, 3) * scale;
        unsigned kind = rnd() % 4;
        int m = (int)(rnd() % (unsigned)w->nm);
        if (w->count[m] && kind) {
            const float *f = (const float *)(const void *)&w->tris[m][rnd() % w->count[m]];
            int v = (int)(rnd() % 3), v2 = (v + 1) % 3;
            float s = kind == 1 ? 0.0f : kind == 2 ? 0.5f : unit();
            for (int a = 0; a < 3; a++)
                p[a] = f[3 * v + a] + (f[3 * v2 + a] - f[3 * v + a]) * s;
        } else {
            for (int a = 0; a < 3; a++)
                p[a] = range(-1, 1) * scale;
        }
        r->ox[i] = o[0]; r->oy[i] = o[1]; r->oz[i] = o[2];
        r->dx[i] = p[0] - o[0]; r->dy[i] = p[1] - o[1]; r->dz[i] = p[2] - o[2];
        r->tmin[i] = 0.0f;
        r->tmax[i] = INFINITY;
    }
    if (rp_rays_prepare(r) != RP_OK)
        abort();
}

/* a NaN with the lane in its payload: what "untouched" must leave */
static float guard_f(size_t i, int k) { uint32_t u = 0x7fa00000u | (uint32_t)(i * 3 + (size_t)k); float f; memcpy(&f, &u, 4); return f; }
static void guard_normals(rp_hits *h) {
    for (size_t i = 0; i < h->n; i++) {
        h->nx[i] = guard_f(i, 0);
        h->ny[i] = guard_f(i, 1);
        h->nz[i] = guard_f(i, 2);
    }
}

/* In double, independently of the routine under test: the normal n of ray
 * i is parallel to cross(e1, e2) and faces the ray.  Only where that is
 * well defined (finite, no overflow, not grazing). */
static int normal_plausible(const rp_triangle *t, const rp_rays *r, size_t i, const float *n) {
    double e1[3] = {(double)t->v1.x - t->v0.x, (double)t->v1.y - t->v0.y, (double)t->v1.z - t->v0.z};
    double e2[3] = {(double)t->v2.x - t->v0.x, (double)t->v2.y - t->v0.y, (double)t->v2.z - t->v0.z};
    double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    double cl = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    double d[3] = {r->dx[i], r->dy[i], r->dz[i]};
    double dl = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    double l2 = sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
    if (!(cl > 1e-60) || !(cl < 1e60) || !(dl > 0) || !isfinite(n[0]) || !isfinite(n[1]) ||
        !isfinite(n[2]) || !(cl > 1e-3 * l1 * l2))
        return -1; /* not judged (slivers: the float cross product is noise) */
    /* the float cross product must not have over- or underflowed either */
    double fl = fabs(c[0]) + fabs(c[1]) + fabs(c[2]);
    if (fl > 1e37 || fl < 1e-30)
        return -1;
    double cd = (c[0] * d[0] + c[1] * d[1] + c[2] * d[2]) / (cl * dl);
    if (fabs(cd) < 1e-3)
        return -1; /* grazing: the float det may have either sign */
    double sgn = cd > 0 ? -1.0 : 1.0; /* facing the ray: n . d < 0 */
    double dot = sgn * (n[0] * c[0] + n[1] * c[1] + n[2] * c[2]) / cl;
    return dot > 0.999 && dot < 1.001;
}

static int same_bits(const float *a, const float *b, size_t n) {
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/* The scene's normals against rp_hits_normals_triangle on the caller's
 * triangles, on every runnable variant and every flag combination. */
/* min_hits[f]: the hits flags fl[f] must find at least (huge coordinates
 * overflow Moller-Trumbore's det, denormal ones underflow both tests: such
 * scenes check the bits only) */
static void check_world(const char *name, const world *w, size_t nrays, float scale,
                        const size_t *min_hits, size_t *judged) {
    rp_rays r;
    rp_hits h, e;
    if (rp_rays_alloc(nrays, &r) || rp_hits_alloc(nrays, &h) || rp_hits_alloc(nrays, &e))
        abort();
    make_rays(&r, w, scale);
    uint32_t *mesh = malloc(nrays * 4 + 4), *prim_m = malloc(nrays * 4 + 4);
    float *tmax0 = malloc(nrays * 4 + 4);
    memcpy(tmax0, r.tmax, nrays * 4);
    static const unsigned fl[4] = {RP_WATERTIGHT, RP_WATERTIGHT | RP_CULL_BACKFACE, 0,
                                   RP_CULL_BACKFACE};
    for (int isa = 0; isa < RP_ISA_COUNT; isa++) {
        if (!(rp_isa_runnable() & (1u << isa)))
            continue;
        for (int f = 0; f < 4; f++) {
            rp_set_isa((rp_isa)isa);
            rp_hits_reset(&h);
            memcpy(r.tmax, tmax0, nrays * 4);
            for (size_t i = 0; i < nrays; i++)
                mesh[i] = rnd(); /* garbage where no hit: must be ignored */
            rp_status s1 = rp_scene_closest(w->s, &r, NULL, fl[f], &h, mesh);
            guard_normals(&h);
            rp_status s2 = rp_scene_normals(w->s, &r, &h, mesh);
            /* expected: one rp_hits_normals_triangle call per mesh, on the
             * caller's triangles, with only that mesh's records */
            rp_set_isa(RP_ISA_SCALAR);
            memcpy(e.t, h.t, nrays * 4);
            memcpy(e.u, h.u, nrays * 4);
            memcpy(e.v, h.v, nrays * 4);
            guard_normals(&e);
            rp_status s3 = RP_OK;
            size_t hits = 0, bad_plaus = 0;
            for (int m = 0; m < w->nm; m++) {
                for (size_t i = 0; i < nrays; i++)
                    prim_m[i] = h.prim[i] != RP_NO_HIT && mesh[i] == (uint32_t)m ? h.prim[i]
                                                                                  : RP_NO_HIT;
                memcpy(e.prim, prim_m, nrays * 4);
                rp_status s = rp_hits_normals_triangle(&r, &e, w->tris[m], w->count[m], 0);
                if (s)
                    s3 = s;
            }
            for (size_t i = 0; i < nrays; i++) {
                if (h.prim[i] == RP_NO_HIT)
                    continue;
                hits++;
                float n[3] = {h.nx[i], h.ny[i], h.nz[i]};
                int p = normal_plausible(&w->tris[mesh[i]][h.prim[i]], &r, i, n);
                *judged += p >= 0;
                if (p == 0 && bad_plaus++ < 3)
                    tap_diag("ray %zu: normal (%a, %a, %a) not along cross(e1, e2) facing the ray",
                             i, (double)n[0], (double)n[1], (double)n[2]);
            }
            int same = same_bits(h.nx, e.nx, nrays) && same_bits(h.ny, e.ny, nrays) &&
                       same_bits(h.nz, e.nz, nrays);
            tap_ok(s1 == RP_OK && s2 == RP_OK && s3 == RP_OK && same && bad_plaus == 0 &&
                       hits >= min_hits[f],
                   "%s: %zu tris in %d meshes, %zu rays, flags %u, %s: %zu hits, scene normals "
                   "== rp_hits_normals_triangle bit for bit%s",
                   name, w->total, w->nm, nrays, fl[f], rp_isa_name((rp_isa)isa), hits,
                   bad_plaus ? " (IMPLAUSIBLE normals)" : "");
        }
    }
    rp_set_isa(RP_ISA_AUTO);
    free(mesh);
    free(prim_m);
    free(tmax0);
    rp_rays_free(&r);
    rp_hits_free(&h);
    rp_hits_free(&e);
}

/* A one-mesh soup: the scene's records are indices into the caller's
 * array, so rp_hits_normals_triangle(index_base 0) reads them directly;
 * mesh may be NULL for rp_scene_normals. */
static void check_one_soup(void) {
    static const char kinds[] = "s";
    static const size_t sizes[] = {200};
    world w;
    make_world(&w, kinds, sizes, 1.0f, 0.3f);
    size_t n = 300;
    rp_rays r;
    rp_hits a, b, brute;
    if (rp_rays_alloc(n, &r) || rp_hits_alloc(n, &a) || rp_hits_alloc(n, &b) ||
        rp_hits_alloc(n, &brute))
        abort();
    make_rays(&r, &w, 1.0f);
    float *tmax0 = malloc(n * 4);
    memcpy(tmax0, r.tmax, n * 4);
    rp_status s0 = rp_closest_triangle(&r, NULL, w.tris[0], w.count[0], 0, RP_WATERTIGHT, &brute);
    memcpy(r.tmax, tmax0, n * 4);
    rp_status s1 = rp_scene_closest(w.s, &r, NULL, RP_WATERTIGHT, &a, NULL);
    memcpy(b.t, a.t, n * 4);
    memcpy(b.u, a.u, n * 4);
    memcpy(b.v, a.v, n * 4);
    memcpy(b.prim, a.prim, n * 4);
    guard_normals(&a);
    guard_normals(&b);
    rp_status s2 = rp_hits_normals_triangle(&r, &a, w.tris[0], w.count[0], 0);
    rp_status s3 = rp_scene_normals(w.s, &r, &b, NULL);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++)
        hits += a.prim[i] != RP_NO_HIT;
    tap_ok(s0 == RP_OK && s1 == RP_OK && !memcmp(a.prim, brute.prim, n * 4) &&
               !memcmp(a.t, brute.t, n * 4),
           "one-mesh soup: the scene's prim is the index into the caller's array (%zu hits)", hits);
    tap_ok(s2 == RP_OK && s3 == RP_OK && same_bits(a.nx, b.nx, n) && same_bits(a.ny, b.ny, n) &&
               same_bits(a.nz, b.nz, n) && hits > n / 8,
           "one-mesh soup: rp_hits_normals_triangle(index_base 0) on the scene's records == "
           "rp_scene_normals(mesh NULL)");
    free(tmax0);
    rp_rays_free(&r);
    rp_hits_free(&a);
    rp_hits_free(&b);
    rp_hits_free(&brute);
    free_world(&w);
}

/* ------------------------------------------------------------------ */
/* Bad arguments: the status, and not one byte written                 */
/* ------------------------------------------------------------------ */
#define NB 8
#define SLOT 16 /* floats per array in the arena (64 bytes) */
enum { OX, OY, OZ, DX, DY, DZ, TMIN, TMAX, RDX, RDY, RDZ, HT, HU, HV, HP, NX, NY, NZ, MESH, NSLOTS };

static float *arena;   /* every array a call can see, in one block */
static float *arena0;  /* its contents before the call */
static size_t arena_bytes;

static void snap(void) { memcpy(arena0, arena, arena_bytes); }
static int untouched(void) { return memcmp(arena0, arena, arena_bytes) == 0; }
static float *slot(int k) { return arena + (size_t)k * SLOT; }

static void bad_case(rp_status got, rp_status want, const char *what) {
    int ok = untouched();
    tap_ok(got == want && ok, "%s: %s (got %s)%s", what, rp_status_string(want),
           rp_status_string(got), ok ? ", nothing written" : ", BUT MEMORY CHANGED");
    memcpy(arena, arena0, arena_bytes);
}

static void test_errors(void) {
    static const char kinds[] = "sis";
    static const size_t sizes[] = {5, 3, 4}; /* the patch: 8 + 3 triangles */
    world w;
    make_world(&w, kinds, sizes, 1.0f, 0.5f);
    static const char kinds1[] = "s";
    static const size_t sizes1[] = {6};
    world w1;
    make_world(&w1, kinds1, sizes1, 1.0f, 0.5f);

    arena_bytes = (NSLOTS + 2) * SLOT * sizeof(float);
    arena = aligned_alloc(64, arena_bytes);
    arena0 = malloc(arena_bytes);
    for (size_t k = 0; k < arena_bytes / 4; k++) {
        uint32_t u = 0x7fb00000u + (uint32_t)k;
        memcpy(arena + k, &u, 4);
    }
    rp_rays r;
    memset(&r, 0, sizeof r);
    r.n = NB;
    float **ra[11] = {&r.ox, &r.oy, &r.oz, &r.dx, &r.dy, &r.dz, &r.tmin, &r.tmax, &r.rdx, &r.rdy, &r.rdz};
    for (int k = 0; k < 11; k++)
        *ra[k] = slot(k);
    for (size_t i = 0; i < NB; i++) { /* straight down on the three meshes' region */
        r.ox[i] = range(-0.5f, 0.5f); r.oy[i] = range(-0.5f, 0.5f); r.oz[i] = 10.0f;
        r.dx[i] = 0.0f; r.dy[i] = 0.0f; r.dz[i] = -1.0f;
        r.tmin[i] = 0.0f; r.tmax[i] = INFINITY;
    }
    rp_rays_prepare(&r);
    rp_hits h;
    memset(&h, 0, sizeof h);
    h.n = NB;
    h.t = slot(HT); h.u = slot(HU); h.v = slot(HV);
    h.prim = (uint32_t *)(void *)slot(HP);
    h.nx = slot(NX); h.ny = slot(NY); h.nz = slot(NZ);
    uint32_t *mesh = (uint32_t *)(void *)slot(MESH);
    /* valid records on every lane but one (no hit there, garbage mesh) */
    for (size_t i = 0; i < NB; i++) {
        h.t[i] = 1.0f + (float)i;
        h.u[i] = h.v[i] = 0.25f;
        mesh[i] = (uint32_t)(i % 3);
        h.prim[i] = (uint32_t)(i % 2);
    }
    h.prim[3] = RP_NO_HIT;
    mesh[3] = 12345;
    snap();

    rp_scene *unbuilt;
    rp_scene_create(&unbuilt);
    rp_scene_add_soup(unbuilt, w.tris[0], w.count[0], NULL);
    bad_case(rp_scene_normals(NULL, &r, &h, mesh), RP_ERR_NULL, "scene NULL");
    bad_case(rp_scene_normals(w.s, NULL, &h, mesh), RP_ERR_NULL, "rays NULL");
    bad_case(rp_scene_normals(w.s, &r, NULL, mesh), RP_ERR_NULL, "hits NULL");
    bad_case(rp_scene_normals(unbuilt, &r, &h, mesh), RP_ERR_NOT_PREPARED, "scene not built");
    rp_hits hb = h;
    hb.nx = NULL;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_NULL, "nx NULL");
    hb = h; hb.ny = NULL;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_NULL, "ny NULL");
    hb = h; hb.nz = NULL;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_NULL, "nz NULL");
    hb = h; hb.prim = NULL;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_NULL, "prim NULL");
    bad_case(rp_scene_normals(w.s, &r, &h, NULL), RP_ERR_NULL, "mesh NULL for a three-mesh scene");
    hb = h; hb.n = NB - 1;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_SIZE_MISMATCH, "hits.n != rays.n");
    hb = h; hb.nx = (float *)(void *)((char *)h.nx + 1);
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_ALIGN, "nx misaligned");
    bad_case(rp_scene_normals(w.s, &r, &h, (const uint32_t *)(const void *)((const char *)mesh + 2)),
             RP_ERR_ALIGN, "mesh misaligned");
    rp_rays rb = r;
    rb.n = NB - 1; /* prepared for NB */
    hb = h; hb.n = NB - 1;
    bad_case(rp_scene_normals(w.s, &rb, &hb, mesh), RP_ERR_NOT_PREPARED, "rays not prepared for n");

    /* overlaps */
    hb = h; hb.ny = h.nx + 1;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_ALIAS, "ny overlapping nx");
    hb = h; hb.nx = h.t;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_ALIAS, "nx on t");
    hb = h; hb.nz = (float *)(void *)(h.prim + 4);
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_ALIAS, "nz overlapping prim");
    hb = h; hb.ny = (float *)(void *)(mesh + 7);
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_ALIAS, "ny overlapping mesh");
    hb = h; hb.nx = r.ox + 2;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_ALIAS, "nx overlapping rays.ox");
    hb = h; hb.nz = r.rdz;
    bad_case(rp_scene_normals(w.s, &r, &hb, mesh), RP_ERR_ALIAS, "nz on rays.rdz");

    /* a record out of range on one lane only, the last: nothing written
     * on the lanes before it either */
    mesh[NB - 1] = 3;
    snap();
    bad_case(rp_scene_normals(w.s, &r, &h, mesh), RP_ERR_INVALID, "mesh id 3 of 3 on the last lane");
    mesh[NB - 1] = RP_NO_HIT;
    snap();
    bad_case(rp_scene_normals(w.s, &r, &h, mesh), RP_ERR_INVALID, "mesh id RP_NO_HIT on a hit");
    mesh[NB - 1] = 1;
    h.prim[NB - 1] = (uint32_t)w.count[1];
    snap();
    bad_case(rp_scene_normals(w.s, &r, &h, mesh), RP_ERR_INVALID,
             "prim == the mesh's triangle count on the last lane");
    mesh[NB - 1] = 2;
    h.prim[NB - 1] = UINT32_MAX - 1;
    snap();
    bad_case(rp_scene_normals(w.s, &r, &h, mesh), RP_ERR_INVALID, "prim 2^32 - 2");
    h.prim[NB - 1] = (uint32_t)w.count[2] - 1; /* valid again */
    h.prim[0] = 0;
    mesh[0] = 0;
    snap();
    /* a one-mesh scene: mesh NULL means mesh 0; a prim past it is refused */
    h.prim[5] = (uint32_t)w1.count[0];
    snap();
    bad_case(rp_scene_normals(w1.s, &r, &h, NULL), RP_ERR_INVALID,
             "one-mesh scene, mesh NULL, prim == count");
    h.prim[5] = 1;
    snap();
    /* the empty scene: no mesh, so every hit is out of range, and mesh NULL
     * is not allowed */
    rp_scene *empty;
    rp_scene_create(&empty);
    rp_scene_build(empty);
    bad_case(rp_scene_normals(empty, &r, &h, NULL), RP_ERR_NULL, "empty scene, mesh NULL");
    bad_case(rp_scene_normals(empty, &r, &h, mesh), RP_ERR_INVALID, "empty scene, a hit");

    /* and the good calls: only nx/ny/nz of the hit lanes change */
    rp_status s = rp_scene_normals(w.s, &r, &h, mesh);
    int only = 1;
    for (int k = 0; k < NSLOTS + 2; k++)
        if (k != NX && k != NY && k != NZ && memcmp(slot(k), arena0 + (size_t)k * SLOT, SLOT * 4))
            only = 0;
    for (size_t i = 0; i < SLOT; i++) {
        int hit = i < NB && h.prim[i] != RP_NO_HIT;
        for (int k = NX; k <= NZ; k++) {
            int same = !memcmp(slot(k) + i, arena0 + (size_t)k * SLOT + i, 4);
            if (hit == same) /* a hit lane gets a normal (never the guard NaN) */
                only = 0;
        }
    }
    tap_ok(s == RP_OK && only, "valid records: RP_OK, only the normals of the hit lanes written "
                               "(lane 3: no hit, its garbage mesh id ignored)");
    memcpy(arena, arena0, arena_bytes);
    s = rp_scene_normals(w1.s, &r, &h, NULL);
    tap_ok(s == RP_OK, "one-mesh scene, mesh NULL: RP_OK");
    memcpy(arena, arena0, arena_bytes);
    rb = r;
    rb.n = 0;
    memset(&hb, 0, sizeof hb);
    rp_rays_prepare(&rb);
    snap();
    bad_case(rp_scene_normals(w.s, &rb, &hb, NULL), RP_OK, "n == 0, every array NULL");

    rp_scene_free(empty);
    rp_scene_free(unbuilt);
    free(arena);
    free(arena0);
    free_world(&w);
    free_world(&w1);
}

int main(void) {
    rng = 0x2545f4914f6cdd1dull; /* this test's seed, as before rng.h */
    size_t judged = 0;
    static const size_t many[4] = {50, 50, 50, 50}, wt_only[4] = {50, 50, 0, 0},
                        none[4] = {0, 0, 0, 0};
    test_errors();
    check_one_soup();
    world w;
    {
        static const char k[] = "sis";
        static const size_t n[] = {60, 6, 40};
        make_world(&w, k, n, 1.0f, 0.3f);
        check_world("soup, indexed patch, soup", &w, 400, 1.0f, many, &judged);
        free_world(&w);
    }
    {
        static const char k[] = "iesis";
        static const size_t n[] = {4, 0, 1, 9, 300};
        make_world(&w, k, n, 1.0f, 0.1f);
        check_world("five meshes, an empty one, a one-triangle soup", &w, 400, 1.0f, many, &judged);
        free_world(&w);
    }
    {
        static const char k[] = "sii";
        static const size_t n[] = {1000, 12, 5};
        make_world(&w, k, n, 1.0f, 0.05f);
        check_world("1000-triangle soup and two patches", &w, 300, 1.0f, many, &judged);
        free_world(&w);
    }
    {
        static const char k[] = "si";
        static const size_t n[] = {80, 5};
        make_world(&w, k, n, 1e30f, 0.2e30f);
        check_world("huge coordinates", &w, 200, 1e30f, wt_only, &judged);
        free_world(&w);
        make_world(&w, k, n, 1e-12f, 0.2e-12f);
        check_world("small coordinates", &w, 200, 1e-12f, many, &judged);
        free_world(&w);
        make_world(&w, k, n, 1e-30f, 0.2e-30f);
        check_world("tiny coordinates", &w, 200, 1e-30f, none, &judged);
        free_world(&w);
        make_world(&w, k, n, 0x1p-140f, 0.2f * 0x1p-140f);
        check_world("denormal coordinates", &w, 200, 0x1p-140f, none, &judged);
        free_world(&w);
    }
    tap_ok(judged > 1000, "%zu normals checked in double against cross(e1, e2), facing the ray",
           judged);
    return tap_done();
}
