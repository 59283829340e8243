/*
 * test_threads.c - raypack used from several threads at once.  N threads
 * (default 8) build their own batches with plain C (no library call), meet
 * at a barrier and make their first call into the library together, so the
 * first-use initialization (CPU detection and RP_ISA, pthread_once in
 * dispatch.c) runs under contention.  Then each thread runs every kernel and
 * every normal routine on its own buffers many times; every round must
 * equal the thread's first round, and after the threads have joined the
 * main thread recomputes each workload alone and compares bit for bit.
 * A second phase repeats the rounds while one more thread keeps switching
 * the variant with rp_set_isa(): all variants give identical results, so
 * nothing may change.  Built into the suite 'threads'; .ci/tsan.sh runs it
 * under ThreadSanitizer.  Output is TAP.
 *
 * Usage: test_threads [--threads=N] [--iterations=N] [--seed=N]
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raypack.h"

#define MAX_THREADS 64
enum { KB, KT, KS, KP, NCLOSEST }; /* boxes, triangles, spheres, planes */
static const char *const closest_names[NCLOSEST] = {
    "closest_aabb + normals", "closest_triangle + normals",
    "closest_sphere + normals", "closest_plane + normals"};

/* ------------------------------------------------------------------ */
/* Workloads                                                            */
/* ------------------------------------------------------------------ */
typedef struct work {
    size_t n, np; /* rays, primitives of each kind */
    float *arr[11]; /* ox oy oz dx dy dz tmin tmax rdx rdy rdz (caller-owned) */
    float *tmax0;
    uint8_t *active;
    rp_aabb *boxes;
    rp_triangle *tris;
    rp_sphere *sph;
    rp_plane *pl;
    rp_rays rays;
} work;

/* Everything a round produces. */
typedef struct out {
    float *rec[NCLOSEST][8]; /* t u v prim nx ny nz tmax */
    uint8_t *hit, *occ;
    float *tnear, *tfar;
    rp_status st[NCLOSEST * 4 + 3];
} out;

static void *xalloc(size_t bytes) {
    /* 64-aligned, rounded up: aligned_alloc wants a multiple */
    size_t b = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, b ? b : 64);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(99);
    }
    memset(p, 0, b ? b : 64);
    return p;
}

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform in [lo, hi), with an occasional -0.0, 0 or NaN */
static float rnd(uint64_t *s, float lo, float hi) {
    uint64_t r = rng_next(s);
    switch (r & 63) {
    case 0: return -0.0f;
    case 1: return 0.0f;
    case 2: return NAN;
    default: return lo + (hi - lo) * (float)((r >> 40) & 0xffffff) / 16777216.0f;
    }
}

/* Plain C only: this runs before the barrier. */
static void work_init(work *w, uint64_t seed, size_t n, size_t np) {
    uint64_t s = seed;
    memset(w, 0, sizeof *w);
    w->n = n;
    w->np = np;
    for (int k = 0; k < 11; k++)
        w->arr[k] = xalloc(n * sizeof(float));
    w->tmax0 = xalloc(n * sizeof(float));
    w->active = xalloc(n);
    w->boxes = xalloc(np * sizeof *w->boxes);
    w->tris = xalloc(np * sizeof *w->tris);
    w->sph = xalloc(np * sizeof *w->sph);
    w->pl = xalloc(np * sizeof *w->pl);
    for (size_t j = 0; j < np; j++) {
        float cx = rnd(&s, -3, 3), cy = rnd(&s, -3, 3), cz = rnd(&s, -3, 3);
        float e = rnd(&s, 0.1f, 1.5f);
        w->boxes[j] = (rp_aabb){{cx - e, cy - e, cz - e}, {cx + e, cy + e, cz + e}};
        w->tris[j] = (rp_triangle){{cx, cy, cz},
                                   {cx + rnd(&s, -2, 2), cy + rnd(&s, -2, 2), cz},
                                   {cx, cy + rnd(&s, -2, 2), cz + rnd(&s, -2, 2)}};
        w->sph[j] = (rp_sphere){{cx, cy, cz}, rnd(&s, -0.2f, 1.5f)};
        float nx = rnd(&s, -1, 1), ny = rnd(&s, -1, 1), nz = rnd(&s, -1, 1);
        float l = sqrtf(nx * nx + ny * ny + nz * nz);
        w->pl[j] = (rp_plane){{nx / l, ny / l, nz / l}, rnd(&s, -5, 5)};
    }
    for (size_t i = 0; i < n; i++) {
        float o[3], t[3];
        /* half the rays aim inside a triangle (and near its box and sphere) */
        const rp_triangle *tr = &w->tris[rng_next(&s) % np];
        int aim = np && (rng_next(&s) & 1);
        const float v0[3] = {tr->v0.x, tr->v0.y, tr->v0.z};
        const float v1[3] = {tr->v1.x, tr->v1.y, tr->v1.z};
        const float v2[3] = {tr->v2.x, tr->v2.y, tr->v2.z};
        for (int k = 0; k < 3; k++) {
            o[k] = rnd(&s, -8, 8);
            t[k] = aim ? v0[k] + 0.25f * (v1[k] - v0[k]) + 0.25f * (v2[k] - v0[k])
                       : rnd(&s, -3, 3);
            w->arr[k][i] = o[k];
            w->arr[3 + k][i] = t[k] - o[k];
        }
        w->arr[6][i] = (rng_next(&s) & 3) ? 0.0f : rnd(&s, -1, 2);
        w->tmax0[i] = (rng_next(&s) & 3) ? INFINITY : rnd(&s, 0, 20);
        w->active[i] = (uint8_t)((rng_next(&s) & 7) ? 1 + (i & 0x7f) : 0);
    }
    w->rays.n = n;
    float **f[11] = {&w->rays.ox, &w->rays.oy, &w->rays.oz, &w->rays.dx, &w->rays.dy,
                     &w->rays.dz, &w->rays.tmin, &w->rays.tmax, &w->rays.rdx,
                     &w->rays.rdy, &w->rays.rdz};
    for (int k = 0; k < 11; k++)
        *f[k] = w->arr[k];
}

static void work_free(work *w) {
    for (int k = 0; k < 11; k++)
        free(w->arr[k]);
    free(w->tmax0);
    free(w->active);
    free(w->boxes);
    free(w->tris);
    free(w->sph);
    free(w->pl);
}

static void out_init(out *o, size_t n) {
    memset(o, 0, sizeof *o);
    for (int k = 0; k < NCLOSEST; k++)
        for (int a = 0; a < 8; a++)
            o->rec[k][a] = xalloc(n * 4);
    o->hit = xalloc(n);
    o->occ = xalloc(n);
    o->tnear = xalloc(n * 4);
    o->tfar = xalloc(n * 4);
}

static void out_free(out *o) {
    for (int k = 0; k < NCLOSEST; k++)
        for (int a = 0; a < 8; a++)
            free(o->rec[k][a]);
    free(o->hit);
    free(o->occ);
    free(o->tnear);
    free(o->tfar);
}

/* One round: every kernel, each closest kernel fed in two chunks, then its
 * normals.  Writes only w->rays.tmax (restored first) and o. */
static void compute(work *w, out *o) {
    size_t n = w->n, np = w->np, half = np / 2;
    int s = 0;
    o->st[s++] = rp_rays_prepare(&w->rays);
    for (int k = 0; k < NCLOSEST; k++) {
        memcpy(w->rays.tmax, w->tmax0, n * 4);
        rp_hits h = {n, o->rec[k][0], o->rec[k][1], o->rec[k][2],
                     (uint32_t *)(void *)o->rec[k][3], o->rec[k][4], o->rec[k][5],
                     o->rec[k][6], NULL};
        o->st[s++] = rp_hits_reset(&h);
        const uint8_t *act = (k & 1) ? w->active : NULL;
        for (int c = 0; c < 2; c++) {
            size_t lo = c ? half : 0, cnt = c ? np - half : half;
            uint32_t base = 1000 + (uint32_t)lo;
            switch (k) {
            case KB: o->st[s] = rp_closest_aabb(&w->rays, act, w->boxes + lo, cnt, base, &h); break;
            case KT: o->st[s] = rp_closest_triangle(&w->rays, act, w->tris + lo, cnt, base, c ? RP_CULL_BACKFACE : 0, &h); break;
            case KS: o->st[s] = rp_closest_sphere(&w->rays, act, w->sph + lo, cnt, base, &h); break;
            default: o->st[s] = rp_closest_plane(&w->rays, act, w->pl + lo, cnt, base, &h); break;
            }
            if (o->st[s])
                break;
        }
        s++;
        switch (k) {
        case KB: o->st[s++] = rp_hits_normals_aabb(&w->rays, &h, w->boxes, np, 1000); break;
        case KT: o->st[s++] = rp_hits_normals_triangle(&w->rays, &h, w->tris, np, 1000); break;
        case KS: o->st[s++] = rp_hits_normals_sphere(&w->rays, &h, w->sph, np, 1000); break;
        default: o->st[s++] = rp_hits_normals_plane(&w->rays, &h, w->pl, np, 1000); break;
        }
        memcpy(o->rec[k][7], w->rays.tmax, n * 4);
    }
    memcpy(w->rays.tmax, w->tmax0, n * 4);
    o->st[s++] = rp_intersect_aabb(&w->rays, w->active, &w->boxes[0], o->hit, o->tnear, o->tfar);
    memset(o->occ, 0, n);
    o->st[s++] = rp_occluded_triangle(&w->rays, NULL, w->tris, np, 0, o->occ);
    (void)s;
}

/* Bit-for-bit comparison of two rounds; which[] gets a flag per part:
 * 0..3 the closest kernels, 4 intersect_aabb, 5 occluded_triangle, 6 statuses. */
enum { P_INTERSECT = NCLOSEST, P_OCCLUDED, P_STATUS, NPARTS };
static void compare(const out *a, const out *b, size_t n, int which[NPARTS]) {
    for (int k = 0; k < NCLOSEST; k++)
        for (int x = 0; x < 8; x++)
            if (memcmp(a->rec[k][x], b->rec[k][x], n * 4))
                which[k] = 1;
    if (memcmp(a->hit, b->hit, n) || memcmp(a->tnear, b->tnear, n * 4) ||
        memcmp(a->tfar, b->tfar, n * 4))
        which[P_INTERSECT] = 1;
    if (memcmp(a->occ, b->occ, n))
        which[P_OCCLUDED] = 1;
    for (size_t k = 0; k < sizeof a->st / sizeof a->st[0]; k++)
        if (a->st[k] != RP_OK || b->st[k] != RP_OK)
            which[P_STATUS] = 1;
}

/* ------------------------------------------------------------------ */
/* Threads                                                              */
/* ------------------------------------------------------------------ */
typedef struct thread_arg {
    int id;
    work w;
    out first, cur;
    rp_isa seen; /* rp_active_isa() right after the first call */
    rp_status first_status;
    int round_mismatch[NPARTS]; /* a later round differed from the first */
} thread_arg;

static pthread_barrier_t start_line;
static int iterations = 50;
static atomic_int stop_switching;
static atomic_int phase2_rounds;

static void *thread_main(void *p) {
    thread_arg *t = p;
    pthread_barrier_wait(&start_line);
    /* The first call into raypack, from every thread at once, by different
     * doors: a query, a kernel (which detects the CPU on its way in). */
    switch (t->id % 3) {
    case 0:
        t->first_status = RP_OK;
        t->seen = rp_active_isa();
        break;
    case 1:
        (void)rp_isa_native();
        t->first_status = RP_OK;
        t->seen = rp_active_isa();
        break;
    default:
        t->first_status = rp_rays_prepare(&t->w.rays);
        if (!t->first_status)
            t->first_status = rp_intersect_aabb(&t->w.rays, NULL, &t->w.boxes[0],
                                                t->first.hit, NULL, NULL);
        t->seen = rp_active_isa();
        break;
    }
    compute(&t->w, &t->first);
    for (int r = 1; r < iterations; r++) {
        compute(&t->w, &t->cur);
        compare(&t->first, &t->cur, t->w.n, t->round_mismatch);
    }
    return NULL;
}

/* Phase 2: rounds compared with the reference while the variant changes. */
typedef struct phase2_arg {
    work *w;
    const out *ref;
    out cur;
    int mismatch[NPARTS];
} phase2_arg;

static void *phase2_main(void *p) {
    phase2_arg *a = p;
    pthread_barrier_wait(&start_line);
    for (int r = 0; r < iterations; r++) {
        compute(a->w, &a->cur);
        compare(a->ref, &a->cur, a->w->n, a->mismatch);
        atomic_fetch_add(&phase2_rounds, 1);
    }
    return NULL;
}

typedef struct switcher_arg {
    unsigned runnable;
    rp_isa restore; /* the variant in use before (RP_ISA may have forced it) */
} switcher_arg;

static void *switcher_main(void *p) {
    const switcher_arg *a = p;
    unsigned runnable = a->runnable;
    pthread_barrier_wait(&start_line);
    unsigned long switches = 0;
    while (!atomic_load(&stop_switching)) {
        for (int isa = 0; isa < RP_ISA_COUNT; isa++)
            if (runnable & (1u << isa)) {
                rp_set_isa((rp_isa)isa);
                switches++;
            }
    }
    rp_set_isa(a->restore);
    return (void *)(uintptr_t)switches;
}

/* ------------------------------------------------------------------ */
/* The threaded scene build                                             */
/* ------------------------------------------------------------------ */
/* uniform in [lo, hi) (rnd also draws zeros and NaNs, which a scene
 * refuses) */
static float unif(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)((rng_next(s) >> 40) & 0xffffff) / 16777216.0f;
}

/* A scene of nt random triangles built with `threads` build threads
 * (rp_scene_set_build_threads), then nr rays through it (ray: ox oy oz
 * dx dy dz tmin tmax): *bytes its size, prim and t the records.  Returns the first status that is not RP_OK. */
static rp_status scene_run(const rp_triangle *tris, size_t nt, unsigned threads,
                           float *const ray[8], size_t nr, uint32_t *prim, float *t,
                           size_t *bytes) {
    rp_scene *s = NULL;
    rp_rays r;
    rp_hits h;
    rp_status st = rp_scene_create(&s);
    if (!st)
        st = rp_scene_set_build_threads(s, threads);
    if (!st)
        st = rp_scene_add_soup(s, tris, nt, NULL);
    if (!st)
        st = rp_scene_build(s);
    if (st) {
        rp_scene_free(s);
        return st;
    }
    *bytes = rp_scene_bytes(s);
    if ((st = rp_rays_alloc(nr, &r)) == RP_OK) {
        if ((st = rp_hits_alloc(nr, &h)) == RP_OK) {
            float *dst[11] = {r.ox, r.oy, r.oz, r.dx, r.dy, r.dz, r.tmin, r.tmax, r.rdx, r.rdy, r.rdz};
            for (int a = 0; a < 8; a++)
                memcpy(dst[a], ray[a], nr * sizeof(float));
            if (!(st = rp_rays_prepare(&r)) &&
                !(st = rp_scene_closest(s, &r, NULL, RP_WATERTIGHT, &h, NULL))) {
                memcpy(prim, h.prim, nr * sizeof *prim);
                memcpy(t, h.t, nr * sizeof *t);
            }
            rp_hits_free(&h);
        }
        rp_rays_free(&r);
    }
    rp_scene_free(s);
    return st;
}

static int parse_opt(const char *a, const char *name, long *v) {
    size_t l = strlen(name);
    if (strncmp(a, name, l) || a[l] != '=')
        return 0;
    char *end;
    *v = strtol(a + l + 1, &end, 10);
    return *end == '\0';
}

int main(int argc, char **argv) {
    long nthreads = 8, iters = 50, seed = 1;
    for (int i = 1; i < argc; i++) {
        long v;
        if (parse_opt(argv[i], "--threads", &v) && v >= 1 && v <= MAX_THREADS)
            nthreads = v;
        else if (parse_opt(argv[i], "--iterations", &v) && v >= 1)
            iters = v;
        else if (parse_opt(argv[i], "--seed", &v))
            seed = v;
        else {
            fprintf(stderr, "usage: %s [--threads=1..%d] [--iterations=N] [--seed=N]\n",
                    argv[0], MAX_THREADS);
            return 2;
        }
    }
    iterations = (int)iters;
    printf("1..%d\n", 2 + NCLOSEST + 2 + 1 + 1);
    printf("# %ld threads, %d rounds each, seed %ld\n", nthreads, iterations, seed);
    fflush(stdout);

    /* Nothing before this point calls raypack: the threads do it first. */
    thread_arg *ta = calloc((size_t)nthreads, sizeof *ta);
    pthread_t *tid = calloc((size_t)nthreads + 1, sizeof *tid);
    if (!ta || !tid)
        return 99;
    for (long t = 0; t < nthreads; t++) {
        ta[t].id = (int)t;
        /* odd sizes so every vector width has a tail */
        size_t n = 29 + 13 * (size_t)t, np = 5 + (size_t)t % 7;
        work_init(&ta[t].w, (uint64_t)seed * 1000003u + (uint64_t)t, n, np);
        out_init(&ta[t].first, n);
        out_init(&ta[t].cur, n);
    }
    pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
    for (long t = 0; t < nthreads; t++)
        if (pthread_create(&tid[t], NULL, thread_main, &ta[t])) {
            printf("Bail out! pthread_create failed\n");
            return 1;
        }
    for (long t = 0; t < nthreads; t++)
        pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&start_line);

    int test = 0, failed = 0;
#define TAP(ok, ...)                                     \
    do {                                                 \
        int ok_ = (ok);                                  \
        failed += !ok_;                                  \
        printf("%s %d - ", ok_ ? "ok" : "not ok", ++test); \
        printf(__VA_ARGS__);                             \
        printf("\n");                                    \
    } while (0)

    /* 1: everyone saw the same variant, the one in use now */
    rp_isa now = rp_active_isa();
    int same = 1;
    for (long t = 0; t < nthreads; t++) {
        if (ta[t].seen != now || ta[t].first_status != RP_OK) {
            printf("# thread %ld: first call %s, saw %s, main sees %s\n", t,
                   rp_status_string(ta[t].first_status), rp_isa_name(ta[t].seen),
                   rp_isa_name(now));
            same = 0;
        }
    }
    TAP(same, "first use from %ld threads at once: all see variant %s", nthreads,
        rp_isa_name(now));

    /* 2..: each thread's rounds agree with themselves and with a
     * single-threaded run done now */
    int part_bad[NPARTS] = {0};
    for (long t = 0; t < nthreads; t++) {
        out ref;
        out_init(&ref, ta[t].w.n);
        compute(&ta[t].w, &ref);
        int diff[NPARTS] = {0};
        compare(&ref, &ta[t].first, ta[t].w.n, diff);
        if (t == 0) { /* show that the workload is not all misses */
            printf("# thread 0, %zu rays: hits", ta[t].w.n);
            for (int k = 0; k < NCLOSEST; k++) {
                size_t h = 0;
                for (size_t i = 0; i < ta[t].w.n; i++)
                    h += ((const uint32_t *)(const void *)ref.rec[k][3])[i] != RP_NO_HIT;
                printf(" %s %zu", k == KB ? "boxes" : k == KT ? "triangles" : k == KS ? "spheres" : "planes", h);
            }
            size_t o = 0;
            for (size_t i = 0; i < ta[t].w.n; i++)
                o += ref.occ[i];
            printf(", occluded %zu\n", o);
        }
        for (int p = 0; p < NPARTS; p++) {
            if (diff[p] || ta[t].round_mismatch[p]) {
                printf("# thread %ld part %d: %s\n", t, p,
                       diff[p] ? "differs from the single-threaded run"
                               : "a later round differs from the first");
                part_bad[p] = 1;
            }
        }
        out_free(&ref);
    }
    TAP(!part_bad[P_STATUS], "every call returned RP_OK");
    for (int k = 0; k < NCLOSEST; k++)
        TAP(!part_bad[k], "%s: %ld threads x %d rounds equal the single-threaded run",
            closest_names[k], nthreads, iterations);
    TAP(!part_bad[P_INTERSECT], "intersect_aabb: %ld threads x %d rounds equal the single-threaded run",
        nthreads, iterations);
    TAP(!part_bad[P_OCCLUDED], "occluded_triangle: %ld threads x %d rounds equal the single-threaded run",
        nthreads, iterations);

    /* last: rounds while another thread switches the variant */
    unsigned runnable = rp_isa_runnable();
    switcher_arg swa = {runnable, now};
    long np2 = nthreads > 1 ? nthreads - 1 : 1;
    phase2_arg *pa = calloc((size_t)np2, sizeof *pa);
    out *refs = calloc((size_t)np2, sizeof *refs);
    if (!pa || !refs)
        return 99;
    for (long t = 0; t < np2; t++) {
        out_init(&refs[t], ta[t].w.n);
        compute(&ta[t].w, &refs[t]);
        pa[t].w = &ta[t].w;
        pa[t].ref = &refs[t];
        out_init(&pa[t].cur, ta[t].w.n);
    }
    pthread_barrier_init(&start_line, NULL, (unsigned)np2 + 1);
    pthread_create(&tid[np2], NULL, switcher_main, &swa);
    for (long t = 0; t < np2; t++)
        pthread_create(&tid[t], NULL, phase2_main, &pa[t]);
    for (long t = 0; t < np2; t++)
        pthread_join(tid[t], NULL);
    atomic_store(&stop_switching, 1);
    void *sw;
    pthread_join(tid[np2], &sw);
    pthread_barrier_destroy(&start_line);
    int bad2 = 0;
    for (long t = 0; t < np2; t++) {
        for (int p = 0; p < NPARTS; p++)
            if (pa[t].mismatch[p]) {
                printf("# phase 2 thread %ld part %d differs\n", t, p);
                bad2 = 1;
            }
        out_free(&pa[t].cur);
        out_free(&refs[t]);
    }
    printf("# %lu variant switches over %d rounds; runnable variants:", (unsigned long)(uintptr_t)sw,
           atomic_load(&phase2_rounds));
    for (int isa = 0; isa < RP_ISA_COUNT; isa++)
        if (runnable & (1u << isa))
            printf(" %s", rp_isa_name((rp_isa)isa));
    printf("\n");
    TAP(!bad2 && rp_active_isa() == now,
        "%ld threads x %d rounds while another thread switches variants: results unchanged",
        np2, iterations);

    /* last: a scene built by 4 threads equals the one built by one: the
     * same size and, for rays through it, the same records.  150,000
     * triangles take every threaded part of build.c: the records in
     * chunks, the top nodes' binning in runs, the subtrees, the leaves'
     * packing in chunks of nodes */
    {
        size_t nt = 150000, n = 3000, b1 = 0, b4 = 1;
        rp_triangle *tris = malloc(nt * sizeof *tris);
        uint32_t *p1 = malloc(n * sizeof *p1), *p4 = malloc(n * sizeof *p4);
        float *t1 = malloc(n * sizeof *t1), *t4 = malloc(n * sizeof *t4);
        float *ray[8];
        for (int a = 0; a < 8; a++)
            ray[a] = malloc(n * sizeof(float));
        if (!tris || !p1 || !p4 || !t1 || !t4 || !ray[0] || !ray[1] || !ray[2] || !ray[3] ||
            !ray[4] || !ray[5] || !ray[6] || !ray[7])
            return 99;
        uint64_t g = (uint64_t)seed * 7919u + 17u;
        for (size_t j = 0; j < nt; j++) {
            float c[3] = {unif(&g, -2, 2), unif(&g, -2, 2), unif(&g, -2, 2)};
            float *f = (float *)(void *)&tris[j];
            for (int k = 0; k < 9; k++)
                f[k] = c[k % 3] + unif(&g, -0.05f, 0.05f);
        }
        for (size_t i = 0; i < n; i++) { /* from outside the cloud into it */
            for (int a = 0; a < 3; a++) {
                ray[a][i] = unif(&g, -5, 5);
                ray[3 + a][i] = unif(&g, -1, 1) - ray[a][i];
            }
            ray[6][i] = 0.0f;
            ray[7][i] = INFINITY;
        }
        rp_status s1 = scene_run(tris, nt, 1, ray, n, p1, t1, &b1);
        rp_status s4 = scene_run(tris, nt, 4, ray, n, p4, t4, &b4);
        size_t hits = 0;
        int same = !s1 && !s4 && b1 == b4;
        for (size_t i = 0; same && i < n; i++) {
            same &= p1[i] == p4[i] && !memcmp(&t1[i], &t4[i], sizeof t1[i]);
            hits += p1[i] != RP_NO_HIT;
        }
        TAP(same, "a scene of %zu triangles built by 4 threads: %zu bytes and %zu rays' records "
                  "(%zu hits) as built by one (%s, %s)",
            nt, b4, n, hits, rp_status_string(s1), rp_status_string(s4));
        free(tris);
        free(p1);
        free(p4);
        free(t1);
        free(t4);
        for (int a = 0; a < 8; a++)
            free(ray[a]);
    }

    for (long t = 0; t < nthreads; t++) {
        out_free(&ta[t].first);
        out_free(&ta[t].cur);
        work_free(&ta[t].w);
    }
    free(pa);
    free(refs);
    free(ta);
    free(tid);
    return failed ? 1 : 0;
}
