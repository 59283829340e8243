/*
 * test_watertight.c - the closed-mesh test of RP_WATERTIGHT: rays cast from
 * points strictly inside closed, consistently oriented triangle meshes whose
 * shared vertices are bit-identical (jittered icosahedron spheres of levels
 * 0 to 5, radii 0.37 to 50, offsets of magnitude 1 to 10^4 from the origin;
 * axis-aligned and rotated boxes; a long thin rotated tube) towards every
 * vertex, every edge midpoint, random points on the edges and random points
 * on the faces must all hit the mesh.  For every runnable variant it asserts
 * 0 leaks for rp_closest_triangle and rp_occluded_triangle with RP_WATERTIGHT,
 * 0 leaks with RP_WATERTIGHT | RP_CULL_BACKFACE on the inward-oriented copy,
 * no hit at all with culling on the outward mesh (seen from inside it is all
 * back faces), and hit records bit-identical to the scalar reference's.
 * Moller-Trumbore's leak count on the same rays (flags 0) is printed, not
 * asserted.  Every mesh is first checked to be closed and consistently
 * oriented, and every ray origin to see every face from behind with winding
 * number 1 (so each ray from it crosses the surface exactly once).  By
 * default large meshes get a deterministic sample of their rays (at most
 * ~12 million ray-triangle tests per variant, for qemu and valgrind runs);
 * --full casts every ray on every mesh.  A leaking ray is printed with
 * hex floats (mesh, variant, origin, direction, target), then cast alone
 * with tmin = -inf at the triangles around its target, to tell a ray that
 * slipped between triangles from one whose hit got a wrong t.  Output is
 * TAP; the digests at the end let runs on different machines be compared.
 *
 * Usage: test_watertight [--full | --rays=N] [--seed=N] [--isa=NAME[,NAME...]]
 *                        [--mesh=SUBSTR] [--verbose]
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raypack.h"
#include "../unit/isas.h" /* RP_TEST_ISAS, as the unit tests */
#include "../unit/tap.h"

/* Default sample: at most this many ray-triangle pairs per mesh and call
 * (but at least DEFAULT_MIN_RAYS rays), so that the five calls per variant
 * (closest and occluded, culled closest and occluded on the inward copy,
 * culled closest on the outward mesh) over all meshes make about 12
 * million ray-triangle tests (the occluded calls stop at the first hit). */
#define DEFAULT_PAIRS_PER_MESH 150000u
#define DEFAULT_MIN_RAYS 48u
/* Meshes of at most this many triangles (the boxes, the level 0 and 1
 * spheres and the thin tube) are always cast in full: the thin tube is the
 * hard case, and its few hard rays (from its center toward the midpoints
 * of its 100-long diagonal edges) are easily left out of a sample.  The
 * tube costs 2,890 rays x 128 triangles per call. */
#define FULL_MAX_FACES 128u
#define MAX_ORIGINS 8
#define MAX_PRINT 8 /* rays printed per failing check */
#define PI 3.14159265358979323846

/* ------------------------------------------------------------------ */
/* Random numbers (splitmix64)                                          */
/* ------------------------------------------------------------------ */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s) { /* [0, 1) */
    return (double)(rng_next(s) >> 11) * 0x1p-53;
}

static double rng_sym(uint64_t *s) { /* [-1, 1) */
    return 2.0 * rng_unit(s) - 1.0;
}

static float rng_open01f(uint64_t *s) { /* (0, 1): odd multiples of 2^-24 */
    return (float)((rng_next(s) >> 40) | 1u) * 0x1p-24f;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */
static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        printf("Bail out! out of memory\n");
        exit(1);
    }
    return p;
}

/* FNV-1a over bytes: digests of the inputs and of the reference's records,
 * to compare runs across machines. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static double now_s(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct dvec { double x, y, z; } dvec;

static dvec dv(double x, double y, double z) { dvec r = {x, y, z}; return r; }
static dvec dsub(dvec a, dvec b) { return dv(a.x - b.x, a.y - b.y, a.z - b.z); }
static dvec dadd(dvec a, dvec b) { return dv(a.x + b.x, a.y + b.y, a.z + b.z); }
static dvec dscale(dvec a, double s) { return dv(a.x * s, a.y * s, a.z * s); }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static dvec dcross(dvec a, dvec b) {
    return dv(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static double dlen(dvec a) { return sqrt(ddot(a, a)); }
static dvec dnorm(dvec a) { return dscale(a, 1.0 / dlen(a)); }
static dvec f2d(rp_vec3 v) { return dv(v.x, v.y, v.z); }
static rp_vec3 d2f(dvec v) {
    rp_vec3 r = {(float)v.x, (float)v.y, (float)v.z};
    return r;
}

/* Two unit vectors orthogonal to unit u and to each other. */
static void dbasis(dvec u, dvec *a, dvec *b) {
    dvec h = fabs(u.x) < 0.6 ? dv(1, 0, 0) : dv(0, 1, 0);
    *a = dnorm(dcross(u, h));
    *b = dcross(u, *a);
}

/* ------------------------------------------------------------------ */
/* Meshes: indexed float vertices, outward counter-clockwise faces       */
/* ------------------------------------------------------------------ */
typedef struct mesh {
    char name[128];
    size_t nv, nf, ne;
    rp_vec3 *v;     /* the float vertices: every face uses these exact bits */
    uint32_t *f;    /* 3 per face */
    uint32_t *e;    /* 2 per edge, e[2k] < e[2k+1] */
    rp_vec3 center; /* an interior point the mesh is star-shaped around */
    size_t norig;
    rp_vec3 orig[MAX_ORIGINS];
    double inradius; /* min distance from center to a face plane (double) */
    rp_triangle *out, *in; /* outward and inward (reversed) triangles */
} mesh;

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted unique undirected edges (min << 32 | max) of a face list. */
static uint64_t *edge_keys(const uint32_t *f, size_t nf, size_t *ne) {
    uint64_t *k = xcalloc(3 * nf, sizeof *k);
    for (size_t i = 0; i < nf; i++)
        for (int j = 0; j < 3; j++) {
            uint64_t a = f[3 * i + j], b = f[3 * i + (j + 1) % 3];
            k[3 * i + j] = a < b ? (a << 32 | b) : (b << 32 | a);
        }
    qsort(k, 3 * nf, sizeof *k, cmp_u64);
    size_t n = 0;
    for (size_t i = 0; i < 3 * nf; i++)
        if (n == 0 || k[i] != k[n - 1])
            k[n++] = k[i];
    *ne = n;
    return k;
}

static size_t edge_find(const uint64_t *k, size_t ne, uint32_t a, uint32_t b) {
    uint64_t key = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);
    const uint64_t *p = bsearch(&key, k, ne, sizeof *k, cmp_u64);
    return p ? (size_t)(p - k) : SIZE_MAX;
}

/* Closed and consistently oriented: every directed edge appears once and
 * its reverse appears once. */
static int mesh_closed(const mesh *m) {
    size_t n = 3 * m->nf;
    uint64_t *h = xcalloc(n, sizeof *h);
    int ok = 1;
    for (size_t i = 0; i < m->nf; i++)
        for (int j = 0; j < 3; j++)
            h[3 * i + j] = (uint64_t)m->f[3 * i + j] << 32 | m->f[3 * i + (j + 1) % 3];
    qsort(h, n, sizeof *h, cmp_u64);
    for (size_t i = 0; i < n && ok; i++) {
        uint64_t rev = h[i] << 32 | h[i] >> 32;
        if ((h[i] >> 32) == (h[i] & 0xffffffffu))
            ok = 0;
        if (i + 1 < n && h[i + 1] == h[i])
            ok = 0;
        if (!bsearch(&rev, h, n, sizeof *h, cmp_u64))
            ok = 0;
    }
    free(h);
    return ok && n == 2 * m->ne;
}

/* Flip faces that do not see c from behind (used on exact double geometry
 * of convex or star-shaped meshes while building them). */
static void orient_faces(const dvec *p, uint32_t *f, size_t nf, dvec c) {
    for (size_t i = 0; i < nf; i++) {
        dvec a = dsub(p[f[3 * i]], c), b = dsub(p[f[3 * i + 1]], c),
             d = dsub(p[f[3 * i + 2]], c);
        if (ddot(a, dcross(b, d)) < 0.0) {
            uint32_t t = f[3 * i + 1];
            f[3 * i + 1] = f[3 * i + 2];
            f[3 * i + 2] = t;
        }
    }
}

/* For the float mesh and a point c (all in double): the minimum signed
 * distance from c to a face plane (positive: c is behind every face, i.e.
 * on the inner side of an outward face) and the winding number (sum of the
 * faces' solid angles seen from c over 4 pi, Van Oosterom-Strackee). */
static void mesh_view(const mesh *m, rp_vec3 cf, double *mindist, double *winding) {
    dvec c = f2d(cf);
    double md = INFINITY, omega = 0.0;
    for (size_t i = 0; i < m->nf; i++) {
        dvec a = dsub(f2d(m->v[m->f[3 * i]]), c);
        dvec b = dsub(f2d(m->v[m->f[3 * i + 1]]), c);
        dvec d = dsub(f2d(m->v[m->f[3 * i + 2]]), c);
        dvec n = dcross(dsub(b, a), dsub(d, a));
        double nl = dlen(n);
        double dist = nl > 0.0 ? ddot(a, n) / nl : -INFINITY;
        if (dist < md)
            md = dist;
        double la = dlen(a), lb = dlen(b), ld = dlen(d);
        double num = ddot(a, dcross(b, d));
        double den = la * lb * ld + ddot(a, b) * ld + ddot(a, d) * lb + ddot(b, d) * la;
        omega += 2.0 * atan2(num, den);
    }
    *mindist = md;
    *winding = omega / (4.0 * PI);
}

/* Converts double positions to the float vertex array, builds the edge
 * list, the expanded triangles (outward and reversed) and the center. */
static void mesh_finish(mesh *m, const dvec *p, size_t nv, uint32_t *f, size_t nf,
                        rp_vec3 center) {
    m->nv = nv;
    m->nf = nf;
    m->f = f;
    m->v = xcalloc(nv, sizeof *m->v);
    for (size_t i = 0; i < nv; i++)
        m->v[i] = d2f(p[i]);
    uint64_t *k = edge_keys(f, nf, &m->ne);
    m->e = xcalloc(2 * m->ne, sizeof *m->e);
    for (size_t i = 0; i < m->ne; i++) {
        m->e[2 * i] = (uint32_t)(k[i] >> 32);
        m->e[2 * i + 1] = (uint32_t)(k[i] & 0xffffffffu);
    }
    free(k);
    m->out = xcalloc(nf, sizeof *m->out);
    m->in = xcalloc(nf, sizeof *m->in);
    for (size_t i = 0; i < nf; i++) {
        rp_vec3 a = m->v[f[3 * i]], b = m->v[f[3 * i + 1]], c = m->v[f[3 * i + 2]];
        m->out[i].v0 = a; m->out[i].v1 = b; m->out[i].v2 = c;
        m->in[i].v0 = a; m->in[i].v1 = c; m->in[i].v2 = b;
    }
    m->center = center;
    m->orig[0] = center;
    m->norig = 1;
}

static void mesh_free(mesh *m) {
    free(m->v); free(m->f); free(m->e); free(m->out); free(m->in);
    memset(m, 0, sizeof *m);
}

/* Icosahedron sphere of the given level: unit vertices (subdivision
 * midpoints normalized), then per vertex a tangential jitter of up to
 * min(3% of the radius, 12% of the level's edge length) and a radial
 * jitter of +-3%, then scaled and translated.  Radial jitter keeps the
 * surface a radial graph around the center; the tangential bound keeps
 * every face from folding over. */
static void make_sphere(mesh *m, int level, double radius, dvec off, uint64_t *rng) {
    const double phi = (1.0 + sqrt(5.0)) / 2.0;
    static const double iv[12][3] = {
        {-1, 1, 0}, {1, 1, 0}, {-1, -1, 0}, {1, -1, 0}, {0, -1, 1}, {0, 1, 1},
        {0, -1, -1}, {0, 1, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, -1}, {-1, 0, 1}};
    static const uint32_t ifc[20][3] = {
        {0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
        {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
        {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
        {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    size_t nv = 12, nf = 20;
    size_t maxv = 10 * ((size_t)1 << (2 * level)) + 2;
    dvec *p = xcalloc(maxv, sizeof *p);
    uint32_t *f = xcalloc(3 * nf, sizeof *f);
    for (int i = 0; i < 12; i++) {
        /* rows 0-3 are (+-1, +-phi, 0), rows 4-7 (0, +-1, +-phi), rows
         * 8-11 (+-phi, 0, +-1) */
        double x = iv[i][0], y = iv[i][1], z = iv[i][2];
        if (i < 4) y *= phi;
        else if (i < 8) z *= phi;
        else x *= phi;
        p[i] = dnorm(dv(x, y, z));
    }
    memcpy(f, ifc, sizeof ifc);
    orient_faces(p, f, nf, dv(0, 0, 0));
    for (int l = 0; l < level; l++) {
        size_t ne;
        uint64_t *k = edge_keys(f, nf, &ne);
        for (size_t i = 0; i < ne; i++)
            p[nv + i] = dnorm(dscale(dadd(p[k[i] >> 32], p[k[i] & 0xffffffffu]), 0.5));
        uint32_t *g = xcalloc(12 * nf, sizeof *g);
        for (size_t i = 0; i < nf; i++) {
            uint32_t a = f[3 * i], b = f[3 * i + 1], c = f[3 * i + 2];
            uint32_t ab = (uint32_t)(nv + edge_find(k, ne, a, b));
            uint32_t bc = (uint32_t)(nv + edge_find(k, ne, b, c));
            uint32_t ca = (uint32_t)(nv + edge_find(k, ne, c, a));
            const uint32_t q[12] = {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca};
            memcpy(g + 12 * i, q, sizeof q);
        }
        free(k);
        free(f);
        f = g;
        nv += ne;
        nf *= 4;
    }
    double edge = atan(2.0) / (double)((size_t)1 << level); /* edge angle */
    double tang = 0.12 * edge < 0.03 ? 0.12 * edge : 0.03;
    for (size_t i = 0; i < nv; i++) {
        dvec a, b;
        dbasis(p[i], &a, &b);
        /* one draw per statement: argument evaluation order is unspecified */
        double ja = rng_sym(rng);
        double jb = rng_sym(rng);
        double jr = rng_sym(rng);
        dvec u = dnorm(dadd(p[i], dadd(dscale(a, tang * ja), dscale(b, tang * jb))));
        double r = radius * (1.0 + 0.03 * jr);
        p[i] = dadd(off, dscale(u, r));
    }
    rp_vec3 c = d2f(off);
    snprintf(m->name, sizeof m->name, "sphere L%d r=%g at (%g, %g, %g)", level, radius,
             off.x, off.y, off.z);
    mesh_finish(m, p, nv, f, nf, c);
    free(p);
}

/* A box with half-extents h, rotated by the orthonormal frame (ax, ay, az)
 * and centered at c: 8 vertices, 12 faces (each face split on a diagonal). */
static void make_box(mesh *m, const char *name, dvec c, dvec h, dvec ax, dvec ay, dvec az) {
    dvec *p = xcalloc(8, sizeof *p);
    for (int i = 0; i < 8; i++) {
        double sx = (i & 1) ? h.x : -h.x, sy = (i & 2) ? h.y : -h.y, sz = (i & 4) ? h.z : -h.z;
        p[i] = dadd(c, dadd(dscale(ax, sx), dadd(dscale(ay, sy), dscale(az, sz))));
    }
    static const uint32_t bf[12][3] = {
        {0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
        {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    uint32_t *f = xcalloc(36, sizeof *f);
    memcpy(f, bf, sizeof bf);
    orient_faces(p, f, 12, c);
    snprintf(m->name, sizeof m->name, "%s", name);
    mesh_finish(m, p, 8, f, 12, d2f(c));
    free(p);
}

/* A closed cylinder from base along unit axis a, with the given length,
 * radius and segments; caps are fans around a center vertex on the axis. */
static void make_tube(mesh *m, dvec base, dvec a, double length, double radius, int seg) {
    size_t nv = 2 * (size_t)seg + 2, nf = 4 * (size_t)seg;
    dvec *p = xcalloc(nv, sizeof *p);
    uint32_t *f = xcalloc(3 * nf, sizeof *f);
    dvec b, c;
    dbasis(a, &b, &c);
    dvec top = dadd(base, dscale(a, length));
    for (int i = 0; i < seg; i++) {
        double th = 2.0 * PI * i / seg;
        dvec r = dadd(dscale(b, radius * cos(th)), dscale(c, radius * sin(th)));
        p[i] = dadd(base, r);
        p[seg + i] = dadd(top, r);
    }
    uint32_t cb = (uint32_t)(2 * seg), ct = cb + 1;
    p[cb] = base;
    p[ct] = top;
    size_t k = 0;
    for (int i = 0; i < seg; i++) {
        uint32_t i0 = (uint32_t)i, i1 = (uint32_t)((i + 1) % seg);
        uint32_t j0 = (uint32_t)seg + i0, j1 = (uint32_t)seg + i1;
        const uint32_t q[12] = {i0, i1, j1, i0, j1, j0, cb, i1, i0, ct, j0, j1};
        memcpy(f + k, q, sizeof q);
        k += 12;
    }
    dvec mid = dadd(base, dscale(a, 0.5 * length));
    orient_faces(p, f, nf, mid);
    snprintf(m->name, sizeof m->name,
             "tube length %g radius %g %d segments from (%g, %g, %g) along (%.4f, %.4f, %.4f)",
             length, radius, seg, base.x, base.y, base.z, a.x, a.y, a.z);
    mesh_finish(m, p, nv, f, nf, d2f(mid));
    free(p);
    /* origins on the axis (in float), away from the caps */
    rp_vec3 bf = d2f(base), tf = d2f(top);
    const float fr[4] = {0.0137f, 0.25f, 0.6180339f, 0.9871f};
    for (int i = 0; i < 4; i++) {
        rp_vec3 o;
        float d;
        d = tf.x - bf.x; d = fr[i] * d; o.x = bf.x + d;
        d = tf.y - bf.y; d = fr[i] * d; o.y = bf.y + d;
        d = tf.z - bf.z; d = fr[i] * d; o.z = bf.z + d;
        m->orig[m->norig++] = o;
    }
}

/* Random interior origins for spheres and boxes: within 0.5 * inradius of
 * the center, so at least 0.5 * inradius behind every face plane. */
static void add_ball_origins(mesh *m, int count, uint64_t *rng) {
    for (int i = 0; i < count && m->norig < MAX_ORIGINS; i++) {
        dvec u;
        do {
            u.x = rng_sym(rng);
            u.y = rng_sym(rng);
            u.z = rng_sym(rng);
        } while (ddot(u, u) > 1.0 || ddot(u, u) < 1e-6);
        u = dscale(u, 0.5 * m->inradius);
        m->orig[m->norig++] = d2f(dadd(f2d(m->center), u));
    }
}

/* ------------------------------------------------------------------ */
/* Rays                                                                 */
/* ------------------------------------------------------------------ */
enum { T_VERTEX, T_MIDPOINT, T_EDGE, T_FACE, T_KINDS };
static const char *const kind_names[T_KINDS] = {"vertex", "edge midpoint", "edge point",
                                                "face point"};

typedef struct target {
    rp_vec3 p;
    uint8_t kind;
    uint32_t a, b, c; /* vertex, edge (a, b) or face (a, b, c) */
    float s, w;       /* edge parameter; face parameters s, w */
} target;

typedef struct rayset {
    size_t n, nfull;
    rp_rays rays;
    uint32_t *oi, *ti; /* origin and target of each ray */
    target *t;
    size_t nt;
} rayset;

static rp_vec3 lerpf(rp_vec3 a, rp_vec3 b, float s) { /* a + s * (b - a) in float */
    rp_vec3 r;
    float d;
    d = b.x - a.x; d = s * d; r.x = a.x + d;
    d = b.y - a.y; d = s * d; r.y = a.y + d;
    d = b.z - a.z; d = s * d; r.z = a.z + d;
    return r;
}

static void build_targets(const mesh *m, rayset *rs, uint64_t *rng) {
    rs->nt = m->nv + 2 * m->ne + m->nf;
    rs->t = xcalloc(rs->nt, sizeof *rs->t);
    size_t k = 0;
    for (size_t i = 0; i < m->nv; i++) {
        target *t = &rs->t[k++];
        t->kind = T_VERTEX;
        t->a = (uint32_t)i;
        t->p = m->v[i];
    }
    for (size_t i = 0; i < m->ne; i++) {
        target *t = &rs->t[k++];
        t->kind = T_MIDPOINT;
        t->a = m->e[2 * i];
        t->b = m->e[2 * i + 1];
        t->s = 0.5f;
        t->p = lerpf(m->v[t->a], m->v[t->b], 0.5f);
    }
    for (size_t i = 0; i < m->ne; i++) {
        target *t = &rs->t[k++];
        t->kind = T_EDGE;
        t->a = m->e[2 * i];
        t->b = m->e[2 * i + 1];
        t->s = rng_open01f(rng);
        t->p = lerpf(m->v[t->a], m->v[t->b], t->s);
    }
    for (size_t i = 0; i < m->nf; i++) {
        target *t = &rs->t[k++];
        float s = rng_open01f(rng), w = rng_open01f(rng);
        if (s + w >= 1.0f) {
            s = 1.0f - s;
            w = 1.0f - w;
        }
        t->kind = T_FACE;
        t->a = m->f[3 * i]; t->b = m->f[3 * i + 1]; t->c = m->f[3 * i + 2];
        t->s = s;
        t->w = w;
        rp_vec3 v0 = m->v[t->a], v1 = m->v[t->b], v2 = m->v[t->c], p;
        float d, e;
        d = v1.x - v0.x; d = s * d; e = v2.x - v0.x; e = w * e; p.x = v0.x + d; p.x = p.x + e;
        d = v1.y - v0.y; d = s * d; e = v2.y - v0.y; e = w * e; p.y = v0.y + d; p.y = p.y + e;
        d = v1.z - v0.z; d = s * d; e = v2.z - v0.z; e = w * e; p.z = v0.z + d; p.z = p.z + e;
        t->p = p;
    }
}

/* Every origin x every target, or (default) a deterministic sample of at
 * most max_rays of them in increasing order. */
static void build_rays(const mesh *m, rayset *rs, size_t max_rays, uint64_t *rng) {
    build_targets(m, rs, rng);
    size_t full = m->norig * rs->nt;
    rs->nfull = full;
    size_t n = full < max_rays ? full : max_rays;
    uint32_t *idx = xcalloc(full, sizeof *idx);
    for (size_t i = 0; i < full; i++)
        idx[i] = (uint32_t)i;
    if (n < full) {
        for (size_t i = 0; i < n; i++) { /* partial Fisher-Yates */
            size_t j = i + (size_t)(rng_next(rng) % (full - i));
            uint32_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
        }
        qsort(idx, n, sizeof *idx, cmp_u32);
    }
    rs->n = n;
    rs->oi = xcalloc(n, sizeof *rs->oi);
    rs->ti = xcalloc(n, sizeof *rs->ti);
    if (rp_rays_alloc(n, &rs->rays) != RP_OK) {
        printf("Bail out! rp_rays_alloc\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t o = (uint32_t)(idx[i] / rs->nt), t = (uint32_t)(idx[i] % rs->nt);
        rp_vec3 a = m->orig[o], b = rs->t[t].p;
        rs->oi[i] = o;
        rs->ti[i] = t;
        rs->rays.ox[i] = a.x; rs->rays.oy[i] = a.y; rs->rays.oz[i] = a.z;
        rs->rays.dx[i] = b.x - a.x;
        rs->rays.dy[i] = b.y - a.y;
        rs->rays.dz[i] = b.z - a.z;
        rs->rays.tmin[i] = 0.0f;
        rs->rays.tmax[i] = INFINITY;
    }
    free(idx);
    if (rp_rays_prepare(&rs->rays) != RP_OK) {
        printf("Bail out! rp_rays_prepare\n");
        exit(1);
    }
}

static void rayset_free(rayset *rs) {
    rp_rays_free(&rs->rays);
    free(rs->oi); free(rs->ti); free(rs->t);
    memset(rs, 0, sizeof *rs);
}

static void describe_ray(const mesh *m, const rayset *rs, size_t i, const char *variant,
                         const char *what) {
    const target *t = &rs->t[rs->ti[i]];
    char tgt[160];
    switch (t->kind) {
    case T_VERTEX:
        snprintf(tgt, sizeof tgt, "vertex %u", (unsigned)t->a);
        break;
    case T_MIDPOINT:
    case T_EDGE:
        snprintf(tgt, sizeof tgt, "%s of edge (%u, %u), s = %a", kind_names[t->kind],
                 (unsigned)t->a, (unsigned)t->b, (double)t->s);
        break;
    default:
        snprintf(tgt, sizeof tgt, "face point of (%u, %u, %u), s = %a, w = %a",
                 (unsigned)t->a, (unsigned)t->b, (unsigned)t->c, (double)t->s, (double)t->w);
        break;
    }
    tap_diag("  %s: mesh %s, variant %s, ray %zu (origin %u toward %s): "
             "origin (%a, %a, %a) direction (%a, %a, %a) tmin 0 tmax inf",
             what, m->name, variant, i, (unsigned)rs->oi[i], tgt, (double)rs->rays.ox[i],
             (double)rs->rays.oy[i], (double)rs->rays.oz[i], (double)rs->rays.dx[i],
             (double)rs->rays.dy[i], (double)rs->rays.dz[i]);
}

/* ------------------------------------------------------------------ */
/* Running one variant on one mesh                                      */
/* ------------------------------------------------------------------ */
typedef struct result {
    rp_hits hit;    /* closest, RP_WATERTIGHT, outward mesh */
    uint8_t *occ;   /* occluded, RP_WATERTIGHT, outward mesh */
    rp_hits chit;   /* closest, RP_WATERTIGHT | RP_CULL_BACKFACE, inward mesh */
    uint8_t *cocc;  /* occluded, RP_WATERTIGHT | RP_CULL_BACKFACE, inward mesh */
    rp_hits ohit;   /* closest, RP_WATERTIGHT | RP_CULL_BACKFACE, outward mesh */
} result;

static void result_alloc(result *r, size_t n) {
    memset(r, 0, sizeof *r);
    if (rp_hits_alloc(n, &r->hit) != RP_OK || rp_hits_alloc(n, &r->chit) != RP_OK ||
        rp_hits_alloc(n, &r->ohit) != RP_OK) {
        printf("Bail out! rp_hits_alloc\n");
        exit(1);
    }
    r->occ = xcalloc(n, 1);
    r->cocc = xcalloc(n, 1);
}

static void result_free(result *r) {
    rp_hits_free(&r->hit); rp_hits_free(&r->chit); rp_hits_free(&r->ohit);
    free(r->occ); free(r->cocc);
}

static void reset_tmax(rp_rays *r) {
    for (size_t i = 0; i < r->n; i++)
        r->tmax[i] = INFINITY;
}

/* The five calls; returns 0 if any status is not RP_OK (reported). */
static int run_calls(const mesh *m, rayset *rs, result *r) {
    rp_status st[5];
    const unsigned wt = RP_WATERTIGHT, wtc = RP_WATERTIGHT | RP_CULL_BACKFACE;
    rp_hits_reset(&r->hit);
    rp_hits_reset(&r->chit);
    rp_hits_reset(&r->ohit);
    memset(r->occ, 0, rs->n);
    memset(r->cocc, 0, rs->n);
    reset_tmax(&rs->rays);
    st[0] = rp_closest_triangle(&rs->rays, NULL, m->out, m->nf, 0, wt, &r->hit);
    reset_tmax(&rs->rays);
    st[1] = rp_occluded_triangle(&rs->rays, NULL, m->out, m->nf, wt, r->occ);
    st[2] = rp_closest_triangle(&rs->rays, NULL, m->in, m->nf, 0, wtc, &r->chit);
    reset_tmax(&rs->rays);
    st[3] = rp_occluded_triangle(&rs->rays, NULL, m->in, m->nf, wtc, r->cocc);
    st[4] = rp_closest_triangle(&rs->rays, NULL, m->out, m->nf, 0, wtc, &r->ohit);
    reset_tmax(&rs->rays);
    for (int k = 0; k < 5; k++)
        if (st[k] != RP_OK) {
            tap_diag("  call %d: %s", k, rp_status_string(st[k]));
            return 0;
        }
    return 1;
}

/* Exact (double) parameter of the line o + t d at the plane of face j. */
static double plane_t(const mesh *m, const rayset *rs, size_t i, size_t j) {
    dvec o = dv(rs->rays.ox[i], rs->rays.oy[i], rs->rays.oz[i]);
    dvec d = dv(rs->rays.dx[i], rs->rays.dy[i], rs->rays.dz[i]);
    dvec a = f2d(m->out[j].v0), b = f2d(m->out[j].v1), c = f2d(m->out[j].v2);
    dvec n = dcross(dsub(b, a), dsub(c, a));
    return ddot(dsub(a, o), n) / ddot(d, n);
}

/* For a leaking ray: casts it alone, with tmin = -inf, at each triangle
 * around its target (those that touch the target's vertex, edge or face),
 * with the variant in use, and prints the hits: a hit at a t below 0 where
 * the exact exit is near t = 1 means the 2D test found the triangle and
 * the reported t is what failed. */
static void explain_leak(const mesh *m, const rayset *rs, size_t i, unsigned flags) {
    const target *tg = &rs->t[rs->ti[i]];
    uint32_t vs[3] = {tg->a, tg->b, tg->c};
    int nvs = tg->kind == T_VERTEX ? 1 : tg->kind == T_FACE ? 3 : 2;
    rp_rays one;
    rp_hits h;
    if (rp_rays_alloc(1, &one) != RP_OK || rp_hits_alloc(1, &h) != RP_OK)
        return;
    one.ox[0] = rs->rays.ox[i]; one.oy[0] = rs->rays.oy[i]; one.oz[0] = rs->rays.oz[i];
    one.dx[0] = rs->rays.dx[i]; one.dy[0] = rs->rays.dy[i]; one.dz[0] = rs->rays.dz[i];
    one.tmin[0] = -INFINITY;
    rp_rays_prepare(&one);
    size_t around = 0, missed = 0;
    for (size_t j = 0; j < m->nf; j++) {
        int touch = 0;
        for (int k = 0; k < 3; k++)
            for (int q = 0; q < nvs; q++)
                touch |= m->f[3 * j + k] == vs[q];
        if (!touch)
            continue;
        around++;
        one.tmax[0] = INFINITY;
        rp_hits_reset(&h);
        const rp_triangle *tri = (flags & RP_CULL_BACKFACE) ? &m->in[j] : &m->out[j];
        if (rp_closest_triangle(&one, NULL, tri, 1, (uint32_t)j, flags, &h) != RP_OK)
            break;
        if (h.prim[0] == RP_NO_HIT) {
            missed++;
            continue;
        }
        tap_diag("    alone, tmin = -inf: triangle %zu (%u, %u, %u) is hit at t = %a (%.6g), "
                 "u = %a, v = %a; its plane is at t = %.9g",
                 j, (unsigned)m->f[3 * j], (unsigned)m->f[3 * j + 1], (unsigned)m->f[3 * j + 2],
                 (double)h.t[0], (double)h.t[0], (double)h.u[0], (double)h.v[0],
                 plane_t(m, rs, i, j));
    }
    tap_diag("    (%zu of the %zu triangles around the target are not hit)", missed, around);
    rp_rays_free(&one);
    rp_hits_free(&h);
}

/* Rays whose result is wrong (a leak: no hit / not occluded; or, with
 * want_hit == 0, a hit); prints the first few. */
static size_t count_bad(const mesh *m, const rayset *rs, const char *variant, const char *what,
                        const rp_hits *hits, const uint8_t *occ, int want_hit, unsigned flags) {
    size_t bad = 0;
    for (size_t i = 0; i < rs->n; i++) {
        int hit = hits ? hits->prim[i] != RP_NO_HIT : occ[i] != 0;
        if (hit == want_hit)
            continue;
        if (bad < MAX_PRINT) {
            describe_ray(m, rs, i, variant, what);
            if (!want_hit)
                tap_diag("    hit triangle %u at t = %a (%.6g); its plane is at t = %.9g",
                         (unsigned)hits->prim[i], (double)hits->t[i], (double)hits->t[i],
                         plane_t(m, rs, i, hits->prim[i]));
            else if (bad < 2)
                explain_leak(m, rs, i, flags);
        }
        bad++;
    }
    if (bad > MAX_PRINT)
        tap_diag("  ... and %zu more", bad - MAX_PRINT);
    return bad;
}

static int same_hits(const rp_hits *a, const rp_hits *b, size_t n, size_t *first) {
    for (size_t i = 0; i < n; i++)
        if (a->prim[i] != b->prim[i] || tap_f2u(a->t[i]) != tap_f2u(b->t[i]) ||
            tap_f2u(a->u[i]) != tap_f2u(b->u[i]) || tap_f2u(a->v[i]) != tap_f2u(b->v[i])) {
            *first = i;
            return 0;
        }
    return 1;
}

static int same_bytes(const uint8_t *a, const uint8_t *b, size_t n, size_t *first) {
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
            *first = i;
            return 0;
        }
    return 1;
}

static void report_diff(const mesh *m, const rayset *rs, const char *variant, const char *what,
                        const rp_hits *got, const rp_hits *want, const uint8_t *gotb,
                        const uint8_t *wantb, size_t i) {
    describe_ray(m, rs, i, variant, what);
    if (got && want) {
        tap_diag("    got  t %a u %a v %a prim %u", (double)got->t[i], (double)got->u[i],
                 (double)got->v[i], (unsigned)got->prim[i]);
        tap_diag("    want t %a u %a v %a prim %u (scalar)", (double)want->t[i],
                 (double)want->u[i], (double)want->v[i], (unsigned)want->prim[i]);
    } else {
        tap_diag("    got occluded %d, want %d (scalar)", gotb[i], wantb[i]);
    }
}

/* ------------------------------------------------------------------ */
/* Main                                                                 */
/* ------------------------------------------------------------------ */
typedef struct sphere_spec {
    int level;
    double radius;
    double ox, oy, oz;
} sphere_spec;

/* Offsets of magnitude 1, 10, 100, 1000 and 10^4; (1000, -4, 17) is the
 * one of the original report. */
static const sphere_spec spheres[] = {
    {0, 1.0, 0.6, -0.8, 0.0},      {0, 0.37, 1000.0, -4.0, 17.0}, {0, 50.0, -8000.0, 0.0, 6000.0},
    {1, 0.37, -6.0, 0.0, 8.0},     {1, 1.0, 6000.0, 8000.0, 0.0}, {1, 50.0, 36.0, 48.0, -80.0},
    {2, 1.0, 1000.0, -4.0, 17.0},  {2, 0.37, 36.0, 48.0, -80.0},  {2, 50.0, 0.0, -600.0, 800.0},
    {3, 1.0, 1000.0, -4.0, 17.0},  {3, 0.37, 0.6, -0.8, 0.0},     {3, 50.0, -8000.0, 0.0, 6000.0},
    {4, 1.0, 1000.0, -4.0, 17.0},  {4, 50.0, -6.0, 0.0, 8.0},
    {5, 1.0, 1000.0, -4.0, 17.0},  {5, 0.37, 0.0, -600.0, 800.0},
};
#define NSPHERES (sizeof spheres / sizeof spheres[0])
#define NMESHES (NSPHERES + 3)

static void usage(void) {
    printf("usage: test_watertight [--full | --rays=N] [--seed=N] [--isa=NAME[,NAME...]]\n"
           "                       [--mesh=SUBSTR] [--verbose]\n"
           "  --full         cast every ray (every origin to every vertex, edge midpoint,\n"
           "                 random edge point and random face point) on every mesh\n"
           "  --seed=N       jitter, origins, random targets and the default sample\n"
           "  --rays=N       a deterministic sample of at most N rays per mesh (default:\n"
           "                 about 400,000 ray-triangle pairs per mesh, at least 48 rays)\n"
           "  --isa=NAMES    check only these variants (the scalar reference always runs;\n"
           "                 default: those RP_TEST_ISAS names, else every runnable one)\n"
           "  --mesh=SUBSTR  only the meshes whose name contains SUBSTR (e.g. 'L3 ', tube)\n"
           "  --verbose      also max |t - 1| of every mesh and Moller-Trumbore's leaking rays\n");
}

static void build_mesh(mesh *m, size_t k, uint64_t *rng) {
    memset(m, 0, sizeof *m);
    if (k < NSPHERES) {
        const sphere_spec *s = &spheres[k];
        make_sphere(m, s->level, s->radius, dv(s->ox, s->oy, s->oz), rng);
    } else if (k == NSPHERES) {
        make_box(m, "cube side 2.75 at (-37.5, 12.25, 1000.125)", dv(-37.5, 12.25, 1000.125),
                 dv(1.375, 1.375, 1.375), dv(1, 0, 0), dv(0, 1, 0), dv(0, 0, 1));
    } else if (k == NSPHERES + 1) {
        dvec ax = dnorm(dv(2, 1, -2)), ay, az;
        dbasis(ax, &ay, &az);
        make_box(m, "box 3 x 0.5 x 8 rotated at (123.5, -56.75, 8.875)",
                 dv(123.5, -56.75, 8.875), dv(1.5, 0.25, 4.0), ax, ay, az);
    } else {
        make_tube(m, dv(-20.5, 7.25, 13.0), dnorm(dv(3, -1, 2)), 100.0, 0.01, 32);
    }
}

/* Parses "--isa=a,b,c" into a bit set of variants; 0 on an unknown name. */
static unsigned parse_isas(const char *list) {
    unsigned bits = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        rp_isa isa;
        if (rp_isa_from_name(tok, &isa) != RP_OK || isa == RP_ISA_AUTO)
            return 0;
        bits |= 1u << isa;
    }
    return bits;
}

enum { C_CLOSEST, C_OCCLUDED, C_CULL_IN, C_CULL_IN_OCC, C_CULL_OUT, NCHECKS };

int main(int argc, char **argv) {
    int full = 0, verbose = 0;
    uint64_t seed = 20240611;
    unsigned wanted = 0; /* --isa; without it, RP_TEST_ISAS or every runnable variant */
    const char *mesh_filter = NULL;
    size_t rays_cap = 0; /* --rays=N; 0: the default sample */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full"))
            full = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strncmp(argv[i], "--seed=", 7))
            seed = strtoull(argv[i] + 7, NULL, 0);
        else if (!strncmp(argv[i], "--rays=", 7))
            rays_cap = (size_t)strtoull(argv[i] + 7, NULL, 0);
        else if (!strncmp(argv[i], "--mesh=", 7))
            mesh_filter = argv[i] + 7;
        else if (!strncmp(argv[i], "--isa=", 6)) {
            wanted = parse_isas(argv[i] + 6);
            if (!wanted) {
                usage();
                return 2;
            }
            wanted |= 1u << RP_ISA_SCALAR;
        } else {
            usage();
            return !strcmp(argv[i], "--help") ? 0 : 2;
        }
    }
    if (!wanted) /* (before anything is printed: tested_isas may skip the test) */
        wanted = tested_isas("test_watertight") | 1u << RP_ISA_SCALAR;
    unsigned runnable = rp_isa_runnable();
    unsigned use = runnable & wanted;
    char names[128] = "";
    for (int isa = 0; isa < RP_ISA_COUNT; isa++) {
        if (!(use >> isa & 1u))
            continue;
        strcat(names, " ");
        strcat(names, rp_isa_name((rp_isa)isa));
    }
    for (int isa = 0; isa < RP_ISA_COUNT; isa++)
        if ((wanted & ~runnable) >> isa & 1u)
            tap_skip("not runnable here", "variant %s", rp_isa_name((rp_isa)isa));
    tap_diag("seed %" PRIu64 " (--seed=%" PRIu64 " repeats this run); %s", seed, seed,
             full       ? "--full: every ray on every mesh"
             : rays_cap ? "--rays=N: a deterministic sample of at most N rays per mesh"
                        : "default: a deterministic sample of the rays of large meshes (--full: all)");
    tap_diag("variants:%s", names);

    double vtime[RP_ISA_COUNT] = {0};
    double vtests[RP_ISA_COUNT] = {0};
    size_t wt_bad_total = 0, mt_leaks_total = 0, rays_total = 0, meshes = 0;
    uint64_t in_digest = 0xcbf29ce484222325ull, out_digest = 0xcbf29ce484222325ull;

    for (size_t k = 0; k < NMESHES; k++) {
        uint64_t rng = seed ^ (0x632be59bd9b4e019ull * (k + 1));
        rng_next(&rng);
        mesh m;
        build_mesh(&m, k, &rng);
        if (mesh_filter && !strstr(m.name, mesh_filter)) {
            mesh_free(&m);
            continue;
        }
        meshes++;

        /* the mesh and its origins */
        double winding, md;
        mesh_view(&m, m.center, &md, &winding);
        m.inradius = md;
        if (k <= NSPHERES + 1) /* spheres and boxes; the tube has its axis points */
            add_ball_origins(&m, k < NSPHERES ? 4 : 3, &rng);
        int closed = mesh_closed(&m);
        int inside = md > 0.0;
        for (size_t o = 0; o < m.norig; o++) {
            mesh_view(&m, m.orig[o], &md, &winding);
            int ok = md >= 0.25 * m.inradius && fabs(winding - 1.0) < 1e-6;
            if (!ok)
                tap_diag("  origin %zu (%a, %a, %a): min face-plane distance %g, winding %.9f",
                         o, (double)m.orig[o].x, (double)m.orig[o].y, (double)m.orig[o].z, md,
                         winding);
            inside &= ok;
        }
        tap_ok(closed && inside,
               "%s: %zu vertices, %zu edges, %zu faces: closed, consistently oriented, "
               "%zu origins behind every face (inradius %.3g), winding number 1",
               m.name, m.nv, m.ne, m.nf, m.norig, m.inradius);

        /* the rays */
        rayset rs;
        memset(&rs, 0, sizeof rs);
        size_t max_rays = SIZE_MAX;
        if (rays_cap && !full) {
            max_rays = rays_cap;
        } else if (!full) {
            max_rays = DEFAULT_PAIRS_PER_MESH / m.nf;
            if (max_rays < DEFAULT_MIN_RAYS)
                max_rays = DEFAULT_MIN_RAYS;
            if (m.nf <= FULL_MAX_FACES)
                max_rays = SIZE_MAX;
        }
        build_rays(&m, &rs, max_rays, &rng);
        rays_total += rs.n;
        tap_diag("%s: %zu rays (%zu origins x %zu targets = %zu%s)", m.name, rs.n, m.norig,
                 rs.nt, rs.nfull, rs.n < rs.nfull ? ", deterministic sample" : ", all");

        in_digest = fnv(in_digest, m.v, m.nv * sizeof *m.v);
        in_digest = fnv(in_digest, m.f, 3 * m.nf * sizeof *m.f);
        in_digest = fnv(in_digest, rs.rays.ox, rs.n * sizeof(float));
        in_digest = fnv(in_digest, rs.rays.oy, rs.n * sizeof(float));
        in_digest = fnv(in_digest, rs.rays.oz, rs.n * sizeof(float));
        in_digest = fnv(in_digest, rs.rays.dx, rs.n * sizeof(float));
        in_digest = fnv(in_digest, rs.rays.dy, rs.n * sizeof(float));
        in_digest = fnv(in_digest, rs.rays.dz, rs.n * sizeof(float));

        result ref, cur;
        result_alloc(&ref, rs.n);
        result_alloc(&cur, rs.n);
        char summary[512] = "";
        for (int isa = 0; isa < RP_ISA_COUNT; isa++) {
            if (!(use >> isa & 1u))
                continue;
            const char *vn = rp_isa_name((rp_isa)isa);
            if (rp_set_isa((rp_isa)isa) != RP_OK) {
                tap_ok(0, "%s: rp_set_isa(%s)", m.name, vn);
                continue;
            }
            result *r = isa == RP_ISA_SCALAR ? &ref : &cur;
            double t0 = now_s();
            int calls_ok = run_calls(&m, &rs, r);
            vtime[isa] += now_s() - t0;
            vtests[isa] += 5.0 * (double)rs.n * (double)m.nf;
            if (!tap_ok(calls_ok, "%s [%s]: every call returns RP_OK", m.name, vn))
                continue;
            const unsigned wt = RP_WATERTIGHT, wtc = RP_WATERTIGHT | RP_CULL_BACKFACE;
            size_t n[NCHECKS];
            n[C_CLOSEST] = count_bad(&m, &rs, vn, "closest leak", &r->hit, NULL, 1, wt);
            tap_ok(n[C_CLOSEST] == 0,
                   "%s [%s]: closest RP_WATERTIGHT from inside: %zu leaks of %zu rays", m.name,
                   vn, n[C_CLOSEST], rs.n);
            n[C_OCCLUDED] = count_bad(&m, &rs, vn, "occluded leak", NULL, r->occ, 1, wt);
            tap_ok(n[C_OCCLUDED] == 0,
                   "%s [%s]: occluded RP_WATERTIGHT from inside: %zu leaks of %zu rays", m.name,
                   vn, n[C_OCCLUDED], rs.n);
            n[C_CULL_IN] = count_bad(&m, &rs, vn, "culled closest leak (inward mesh)", &r->chit,
                                     NULL, 1, wtc);
            tap_ok(n[C_CULL_IN] == 0,
                   "%s [%s]: closest RP_WATERTIGHT|RP_CULL_BACKFACE, inward copy: %zu leaks of "
                   "%zu rays",
                   m.name, vn, n[C_CULL_IN], rs.n);
            n[C_CULL_IN_OCC] = count_bad(&m, &rs, vn, "culled occluded leak (inward mesh)", NULL,
                                         r->cocc, 1, wtc);
            tap_ok(n[C_CULL_IN_OCC] == 0,
                   "%s [%s]: occluded RP_WATERTIGHT|RP_CULL_BACKFACE, inward copy: %zu leaks of "
                   "%zu rays",
                   m.name, vn, n[C_CULL_IN_OCC], rs.n);
            n[C_CULL_OUT] = count_bad(&m, &rs, vn, "hit with culling (outward mesh)", &r->ohit,
                                      NULL, 0, wtc);
            tap_ok(n[C_CULL_OUT] == 0,
                   "%s [%s]: closest RP_WATERTIGHT|RP_CULL_BACKFACE, outward mesh (all back "
                   "faces): %zu of %zu rays hit",
                   m.name, vn, n[C_CULL_OUT], rs.n);
            char part[96];
            snprintf(part, sizeof part, "%s%s %zu/%zu/%zu/%zu/%zu", summary[0] ? ", " : "", vn,
                     n[0], n[1], n[2], n[3], n[4]);
            strncat(summary, part, sizeof summary - strlen(summary) - 1);
            for (int c = 0; c < NCHECKS; c++)
                wt_bad_total += n[c];
            if (isa == RP_ISA_SCALAR)
                continue;
            size_t i1 = 0, i2 = 0, i3 = 0, i4 = 0, i5 = 0;
            int s1 = same_hits(&cur.hit, &ref.hit, rs.n, &i1);
            int s2 = same_bytes(cur.occ, ref.occ, rs.n, &i2);
            int s3 = same_hits(&cur.chit, &ref.chit, rs.n, &i3);
            int s4 = same_bytes(cur.cocc, ref.cocc, rs.n, &i4);
            int s5 = same_hits(&cur.ohit, &ref.ohit, rs.n, &i5);
            if (!tap_ok(s1 && s2 && s3 && s4 && s5,
                        "%s [%s]: hit records (t, u, v, prim) and occluded flags of all five "
                        "calls identical to scalar",
                        m.name, vn)) {
                if (!s1)
                    report_diff(&m, &rs, vn, "closest differs", &cur.hit, &ref.hit, NULL, NULL, i1);
                if (!s2)
                    report_diff(&m, &rs, vn, "occluded differs", NULL, NULL, cur.occ, ref.occ, i2);
                if (!s3)
                    report_diff(&m, &rs, vn, "culled closest (inward) differs", &cur.chit,
                                &ref.chit, NULL, NULL, i3);
                if (!s4)
                    report_diff(&m, &rs, vn, "culled occluded (inward) differs", NULL, NULL,
                                cur.cocc, ref.cocc, i4);
                if (!s5)
                    report_diff(&m, &rs, vn, "culled closest (outward) differs", &cur.ohit,
                                &ref.ohit, NULL, NULL, i5);
            }
        }

        if (use & 1u) {
            const rp_hits *hs[3] = {&ref.hit, &ref.chit, &ref.ohit};
            for (int q = 0; q < 3; q++) {
                out_digest = fnv(out_digest, hs[q]->t, rs.n * sizeof(float));
                out_digest = fnv(out_digest, hs[q]->u, rs.n * sizeof(float));
                out_digest = fnv(out_digest, hs[q]->v, rs.n * sizeof(float));
                out_digest = fnv(out_digest, hs[q]->prim, rs.n * sizeof(uint32_t));
            }
            out_digest = fnv(out_digest, ref.occ, rs.n);
            out_digest = fnv(out_digest, ref.cocc, rs.n);
        }

        /* how far the reported t is from the target's (t = 1) */
        double maxdt = 0.0;
        for (size_t i = 0; i < rs.n; i++)
            if (ref.hit.prim[i] != RP_NO_HIT && fabs((double)ref.hit.t[i] - 1.0) > maxdt)
                maxdt = fabs((double)ref.hit.t[i] - 1.0);
        if (verbose || maxdt > 0x1p-10)
            tap_diag("%s: watertight closest hits: max |t - 1| = %.3g", m.name, maxdt);

        /* Moller-Trumbore on the same rays, reported only */
        rp_set_isa(RP_ISA_SCALAR);
        rp_hits_reset(&ref.hit);
        reset_tmax(&rs.rays);
        size_t mt = 0, by_kind[T_KINDS] = {0};
        if (rp_closest_triangle(&rs.rays, NULL, m.out, m.nf, 0, 0, &ref.hit) == RP_OK) {
            for (size_t i = 0; i < rs.n; i++)
                if (ref.hit.prim[i] == RP_NO_HIT) {
                    mt++;
                    by_kind[rs.t[rs.ti[i]].kind]++;
                    if (verbose && mt <= MAX_PRINT)
                        describe_ray(&m, &rs, i, "scalar", "moller-trumbore leak");
                }
        }
        mt_leaks_total += mt;
        tap_diag("moller-trumbore leaks: mesh %s: %zu of %zu rays (vertex %zu, edge midpoint "
                 "%zu, edge point %zu, face point %zu)",
                 m.name, mt, rs.n, by_kind[T_VERTEX], by_kind[T_MIDPOINT], by_kind[T_EDGE],
                 by_kind[T_FACE]);
        tap_diag("summary: mesh %s: %zu rays; watertight leaks (closest/occluded/culled inward "
                 "closest/culled inward occluded/culled outward hits): %s; moller-trumbore "
                 "leaks %zu",
                 m.name, rs.n, summary, mt);

        result_free(&ref);
        result_free(&cur);
        rayset_free(&rs);
        mesh_free(&m);
    }

    tap_ok(meshes > 0, "%zu meshes checked", meshes);
    for (int isa = 0; isa < RP_ISA_COUNT; isa++)
        if (use >> isa & 1u)
            tap_diag("variant %s: %.0f ray-triangle tests (at most) in %.2f s",
                     rp_isa_name((rp_isa)isa), vtests[isa], vtime[isa]);
    tap_diag("digests: meshes and rays 0x%016" PRIx64 ", scalar watertight records 0x%016" PRIx64
             " (equal on every machine for the same seed and options)",
             in_digest, out_digest);
    tap_diag("total: %zu rays; watertight failures %zu (all variants and checks); "
             "moller-trumbore leaks %zu",
             rays_total, wt_bad_total, mt_leaks_total);
    return tap_done();
}
