/*
 * trace.h - what the parts of rp_trace share: small vector helpers, the
 * geometry the program keeps (meshes of float xyz vertices and uint32
 * index triples, one albedo each), the camera, the render settings and
 * statistics, the tracing backend interface (raypack's scene, or Embree 3
 * for --compare-embree) and the functions each file provides.  Every
 * function that can fail writes a one-line message into an rt_err and
 * returns -1; main() prints it and exits non-zero.
 */
#ifndef RP_TRACE_H
#define RP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "raypack.h"

/* ---- errors ---------------------------------------------------------- */
typedef struct rt_err {
    char msg[512];
} rt_err;
/* Formats msg (printf-style) into e; returns -1 so callers can `return rt_fail(...)`. */
int rt_fail(rt_err *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "what: rp_status_string(s)" into e when s != RP_OK; returns 0 or -1. */
int rt_check(rt_err *e, const char *what, rp_status s);

/* ---- vectors (setup and shading only) -------------------------------- */
static inline rp_vec3 v3(float x, float y, float z) { rp_vec3 v = {x, y, z}; return v; }
static inline rp_vec3 vadd(rp_vec3 a, rp_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline rp_vec3 vsub(rp_vec3 a, rp_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline rp_vec3 vmul(rp_vec3 a, rp_vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static inline rp_vec3 vscale(rp_vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline float vdot(rp_vec3 a, rp_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline rp_vec3 vcross(rp_vec3 a, rp_vec3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
rp_vec3 vnorm(rp_vec3 a);

/* ---- geometry -------------------------------------------------------- */
typedef struct rt_mesh {
    float *xyz;        /* 3 * nv floats */
    size_t nv;
    uint32_t *idx;     /* 3 * nt indices */
    size_t nt;
    rp_vec3 albedo;
    int terrain;       /* albedo from height and slope instead */
} rt_mesh;

typedef struct rt_geometry {
    rt_mesh *meshes;
    size_t count, cap;
    size_t triangles;
    rp_aabb bounds;
    float ao_radius;    /* AO rays' length */
    /* the camera and light the scene asks for */
    rp_vec3 eye, target, light; /* light: unit vector towards a distant light */
    float fov_deg;
    char description[160];
} rt_geometry;

/* Appends a mesh taking ownership of xyz and idx (freed by rt_geometry_free,
 * also on failure).  Checks every coordinate is finite and every index in range. */
int rt_geometry_add(rt_geometry *g, float *xyz, size_t nv, uint32_t *idx, size_t nt,
                    rp_vec3 albedo, int terrain, const char *what, rt_err *e);
void rt_geometry_free(rt_geometry *g);
/* Sets bounds, camera (framed on the bounds), light and AO radius. */
void rt_geometry_frame(rt_geometry *g);

/* procedural.c: the built-in scene; detail 1..16 (8: about 1.1 M triangles). */
int rt_procedural(rt_geometry *g, int detail, rt_err *e);
/* mesh_load.c: a file through libassimp (OBJ, PLY, OFF, STL, glTF, ...). */
int rt_load_mesh(rt_geometry *g, const char *path, rt_err *e);
int rt_have_assimp(void);

/* ---- tracing backends ------------------------------------------------ */
/* A backend answers batches of prepared rays.  closest() writes, per ray,
 * hits->prim (RP_NO_HIT for a miss), hits->t, mesh[i] and the unit
 * geometric normal in hits->nx/ny/nz; occluded() writes occ[i] = 0 or 1 for
 * every ray (hint: RP_COHERENT, RP_INCOHERENT or 0).  Both may be called
 * from many threads at once.  Return 0, or -1 with a message in e. */
typedef struct rt_backend {
    const char *name;
    void *ctx;
    int (*closest)(void *ctx, rp_rays *rays, rp_hits *hits, uint32_t *mesh, rt_err *e);
    int (*occluded)(void *ctx, rp_rays *rays, unsigned hint, uint8_t *occ, rt_err *e);
    double build_s;
    size_t bytes;
} rt_backend;

/* render.c: raypack's scene as a backend (builds the BVH with up to
 * `threads` build threads, at most RP_BUILD_THREADS_MAX; rp_scene_bytes),
 * whose queries use the triangle test `test`: RP_WATERTIGHT, or 0
 * (Moller-Trumbore, the like for like of Embree's default, non-robust
 * test). */
int rt_backend_raypack(rt_backend *b, const rt_geometry *g, int threads, unsigned test,
                       rt_err *e);
void rt_backend_raypack_free(rt_backend *b);
/* embree.c (only with Embree 3): the same triangles in an Embree scene. */
int rt_have_embree(void);
int rt_backend_embree(rt_backend *b, const rt_geometry *g, int threads, rt_err *e);
void rt_backend_embree_free(rt_backend *b);

/* ---- rendering ------------------------------------------------------- */
enum { RT_PRIMARY = 0, RT_SHADOW = 1, RT_AO = 2, RT_KINDS = 3 };

typedef struct rt_settings {
    int width, height, spp, ao, threads;
    unsigned ao_hint;  /* hint of the AO queries */
    int progress;      /* print progress on stderr */
} rt_settings;

typedef struct rt_stats {
    uint64_t rays[RT_KINDS];
    double thread_s[RT_KINDS]; /* seconds inside the backend, summed over threads */
    double wall_s;             /* the whole render */
} rt_stats;

/* Renders the frame into rgb (3 * width * height bytes, row-major, top row
 * first).  The pixels depend only on the geometry and the settings'
 * width/height/spp/ao: never on threads, tile order or the variant. */
int rt_render(const rt_geometry *g, const rt_backend *b, const rt_settings *s,
              uint8_t *rgb, rt_stats *st, rt_err *e);

/* ---- output (image.c) ------------------------------------------------ */
typedef enum rt_format { RT_PPM, RT_PNG } rt_format;
typedef struct rt_output {
    char *path, *tmp_path; /* final path and the temporary file beside it */
    int fd;
    rt_format format;
} rt_output;
int rt_have_png(void);
/* Picks the format from the extension (.png, .ppm/.pnm) and creates the
 * temporary file in the same directory now, so an unwritable path fails
 * before the render.  Also arranges for SIGINT/SIGTERM to remove it. */
int rt_output_open(rt_output *o, const char *path, rt_err *e);
/* Writes the image to the temporary file and renames it over path. */
int rt_output_commit(rt_output *o, const uint8_t *rgb, int w, int h, rt_err *e);
/* Removes the temporary file (if any) and frees o; safe after commit. */
void rt_output_abort(rt_output *o);

double rt_now(void);

#endif
