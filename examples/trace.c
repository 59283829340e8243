/*
 * trace.c - rp_trace, the library's main job in one small program: a
 * built-in scene (a ground plane, boxes, spheres and two triangle meshes)
 * rendered with primary camera rays and one shadow ray per lit hit, all
 * traced through raypack's batch API in batches of BATCH rays, shaded with
 * Lambert + shadow and written as a binary PPM.  It prints the variant the
 * dispatcher chose (or the one forced with --isa) and the rays per second,
 * timed with CLOCK_MONOTONIC over the tracing only (ray generation, the
 * rp_* kernels and shading; not the PPM output), over several frames.
 *
 * There is no acceleration structure: every batch is tested against every
 * primitive, which is what raypack's kernels are for (the leaves of a BVH,
 * or small scenes).  The primitives keep one index range per kind in the
 * hit record (index_base), so one rp_hits record holds the closest hit over
 * all four kinds and the shading code can tell them apart.
 *
 * Usage: rp_trace [--isa=NAME] [--width=N] [--height=N] [--frames=N]
 *                 [-o FILE]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raypack.h"

#define BATCH 1024 /* rays per batch: 12 arrays of 4 KiB stay in L2 */

static void die_status(const char *what, rp_status s) {
    fprintf(stderr, "rp_trace: %s: %s\n", what, rp_status_string(s));
    exit(1);
}

/* Every rp_* status is checked; any failure ends the program. */
#define CHECK(call)                                  \
    do {                                             \
        rp_status st_ = (call);                      \
        if (st_ != RP_OK)                            \
            die_status(#call, st_);                  \
    } while (0)

/* ------------------------------------------------------------------ */
/* Small vector helpers (only for scene setup and shading)              */
/* ------------------------------------------------------------------ */
static rp_vec3 v3(float x, float y, float z) { rp_vec3 v = {x, y, z}; return v; }
static rp_vec3 vadd(rp_vec3 a, rp_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static rp_vec3 vsub(rp_vec3 a, rp_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static rp_vec3 vscale(rp_vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static float vdot(rp_vec3 a, rp_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static rp_vec3 vcross(rp_vec3 a, rp_vec3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static rp_vec3 vnorm(rp_vec3 a) { return vscale(a, 1.0f / sqrtf(vdot(a, a))); }

/* ------------------------------------------------------------------ */
/* The scene                                                            */
/* ------------------------------------------------------------------ */
/* Index ranges in the hit record, one per primitive kind. */
enum { BASE_PLANE = 0, BASE_BOX = 100, BASE_TRI = 200, BASE_SPHERE = 1000 };

#define MAX_TRIS 64

typedef struct scene {
    rp_plane planes[1];
    rp_aabb boxes[3];
    rp_sphere spheres[3];
    rp_triangle tris[MAX_TRIS];
    size_t ntris;
    size_t nicosa; /* tris[0 .. nicosa) are the icosahedron, the rest the pyramid */
    rp_vec3 box_color[3], sphere_color[3];
    rp_vec3 light;  /* unit vector towards the (directional) light */
} scene;

/* An icosahedron of 20 triangles around c with circumradius r. */
static size_t add_icosahedron(rp_triangle *out, rp_vec3 c, float r) {
    const float t = 1.6180339887f;
    const rp_vec3 v[12] = {
        {-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
        {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
        {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1},
    };
    static const int f[20][3] = {
        {0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
        {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
        {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
        {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
    };
    for (int i = 0; i < 20; i++) {
        rp_vec3 *p[3] = {&out[i].v0, &out[i].v1, &out[i].v2};
        for (int k = 0; k < 3; k++)
            *p[k] = vadd(c, vscale(vnorm(v[f[i][k]]), r));
    }
    return 20;
}

/* A square pyramid (4 sides + 2 base triangles) standing on y = base.y. */
static size_t add_pyramid(rp_triangle *out, rp_vec3 base, float half, float h) {
    rp_vec3 a = v3(base.x - half, base.y, base.z - half);
    rp_vec3 b = v3(base.x + half, base.y, base.z - half);
    rp_vec3 c = v3(base.x + half, base.y, base.z + half);
    rp_vec3 d = v3(base.x - half, base.y, base.z + half);
    rp_vec3 apex = v3(base.x, base.y + h, base.z);
    rp_triangle t[6] = {
        {a, b, apex}, {b, c, apex}, {c, d, apex}, {d, a, apex},
        {a, c, b}, {a, d, c},
    };
    memcpy(out, t, sizeof t);
    return 6;
}

static void build_scene(scene *s) {
    memset(s, 0, sizeof *s);
    s->planes[0].n = v3(0, 1, 0); /* the ground, y = 0 */
    s->planes[0].d = 0;

    s->boxes[0] = (rp_aabb){{-3.4f, 0.0f, -0.6f}, {-2.3f, 1.1f, 0.5f}};
    s->boxes[1] = (rp_aabb){{1.9f, 0.0f, 1.2f}, {3.0f, 2.2f, 2.3f}};
    s->boxes[2] = (rp_aabb){{-0.7f, 0.0f, 2.4f}, {0.7f, 0.45f, 3.8f}};
    s->box_color[0] = v3(0.85f, 0.25f, 0.20f);
    s->box_color[1] = v3(0.25f, 0.45f, 0.85f);
    s->box_color[2] = v3(0.80f, 0.75f, 0.30f);

    s->spheres[0] = (rp_sphere){{-1.1f, 0.75f, 0.3f}, 0.75f};
    s->spheres[1] = (rp_sphere){{1.1f, 0.5f, -0.7f}, 0.5f};
    s->spheres[2] = (rp_sphere){{0.1f, 1.35f, 3.1f}, 0.55f}; /* floats above box 2 */
    s->sphere_color[0] = v3(0.90f, 0.90f, 0.90f);
    s->sphere_color[1] = v3(0.30f, 0.80f, 0.35f);
    s->sphere_color[2] = v3(0.85f, 0.45f, 0.80f);

    s->nicosa = add_icosahedron(s->tris, v3(-2.4f, 2.3f, 2.6f), 0.8f);
    s->ntris = s->nicosa + add_pyramid(s->tris + s->nicosa, v3(2.9f, 0.0f, -1.1f), 0.7f, 1.3f);

    s->light = vnorm(v3(-0.6f, 1.0f, -0.45f));
}

/* ------------------------------------------------------------------ */
/* Camera and shading                                                   */
/* ------------------------------------------------------------------ */
typedef struct camera {
    rp_vec3 eye, fwd, right, up; /* right and up scaled to the image plane at distance 1 */
} camera;

static camera make_camera(int w, int h) {
    camera c;
    c.eye = v3(0.0f, 2.4f, -7.0f);
    rp_vec3 target = v3(0.0f, 0.8f, 0.5f);
    c.fwd = vnorm(vsub(target, c.eye));
    rp_vec3 r = vnorm(vcross(v3(0, 1, 0), c.fwd));
    rp_vec3 u = vcross(c.fwd, r);
    float tan_half = tanf(0.5f * 50.0f * 3.14159265f / 180.0f); /* 50 deg vertical fov */
    float aspect = (float)w / (float)h;
    c.right = vscale(r, tan_half * aspect);
    c.up = vscale(u, tan_half);
    return c;
}

static rp_vec3 sky(rp_vec3 d) {
    float k = 0.5f * (vnorm(d).y + 1.0f);
    return vadd(vscale(v3(1.0f, 1.0f, 1.0f), 1.0f - k), vscale(v3(0.45f, 0.65f, 1.0f), k));
}

static rp_vec3 albedo(const scene *s, uint32_t prim, rp_vec3 p) {
    if (prim < BASE_BOX) { /* checkered ground */
        int cx = (int)floorf(p.x), cz = (int)floorf(p.z);
        return ((cx + cz) & 1) ? v3(0.75f, 0.75f, 0.72f) : v3(0.45f, 0.45f, 0.43f);
    }
    if (prim < BASE_TRI)
        return s->box_color[prim - BASE_BOX];
    if (prim < BASE_SPHERE)
        return (prim - BASE_TRI) < s->nicosa ? v3(0.95f, 0.60f, 0.15f) : v3(0.55f, 0.35f, 0.90f);
    return s->sphere_color[prim - BASE_SPHERE];
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Tracing                                                              */
/* ------------------------------------------------------------------ */
typedef struct tracer {
    rp_rays prim, shadow;        /* primary and shadow rays of one batch */
    rp_hits hits, shadow_hits;   /* closest-hit records */
    uint8_t active[BATCH];       /* shadow rays that need tracing */
    uint8_t occluded[BATCH];
    rp_vec3 pos[BATCH], nrm[BATCH];
    float ndotl[BATCH];
    size_t rays_traced;          /* primary + shadow rays */
    double kernel_s;             /* time spent inside rp_* calls */
} tracer;

static void set_n(tracer *tr, size_t n) {
    tr->prim.n = tr->shadow.n = n;
    tr->hits.n = tr->shadow_hits.n = n;
}

/* Renders pixels [first, first + n) of the image (row-major) into rgb. */
static void trace_batch(tracer *tr, const scene *s, const camera *cam, int w, int h,
                        size_t first, size_t n, unsigned char *rgb) {
    rp_rays *r = &tr->prim;
    set_n(tr, n);
    for (size_t i = 0; i < n; i++) {
        size_t pix = first + i;
        float px = (float)(pix % (size_t)w), py = (float)(pix / (size_t)w);
        float sx = 2.0f * (px + 0.5f) / (float)w - 1.0f;
        float sy = 1.0f - 2.0f * (py + 0.5f) / (float)h;
        rp_vec3 d = vadd(cam->fwd, vadd(vscale(cam->right, sx), vscale(cam->up, sy)));
        r->ox[i] = cam->eye.x; r->oy[i] = cam->eye.y; r->oz[i] = cam->eye.z;
        r->dx[i] = d.x; r->dy[i] = d.y; r->dz[i] = d.z;
        r->tmin[i] = 0.0f;
        r->tmax[i] = INFINITY;
    }

    double t0 = now_s();
    CHECK(rp_rays_prepare(r));
    CHECK(rp_hits_reset(&tr->hits));
    /* Closest hit over all kinds: each call shortens tmax, so later calls
     * only replace the record with strictly nearer hits. */
    CHECK(rp_closest_plane(r, NULL, s->planes, 1, BASE_PLANE, &tr->hits));
    CHECK(rp_closest_aabb(r, NULL, s->boxes, 3, BASE_BOX, &tr->hits));
    CHECK(rp_closest_triangle(r, NULL, s->tris, s->ntris, BASE_TRI, 0, &tr->hits));
    CHECK(rp_closest_sphere(r, NULL, s->spheres, 3, BASE_SPHERE, &tr->hits));
    /* Each normal routine touches only the rays whose record is in its range. */
    CHECK(rp_hits_normals_plane(r, &tr->hits, s->planes, 1, BASE_PLANE));
    CHECK(rp_hits_normals_aabb(r, &tr->hits, s->boxes, 3, BASE_BOX));
    CHECK(rp_hits_normals_triangle(r, &tr->hits, s->tris, s->ntris, BASE_TRI));
    CHECK(rp_hits_normals_sphere(r, &tr->hits, s->spheres, 3, BASE_SPHERE));
    tr->kernel_s += now_s() - t0;
    tr->rays_traced += n;

    /* Shadow rays from each hit that faces the light, towards the light. */
    rp_rays *sr = &tr->shadow;
    const rp_vec3 L = s->light;
    size_t nshadow = 0;
    for (size_t i = 0; i < n; i++) {
        tr->active[i] = 0;
        tr->occluded[i] = 0;
        sr->ox[i] = sr->oy[i] = sr->oz[i] = 0.0f;
        sr->dx[i] = L.x; sr->dy[i] = L.y; sr->dz[i] = L.z;
        sr->tmin[i] = 0.0f;
        sr->tmax[i] = INFINITY;
        if (tr->hits.prim[i] == RP_NO_HIT)
            continue;
        rp_vec3 d = v3(r->dx[i], r->dy[i], r->dz[i]);
        rp_vec3 p = vadd(v3(r->ox[i], r->oy[i], r->oz[i]), vscale(d, tr->hits.t[i]));
        rp_vec3 nv = v3(tr->hits.nx[i], tr->hits.ny[i], tr->hits.nz[i]);
        if (vdot(nv, d) > 0.0f) /* make it face the viewer (planes: n as given) */
            nv = vscale(nv, -1.0f);
        tr->pos[i] = p;
        tr->nrm[i] = nv;
        tr->ndotl[i] = vdot(nv, L);
        if (tr->ndotl[i] <= 0.0f)
            continue;
        /* Offset the origin along the normal so the surface does not shadow itself. */
        rp_vec3 o = vadd(p, vscale(nv, 1e-3f));
        sr->ox[i] = o.x; sr->oy[i] = o.y; sr->oz[i] = o.z;
        tr->active[i] = 1;
        nshadow++;
    }

    t0 = now_s();
    CHECK(rp_rays_prepare(sr));
    /* Triangles are the real any-hit kernel. */
    CHECK(rp_occluded_triangle(sr, tr->active, s->tris, s->ntris, 0, tr->occluded));
    /* raypack has no any-hit kernel for boxes or spheres: use the closest-hit
     * kernels on the rays still unoccluded, and count any record as a hit.
     * (That finds the nearest blocker instead of stopping at the first one;
     * with 3 + 3 primitives it costs nothing worth avoiding.)  The ground
     * plane is no occluder: shadow rays start above it and go up (L.y > 0),
     * so they can never meet it. */
    for (size_t i = 0; i < n; i++)
        tr->active[i] &= (uint8_t)!tr->occluded[i];
    CHECK(rp_hits_reset(&tr->shadow_hits));
    CHECK(rp_closest_sphere(sr, tr->active, s->spheres, 3, 0, &tr->shadow_hits));
    CHECK(rp_closest_aabb(sr, tr->active, s->boxes, 3, 0, &tr->shadow_hits));
    tr->kernel_s += now_s() - t0;
    tr->rays_traced += nshadow;

    for (size_t i = 0; i < n; i++) {
        rp_vec3 c;
        if (tr->hits.prim[i] == RP_NO_HIT) {
            c = sky(v3(r->dx[i], r->dy[i], r->dz[i]));
        } else {
            int lit = tr->ndotl[i] > 0.0f && !tr->occluded[i] &&
                      tr->shadow_hits.prim[i] == RP_NO_HIT;
            float k = 0.15f + (lit ? 0.85f * tr->ndotl[i] : 0.0f);
            c = vscale(albedo(s, tr->hits.prim[i], tr->pos[i]), k);
        }
        unsigned char *o = rgb + 3 * (first + i);
        float cc[3] = {c.x, c.y, c.z};
        for (int k = 0; k < 3; k++) {
            float g = sqrtf(cc[k] < 0.0f ? 0.0f : cc[k] > 1.0f ? 1.0f : cc[k]); /* ~gamma 2 */
            o[k] = (unsigned char)(g * 255.0f + 0.5f);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Command line                                                         */
/* ------------------------------------------------------------------ */
static void usage(FILE *f) {
    fprintf(f, "usage: rp_trace [--isa=NAME] [--width=N] [--height=N] [--frames=N] [-o FILE]\n"
               "  --isa=NAME   force a variant: scalar, sse41, avx2, avx512, neon or auto\n"
               "  --width=N    image width (default 640)\n"
               "  --height=N   image height (default 360)\n"
               "  --frames=N   frames to trace for the timing (default 5)\n"
               "  -o FILE      output PPM (default trace.ppm)\n");
}

/* "--name=VALUE" or "--name VALUE"; returns the value or NULL. */
static const char *opt_value(const char *name, int argc, char **argv, int *i) {
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (argv[*i][len] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int parse_int(const char *s, int lo, int hi, const char *what) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "rp_trace: bad %s '%s' (%d..%d)\n", what, s, lo, hi);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv) {
    int w = 640, h = 360, frames = 5;
    const char *out = "trace.ppm";
    const char *isa_name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = opt_value("--isa", argc, argv, &i)))
            isa_name = v;
        else if ((v = opt_value("--width", argc, argv, &i)))
            w = parse_int(v, 1, 16384, "width");
        else if ((v = opt_value("--height", argc, argv, &i)))
            h = parse_int(v, 1, 16384, "height");
        else if ((v = opt_value("--frames", argc, argv, &i)))
            frames = parse_int(v, 1, 100000, "frames");
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    if (isa_name) {
        rp_isa isa;
        rp_status s = rp_isa_from_name(isa_name, &isa);
        if (s == RP_OK)
            s = rp_set_isa(isa);
        if (s != RP_OK) {
            fprintf(stderr, "rp_trace: --isa=%s: %s\n", isa_name, rp_status_string(s));
            return 2;
        }
    }

    scene sc;
    build_scene(&sc);
    camera cam = make_camera(w, h);

    tracer *tr = calloc(1, sizeof *tr);
    size_t npix = (size_t)w * (size_t)h;
    unsigned char *rgb = malloc(3 * npix);
    if (!tr || !rgb) {
        fprintf(stderr, "rp_trace: out of memory\n");
        return 1;
    }
    CHECK(rp_rays_alloc(BATCH, &tr->prim));
    CHECK(rp_rays_alloc(BATCH, &tr->shadow));
    CHECK(rp_hits_alloc(BATCH, &tr->hits));
    CHECK(rp_hits_alloc(BATCH, &tr->shadow_hits));

    double t0 = now_s();
    for (int f = 0; f < frames; f++)
        for (size_t first = 0; first < npix; first += BATCH) {
            size_t n = npix - first < BATCH ? npix - first : BATCH;
            trace_batch(tr, &sc, &cam, w, h, first, n, rgb);
        }
    double total_s = now_s() - t0;

    FILE *fp = fopen(out, "wb");
    if (!fp) {
        perror(out);
        return 1;
    }
    fprintf(fp, "P6\n%d %d\n255\n", w, h);
    if (fwrite(rgb, 3, npix, fp) != npix || fclose(fp) != 0) {
        perror(out);
        return 1;
    }

    size_t prims = 1 + 3 + sc.ntris + 3;
    printf("rp_trace: variant %s, %dx%d, %d frame%s, %zu primitives (no BVH)\n",
           rp_isa_name(rp_active_isa()), w, h, frames, frames == 1 ? "" : "s", prims);
    printf("rp_trace: %zu rays (primary + shadow) in %.3f s of kernel time: %.2f Mrays/s\n",
           tr->rays_traced, tr->kernel_s, 1e-6 * (double)tr->rays_traced / tr->kernel_s);
    printf("rp_trace: whole frames (ray generation + kernels + shading): %.3f s, %.2f Mrays/s, %.1f ms/frame\n",
           total_s, 1e-6 * (double)tr->rays_traced / total_s, 1e3 * total_s / frames);
    printf("rp_trace: wrote %s\n", out);

    rp_rays_free(&tr->prim);
    rp_rays_free(&tr->shadow);
    rp_hits_free(&tr->hits);
    rp_hits_free(&tr->shadow_hits);
    free(tr);
    free(rgb);
    return 0;
}
