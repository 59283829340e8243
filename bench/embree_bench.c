/*
 * embree_bench.c - the Embree 3 baseline of rp_bench: the same rays against
 * a scene of the same triangles, traced by Embree with rtcIntersect4/8/16
 * (closest hit) and rtcOccluded4/8/16 (any hit) in packets of the width of
 * the ISA Embree is told to use, rtcIntersect1 for the single picking ray.
 * One thread ("threads=1"); the BVH is built once, outside the timing.
 * This is end-to-end (a BVH that skips most triangles) and not kernel for
 * kernel: its "tests per second" are rays x triangles divided by the time,
 * i.e. the brute-force tests it made unnecessary.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <embree3/rtcore.h>

#include "bench.h"

typedef struct emb {
    RTCDevice dev;
    RTCScene scene;
    int width; /* 4, 8 or 16 */
} emb;

int rpb_embree_cpu_has(const char *isa) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (!strcmp(isa, "sse4.2"))
        return __builtin_cpu_supports("sse4.2");
    if (!strcmp(isa, "avx2"))
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!strcmp(isa, "avx512"))
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
#endif
    (void)isa;
    return 0;
}

int rpb_embree_init(rpb_work *w, const char *isa, char *isa_out, size_t len) {
    emb *e = calloc(1, sizeof *e);
    if (!e || !w->tris)
        return -1;
    char cfg[64];
    snprintf(cfg, sizeof cfg, "threads=1,isa=%s", isa);
    e->dev = rtcNewDevice(cfg);
    if (!e->dev) {
        fprintf(stderr, "rp_bench: rtcNewDevice(\"%s\") failed (%d)\n", cfg, (int)rtcGetDeviceError(NULL));
        free(e);
        return -1;
    }
    e->width = !strcmp(isa, "avx512") ? 16 : !strcmp(isa, "avx2") ? 8 : 4;
    e->scene = rtcNewScene(e->dev);
    RTCGeometry g = rtcNewGeometry(e->dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *vb = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                        3 * sizeof(float), 3 * w->nprims);
    unsigned *ib = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                           3 * sizeof(unsigned), w->nprims);
    if (!vb || !ib) {
        rtcReleaseGeometry(g);
        rtcReleaseScene(e->scene);
        rtcReleaseDevice(e->dev);
        free(e);
        return -1;
    }
    for (size_t j = 0; j < w->nprims; j++) {
        const rp_triangle *t = &w->tris[j];
        float v[9] = {t->v0.x, t->v0.y, t->v0.z, t->v1.x, t->v1.y, t->v1.z, t->v2.x, t->v2.y, t->v2.z};
        memcpy(vb + 9 * j, v, sizeof v);
        ib[3 * j] = (unsigned)(3 * j);
        ib[3 * j + 1] = (unsigned)(3 * j + 1);
        ib[3 * j + 2] = (unsigned)(3 * j + 2);
    }
    rtcCommitGeometry(g);
    rtcAttachGeometry(e->scene, g);
    rtcReleaseGeometry(g);
    rtcCommitScene(e->scene);
    enum RTCError err = rtcGetDeviceError(e->dev);
    if (err != RTC_ERROR_NONE) {
        fprintf(stderr, "rp_bench: Embree scene build failed (%d)\n", (int)err);
        rtcReleaseScene(e->scene);
        rtcReleaseDevice(e->dev);
        free(e);
        return -1;
    }
    long native = rtcGetDeviceProperty(e->dev, e->width == 16 ? RTC_DEVICE_PROPERTY_NATIVE_RAY16_SUPPORTED
                                               : e->width == 8 ? RTC_DEVICE_PROPERTY_NATIVE_RAY8_SUPPORTED
                                                               : RTC_DEVICE_PROPERTY_NATIVE_RAY4_SUPPORTED);
    snprintf(isa_out, len, "isa=%s, ray%d packets%s", isa, w->nrays == 1 ? 1 : e->width,
             native ? "" : " (not native in this build)");
    w->embree = e;
    return 0;
}

void rpb_embree_free(rpb_work *w) {
    emb *e = w->embree;
    if (!e)
        return;
    rtcReleaseScene(e->scene);
    rtcReleaseDevice(e->dev);
    free(e);
    w->embree = NULL;
}

/* One packet of up to 16 rays as Embree's SOA RTCRayHitN layout; the
 * RTCRayHit4/8/16 structs share it with N = 4, 8, 16, so one fill routine
 * writes through a float pointer per field. */
#define FILL_RAYS(R, N, i0, m)                                            \
    do {                                                                  \
        for (int k = 0; k < (N); k++) {                                   \
            size_t i = (i0) + (size_t)(k < (m) ? k : 0);                  \
            valid[k] = k < (m) ? -1 : 0;                                  \
            (R).org_x[k] = rr->ox[i]; (R).org_y[k] = rr->oy[i];          \
            (R).org_z[k] = rr->oz[i];                                     \
            (R).dir_x[k] = rr->dx[i]; (R).dir_y[k] = rr->dy[i];          \
            (R).dir_z[k] = rr->dz[i];                                     \
            (R).tnear[k] = rr->tmin[i]; (R).tfar[k] = w->tmax0[i];       \
            (R).time[k] = 0.0f; (R).mask[k] = 0xFFFFFFFFu;               \
            (R).id[k] = 0; (R).flags[k] = 0;                              \
        }                                                                 \
    } while (0)

#define STORE_HITS(RH, N, i0, m)                                          \
    do {                                                                  \
        for (int k = 0; k < (m); k++) {                                   \
            int hit = (RH).hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;      \
            w->hits.prim[(i0) + k] = hit ? (RH).hit.primID[k] : RP_NO_HIT; \
            w->hits.t[(i0) + k] = hit ? (RH).ray.tfar[k] : INFINITY;      \
        }                                                                 \
    } while (0)

#define PACKET(N)                                                          \
    do {                                                                   \
        if (occl) {                                                        \
            struct RTCRay##N r;                                                   \
            FILL_RAYS(r, N, i0, m);                                        \
            rtcOccluded##N(valid, e->scene, &ctx, &r);                     \
            for (int k = 0; k < m; k++)                                    \
                w->occluded[i0 + k] = r.tfar[k] == -INFINITY;              \
        } else {                                                           \
            struct RTCRayHit##N rh;                                               \
            FILL_RAYS(rh.ray, N, i0, m);                                   \
            for (int k = 0; k < (N); k++) {                                \
                rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;                \
                rh.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;             \
            }                                                              \
            rtcIntersect##N(valid, e->scene, &ctx, &rh);                   \
            STORE_HITS(rh, N, i0, m);                                      \
        }                                                                  \
    } while (0)

void rpb_embree_run(rpb_work *w) {
    emb *e = w->embree;
    const rp_rays *rr = &w->rays;
    int occl = w->kernel == RPB_OCCL;
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    if (w->nrays == 1 && !occl) {
        struct RTCRayHit rh;
        rh.ray.org_x = rr->ox[0]; rh.ray.org_y = rr->oy[0]; rh.ray.org_z = rr->oz[0];
        rh.ray.dir_x = rr->dx[0]; rh.ray.dir_y = rr->dy[0]; rh.ray.dir_z = rr->dz[0];
        rh.ray.tnear = rr->tmin[0];
        rh.ray.tfar = w->tmax0[0];
        rh.ray.time = 0.0f;
        rh.ray.mask = 0xFFFFFFFFu;
        rh.ray.id = 0;
        rh.ray.flags = 0;
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(e->scene, &ctx, &rh);
        int hit = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
        w->hits.prim[0] = hit ? rh.hit.primID : RP_NO_HIT;
        w->hits.t[0] = hit ? rh.ray.tfar : INFINITY;
        return;
    }
    for (size_t i0 = 0; i0 < w->nrays; i0 += (size_t)e->width) {
        int m = (int)(w->nrays - i0 < (size_t)e->width ? w->nrays - i0 : (size_t)e->width);
        RTC_ALIGN(64) int valid[16];
        if (e->width == 16)
            PACKET(16);
        else if (e->width == 8)
            PACKET(8);
        else
            PACKET(4);
    }
}
