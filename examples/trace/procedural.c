/*
 * procedural.c - rp_trace's built-in scene, made in memory so nothing has
 * to be downloaded: a terrain (a displaced grid: flat ground in the middle,
 * hills around it), a displaced cube-sphere rock, three spheres and three
 * boxes, all tessellated into indexed triangle meshes so that everything
 * goes through the scene's BVH (no analytic primitives).  --detail N scales
 * the tessellation: about 16500 * N^2 triangles (N = 8, the default: about
 * 1.06 million; N = 1, for the tests: about 16.5 thousand).  Vertices shared
 * between the faces of a cube-sphere are computed from the same integer
 * lattice point, so they are bit-identical and the meshes stay watertight.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace.h"

/* A smooth deterministic pseudo-noise in [-1, 1] from a few sines. */
static float wave3(rp_vec3 p) {
    return sinf(p.x + 1.3f * sinf(0.7f * p.z)) * sinf(1.1f * p.y + 0.8f * sinf(0.9f * p.x)) *
           sinf(1.2f * p.z + 0.6f + 0.5f * sinf(1.3f * p.y));
}

static float fbm3(rp_vec3 p, int octaves) {
    float sum = 0.0f, amp = 1.0f;
    for (int o = 0; o < octaves; o++) {
        sum += amp * wave3(p);
        p = v3(2.03f * p.x + 1.7f, 2.01f * p.y - 0.9f, 1.97f * p.z + 0.3f);
        amp *= 0.5f;
    }
    return sum;
}

static float smoothstep(float a, float b, float x) {
    float t = (x - a) / (b - a);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return t * t * (3.0f - 2.0f * t);
}

static int alloc_mesh(size_t nv, size_t nt, float **xyz, uint32_t **idx, rt_err *e) {
    *xyz = malloc(3 * nv * sizeof **xyz);
    *idx = malloc(3 * nt * sizeof **idx);
    if (!*xyz || !*idx) {
        free(*xyz);
        free(*idx);
        return rt_fail(e, "built-in scene: out of memory");
    }
    return 0;
}

/* Two triangles per cell of a grid of (n + 1) x (n + 1) vertices numbered
 * row by row from base; writes 6 * n * n indices. */
static uint32_t *grid_indices(uint32_t *ix, uint32_t base, int n) {
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            uint32_t v00 = base + (uint32_t)(a * (n + 1) + b), v01 = v00 + 1;
            uint32_t v10 = v00 + (uint32_t)(n + 1), v11 = v10 + 1;
            *ix++ = v00; *ix++ = v01; *ix++ = v11;
            *ix++ = v00; *ix++ = v11; *ix++ = v10;
        }
    return ix;
}

/* The terrain over [-half, half]^2: n x n cells. */
static int add_terrain(rt_geometry *g, int n, float half, rt_err *e) {
    size_t nv = (size_t)(n + 1) * (size_t)(n + 1), nt = 2 * (size_t)n * (size_t)n;
    float *xyz;
    uint32_t *idx;
    if (alloc_mesh(nv, nt, &xyz, &idx, e))
        return -1;
    float *p = xyz;
    for (int a = 0; a <= n; a++)
        for (int b = 0; b <= n; b++) {
            float x = -half + 2.0f * half * (float)b / (float)n;
            float z = -half + 2.0f * half * (float)a / (float)n;
            float r = sqrtf(x * x + z * z);
            float ripple = 0.05f * wave3(v3(1.1f * x, 0.4f, 1.1f * z));
            float hills = smoothstep(7.0f, 20.0f, r) *
                          (2.2f + 2.0f * fbm3(v3(0.16f * x, 0.73f, 0.16f * z), 6));
            *p++ = x;
            *p++ = ripple + (hills > 0.0f ? hills : 0.0f);
            *p++ = z;
        }
    grid_indices(idx, 0, n);
    return rt_geometry_add(g, xyz, nv, idx, nt, v3(0.5f, 0.5f, 0.5f), 1, "built-in terrain", e);
}

/* A cube-sphere: each face of a cube an n x n grid, pushed onto the sphere
 * (tangent-warped so the cells are about equal), radius scaled by
 * 1 + disp * noise. */
static int add_cubesphere(rt_geometry *g, rp_vec3 c, float radius, int n, float disp,
                          rp_vec3 albedo, rt_err *e) {
    size_t per_face = (size_t)(n + 1) * (size_t)(n + 1);
    size_t nv = 6 * per_face, nt = 12 * (size_t)n * (size_t)n;
    float *xyz;
    uint32_t *idx;
    if (alloc_mesh(nv, nt, &xyz, &idx, e))
        return -1;
    float *p = xyz;
    uint32_t *ix = idx;
    for (int f = 0; f < 6; f++) {
        int axis = f / 2, sign = (f & 1) ? -1 : 1;
        for (int a = 0; a <= n; a++)
            for (int b = 0; b <= n; b++) {
                int k[3];
                k[axis] = sign * n;
                /* the other two axes in an order that keeps the faces' winding alike */
                int u = 2 * a - n, w = (2 * b - n) * sign;
                k[(axis + 1) % 3] = u;
                k[(axis + 2) % 3] = w;
                float q[3];
                for (int j = 0; j < 3; j++)
                    q[j] = tanf(0.78539816f * (float)k[j] / (float)n);
                rp_vec3 d = vnorm(v3(q[0], q[1], q[2]));
                float s = radius;
                if (disp != 0.0f)
                    s *= 1.0f + disp * fbm3(vscale(d, 2.3f), 5);
                rp_vec3 pos = vadd(c, vscale(d, s));
                *p++ = pos.x;
                *p++ = pos.y;
                *p++ = pos.z;
            }
        ix = grid_indices(ix, (uint32_t)((size_t)f * per_face), n);
    }
    return rt_geometry_add(g, xyz, nv, idx, nt, albedo, 0, "built-in cube-sphere", e);
}

/* A box from lo to hi, turned by angle (radians) about the vertical axis
 * through its centre: 8 vertices, 12 triangles. */
static int add_box(rt_geometry *g, rp_vec3 lo, rp_vec3 hi, float angle, rp_vec3 albedo, rt_err *e) {
    static const uint32_t faces[12][3] = {
        {0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
        {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5},
    };
    float *xyz;
    uint32_t *idx;
    if (alloc_mesh(8, 12, &xyz, &idx, e))
        return -1;
    float cx = 0.5f * (lo.x + hi.x), cz = 0.5f * (lo.z + hi.z);
    float cs = cosf(angle), sn = sinf(angle);
    for (int i = 0; i < 8; i++) {
        float x = ((i & 1) ? hi.x : lo.x) - cx, y = (i & 2) ? hi.y : lo.y,
              z = ((i & 4) ? hi.z : lo.z) - cz;
        xyz[3 * i] = cx + cs * x - sn * z;
        xyz[3 * i + 1] = y;
        xyz[3 * i + 2] = cz + sn * x + cs * z;
    }
    for (int t = 0; t < 12; t++)
        for (int k = 0; k < 3; k++)
            idx[3 * t + k] = faces[t][k];
    return rt_geometry_add(g, xyz, 8, idx, 12, albedo, 0, "built-in box", e);
}

int rt_procedural(rt_geometry *g, int detail, rt_err *e) {
    int d = detail;
    if (add_terrain(g, 64 * d, 30.0f, e) ||
        add_cubesphere(g, v3(0.0f, 2.2f, -0.6f), 1.9f, 24 * d, 0.16f, v3(0.62f, 0.52f, 0.42f), e) ||
        add_cubesphere(g, v3(-3.7f, 1.06f, 1.3f), 1.0f, 8 * d, 0.0f, v3(0.85f, 0.85f, 0.82f), e) ||
        add_cubesphere(g, v3(3.3f, 0.81f, 1.7f), 0.75f, 6 * d, 0.0f, v3(0.80f, 0.22f, 0.18f), e) ||
        add_cubesphere(g, v3(1.3f, 0.51f, 3.7f), 0.45f, 4 * d, 0.0f, v3(0.20f, 0.35f, 0.85f), e) ||
        add_box(g, v3(-2.3f, -0.2f, 2.5f), v3(-1.0f, 1.0f, 3.8f), 0.5f, v3(0.90f, 0.55f, 0.15f), e) ||
        add_box(g, v3(2.4f, -0.2f, -3.2f), v3(3.9f, 2.8f, -1.7f), -0.3f, v3(0.20f, 0.65f, 0.60f), e) ||
        add_box(g, v3(-5.2f, -0.2f, -2.4f), v3(-3.8f, 0.7f, -1.0f), 0.2f, v3(0.85f, 0.80f, 0.30f), e))
        return -1;
    rt_geometry_frame(g); /* bounds; the camera and light below replace the framing */
    g->eye = v3(0.6f, 3.6f, 11.0f);
    g->target = v3(0.0f, 1.2f, 0.0f);
    g->fov_deg = 48.0f;
    g->light = vnorm(v3(-0.55f, 0.7f, 0.45f));
    g->ao_radius = 1.5f;
    snprintf(g->description, sizeof g->description, "built-in scene (--detail %d)", detail);
    return 0;
}
