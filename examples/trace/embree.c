/*
 * embree.c - the Embree 3 backend of --compare-embree (built only when
 * Meson finds Embree >= 3, < 4 on x86; otherwise embree_none.c answers
 * "not in this build").  The same meshes become one Embree triangle
 * geometry each (geomID = rp_trace's mesh id), with Embree's defaults
 * (RTC_BUILD_QUALITY_MEDIUM, no robust flag), built by an Embree device
 * with as many threads as the render.  Primary and shadow rays go in
 * packets of Embree's native width (rtcIntersect4/8/16, rtcOccluded4/8/16,
 * with the coherent context flag); AO rays in packets too (incoherent
 * flag), or one at a time (rtcOccluded1) under --ao-hint ray.  The
 * time measured includes copying rp_trace's structure-of-arrays batches
 * into Embree's packets, as raypack's includes rp_rays_prepare; normals
 * are computed from the triangle as rp_scene_normals does (unit
 * cross(e1, e2)).  Scene memory: Embree's memory monitor callback.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <embree3/rtcore.h>

#include "trace.h"

int rt_have_embree(void) { return 1; }

typedef struct emb {
    RTCDevice dev;
    RTCScene scene;
    const rt_geometry *g;
    int width; /* packet width: 4, 8 or 16 */
    atomic_llong bytes;
} emb;

static bool on_memory(void *user, ssize_t bytes, bool post) {
    (void)post;
    emb *e = user;
    atomic_fetch_add(&e->bytes, (long long)bytes);
    return true;
}

static void normal_of(const rt_geometry *g, uint32_t mesh, uint32_t prim, float *n) {
    const rt_mesh *m = &g->meshes[mesh];
    const float *a = m->xyz + 3 * (size_t)m->idx[3 * (size_t)prim];
    const float *b = m->xyz + 3 * (size_t)m->idx[3 * (size_t)prim + 1];
    const float *c = m->xyz + 3 * (size_t)m->idx[3 * (size_t)prim + 2];
    rp_vec3 e1 = v3(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    rp_vec3 e2 = v3(c[0] - a[0], c[1] - a[1], c[2] - a[2]);
    rp_vec3 nn = vnorm(vcross(e1, e2));
    n[0] = nn.x;
    n[1] = nn.y;
    n[2] = nn.z;
}

/* Packet versions for N = 4, 8, 16: rays [k, k + m) of the batch. */
#define PACKETS(N)                                                                           \
    static void closest##N(emb *E, const rp_rays *r, rp_hits *h, uint32_t *mesh) {           \
        struct RTCIntersectContext ctx;                                                             \
        rtcInitIntersectContext(&ctx);                                                       \
        ctx.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;                                     \
        for (size_t k = 0; k < r->n; k += N) {                                               \
            size_t m = r->n - k < N ? r->n - k : N;                                          \
            RTC_ALIGN(64) int valid[N];                                                      \
            RTC_ALIGN(64) struct RTCRayHit##N rh;                                                   \
            for (size_t i = 0; i < N; i++) {                                                 \
                size_t s = k + (i < m ? i : 0);                                              \
                valid[i] = i < m ? -1 : 0;                                                   \
                rh.ray.org_x[i] = r->ox[s]; rh.ray.org_y[i] = r->oy[s];                      \
                rh.ray.org_z[i] = r->oz[s];                                                  \
                rh.ray.dir_x[i] = r->dx[s]; rh.ray.dir_y[i] = r->dy[s];                      \
                rh.ray.dir_z[i] = r->dz[s];                                                  \
                rh.ray.tnear[i] = r->tmin[s]; rh.ray.tfar[i] = r->tmax[s];                   \
                rh.ray.time[i] = 0.0f; rh.ray.mask[i] = 0xFFFFFFFFu;                         \
                rh.ray.id[i] = (unsigned)i; rh.ray.flags[i] = 0;                             \
                rh.hit.geomID[i] = RTC_INVALID_GEOMETRY_ID;                                  \
                rh.hit.instID[0][i] = RTC_INVALID_GEOMETRY_ID;                               \
            }                                                                                \
            rtcIntersect##N(valid, E->scene, &ctx, &rh);                                     \
            for (size_t i = 0; i < m; i++) {                                                 \
                size_t s = k + i;                                                            \
                if (rh.hit.geomID[i] == RTC_INVALID_GEOMETRY_ID) {                           \
                    h->prim[s] = RP_NO_HIT;                                                  \
                    h->t[s] = INFINITY;                                                      \
                    continue;                                                                \
                }                                                                            \
                h->prim[s] = rh.hit.primID[i];                                               \
                mesh[s] = rh.hit.geomID[i];                                                  \
                h->t[s] = rh.ray.tfar[i];                                                    \
                float n[3];                                                                  \
                normal_of(E->g, mesh[s], h->prim[s], n);                                     \
                h->nx[s] = n[0]; h->ny[s] = n[1]; h->nz[s] = n[2];                           \
            }                                                                                \
        }                                                                                    \
    }                                                                                        \
    static void occluded##N(emb *E, const rp_rays *r, int coherent, uint8_t *occ) {          \
        struct RTCIntersectContext ctx;                                                             \
        rtcInitIntersectContext(&ctx);                                                       \
        ctx.flags = coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT                           \
                             : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;                        \
        for (size_t k = 0; k < r->n; k += N) {                                               \
            size_t m = r->n - k < N ? r->n - k : N;                                          \
            RTC_ALIGN(64) int valid[N];                                                      \
            RTC_ALIGN(64) struct RTCRay##N ry;                                                      \
            for (size_t i = 0; i < N; i++) {                                                 \
                size_t s = k + (i < m ? i : 0);                                              \
                valid[i] = i < m ? -1 : 0;                                                   \
                ry.org_x[i] = r->ox[s]; ry.org_y[i] = r->oy[s]; ry.org_z[i] = r->oz[s];      \
                ry.dir_x[i] = r->dx[s]; ry.dir_y[i] = r->dy[s]; ry.dir_z[i] = r->dz[s];      \
                ry.tnear[i] = r->tmin[s]; ry.tfar[i] = r->tmax[s];                           \
                ry.time[i] = 0.0f; ry.mask[i] = 0xFFFFFFFFu;                                 \
                ry.id[i] = (unsigned)i; ry.flags[i] = 0;                                     \
            }                                                                                \
            rtcOccluded##N(valid, E->scene, &ctx, &ry);                                      \
            for (size_t i = 0; i < m; i++)                                                   \
                occ[k + i] = ry.tfar[i] == -INFINITY;                                        \
        }                                                                                    \
    }
PACKETS(4)
PACKETS(8)
PACKETS(16)

static int e_closest(void *ctx, rp_rays *rays, rp_hits *hits, uint32_t *mesh, rt_err *err) {
    emb *E = ctx;
    if (E->width == 16)
        closest16(E, rays, hits, mesh);
    else if (E->width == 8)
        closest8(E, rays, hits, mesh);
    else
        closest4(E, rays, hits, mesh);
    (void)err;
    return 0;
}

static int e_occluded(void *ctx, rp_rays *r, unsigned hint, uint8_t *occ, rt_err *err) {
    emb *E = ctx;
    (void)err;
    if (hint == RP_INCOHERENT) {
        struct RTCIntersectContext c;
        rtcInitIntersectContext(&c);
        c.flags = RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
        for (size_t i = 0; i < r->n; i++) {
            struct RTCRay ry;
            ry.org_x = r->ox[i]; ry.org_y = r->oy[i]; ry.org_z = r->oz[i];
            ry.dir_x = r->dx[i]; ry.dir_y = r->dy[i]; ry.dir_z = r->dz[i];
            ry.tnear = r->tmin[i]; ry.tfar = r->tmax[i];
            ry.time = 0.0f; ry.mask = 0xFFFFFFFFu; ry.id = 0; ry.flags = 0;
            rtcOccluded1(E->scene, &c, &ry);
            occ[i] = ry.tfar == -INFINITY;
        }
        return 0;
    }
    int coherent = hint == RP_COHERENT;
    if (E->width == 16)
        occluded16(E, r, coherent, occ);
    else if (E->width == 8)
        occluded8(E, r, coherent, occ);
    else
        occluded4(E, r, coherent, occ);
    return 0;
}

int rt_backend_embree(rt_backend *b, const rt_geometry *g, int threads, rt_err *e) {
    memset(b, 0, sizeof *b);
    emb *E = calloc(1, sizeof *E);
    if (!E)
        return rt_fail(e, "out of memory");
    atomic_init(&E->bytes, 0);
    E->g = g;
    char cfg[64];
    snprintf(cfg, sizeof cfg, "threads=%d", threads);
    E->dev = rtcNewDevice(cfg);
    if (!E->dev) {
        free(E);
        return rt_fail(e, "Embree: rtcNewDevice(\"%s\") failed (error %d)", cfg,
                       (int)rtcGetDeviceError(NULL));
    }
    rtcSetDeviceMemoryMonitorFunction(E->dev, on_memory, E);
    E->width = rtcGetDeviceProperty(E->dev, RTC_DEVICE_PROPERTY_NATIVE_RAY16_SUPPORTED) ? 16
               : rtcGetDeviceProperty(E->dev, RTC_DEVICE_PROPERTY_NATIVE_RAY8_SUPPORTED) ? 8
                                                                                          : 4;
    double t0 = rt_now();
    E->scene = rtcNewScene(E->dev);
    for (size_t m = 0; m < g->count; m++) {
        const rt_mesh *me = &g->meshes[m];
        RTCGeometry geo = rtcNewGeometry(E->dev, RTC_GEOMETRY_TYPE_TRIANGLE);
        float *vb = rtcSetNewGeometryBuffer(geo, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                            3 * sizeof(float), me->nv);
        unsigned *ib = rtcSetNewGeometryBuffer(geo, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                               3 * sizeof(unsigned), me->nt);
        if (!vb || !ib) {
            rtcReleaseGeometry(geo);
            break;
        }
        memcpy(vb, me->xyz, 3 * me->nv * sizeof(float));
        memcpy(ib, me->idx, 3 * me->nt * sizeof(unsigned));
        rtcCommitGeometry(geo);
        rtcAttachGeometryByID(E->scene, geo, (unsigned)m);
        rtcReleaseGeometry(geo);
    }
    rtcCommitScene(E->scene);
    b->build_s = rt_now() - t0;
    enum RTCError err = rtcGetDeviceError(E->dev);
    if (err != RTC_ERROR_NONE) {
        rtcReleaseScene(E->scene);
        rtcReleaseDevice(E->dev);
        free(E);
        return rt_fail(e, "Embree: building the scene failed (error %d)", (int)err);
    }
    b->bytes = (size_t)atomic_load(&E->bytes);
    b->name = "Embree 3";
    b->ctx = E;
    b->closest = e_closest;
    b->occluded = e_occluded;
    return 0;
}

void rt_backend_embree_free(rt_backend *b) {
    emb *E = b->ctx;
    if (E) {
        rtcReleaseScene(E->scene);
        rtcReleaseDevice(E->dev);
        free(E);
    }
    memset(b, 0, sizeof *b);
}
