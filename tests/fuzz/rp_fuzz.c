/*
 * rp_fuzz.c - differential fuzzer for raypack's batch kernels.  It turns
 * arbitrary bytes into one test case (a kernel, a ray batch, primitives, an
 * active mask, pre-filled hit records and outputs, pointer offsets, flags,
 * index_base, a number of chunks) and runs it, through the public API, once
 * per variant in rp_isa_runnable() on private copies of the same inputs.
 * Every variant must reproduce RP_ISA_SCALAR bit for bit: statuses, every
 * output (hit, tnear, tfar, occluded, rays.tmax, hits t/u/v/prim and the
 * normals computed afterwards), and it must leave every input untouched and
 * never touch the guard bytes around any array.  Under AddressSanitizer the
 * guards are also poisoned, so a vector tail that merely *reads* one element
 * past an array is reported at the faulting load.  On a mismatch the case
 * is printed (hex floats) and the process aborts, which libFuzzer turns into
 * a saved crash file.
 *
 * Triangle cases also check a property of the reference itself, the
 * conservative box test of src/scalar/ref.h that a traversal relies on: for
 * every valid ray (as rp_rays_prepare made it) and every triangle T of the
 * case, if the watertight test (rp_ref_wt_setup, rp_ref_wt_eval with the
 * case's culling flag, rp_ref_wt_t) is a candidate with tmin <= t <= tmax
 * (the ray's interval as given, before any shortening), then
 * rp_ref_slab_wt(ray, frame, box, rp_ref_wt_pad(ray, max |box coordinate|))
 * must return 1 for T's exact float bounding box and for a few boxes
 * containing it (grown by one ulp, to take in another triangle of the case,
 * or all of them).  This runs whether or not the case sets RP_WATERTIGHT,
 * in the case's floating-point environment; a violation prints the ray,
 * the triangle, the box and the slab's values (hex floats) and aborts.
 *
 * Input format (bytes past the end of the input come from a PRNG seeded by
 * a hash of the whole input, so a few bytes can describe a large batch):
 *   b0  kernel = b0 % 6: intersect_aabb, closest_aabb, closest_triangle,
 *       occluded_triangle, closest_sphere, closest_plane
 *       floating-point environment = (b0 / 6) % 7, tests/fpenv.h's order:
 *       default, ftz, daz, flush, upward, downward, towardzero (every
 *       run of the case, reference and variants, in it; under x86 DAZ the
 *       emulated variants are left out, see fpenv.h)
 *       RP_WATERTIGHT = (b0 / 42) & 1 for the two triangle kernels (ignored
 *       by the others), so inputs with b0 < 42 mean what they meant before
 *       the flag existed
 *   b1  rays n = b1 % 101          b2  primitives count = b2 % 33
 *   b3  bit0 active mask, bit1 RP_CULL_BACKFACE (triangle kernels; with
 *       RP_WATERTIGHT from b0 when that is set), bit2 tnear NULL,
 *       bit3 tfar NULL, bit4 pre-filled hit records, bit5 tmin = 0 and
 *       tmax = +inf instead of values from the stream, bits 6-7 chunks - 1
 *       (primitives are fed in that many consecutive calls, index_base
 *       advancing, as the API allows)
 *   b4  low nibble: offset in elements of the ray and primitive arrays from
 *       a 64-byte boundary; high nibble: same for the outputs
 *   b5  bits 0-4: index_base = u32(b6..b9) >> bits; bits 5-6 NaN mode
 *       (1: every ray float NaN, 2: every primitive float NaN, 3: rays,
 *       primitives and records all NaN); bit 7: aim rays at primitives
 *   b6..b9  index_base (little endian, shifted as above)
 *   then values: primitives, rays, active bytes, hit records, outputs.
 * A value is one byte c: c < 48 a special value (zeros, infinities, NaNs
 * with several payloads, denormals, extremes), c < 112 a multiple of 0.25 in
 * [-8, 8) (exact ties and origins on faces), c < 160 a repeat of one of the
 * last 16 values, c < 208 two more bytes as a value in [-16, 16), else four
 * more bytes as raw float bits.  tests/fuzz/make_corpus.py writes seeds.
 *
 * Scenes: every triangle case also builds a scene of the case's
 * triangles (a soup, an indexed mesh, a soup) and checks that
 * rp_scene_closest / rp_scene_occluded return bit for bit, with
 * RP_WATERTIGHT, what the brute-force kernels return over all of them,
 * without it (Moller-Trumbore, whose scene drops hits outside their
 * triangle's box: docs/SEMANTICS.md) what the reference traversal (the
 * scalar variant) returns (scene_check), each variant with the default
 * traversal, RP_COHERENT or RP_INCOHERENT in turn.
 *
 * Environment: RP_FUZZ_VERBOSE=1 prints one line per case (and how many
 * watertight hits the box property was checked on); RP_FUZZ_WT_BOX=0 skips
 * the box property (to keep fuzzing the variants while it is known broken).
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fpenv.h" /* rp_fpenv_set / rp_fpenv_restore */
#include "../harness.h" /* arrays, kernels, guard buffers, the call switch (shared with rp_check) */
#include "raypack.h"
#include "scalar/ref.h" /* the watertight test and rp_ref_slab_wt, for the box property */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the six kernels (TH_*, their names and primitive sizes): harness.h */

#define MAX_N 100
#define MAX_COUNT 32
#define MAX_CHUNKS 4

/* ------------------------------------------------------------------ */
/* Arrays: the harness's A_* (harness.h); this target uses A_OX .. A_PRIMS */
/* ------------------------------------------------------------------ */
#define S_USED A_MESH /* the arrays after A_PRIMS are the scene cases' (rp_check) */
static int slot_is_output(int s) {
    return s == A_TMAX || (s >= A_RDX && s <= A_RDZ) || (s >= A_HT && s <= A_OCC);
}

/* A test case: original contents of every slot plus the call parameters. */
typedef struct fcase {
    int kernel;
    size_t n, count;
    int use_active, tnear_null, tfar_null, prefill, std_interval, aim;
    int watertight; /* RP_WATERTIGHT is in flags (triangle kernels only) */
    unsigned flags, chunks, in_off, out_off, nan_mode;
    int fpenv; /* index into rp_fpenv_names */
    uint32_t index_base;
    size_t bytes[S_USED];
    unsigned char *orig[S_USED];
} fcase;

/* Guard buffers (harness.h): 0 if both guards are intact, else prints
 * which one was hit; frees the buffer. */
static int gbuf_check_free(th_buf *g, const char *name, const char *isa) {
    int bad = 0;
    th_buf_unpoison(g);
    size_t i = th_buf_first_bad(g);
    if (i != SIZE_MAX && i < g->lead) {
        fprintf(stderr, "rp_fuzz: %s: wrote %zu bytes before the start of %s\n", isa, g->lead - i,
                name);
        bad = 1;
    } else if (i != SIZE_MAX) {
        fprintf(stderr, "rp_fuzz: %s: wrote past the end of %s (byte %zu after it)\n", isa, name,
                i - g->lead - g->bytes);
        bad = 1;
    }
    th_buf_free(g);
    return bad;
}

/* ------------------------------------------------------------------ */
/* Byte stream -> values                                                */
/* ------------------------------------------------------------------ */
typedef struct stream {
    const uint8_t *p;
    size_t n, i;
    uint64_t rng;
    float ring[16];
    unsigned ri;
} stream;

static uint8_t next_byte(stream *s) {
    if (s->i < s->n)
        return s->p[s->i++];
    /* splitmix64 */
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (uint8_t)(z >> 56);
}

static uint32_t next_u32(stream *s) {
    uint32_t u = 0;
    for (int k = 0; k < 4; k++)
        u |= (uint32_t)next_byte(s) << (8 * k);
    return u;
}

static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* Values that break careless vector code. */
static const uint32_t specials[48] = {
    0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, /* 0 -0 1 -1 */
    0x7f800000u, 0xff800000u,                           /* +inf -inf */
    0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0x7fffffffu, /* quiet NaNs */
    0x7f800001u, 0xff800001u, 0x7fa00000u,              /* signalling NaNs */
    0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, /* denormals */
    0x00800000u, 0x80800000u,                           /* +-FLT_MIN */
    0x7f7fffffu, 0xff7fffffu,                           /* +-FLT_MAX */
    0x3f000000u, 0xbf000000u, 0x40000000u, 0xc0000000u, /* +-0.5 +-2 */
    0x3dcccccdu, 0xbdcccccdu,                           /* +-0.1 */
    0x1e3ce508u, 0x60ad78ecu, 0x9e3ce508u, 0xe0ad78ecu, /* +-1e-20 +-1e20 */
    0x3f800001u, 0x3f7fffffu, 0xbf800001u, 0xbf7fffffu, /* 1 +- ulp */
    0x4b800000u, 0xcb800000u, 0x4b7fffffu,              /* 2^24 and near */
    0x3a83126fu, 0xba83126fu,                           /* +-0.001 */
    0x34000000u, 0xb4000000u,                           /* +-2^-23 */
    0x5f800000u, 0x1f800000u,                           /* 2^64, 2^-64 */
    0x42c80000u, 0xc2c80000u,                           /* +-100 */
    0x40400000u, 0x40a00000u,                           /* 3 5 */
};
static const uint32_t nans[6] = {0x7fc00000u, 0xffc00000u, 0x7fc00001u,
                                 0x7fffffffu, 0xffc12345u, 0x7fa00000u};

static float next_float(stream *s) {
    uint8_t c = next_byte(s);
    float f;
    if (c < 48) {
        f = u2f(specials[c]);
    } else if (c < 112) {
        f = (float)((int)c - 80) * 0.25f;
    } else if (c < 160) {
        f = s->ring[c & 15];
    } else if (c < 208) {
        uint32_t lo = next_byte(s), hi = next_byte(s);
        int16_t v = (int16_t)(uint16_t)(lo | hi << 8);
        f = (float)v / 2048.0f;
    } else {
        f = u2f(next_u32(s));
    }
    s->ring[s->ri++ & 15] = f;
    return f;
}

static float next_nan(stream *s) { return u2f(nans[next_byte(s) % 6]); }

/* ------------------------------------------------------------------ */
/* Parsing                                                              */
/* ------------------------------------------------------------------ */
static void fcase_free(fcase *c) {
    for (int k = 0; k < S_USED; k++) {
        free(c->orig[k]);
        c->orig[k] = NULL;
    }
}

static void *xcalloc(size_t n) {
    void *p = calloc(n ? n : 1, 1);
    if (!p) {
        fprintf(stderr, "rp_fuzz: out of memory\n");
        abort();
    }
    return p;
}

/* A point on or near primitive j, to aim a ray at. */
static void aim_point(const fcase *c, const float *prims, size_t j, stream *s, float t[3]) {
    const float *p = prims + j * th_kernels[c->kernel].prim_floats;
    switch (c->kernel) {
    case TH_INTERSECT_AABB:
    case TH_CLOSEST_AABB:
        for (int k = 0; k < 3; k++) {
            float a = p[k], b = p[3 + k];
            float w = (float)(next_byte(s) % 5) * 0.25f; /* corners, faces, middle */
            t[k] = a + (b - a) * w;
        }
        break;
    case TH_CLOSEST_TRIANGLE:
    case TH_OCCLUDED_TRIANGLE: {
        /* barycentric weights in quarters, sometimes on an edge or vertex */
        float w1 = (float)(next_byte(s) % 5) * 0.25f;
        float w2 = (float)(next_byte(s) % 5) * 0.25f;
        float w0 = 1.0f - w1 - w2;
        for (int k = 0; k < 3; k++)
            t[k] = w0 * p[k] + w1 * p[3 + k] + w2 * p[6 + k];
        break;
    }
    case TH_CLOSEST_SPHERE:
        for (int k = 0; k < 3; k++)
            t[k] = p[k];
        t[next_byte(s) % 3] += p[3] * (float)(next_byte(s) % 3) * 0.5f;
        break;
    default: /* plane: the point n * d */
        for (int k = 0; k < 3; k++)
            t[k] = p[k] * p[3];
        break;
    }
}

static void parse(const uint8_t *data, size_t size, fcase *c) {
    stream s;
    memset(&s, 0, sizeof s);
    s.p = data;
    s.n = size;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a of the input seeds the PRNG */
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3ull;
    s.rng = h;

    memset(c, 0, sizeof *c);
    uint8_t b0 = next_byte(&s), b1 = next_byte(&s), b2 = next_byte(&s);
    uint8_t b3 = next_byte(&s), b4 = next_byte(&s), b5 = next_byte(&s);
    uint32_t base = next_u32(&s);
    c->kernel = b0 % TH_NKERNELS;
    c->fpenv = (b0 / TH_NKERNELS) % RP_FPENV_COUNT;
    c->n = b1 % (MAX_N + 1);
    c->count = b2 % (MAX_COUNT + 1);
    if (c->kernel == TH_INTERSECT_AABB)
        c->count = 1;
    c->use_active = b3 & 1;
    c->flags = (b3 & 2) ? RP_CULL_BACKFACE : 0;
    if (c->kernel == TH_CLOSEST_TRIANGLE || c->kernel == TH_OCCLUDED_TRIANGLE) {
        c->watertight = (b0 / (TH_NKERNELS * RP_FPENV_COUNT)) & 1;
        if (c->watertight)
            c->flags |= RP_WATERTIGHT;
    }
    c->tnear_null = (b3 >> 2) & 1;
    c->tfar_null = (b3 >> 3) & 1;
    c->prefill = (b3 >> 4) & 1;
    c->std_interval = (b3 >> 5) & 1;
    c->chunks = 1 + (b3 >> 6);
    c->in_off = b4 & 15;
    c->out_off = b4 >> 4;
    c->index_base = base >> (b5 & 31);
    c->nan_mode = (b5 >> 5) & 3;
    c->aim = b5 >> 7;

    size_t n = c->n, pf = th_kernels[c->kernel].prim_floats;
    for (int k = 0; k < S_USED; k++) {
        size_t elems = k == A_PRIMS ? c->count * pf : n;
        c->bytes[k] = elems * th_array_elem(k);
        c->orig[k] = xcalloc(c->bytes[k]);
    }

    /* primitives */
    float *prims = (float *)(void *)c->orig[A_PRIMS];
    int nan_prims = c->nan_mode >= 2;
    for (size_t i = 0; i < c->count * pf; i++)
        prims[i] = nan_prims ? next_nan(&s) : next_float(&s);

    /* rays */
    int nan_rays = c->nan_mode == 1 || c->nan_mode == 3;
    float *f[8];
    for (int k = 0; k < 8; k++)
        f[k] = (float *)(void *)c->orig[A_OX + k];
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            f[k][i] = nan_rays ? next_nan(&s) : next_float(&s);
        uint8_t a = c->aim && c->count && !nan_rays ? next_byte(&s) : 255;
        if (a < 192) {
            float t[3];
            aim_point(c, prims, a % c->count, &s, t);
            for (int k = 0; k < 3; k++)
                f[3 + k][i] = t[k] - f[k][i];
        } else {
            for (int k = 0; k < 3; k++)
                f[3 + k][i] = nan_rays ? next_nan(&s) : next_float(&s);
        }
        if (nan_rays) {
            f[6][i] = next_nan(&s);
            f[7][i] = next_nan(&s);
        } else if (c->std_interval) {
            f[6][i] = 0.0f;
            f[7][i] = INFINITY;
        } else {
            f[6][i] = next_float(&s);
            f[7][i] = next_float(&s);
        }
    }
    /* reciprocals: garbage until rp_rays_prepare() */
    for (int k = A_RDX; k <= A_RDZ; k++)
        memset(c->orig[k], 0x5a, c->bytes[k]);

    /* active: nonzero means active, whatever the bit pattern */
    for (size_t i = 0; i < n; i++) {
        uint8_t a = next_byte(&s);
        static const uint8_t vals[8] = {0, 1, 0x80, 0xff, 2, 0x7f, 0, 0x40};
        c->orig[A_ACTIVE][i] = (a & 8) ? a : vals[a & 7];
    }

    /* hit records: reset, or pre-filled (a record may already hold a hit) */
    float *ht = (float *)(void *)c->orig[A_HT];
    float *hu = (float *)(void *)c->orig[A_HU];
    float *hv = (float *)(void *)c->orig[A_HV];
    uint32_t *hp = (uint32_t *)(void *)c->orig[A_HPRIM];
    float *hn[3] = {(float *)(void *)c->orig[A_HNX], (float *)(void *)c->orig[A_HNY],
                    (float *)(void *)c->orig[A_HNZ]};
    for (size_t i = 0; i < n; i++) {
        if (!c->prefill) {
            ht[i] = INFINITY;
            hu[i] = hv[i] = 0.0f;
            hp[i] = RP_NO_HIT;
            hn[0][i] = hn[1][i] = hn[2][i] = 0.0f;
            continue;
        }
        uint8_t p = next_byte(&s);
        if (p < 128)
            hp[i] = RP_NO_HIT;
        else if (p < 224)
            hp[i] = c->index_base + (uint32_t)(p % (c->count + 2));
        else
            hp[i] = next_u32(&s);
        int nan_rec = c->nan_mode == 3;
        ht[i] = nan_rec ? next_nan(&s) : next_float(&s);
        hu[i] = next_float(&s);
        hv[i] = next_float(&s);
        for (int k = 0; k < 3; k++)
            hn[k][i] = next_float(&s);
    }

    /* outputs of the mask kernels: whatever was there before */
    for (size_t i = 0; i < n; i++) {
        uint8_t o = next_byte(&s);
        c->orig[A_OCC][i] = o < 128 ? 0 : o < 192 ? 1 : o;
        c->orig[A_HIT][i] = 0xcc;
    }
    memset(c->orig[A_TNEAR], 0x3c, c->bytes[A_TNEAR]);
    memset(c->orig[A_TFAR], 0xc3, c->bytes[A_TFAR]);
}

/* ------------------------------------------------------------------ */
/* Running one variant                                                  */
/* ------------------------------------------------------------------ */
#define MAX_CALLS (MAX_CHUNKS + 2)
typedef struct result {
    th_buf g[S_USED];
    rp_status st[MAX_CALLS];
    int ncalls;
} result;

static void run(const fcase *c, rp_isa isa, result *r) {
    memset(r, 0, sizeof *r);
    rp_status s = rp_set_isa(isa);
    if (s != RP_OK) {
        fprintf(stderr, "rp_fuzz: rp_set_isa(%s) failed: %s\n", rp_isa_name(isa),
                rp_status_string(s));
        abort();
    }
    for (int k = 0; k < S_USED; k++)
        th_buf_new(&r->g[k], k, c->orig[k], c->bytes[k],
                 (slot_is_output(k) ? c->out_off : c->in_off) * th_array_elem(k));

    rp_rays rays;
    rp_hits hits;
    th_rays_of(&rays, c->n, r->g);
    th_hits_of(&hits, c->n, r->g);
    const uint8_t *active = c->use_active ? r->g[A_ACTIVE].p : NULL;
    const unsigned char *prims = r->g[A_PRIMS].p;
    size_t esz = th_kernels[c->kernel].prim_floats * sizeof(float);

    r->st[r->ncalls++] = rp_rays_prepare(&rays);

    /* the public calls (harness.h): intersect_aabb once (the box is the
     * first primitive), the others chunk after chunk, then the normals,
     * which are scalar for every variant but read what the kernel wrote */
    unsigned chunks = c->kernel == TH_INTERSECT_AABB ? 1 : c->chunks;
    for (unsigned ch = 0; ch < chunks; ch++) {
        size_t lo = c->count * ch / chunks, hi = c->count * (ch + 1) / chunks;
        r->st[r->ncalls++] = th_call(c->kernel, c->flags, &rays, active, prims + lo * esz, hi - lo,
                                     c->index_base + (uint32_t)lo, &hits, r->g[A_HIT].p,
                                     c->tnear_null ? NULL : (float *)(void *)r->g[A_TNEAR].p,
                                     c->tfar_null ? NULL : (float *)(void *)r->g[A_TFAR].p,
                                     r->g[A_OCC].p);
    }
    if (th_call_normals(c->kernel, &rays, &hits, prims, c->count, c->index_base, &s))
        r->st[r->ncalls++] = s;
}

/* ------------------------------------------------------------------ */
/* Reporting                                                            */
/* ------------------------------------------------------------------ */
static void print_float(const char *name, const unsigned char *p) {
    uint32_t u;
    memcpy(&u, p, 4);
    fprintf(stderr, " %s=%a(0x%08x)", name, (double)u2f(u), u);
}

static void print_case(const fcase *c) {
    fprintf(stderr,
            "rp_fuzz case: kernel=%s n=%zu count=%zu chunks=%u flags=%u (cull=%d "
            "watertight=%d) index_base=%u "
            "active=%s tnear=%s tfar=%s prefill=%d std_interval=%d aim=%d nan_mode=%u "
            "in_off=%u out_off=%u fpenv=%s\n",
            th_kernels[c->kernel].name, c->n, c->count, c->chunks, c->flags,
            (c->flags & RP_CULL_BACKFACE) != 0, c->watertight, c->index_base,
            c->use_active ? "mask" : "NULL", c->tnear_null ? "NULL" : "array",
            c->tfar_null ? "NULL" : "array", c->prefill, c->std_interval, c->aim,
            c->nan_mode, c->in_off, c->out_off, rp_fpenv_names[c->fpenv]);
    size_t pf = th_kernels[c->kernel].prim_floats;
    for (size_t j = 0; j < c->count; j++) {
        fprintf(stderr, "  prim %zu:", j);
        for (size_t k = 0; k < pf; k++) {
            char nm[24];
            snprintf(nm, sizeof nm, "p%zu", k);
            print_float(nm, c->orig[A_PRIMS] + (j * pf + k) * 4);
        }
        fprintf(stderr, "\n");
    }
}

static void print_ray(const fcase *c, size_t i) {
    fprintf(stderr, "  ray %zu inputs:", i);
    for (int k = A_OX; k <= A_TMAX; k++)
        print_float(th_array_names[k] + 5, c->orig[k] + i * 4);
    fprintf(stderr, " active=%u\n  ray %zu record before:", c->orig[A_ACTIVE][i], i);
    for (int k = A_HT; k <= A_HNZ; k++)
        print_float(th_array_names[k] + 5, c->orig[k] + i * 4);
    fprintf(stderr, " occluded=%u\n", c->orig[A_OCC][i]);
}

/* Compares variant b to the scalar result a; returns the number of
 * differences printed. */
static int compare(const fcase *c, const result *a, const result *b, rp_isa isa) {
    int bad = 0;
    size_t shown_rays[16], nshown_rays = 0;
    const char *name = rp_isa_name(isa);
    for (int k = 0; k < a->ncalls || k < b->ncalls; k++)
        if (k >= a->ncalls || k >= b->ncalls || a->st[k] != b->st[k]) {
            fprintf(stderr, "rp_fuzz: call %d returned %d (%s) on scalar but %d (%s) on %s\n",
                    k, k < a->ncalls ? (int)a->st[k] : -1,
                    k < a->ncalls ? rp_status_string(a->st[k]) : "-",
                    k < b->ncalls ? (int)b->st[k] : -1,
                    k < b->ncalls ? rp_status_string(b->st[k]) : "-", name);
            bad++;
        }
    for (int k = 0; k < S_USED; k++) {
        size_t el = th_array_elem(k), shown = 0;
        if (!memcmp(a->g[k].p, b->g[k].p, c->bytes[k]))
            continue;
        for (size_t i = 0; i * el < c->bytes[k] && shown < 4; i++) {
            const unsigned char *x = a->g[k].p + i * el, *y = b->g[k].p + i * el;
            if (!memcmp(x, y, el))
                continue;
            shown++;
            bad++;
            if (el == 1) {
                fprintf(stderr, "rp_fuzz: %s[%zu]: scalar %u, %s %u\n", th_array_names[k], i,
                        *x, name, *y);
            } else if (k == A_HPRIM) {
                uint32_t px, py;
                memcpy(&px, x, 4);
                memcpy(&py, y, 4);
                fprintf(stderr, "rp_fuzz: %s[%zu]: scalar %" PRIu32 ", %s %" PRIu32
                        " (primitive = prim - index_base %" PRIu32 ")\n",
                        th_array_names[k], i, px, name, py, c->index_base);
            } else {
                uint32_t ux, uy;
                memcpy(&ux, x, 4);
                memcpy(&uy, y, 4);
                fprintf(stderr, "rp_fuzz: %s[%zu]: scalar %a (0x%08x), %s %a (0x%08x)\n",
                        th_array_names[k], i, (double)u2f(ux), ux, name, (double)u2f(uy), uy);
            }
            /* each differing ray's inputs once */
            int seen = 0;
            for (size_t r = 0; r < nshown_rays; r++)
                seen |= shown_rays[r] == i;
            if (k != A_PRIMS && !seen && nshown_rays < 16) {
                shown_rays[nshown_rays++] = i;
                print_ray(c, i);
            }
        }
        if (!slot_is_output(k))
            fprintf(stderr, "rp_fuzz: %s changed an input array (%s)\n", name, th_array_names[k]);
    }
    return bad;
}

static int free_result(result *r, rp_isa isa) {
    int bad = 0;
    for (int k = 0; k < S_USED; k++)
        bad |= gbuf_check_free(&r->g[k], th_array_names[k], rp_isa_name(isa));
    return bad;
}

/* run() in the case's floating-point environment (outside it, printing
 * and comparing stay in the default one).  A mode this host cannot set
 * (ftz or daz alone on aarch64) leaves the default. */
static void run_in_env(const fcase *c, rp_isa isa, result *r) {
    rp_fpenv_saved saved;
    int emulated_ok;
    rp_fpenv_set(rp_fpenv_names[c->fpenv], &saved, &emulated_ok);
    run(c, isa, r);
    rp_fpenv_restore(&saved);
}

/* ------------------------------------------------------------------ */
/* The conservative box property of rp_ref_slab_wt (triangle cases)     */
/* ------------------------------------------------------------------ */
#if defined(__GNUC__)
#define RP_NOINLINE __attribute__((noinline))
#else
#define RP_NOINLINE
#endif

/* Boxes tried per (ray, triangle): each contains the triangle. */
enum { WB_EXACT, WB_ULP, WB_OTHER, WB_ALL, WB_COUNT };
static const char *const wt_box_names[WB_COUNT] = {
    "exact bounding box", "exact bounding box grown by one ulp",
    "bounding box grown to take in another triangle", "bounding box of every triangle"};

static float ldf(const unsigned char *p, size_t i) {
    float f;
    memcpy(&f, p + i * 4, 4);
    return f;
}

static rp_triangle load_tri(const fcase *c, size_t j) {
    rp_triangle t;
    memcpy(&t, c->orig[A_PRIMS] + j * sizeof t, sizeof t);
    return t;
}

/* Box arithmetic is exact (selections, no rounding) and runs in the
 * default environment: fminf/fmaxf skip NaN, so a union with a triangle
 * holding a NaN vertex is still a box around the other one. */
static rp_aabb tri_box(const rp_triangle *t) {
    rp_aabb b;
    b.min.x = fminf(fminf(t->v0.x, t->v1.x), t->v2.x);
    b.min.y = fminf(fminf(t->v0.y, t->v1.y), t->v2.y);
    b.min.z = fminf(fminf(t->v0.z, t->v1.z), t->v2.z);
    b.max.x = fmaxf(fmaxf(t->v0.x, t->v1.x), t->v2.x);
    b.max.y = fmaxf(fmaxf(t->v0.y, t->v1.y), t->v2.y);
    b.max.z = fmaxf(fmaxf(t->v0.z, t->v1.z), t->v2.z);
    return b;
}

static rp_aabb box_union(rp_aabb a, const rp_aabb *b) {
    a.min.x = fminf(a.min.x, b->min.x);
    a.min.y = fminf(a.min.y, b->min.y);
    a.min.z = fminf(a.min.z, b->min.z);
    a.max.x = fmaxf(a.max.x, b->max.x);
    a.max.y = fmaxf(a.max.y, b->max.y);
    a.max.z = fmaxf(a.max.z, b->max.z);
    return a;
}

static rp_aabb box_grow_ulp(rp_aabb a) {
    a.min.x = nextafterf(a.min.x, -INFINITY);
    a.min.y = nextafterf(a.min.y, -INFINITY);
    a.min.z = nextafterf(a.min.z, -INFINITY);
    a.max.x = nextafterf(a.max.x, INFINITY);
    a.max.y = nextafterf(a.max.y, INFINITY);
    a.max.z = nextafterf(a.max.z, INFINITY);
    return a;
}

/* max |coordinate| of the box */
static float box_inf(const rp_aabb *b) {
    const float v[6] = {b->min.x, b->min.y, b->min.z, b->max.x, b->max.y, b->max.z};
    float m = 0.0f;
    for (int k = 0; k < 6; k++)
        m = fmaxf(m, fabsf(v[k]));
    return m;
}

/* The boxes around one triangle, made in the default environment. */
typedef struct wt_boxes {
    rp_aabb b[WB_COUNT];
    float inf[WB_COUNT];
    size_t other; /* the triangle WB_OTHER takes in */
} wt_boxes;

/* Everything about the first violation, computed in the case's environment
 * and printed outside it. */
typedef struct wt_fail {
    size_t ray, tri, other;
    int box;
    rp_ray1 r;
    rp_wt_ray w;
    rp_wt_eval e;
    float t, pad, binf;
    rp_aabb b;
    rp_slab_wt_steps st; /* the box test's steps */
} wt_fail;


/* The scan, in the case's floating-point environment (noinline, so that
 * none of its arithmetic moves out of it).  rd comes from the reference
 * run's prepared batch.  Returns the number of (ray, triangle) hits
 * checked, or -1 after filling *f with the first violation. */
static RP_NOINLINE long wt_box_scan(const fcase *c, const result *ref,
                                    const wt_boxes *boxes, wt_fail *f) {
    long checked = 0;
    for (size_t i = 0; i < c->n; i++) {
        rp_ray1 r;
        r.ox = ldf(c->orig[A_OX], i);
        r.oy = ldf(c->orig[A_OY], i);
        r.oz = ldf(c->orig[A_OZ], i);
        r.dx = ldf(c->orig[A_DX], i);
        r.dy = ldf(c->orig[A_DY], i);
        r.dz = ldf(c->orig[A_DZ], i);
        r.rdx = ldf(ref->g[A_RDX].p, i);
        r.rdy = ldf(ref->g[A_RDY].p, i);
        r.rdz = ldf(ref->g[A_RDZ].p, i);
        r.tmin = ldf(c->orig[A_TMIN], i);
        r.tmax = ldf(c->orig[A_TMAX], i);
        if (!(r.rdx == r.rdx))
            continue;
        rp_wt_ray w = rp_ref_wt_setup(&r);
        for (size_t j = 0; j < c->count; j++) {
            rp_triangle tri = load_tri(c, j);
            rp_wt_eval e = rp_ref_wt_eval(&r, &w, &tri, c->flags);
            if (!e.candidate)
                continue;
            float t = rp_ref_wt_t(&r, &w, &tri, &e);
            if (!((r.tmin <= t) & (t <= r.tmax)))
                continue;
            checked++;
            const wt_boxes *bx = &boxes[j];
            for (int k = 0; k < WB_COUNT; k++) {
                float pad = rp_ref_wt_pad(&r, bx->inf[k]);
                if (rp_ref_slab_wt(&r, &w, &bx->b[k], pad))
                    continue;
                f->ray = i;
                f->tri = j;
                f->other = bx->other;
                f->box = k;
                f->r = r;
                f->w = w;
                f->e = e;
                f->t = t;
                f->pad = pad;
                f->binf = bx->inf[k];
                f->b = bx->b[k];
                rp_ref_slab_wt_steps(&r, &w, &bx->b[k], pad, &f->st);
                return -1;
            }
        }
    }
    return checked;
}

static void pf(const char *name, float x) {
    fprintf(stderr, " %s=%a(0x%08x)", name, (double)x, f2u(x));
}

static void wt_print_fail(const fcase *c, const wt_fail *f) {
    const rp_ray1 *r = &f->r;
    static const char axis[3] = {'x', 'y', 'z'};
    fprintf(stderr,
            "rp_fuzz: rp_ref_slab_wt misses the %s of triangle %zu for ray %zu, "
            "whose watertight hit (flags %u) has t in [tmin, tmax]\n",
            wt_box_names[f->box], f->tri, f->ray, c->flags);
    if (f->box == WB_OTHER)
        fprintf(stderr, "  (taking in triangle %zu)\n", f->other);
    fprintf(stderr, "  ray %zu:", f->ray);
    pf("ox", r->ox); pf("oy", r->oy); pf("oz", r->oz);
    pf("dx", r->dx); pf("dy", r->dy); pf("dz", r->dz);
    fprintf(stderr, "\n        ");
    pf("rdx", r->rdx); pf("rdy", r->rdy); pf("rdz", r->rdz);
    pf("tmin", r->tmin); pf("tmax", r->tmax);
    fprintf(stderr, "\n  frame: kx=%c ky=%c kz=%c", axis[f->w.kx], axis[f->w.ky],
            axis[f->w.kz]);
    pf("sx", f->w.sx); pf("sy", f->w.sy); pf("sz", f->w.sz); pf("dkz", f->w.dkz);
    rp_triangle tri = load_tri(c, f->tri);
    fprintf(stderr, "\n  triangle %zu:", f->tri);
    pf("v0.x", tri.v0.x); pf("v0.y", tri.v0.y); pf("v0.z", tri.v0.z);
    fprintf(stderr, "\n             ");
    pf("v1.x", tri.v1.x); pf("v1.y", tri.v1.y); pf("v1.z", tri.v1.z);
    fprintf(stderr, "\n             ");
    pf("v2.x", tri.v2.x); pf("v2.y", tri.v2.y); pf("v2.z", tri.v2.z);
    fprintf(stderr, "\n  watertight:");
    pf("U", f->e.u); pf("V", f->e.v); pf("W", f->e.w); pf("det", f->e.det);
    pf("z0", f->e.z0); pf("z1", f->e.z1); pf("z2", f->e.z2); pf("t", f->t);
    /* rp_ref_wt_t from the same float U, V, W, z, but T and det in double
     * (no underflow, no overflow): shows when t itself is an artifact */
    double sz = f->w.sz, du = f->e.u, dv = f->e.v, dw = f->e.w;
    double td = (du * (sz * f->e.z0) + dv * (sz * f->e.z1)) + dw * (sz * f->e.z2);
    fprintf(stderr, "\n   t from the same U, V, W, z in double: %a", td / ((du + dv) + dw));
    fprintf(stderr, "\n  box:");
    pf("min.x", f->b.min.x); pf("min.y", f->b.min.y); pf("min.z", f->b.min.z);
    fprintf(stderr, "\n      ");
    pf("max.x", f->b.max.x); pf("max.y", f->b.max.y); pf("max.z", f->b.max.z);
    fprintf(stderr, "\n     ");
    pf("box_inf", f->binf); pf("pad", f->pad);
    for (int k = 0; k < 3; k++) {
        fprintf(stderr, "\n  slab %c:", axis[k]);
        pf("o+-pad near", f->st.on[k]); pf("far", f->st.of[k]);
        pf("t0", f->st.t0[k]); pf("t1", f->st.t1[k]);
    }
    fprintf(stderr, "\n  result:");
    pf("tn", f->st.tn); pf("tf", f->st.tf); pf("zn", f->st.zn); pf("zf", f->st.zf);
    pf("rn", f->st.rn); pf("rf", f->st.rf);
    fprintf(stderr,
            "\n  line (tn <= tf) %s, range (rn <= tmax and rf >= tmin) %s, box %s\n",
            f->st.line ? "passes" : "FAILS", f->st.range ? "passes" : "FAILS",
            f->st.valid_box ? "valid" : "INVALID");
    if (!f->st.line)
        fprintf(stderr, "  line: tn - tf = %a\n", (double)f->st.tn - (double)f->st.tf);
    if (!f->st.range)
        fprintf(stderr, "  range: zn - tmax = %a, tmin - zf = %a\n",
                (double)f->st.zn - (double)r->tmax, (double)r->tmin - (double)f->st.zf);
}

/* The property for every valid ray and every triangle of a triangle case
 * (see the top of the file).  Returns 1 after printing a violation. */
static int wt_box_check(const fcase *c, const result *ref, long *checked) {
    *checked = 0;
    if (!c->n || !c->count)
        return 0;
    wt_boxes *boxes = xcalloc(c->count * sizeof *boxes);
    rp_aabb all = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    for (size_t j = 0; j < c->count; j++) {
        rp_triangle t = load_tri(c, j);
        boxes[j].b[WB_EXACT] = tri_box(&t);
        all = box_union(all, &boxes[j].b[WB_EXACT]);
    }
    /* "another triangle": a pseudo-random one, from the case's bytes */
    uint32_t h = (uint32_t)c->n * 2654435761u ^ f2u(ldf(c->orig[A_PRIMS], 0));
    for (size_t j = 0; j < c->count; j++) {
        wt_boxes *bx = &boxes[j];
        h = h * 1664525u + 1013904223u;
        bx->other = (size_t)(h >> 8) % c->count;
        bx->b[WB_ULP] = box_grow_ulp(bx->b[WB_EXACT]);
        bx->b[WB_OTHER] = box_union(bx->b[WB_EXACT], &boxes[bx->other].b[WB_EXACT]);
        bx->b[WB_ALL] = box_union(bx->b[WB_EXACT], &all);
        for (int k = 0; k < WB_COUNT; k++)
            bx->inf[k] = box_inf(&bx->b[k]);
    }
    wt_fail f;
    memset(&f, 0, sizeof f);
    rp_fpenv_saved saved;
    int emulated_ok;
    rp_fpenv_set(rp_fpenv_names[c->fpenv], &saved, &emulated_ok);
    long n = wt_box_scan(c, ref, boxes, &f);
    rp_fpenv_restore(&saved);
    free(boxes);
    if (n >= 0) {
        *checked = n;
        return 0;
    }
    wt_print_fail(c, &f);
    return 1;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                          */
/* ------------------------------------------------------------------ */
/* ------------------------------------------------------------------ */
/* Scenes against brute force (watertight triangle cases)               */
/* ------------------------------------------------------------------ */
/* The case's triangles as a scene of up to three meshes (a soup, an
 * indexed mesh with its vertices shared by bits, a soup); the case's rays,
 * active mask and records; rp_scene_closest / rp_scene_occluded must return
 * bit for bit what one rp_closest_triangle / rp_occluded_triangle call over
 * all the triangles returns (index_base 0, prim then split into mesh and
 * index).  A case with a non-finite vertex checks instead that adding it is
 * RP_ERR_INVALID and adds nothing.  Runs in the case's fp environment. */
#define U_UNWRITTEN 0x7fbadbadu /* a NaN payload no computation makes */
typedef struct scase {
    rp_rays r;
    rp_hits h;
    uint32_t *mesh;
    uint8_t *occ;
} scase;

static void scase_init(const fcase *c, scase *x) {
    size_t n = c->n, fb = n * 4;
    if (rp_rays_alloc(n, &x->r) || rp_hits_alloc(n, &x->h))
        abort();
    float *dst[8] = {x->r.ox, x->r.oy, x->r.oz, x->r.dx, x->r.dy, x->r.dz, x->r.tmin, x->r.tmax};
    for (int k = 0; k < 8; k++)
        if (n)
            memcpy(dst[k], c->orig[A_OX + k], fb);
    if (c->prefill && n) {
        memcpy(x->h.t, c->orig[A_HT], fb);
        memcpy(x->h.u, c->orig[A_HU], fb);
        memcpy(x->h.v, c->orig[A_HV], fb);
        memcpy(x->h.prim, c->orig[A_HPRIM], fb);
    }
    x->mesh = xcalloc(fb + 4);
    x->occ = xcalloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        x->mesh[i] = x->h.prim[i] == RP_NO_HIT ? RP_NO_HIT : 9; /* an earlier record's mesh */
        x->h.u[i] = u2f(U_UNWRITTEN); /* no kernel reads u; every new record writes it */
    }
}

static void scase_free(scase *x) {
    rp_rays_free(&x->r);
    rp_hits_free(&x->h);
    free(x->mesh);
    free(x->occ);
}

static int finite_tri(const rp_triangle *t) {
    const float *f = &t->v0.x;
    for (int k = 0; k < 9; k++)
        if (!isfinite(f[k]))
            return 0;
    return 1;
}

static int scene_check(const fcase *c, unsigned variants) {
    size_t n = c->count;
    rp_triangle *tris = xcalloc((n + 1) * sizeof *tris);
    int finite = 1;
    for (size_t j = 0; j < n; j++) {
        tris[j] = load_tri(c, j);
        finite &= finite_tri(&tris[j]);
    }
    size_t cut[4] = {0, n / 3, n - n / 4, n};
    /* mesh 1 as an indexed mesh: vertices deduplicated by their bits */
    size_t m1 = cut[2] - cut[1];
    float *xyz = xcalloc((3 * m1 + 1) * 3 * sizeof(float));
    uint32_t *idx = xcalloc((3 * m1 + 1) * sizeof(uint32_t));
    size_t nv = 0;
    for (size_t j = 0; j < m1; j++)
        for (int v = 0; v < 3; v++) {
            const float *p = &tris[cut[1] + j].v0.x + 3 * v;
            size_t k = 0;
            while (k < nv && memcmp(xyz + 3 * k, p, 12) != 0)
                k++;
            if (k == nv)
                memcpy(xyz + 3 * nv++, p, 12);
            idx[3 * j + v] = (uint32_t)k;
        }
    rp_scene *sc = NULL;
    int bad = 0;
    if (rp_scene_create(&sc) != RP_OK)
        abort();
    rp_status st[3];
    st[0] = rp_scene_add_soup(sc, tris, cut[1], NULL);
    st[1] = rp_scene_add_mesh(sc, xyz, nv, idx, m1, NULL);
    st[2] = rp_scene_add_soup(sc, tris + cut[2], cut[3] - cut[2], NULL);
    if (!finite) { /* some mesh holds a NaN or infinite vertex */
        int any_invalid = 0;
        for (int k = 0; k < 3; k++)
            any_invalid |= st[k] == RP_ERR_INVALID;
        if (!any_invalid || rp_scene_triangle_count(sc) == n) {
            fprintf(stderr, "rp_fuzz: a non-finite vertex was accepted by the scene\n");
            bad = 1;
        }
    } else if (st[0] || st[1] || st[2] || rp_scene_build(sc) != RP_OK) {
        fprintf(stderr, "rp_fuzz: scene add/build failed: %s %s %s\n", rp_status_string(st[0]),
                rp_status_string(st[1]), rp_status_string(st[2]));
        bad = 1;
    } else {
        scase a;
        scase_init(c, &a);
        const uint8_t *active = c->use_active ? c->orig[A_ACTIVE] : NULL;
        rp_fpenv_saved saved;
        int emulated_ok;
        rp_fpenv_set(rp_fpenv_names[c->fpenv], &saved, &emulated_ok);
        rp_set_isa(RP_ISA_SCALAR);
        rp_status s[3];
        int wt = (c->flags & RP_WATERTIGHT) != 0;
        s[0] = rp_rays_prepare(&a.r);
        if (wt) {
            s[1] = rp_closest_triangle(&a.r, active, tris, n, 0, c->flags, &a.h);
            s[2] = rp_occluded_triangle(&a.r, active, tris, n, c->flags, a.occ);
        } else { /* the reference traversal */
            s[1] = rp_scene_closest(sc, &a.r, active, c->flags, &a.h, a.mesh);
            s[2] = rp_scene_occluded(sc, &a.r, active, c->flags, a.occ);
        }
        rp_fpenv_restore(&saved);
        for (int k = 0; k < 3; k++)
            if (s[k] != RP_OK) {
                fprintf(stderr, "rp_fuzz: scene check call %d: %s\n", k, rp_status_string(s[k]));
                bad = 1;
            }
        for (size_t i = 0; i < c->n && wt; i++) {
            uint32_t g = a.h.prim[i];
            if (g != RP_NO_HIT && f2u(a.h.u[i]) != U_UNWRITTEN) { /* a new record */
                int m = g >= cut[2] ? 2 : g >= cut[1] ? 1 : 0;
                a.h.prim[i] = g - (uint32_t)cut[m];
                a.mesh[i] = (uint32_t)m;
            }
        }
        /* the scene on every variant the case allows (each its own traversal) */
        for (int isa = 0; isa < RP_ISA_COUNT && !bad; isa++) {
            if (!(variants & (1u << isa)))
                continue;
            scase b;
            scase_init(c, &b);
            rp_fpenv_set(rp_fpenv_names[c->fpenv], &saved, &emulated_ok);
            rp_set_isa((rp_isa)isa);
            /* the traversal: the variant's default (packets), RP_COHERENT or
             * RP_INCOHERENT (one ray at a time), rotating over variants and
             * cases so that every shape is fuzzed; the hints change nothing
             * in the results */
            static const unsigned hints[3] = {0, RP_COHERENT, RP_INCOHERENT};
            unsigned hint = hints[((size_t)isa + c->count) % 3];
            rp_status sb[3];
            sb[0] = rp_rays_prepare(&b.r);
            sb[1] = rp_scene_closest(sc, &b.r, active, c->flags | hint, &b.h, b.mesh);
            sb[2] = rp_scene_occluded(sc, &b.r, active, c->flags | hint, b.occ);
            rp_fpenv_restore(&saved);
            for (int k = 0; k < 3; k++)
                if (sb[k] != RP_OK) {
                    fprintf(stderr, "rp_fuzz: scene call %d (%s): %s\n", k,
                            rp_isa_name((rp_isa)isa), rp_status_string(sb[k]));
                    bad = 1;
                }
            for (size_t i = 0; i < c->n && !bad; i++) {
                int d = f2u(a.h.t[i]) != f2u(b.h.t[i]) || f2u(a.h.u[i]) != f2u(b.h.u[i]) ||
                        f2u(a.h.v[i]) != f2u(b.h.v[i]) || a.h.prim[i] != b.h.prim[i] ||
                        a.mesh[i] != b.mesh[i] || f2u(a.r.tmax[i]) != f2u(b.r.tmax[i]) ||
                        a.occ[i] != b.occ[i];
                if (d) {
                    fprintf(stderr,
                            "rp_fuzz: scene differs from %s at ray %zu: expected t=%a u=%a "
                            "v=%a prim=%u mesh=%u occ=%d; scene t=%a u=%a v=%a prim=%u mesh=%u "
                            "occ=%d\n",
                            wt ? "brute force" : "the reference traversal", i, (double)a.h.t[i],
                            (double)a.h.u[i], (double)a.h.v[i], a.h.prim[i],
                            a.mesh[i], a.occ[i], (double)b.h.t[i], (double)b.h.u[i],
                            (double)b.h.v[i], b.h.prim[i], b.mesh[i], b.occ[i]);
                    fprintf(stderr, "rp_fuzz: (scene queries on %s, %s)\n", rp_isa_name((rp_isa)isa),
                            hint == RP_COHERENT     ? "RP_COHERENT"
                            : hint == RP_INCOHERENT ? "RP_INCOHERENT"
                                                    : "no hint");
                    print_ray(c, i);
                    bad = 1;
                }
            }
            scase_free(&b);
        }
        scase_free(&a);
    }
    rp_scene_free(sc);
    free(tris);
    free(xyz);
    free(idx);
    return bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static unsigned runnable;
    static int verbose = -1, wt_box = 1;
    if (verbose < 0) {
        const char *e = getenv("RP_FUZZ_VERBOSE");
        verbose = e && *e == '1';
        e = getenv("RP_FUZZ_WT_BOX");
        wt_box = !(e && *e == '0');
        runnable = rp_isa_runnable();
        fprintf(stderr, "rp_fuzz: comparing against scalar:");
        for (int isa = RP_ISA_SCALAR + 1; isa < RP_ISA_COUNT; isa++)
            if (runnable & (1u << isa))
                fprintf(stderr, " %s", rp_isa_name((rp_isa)isa));
        fprintf(stderr, runnable >> 1 ? "\n" : " (no other variant is runnable)\n");
    }
    fcase c;
    parse(data, size, &c);
    if (verbose)
        print_case(&c);

    /* the case's floating-point environment: which variants it allows */
    rp_fpenv_saved saved;
    int emulated_ok;
    rp_fpenv_set(rp_fpenv_names[c.fpenv], &saved, &emulated_ok);
    rp_fpenv_restore(&saved);
    unsigned variants = emulated_ok ? runnable : runnable & rp_isa_native();

    result ref, var;
    run_in_env(&c, RP_ISA_SCALAR, &ref);
    int bad = 0;
    for (int isa = RP_ISA_SCALAR + 1; isa < RP_ISA_COUNT && !bad; isa++) {
        if (!(variants & (1u << isa)))
            continue;
        run_in_env(&c, (rp_isa)isa, &var);
        bad = compare(&c, &ref, &var, (rp_isa)isa);
        if (free_result(&var, (rp_isa)isa))
            bad++;
        if (bad)
            fprintf(stderr, "rp_fuzz: %s differs from scalar (or broke a guard)\n",
                    rp_isa_name((rp_isa)isa));
    }
    /* the reference's conservative box property (triangle kernels) */
    long wt_checked = 0;
    if (wt_box && (c.kernel == TH_CLOSEST_TRIANGLE || c.kernel == TH_OCCLUDED_TRIANGLE))
        bad += wt_box_check(&c, &ref, &wt_checked);
    if (verbose && wt_checked)
        fprintf(stderr, "rp_fuzz: box property checked on %ld watertight hits\n", wt_checked);
    /* scenes: exact against brute force under RP_WATERTIGHT, against the
     * reference traversal without it */
    if (c.kernel == TH_CLOSEST_TRIANGLE || c.kernel == TH_OCCLUDED_TRIANGLE)
        bad += scene_check(&c, variants | 1u);
    if (free_result(&ref, RP_ISA_SCALAR))
        bad++;
    /* Sanity of the reference itself: every status must be RP_OK except
     * RP_ERR_COUNT for an index_base that leaves no room for count. */
    for (int k = 0; k < ref.ncalls; k++)
        if (ref.st[k] != RP_OK && ref.st[k] != RP_ERR_COUNT) {
            fprintf(stderr, "rp_fuzz: call %d returned %s on a valid case\n", k,
                    rp_status_string(ref.st[k]));
            bad++;
        }
    if (bad) {
        print_case(&c);
        fflush(stderr);
        abort();
    }
    fcase_free(&c);
    rp_set_isa(RP_ISA_AUTO);
    return 0;
}
