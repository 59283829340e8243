/*
 * batch.h - small fixtures shared by the unit tests: a ray batch and its
 * hit records allocated together, one-line setters for a ray, and an abort
 * when the library refuses a setup that must work (a broken fixture would
 * otherwise turn into confusing assertion failures further down).
 */
#ifndef RP_TESTS_BATCH_H
#define RP_TESTS_BATCH_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "raypack.h"

typedef struct tb {
    rp_rays r;
    rp_hits h;
} tb;

static inline void tb_must(rp_status s, const char *what) {
    if (s != RP_OK) {
        printf("Bail out! fixture %s failed: %s\n", what, rp_status_string(s));
        exit(1);
    }
}

static inline void tb_init(tb *b, size_t n) {
    tb_must(rp_rays_alloc(n, &b->r), "rp_rays_alloc");
    tb_must(rp_hits_alloc(n, &b->h), "rp_hits_alloc");
}

static inline void tb_free(tb *b) {
    rp_rays_free(&b->r);
    rp_hits_free(&b->h);
}

/* Ray i: o + t*d for t in [tmin, tmax]. */
static inline void tb_ray(tb *b, size_t i, float ox, float oy, float oz,
                          float dx, float dy, float dz, float tmin, float tmax) {
    b->r.ox[i] = ox; b->r.oy[i] = oy; b->r.oz[i] = oz;
    b->r.dx[i] = dx; b->r.dy[i] = dy; b->r.dz[i] = dz;
    b->r.tmin[i] = tmin; b->r.tmax[i] = tmax;
}

/* Prepare the rays and empty the hit records (tmax is the caller's). */
static inline void tb_prepare(tb *b) {
    tb_must(rp_rays_prepare(&b->r), "rp_rays_prepare");
    tb_must(rp_hits_reset(&b->h), "rp_hits_reset");
}

static inline rp_vec3 tb_v(float x, float y, float z) {
    rp_vec3 v;
    v.x = x; v.y = y; v.z = z;
    return v;
}

static inline rp_aabb tb_box(float x0, float y0, float z0, float x1, float y1, float z1) {
    rp_aabb b;
    b.min = tb_v(x0, y0, z0);
    b.max = tb_v(x1, y1, z1);
    return b;
}

static inline rp_triangle tb_tri(rp_vec3 v0, rp_vec3 v1, rp_vec3 v2) {
    rp_triangle t;
    t.v0 = v0; t.v1 = v1; t.v2 = v2;
    return t;
}

static inline rp_sphere tb_sphere(float x, float y, float z, float r) {
    rp_sphere s;
    s.center = tb_v(x, y, z);
    s.radius = r;
    return s;
}

static inline rp_plane tb_plane(float nx, float ny, float nz, float d) {
    rp_plane p;
    p.n = tb_v(nx, ny, nz);
    p.d = d;
    return p;
}

/* The normal of hit record i as an array, for tap_f32x3. */
static inline void tb_normal(const tb *b, size_t i, float out[3]) {
    out[0] = b->h.nx[i];
    out[1] = b->h.ny[i];
    out[2] = b->h.nz[i];
}

static inline void tb_v3(rp_vec3 v, float out[3]) {
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
}

#endif
