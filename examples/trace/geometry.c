/*
 * geometry.c - the meshes rp_trace keeps beside raypack's scene (the
 * shading needs their albedo, the Embree comparison their vertices): adding
 * a mesh with its checks (finite coordinates, indices in range, a triangle
 * count raypack accepts), framing the camera and the light on the bounds,
 * and the small helpers every file uses (errors, vnorm, the clock).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace.h"

int rt_fail(rt_err *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int rt_check(rt_err *e, const char *what, rp_status s) {
    if (s == RP_OK)
        return 0;
    return rt_fail(e, "%s: %s", what, rp_status_string(s));
}

rp_vec3 vnorm(rp_vec3 a) { return vscale(a, 1.0f / sqrtf(vdot(a, a))); }

double rt_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int rt_geometry_add(rt_geometry *g, float *xyz, size_t nv, uint32_t *idx, size_t nt,
                    rp_vec3 albedo, int terrain, const char *what, rt_err *e) {
    for (size_t i = 0; i < 3 * nv; i++)
        if (!isfinite(xyz[i])) {
            rt_fail(e, "%s: vertex %zu has a coordinate that is not finite (%g)", what, i / 3,
                    (double)xyz[i]);
            goto fail;
        }
    for (size_t i = 0; i < 3 * nt; i++)
        if (idx[i] >= nv) {
            rt_fail(e, "%s: triangle %zu uses vertex %u of %zu", what, i / 3, (unsigned)idx[i], nv);
            goto fail;
        }
    if (nt > 0xFFFFFFF0u - g->triangles) {
        rt_fail(e, "%s: too many triangles for one scene", what);
        goto fail;
    }
    if (g->count == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        rt_mesh *m = realloc(g->meshes, cap * sizeof *m);
        if (!m) {
            rt_fail(e, "%s: out of memory", what);
            goto fail;
        }
        g->meshes = m;
        g->cap = cap;
    }
    rt_mesh *m = &g->meshes[g->count++];
    m->xyz = xyz;
    m->nv = nv;
    m->idx = idx;
    m->nt = nt;
    m->albedo = albedo;
    m->terrain = terrain;
    g->triangles += nt;
    return 0;
fail:
    free(xyz);
    free(idx);
    return -1;
}

void rt_geometry_free(rt_geometry *g) {
    for (size_t i = 0; i < g->count; i++) {
        free(g->meshes[i].xyz);
        free(g->meshes[i].idx);
    }
    free(g->meshes);
    memset(g, 0, sizeof *g);
}

void rt_geometry_frame(rt_geometry *g) {
    rp_aabb b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t m = 0; m < g->count; m++) {
        const rt_mesh *me = &g->meshes[m];
        for (size_t i = 0; i < me->nv; i++) {
            const float *p = me->xyz + 3 * i;
            b.min.x = fminf(b.min.x, p[0]); b.max.x = fmaxf(b.max.x, p[0]);
            b.min.y = fminf(b.min.y, p[1]); b.max.y = fmaxf(b.max.y, p[1]);
            b.min.z = fminf(b.min.z, p[2]); b.max.z = fmaxf(b.max.z, p[2]);
        }
    }
    g->bounds = b;
    rp_vec3 c = vscale(vadd(b.min, b.max), 0.5f);
    rp_vec3 half = vscale(vsub(b.max, b.min), 0.5f);
    float r = sqrtf(vdot(half, half));
    if (!(r > 0.0f))
        r = 1.0f;
    g->fov_deg = 40.0f;
    /* from the front right, a little above; the whole bounding sphere in view */
    rp_vec3 dir = vnorm(v3(0.55f, 0.45f, 1.0f));
    float dist = 1.08f * r / sinf(0.5f * g->fov_deg * 3.14159265f / 180.0f);
    g->eye = vadd(c, vscale(dir, dist));
    g->target = c;
    g->light = vnorm(v3(-0.45f, 0.85f, 0.55f));
    g->ao_radius = 0.2f * r;
}
