/*
 * render.c - the renderer: the image is cut into 16 x 16 tiles that worker
 * threads (pthreads) take one after another from an atomic counter.  For
 * each tile and each sample the primary rays go to the backend as one
 * batch (raypack: rp_scene_closest with RP_COHERENT and the triangle test
 * of --test, RP_WATERTIGHT by default, then rp_scene_normals), then the
 * shadow rays toward the light of every hit that faces it
 * (rp_scene_occluded, RP_COHERENT, the same test) and --ao rays per hit over
 * the cosine-weighted hemisphere (rp_scene_occluded without a hint, i.e.
 * packets, which measured about 1.6x faster here than RP_INCOHERENT for
 * these rays - a pixel's AO rays are adjacent and share their origin;
 * --ao-hint ray switches).  Random numbers come from
 * a hash of (pixel, sample, dimension) only, and each pixel's samples are
 * summed in sample order by the one thread that owns its tile, so the image
 * is the same bytes for every thread count, tile order and variant (the
 * scene queries return the same bits in every variant).  The time spent in
 * the backend is summed per ray kind over the threads.  This file also
 * holds the raypack backend (rp_scene_create ... rp_scene_build).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

#define TILE 16
#define TILE_PIX (TILE * TILE)

/* ------------------------------------------------------------------ */
/* The raypack backend                                                  */
/* ------------------------------------------------------------------ */
/* The backend's context: the scene and the triangle test's flag
 * (RP_WATERTIGHT, or 0: Moller-Trumbore) for every query. */
typedef struct rpk {
    rp_scene *sc;
    unsigned test;
} rpk;

static int rpk_closest(void *ctx, rp_rays *rays, rp_hits *hits, uint32_t *mesh, rt_err *e) {
    const rpk *k = ctx;
    if (rt_check(e, "rp_rays_prepare", rp_rays_prepare(rays)) ||
        rt_check(e, "rp_hits_reset", rp_hits_reset(hits)) ||
        rt_check(e, "rp_scene_closest",
                 rp_scene_closest(k->sc, rays, NULL, k->test | RP_COHERENT, hits, mesh)) ||
        rt_check(e, "rp_scene_normals", rp_scene_normals(k->sc, rays, hits, mesh)))
        return -1;
    return 0;
}

static int rpk_occluded(void *ctx, rp_rays *rays, unsigned hint, uint8_t *occ, rt_err *e) {
    const rpk *k = ctx;
    memset(occ, 0, rays->n);
    if (rt_check(e, "rp_rays_prepare", rp_rays_prepare(rays)) ||
        rt_check(e, "rp_scene_occluded",
                 rp_scene_occluded(k->sc, rays, NULL, k->test | hint, occ)))
        return -1;
    return 0;
}

int rt_backend_raypack(rt_backend *b, const rt_geometry *g, int threads, unsigned test,
                       rt_err *e) {
    memset(b, 0, sizeof *b);
    rp_scene *sc = NULL;
    rpk *k = malloc(sizeof *k);
    if (!k)
        return rt_fail(e, "out of memory for the raypack backend");
    if (rt_check(e, "rp_scene_create", rp_scene_create(&sc)))
        goto fail;
    /* the render's threads build the tree too (the same tree bytes) */
    unsigned bt = threads < 1 ? 1u : threads > RP_BUILD_THREADS_MAX ? RP_BUILD_THREADS_MAX
                                                                    : (unsigned)threads;
    if (rt_check(e, "rp_scene_set_build_threads", rp_scene_set_build_threads(sc, bt)))
        goto fail;
    double t0 = rt_now();
    for (size_t m = 0; m < g->count; m++) {
        const rt_mesh *me = &g->meshes[m];
        if (rt_check(e, "rp_scene_add_mesh",
                     rp_scene_add_mesh(sc, me->xyz, me->nv, me->idx, me->nt, NULL)))
            goto fail;
    }
    if (rt_check(e, "rp_scene_build", rp_scene_build(sc)))
        goto fail;
    b->build_s = rt_now() - t0;
    b->bytes = rp_scene_bytes(sc);
    b->name = "raypack";
    k->sc = sc;
    k->test = test;
    b->ctx = k;
    b->closest = rpk_closest;
    b->occluded = rpk_occluded;
    return 0;
fail:
    rp_scene_free(sc); /* (NULL: a no-op) */
    free(k);
    return -1;
}

void rt_backend_raypack_free(rt_backend *b) {
    rpk *k = b->ctx;
    if (k) {
        rp_scene_free(k->sc);
        free(k);
    }
    memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------------ */
/* Random numbers: a function of (pixel, sample, dimension) only        */
/* ------------------------------------------------------------------ */
static uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 24 bits. */
static float rnd(uint32_t pixel, uint32_t sample, uint32_t dim) {
    uint64_t h = mix64(((uint64_t)pixel << 32 | sample) ^ mix64(dim));
    return (float)(h >> 40) * 0x1p-24f;
}

/* ------------------------------------------------------------------ */
/* Shading                                                              */
/* ------------------------------------------------------------------ */
static rp_vec3 sky(rp_vec3 d) {
    float k = 0.5f * (vnorm(d).y + 1.0f);
    return vadd(vscale(v3(0.95f, 0.95f, 1.0f), 1.0f - k), vscale(v3(0.40f, 0.60f, 0.95f), k));
}

static rp_vec3 albedo(const rt_geometry *g, uint32_t mesh, rp_vec3 p, rp_vec3 n) {
    const rt_mesh *m = &g->meshes[mesh];
    if (!m->terrain)
        return m->albedo;
    /* grass low and flat, rock where steep, light where high; a faint checker
     * on the flat ground in the middle */
    float steep = 1.0f - fabsf(n.y);
    rp_vec3 c = p.y < 1.2f ? v3(0.42f, 0.55f, 0.30f) : v3(0.50f, 0.56f, 0.36f);
    if (p.y < 0.3f) {
        int cx = (int)floorf(p.x), cz = (int)floorf(p.z);
        c = ((cx + cz) & 1) ? v3(0.70f, 0.70f, 0.66f) : v3(0.50f, 0.50f, 0.47f);
    }
    if (steep > 0.35f)
        c = v3(0.45f, 0.40f, 0.36f);
    if (p.y > 3.6f && steep < 0.5f)
        c = v3(0.92f, 0.92f, 0.95f);
    return c;
}

/* Two unit vectors completing n to an orthonormal basis (Duff et al. 2017). */
static void onb(rp_vec3 n, rp_vec3 *t, rp_vec3 *b) {
    float sign = copysignf(1.0f, n.z);
    float a = -1.0f / (sign + n.z);
    float bb = n.x * n.y * a;
    *t = v3(1.0f + sign * n.x * n.x * a, sign * bb, -sign * n.x);
    *b = v3(bb, sign + n.y * n.y * a, -n.y);
}

/* ------------------------------------------------------------------ */
/* Workers                                                              */
/* ------------------------------------------------------------------ */
typedef struct job {
    const rt_geometry *g;
    const rt_backend *b;
    const rt_settings *s;
    uint8_t *rgb;
    rp_vec3 eye, fwd, right, up; /* right and up scaled to the image plane at distance 1 */
    float eps;                   /* offset of secondary ray origins along the normal */
    int tiles_x, tiles;
    atomic_int next_tile, done_tiles;
    atomic_int failed;
    pthread_mutex_t lock; /* the error message and the progress lines */
    int printed;          /* progress: last percentage (tty) or quarter printed */
    int tty;
    rt_err err;
    rt_stats st;
} job;

typedef struct worker {
    job *j;
    rp_rays prim, shadow, ao;
    rp_hits hits;
    uint32_t *mesh;
    uint8_t *occ;
    rp_vec3 *pos, *nrm, *acc;
    int *shadow_of; /* primary ray index of each shadow ray */
    int *ao_of;
    float *ndotl;
    uint8_t *lit;
    float *ao_open;
    /* the tile's pixels in batch order (tile_order): ray i of a batch is
     * pixel (x0 + tx[i], y0 + ty[i]) */
    uint8_t tx[TILE_PIX], ty[TILE_PIX];
    int otw, oth; /* the tile size tx, ty are for (0: none yet) */
    uint64_t rays[RT_KINDS];
    double secs[RT_KINDS];
    pthread_t tid;
} worker;

static void worker_free(worker *w) {
    rp_rays_free(&w->prim);
    rp_rays_free(&w->shadow);
    rp_rays_free(&w->ao);
    rp_hits_free(&w->hits);
    free(w->mesh);
    free(w->occ);
    free(w->pos);
    free(w->nrm);
    free(w->acc);
    free(w->shadow_of);
    free(w->ao_of);
    free(w->ndotl);
    free(w->lit);
    free(w->ao_open);
}

static int worker_alloc(worker *w, int ao, rt_err *e) {
    size_t nao = (size_t)TILE_PIX * (size_t)(ao > 0 ? ao : 1);
    if (rt_check(e, "rp_rays_alloc", rp_rays_alloc(TILE_PIX, &w->prim)) ||
        rt_check(e, "rp_rays_alloc", rp_rays_alloc(TILE_PIX, &w->shadow)) ||
        rt_check(e, "rp_rays_alloc", rp_rays_alloc(nao, &w->ao)) ||
        rt_check(e, "rp_hits_alloc", rp_hits_alloc(TILE_PIX, &w->hits)))
        return -1;
    w->mesh = calloc(TILE_PIX, sizeof *w->mesh);
    w->occ = calloc(nao, 1);
    w->pos = calloc(TILE_PIX, sizeof *w->pos);
    w->nrm = calloc(TILE_PIX, sizeof *w->nrm);
    w->acc = calloc(TILE_PIX, sizeof *w->acc);
    w->shadow_of = calloc(TILE_PIX, sizeof *w->shadow_of);
    w->ao_of = calloc(nao, sizeof *w->ao_of);
    w->ndotl = calloc(TILE_PIX, sizeof *w->ndotl);
    w->lit = calloc(TILE_PIX, 1);
    w->ao_open = calloc(TILE_PIX, sizeof *w->ao_open);
    if (!w->mesh || !w->occ || !w->pos || !w->nrm || !w->acc || !w->shadow_of || !w->ao_of ||
        !w->ndotl || !w->lit || !w->ao_open)
        return rt_fail(e, "out of memory");
    return 0;
}

static void progress(job *j, int done) {
    if (!j->s->progress)
        return;
    pthread_mutex_lock(&j->lock);
    if (j->tty) {
        int pct = (int)((long long)done * 100 / j->tiles);
        if (pct > j->printed) {
            j->printed = pct;
            fprintf(stderr, "\rrp_trace: rendering with %s %3d%%", j->b->name, pct);
            if (done == j->tiles)
                fputc('\n', stderr);
            fflush(stderr);
        }
    } else {
        int q = (int)((long long)done * 4 / j->tiles);
        if (q > j->printed) {
            j->printed = q;
            fprintf(stderr, "rp_trace: rendering with %s %d%%\n", j->b->name, 25 * q);
        }
    }
    pthread_mutex_unlock(&j->lock);
}

static void set_n(rp_rays *r, size_t n) { r->n = n; }

/* The order of a tile's tw x th pixels in its batches: Morton (Z) order,
 * x in the lowest bit, so that 4, 8 and 16 consecutive rays (the packets
 * of SSE4.1 and NEON, AVX2, AVX-512 and Embree's 4/8/16) cover 2 x 2, 4 x 2
 * and 4 x 4 pixels rather than a strip of one row: fewer nodes per packet
 * for both backends, which get the same batches.  A partial tile (at the
 * image's right or bottom edge) keeps the full tile's order with the
 * pixels outside left out.  Pixels are computed from (pixel, sample)
 * alone, so the order changes no byte of the image. */
static void tile_order(worker *w, int tw, int th) {
    if (w->otw == tw && w->oth == th) /* every full tile: the same order */
        return;
    w->otw = tw;
    w->oth = th;
    int n = 0;
    for (int z = 0; z < TILE_PIX; z++) {
        int x = 0, y = 0;
        for (int b = 0; (1 << (2 * b)) < TILE_PIX; b++) {
            x |= ((z >> (2 * b)) & 1) << b;
            y |= ((z >> (2 * b + 1)) & 1) << b;
        }
        if (x < tw && y < th) {
            w->tx[n] = (uint8_t)x;
            w->ty[n] = (uint8_t)y;
            n++;
        }
    }
}

/* Traces one sample of every pixel of a tile and adds it to w->acc. */
static int trace_sample(worker *w, int x0, int y0, int tw, int th, uint32_t sample, rt_err *e) {
    job *j = w->j;
    const rt_settings *s = j->s;
    const rt_backend *b = j->b;
    int n = tw * th;
    rp_rays *r = &w->prim;
    set_n(r, (size_t)n);
    w->hits.n = (size_t)n;
    for (int i = 0; i < n; i++) {
        int px = x0 + w->tx[i], py = y0 + w->ty[i];
        uint32_t pix = (uint32_t)py * (uint32_t)s->width + (uint32_t)px;
        float jx = 0.5f, jy = 0.5f;
        if (s->spp > 1) {
            jx = rnd(pix, sample, 0);
            jy = rnd(pix, sample, 1);
        }
        float sx = 2.0f * ((float)px + jx) / (float)s->width - 1.0f;
        float sy = 1.0f - 2.0f * ((float)py + jy) / (float)s->height;
        rp_vec3 d = vadd(j->fwd, vadd(vscale(j->right, sx), vscale(j->up, sy)));
        r->ox[i] = j->eye.x; r->oy[i] = j->eye.y; r->oz[i] = j->eye.z;
        r->dx[i] = d.x; r->dy[i] = d.y; r->dz[i] = d.z;
        r->tmin[i] = 0.0f;
        r->tmax[i] = INFINITY;
    }
    double t0 = rt_now();
    if (b->closest(b->ctx, r, &w->hits, w->mesh, e))
        return -1;
    w->secs[RT_PRIMARY] += rt_now() - t0;
    w->rays[RT_PRIMARY] += (uint64_t)n;

    /* hit points, normals facing the viewer; shadow rays for the lit side */
    const rp_vec3 L = j->g->light;
    rp_rays *sr = &w->shadow;
    int ns = 0;
    for (int i = 0; i < n; i++) {
        w->lit[i] = 0;
        w->ndotl[i] = 0.0f;
        w->ao_open[i] = 1.0f;
        if (w->hits.prim[i] == RP_NO_HIT)
            continue;
        rp_vec3 d = v3(r->dx[i], r->dy[i], r->dz[i]);
        rp_vec3 p = vadd(v3(r->ox[i], r->oy[i], r->oz[i]), vscale(d, w->hits.t[i]));
        rp_vec3 nv = v3(w->hits.nx[i], w->hits.ny[i], w->hits.nz[i]);
        if (vdot(nv, d) > 0.0f)
            nv = vscale(nv, -1.0f);
        w->pos[i] = p;
        w->nrm[i] = nv;
        float nl = vdot(nv, L);
        w->ndotl[i] = nl;
        if (nl <= 0.0f)
            continue;
        rp_vec3 o = vadd(p, vscale(nv, j->eps));
        sr->ox[ns] = o.x; sr->oy[ns] = o.y; sr->oz[ns] = o.z;
        sr->dx[ns] = L.x; sr->dy[ns] = L.y; sr->dz[ns] = L.z;
        sr->tmin[ns] = 0.0f;
        sr->tmax[ns] = INFINITY;
        w->shadow_of[ns++] = i;
    }
    if (ns > 0) {
        set_n(sr, (size_t)ns);
        t0 = rt_now();
        if (b->occluded(b->ctx, sr, RP_COHERENT, w->occ, e))
            return -1;
        w->secs[RT_SHADOW] += rt_now() - t0;
        w->rays[RT_SHADOW] += (uint64_t)ns;
        for (int k = 0; k < ns; k++)
            w->lit[w->shadow_of[k]] = !w->occ[k];
    }

    /* ambient occlusion: s->ao rays per hit, cosine-weighted */
    if (s->ao > 0) {
        rp_rays *ar = &w->ao;
        int na = 0;
        for (int i = 0; i < n; i++) {
            if (w->hits.prim[i] == RP_NO_HIT)
                continue;
            int px = x0 + w->tx[i], py = y0 + w->ty[i];
            uint32_t pix = (uint32_t)py * (uint32_t)s->width + (uint32_t)px;
            rp_vec3 nv = w->nrm[i], t, bt;
            onb(nv, &t, &bt);
            rp_vec3 o = vadd(w->pos[i], vscale(nv, j->eps));
            for (int k = 0; k < s->ao; k++) {
                float u1 = rnd(pix, sample, 2 + 2 * (uint32_t)k);
                float u2 = rnd(pix, sample, 3 + 2 * (uint32_t)k);
                float rr = sqrtf(u1), phi = 6.2831853f * u2;
                float z = sqrtf(1.0f - u1 > 0.0f ? 1.0f - u1 : 0.0f);
                rp_vec3 d = vadd(vadd(vscale(t, rr * cosf(phi)), vscale(bt, rr * sinf(phi))),
                                 vscale(nv, z));
                ar->ox[na] = o.x; ar->oy[na] = o.y; ar->oz[na] = o.z;
                ar->dx[na] = d.x; ar->dy[na] = d.y; ar->dz[na] = d.z;
                ar->tmin[na] = 0.0f;
                ar->tmax[na] = j->g->ao_radius;
                w->ao_of[na++] = i;
            }
        }
        if (na > 0) {
            set_n(ar, (size_t)na);
            t0 = rt_now();
            if (b->occluded(b->ctx, ar, s->ao_hint, w->occ, e))
                return -1;
            w->secs[RT_AO] += rt_now() - t0;
            w->rays[RT_AO] += (uint64_t)na;
            /* na is a multiple of s->ao: the rays of one pixel are adjacent */
            for (int k = 0; k < na; k += s->ao) {
                int open = 0;
                for (int m = 0; m < s->ao; m++)
                    open += !w->occ[k + m];
                w->ao_open[w->ao_of[k]] = (float)open / (float)s->ao;
            }
        }
    }

    for (int i = 0; i < n; i++) {
        rp_vec3 c;
        if (w->hits.prim[i] == RP_NO_HIT) {
            c = sky(v3(r->dx[i], r->dy[i], r->dz[i]));
        } else {
            rp_vec3 a = albedo(j->g, w->mesh[i], w->pos[i], w->nrm[i]);
            float direct = w->lit[i] ? 0.9f * w->ndotl[i] : 0.0f;
            float ambient = 0.45f * w->ao_open[i] * (0.6f + 0.4f * w->nrm[i].y);
            c = vscale(a, direct + ambient);
        }
        w->acc[i] = vadd(w->acc[i], c);
    }
    return 0;
}

static int trace_tile(worker *w, int tile, rt_err *e) {
    job *j = w->j;
    const rt_settings *s = j->s;
    int x0 = (tile % j->tiles_x) * TILE, y0 = (tile / j->tiles_x) * TILE;
    int tw = s->width - x0 < TILE ? s->width - x0 : TILE;
    int th = s->height - y0 < TILE ? s->height - y0 : TILE;
    tile_order(w, tw, th);
    for (int i = 0; i < tw * th; i++)
        w->acc[i] = v3(0.0f, 0.0f, 0.0f);
    for (int smp = 0; smp < s->spp; smp++)
        if (trace_sample(w, x0, y0, tw, th, (uint32_t)smp, e))
            return -1;
    float inv = 1.0f / (float)s->spp;
    for (int i = 0; i < tw * th; i++) {
        int px = x0 + w->tx[i], py = y0 + w->ty[i];
        uint8_t *o = j->rgb + 3 * ((size_t)py * (size_t)s->width + (size_t)px);
        float cc[3] = {w->acc[i].x * inv, w->acc[i].y * inv, w->acc[i].z * inv};
        for (int k = 0; k < 3; k++) {
            float v = cc[k] < 0.0f ? 0.0f : cc[k] > 1.0f ? 1.0f : cc[k];
            o[k] = (uint8_t)(sqrtf(v) * 255.0f + 0.5f); /* ~gamma 2 */
        }
    }
    return 0;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    job *j = w->j;
    rt_err e = {{0}};
    for (;;) {
        if (atomic_load(&j->failed))
            break;
        int tile = atomic_fetch_add(&j->next_tile, 1);
        if (tile >= j->tiles)
            break;
        if (trace_tile(w, tile, &e)) {
            pthread_mutex_lock(&j->lock);
            if (!atomic_load(&j->failed))
                j->err = e;
            atomic_store(&j->failed, 1);
            pthread_mutex_unlock(&j->lock);
            break;
        }
        progress(j, atomic_fetch_add(&j->done_tiles, 1) + 1);
    }
    return NULL;
}

int rt_render(const rt_geometry *g, const rt_backend *b, const rt_settings *s,
              uint8_t *rgb, rt_stats *st, rt_err *e) {
    job *j = calloc(1, sizeof *j);
    worker *ws = calloc((size_t)s->threads, sizeof *ws);
    if (!j || !ws) {
        free(j);
        free(ws);
        return rt_fail(e, "out of memory");
    }
    int rc = -1, started = 0;
    j->g = g;
    j->b = b;
    j->s = s;
    j->rgb = rgb;
    j->eye = g->eye;
    j->fwd = vnorm(vsub(g->target, g->eye));
    rp_vec3 right = vnorm(vcross(j->fwd, v3(0.0f, 1.0f, 0.0f)));
    rp_vec3 up = vcross(right, j->fwd);
    float tan_half = tanf(0.5f * g->fov_deg * 3.14159265f / 180.0f);
    j->right = vscale(right, tan_half * (float)s->width / (float)s->height);
    j->up = vscale(up, tan_half);
    rp_vec3 ext = vsub(g->bounds.max, g->bounds.min);
    j->eps = 2e-5f * sqrtf(vdot(ext, ext)) + 1e-6f;
    j->tiles_x = (s->width + TILE - 1) / TILE;
    j->tiles = j->tiles_x * ((s->height + TILE - 1) / TILE);
    atomic_init(&j->next_tile, 0);
    atomic_init(&j->done_tiles, 0);
    atomic_init(&j->failed, 0);
    j->tty = 0;
    j->printed = 0;
    if (s->progress)
        j->tty = isatty(2);
    pthread_mutex_init(&j->lock, NULL);

    for (int t = 0; t < s->threads; t++) {
        ws[t].j = j;
        if (worker_alloc(&ws[t], s->ao, e))
            goto out;
    }
    double t0 = rt_now();
    for (; started < s->threads; started++)
        if (pthread_create(&ws[started].tid, NULL, worker_main, &ws[started]) != 0) {
            rt_fail(e, "cannot start thread %d", started + 1);
            atomic_store(&j->failed, 1);
            break;
        }
    for (int t = 0; t < started; t++)
        pthread_join(ws[t].tid, NULL);
    double wall = rt_now() - t0;
    if (started < s->threads)
        goto out;
    if (atomic_load(&j->failed)) {
        *e = j->err;
        goto out;
    }
    memset(st, 0, sizeof *st);
    st->wall_s = wall;
    for (int t = 0; t < s->threads; t++)
        for (int k = 0; k < RT_KINDS; k++) {
            st->rays[k] += ws[t].rays[k];
            st->thread_s[k] += ws[t].secs[k];
        }
    rc = 0;
out:
    for (int t = 0; t < s->threads; t++)
        worker_free(&ws[t]);
    pthread_mutex_destroy(&j->lock);
    free(ws);
    free(j);
    return rc;
}
