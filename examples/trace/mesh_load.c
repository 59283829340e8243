/*
 * mesh_load.c - --mesh FILE: reads OBJ, PLY, OFF, STL, glTF (and whatever
 * else the installed libassimp reads) through assimp's C API
 * (assimp/cimport.h), when the build found it (RPT_HAVE_ASSIMP).  Node
 * transforms are baked into the vertices (aiProcess_PreTransformVertices),
 * polygons are triangulated, identical vertices joined (STL is a soup), and
 * every mesh's triangles become one rp_trace mesh; points and lines are
 * skipped.  A missing, unreadable or empty file, a file assimp cannot
 * parse, a file without triangles or with a vertex that is not finite is a
 * one-line error.  Without assimp, --mesh says how to get it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifdef RPT_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif

#include "trace.h"

int rt_have_assimp(void) {
#ifdef RPT_HAVE_ASSIMP
    return 1;
#else
    return 0;
#endif
}

/* A few muted colours, one per mesh. */
static rp_vec3 palette(size_t i) {
    static const rp_vec3 c[6] = {
        {0.78f, 0.76f, 0.72f}, {0.80f, 0.45f, 0.30f}, {0.35f, 0.55f, 0.80f},
        {0.45f, 0.70f, 0.40f}, {0.80f, 0.70f, 0.35f}, {0.65f, 0.45f, 0.75f},
    };
    return c[i % 6];
}

/* Some of assimp's text parsers read "nan" or "inf" as 0 (OFF does), so a
 * text file's non-finite numbers are looked for here first: on lines that
 * start with a number (OFF, ASCII PLY bodies) or with a vertex keyword (OBJ
 * v/vn/vt, ASCII STL vertex/facet), a token nan, inf or infinity (any case,
 * signed) is an error.  A file with a NUL byte is binary and skipped:
 * binary floats that are not finite are caught after the import. */
static int nonfinite_token(const char *tok) {
    const char *t = tok + (*tok == '-' || *tok == '+');
    return !strncasecmp(t, "nan", 3) || !strcasecmp(t, "inf") || !strcasecmp(t, "infinity");
}

static int scan_text_nonfinite(const char *path, rt_err *e) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_fail(e, "--mesh '%s': %s", path, strerror(errno));
    char line[4096];
    size_t got;
    while ((got = fread(line, 1, sizeof line, f)) > 0)
        if (memchr(line, '\0', got)) {
            fclose(f);
            return 0; /* binary */
        }
    rewind(f);
    long lineno = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
        if (!tok)
            continue;
        int numeric = (*tok >= '0' && *tok <= '9') || *tok == '-' || *tok == '+' || *tok == '.' ||
                      nonfinite_token(tok);
        if (!numeric && strcmp(tok, "v") && strcmp(tok, "vn") && strcmp(tok, "vt") &&
            strcmp(tok, "vertex") && strcmp(tok, "facet"))
            continue;
        for (; tok && rc == 0; tok = strtok_r(NULL, " \t\r\n", &save))
            if (nonfinite_token(tok))
                rc = rt_fail(e, "--mesh '%s': line %ld: '%s' is not a finite coordinate", path,
                             lineno, tok);
    }
    fclose(f);
    return rc;
}

int rt_load_mesh(rt_geometry *g, const char *path, rt_err *e) {
    /* the file's own problems first, in plain words (assimp's messages for
     * these are less direct) */
    FILE *f = fopen(path, "rb");
    if (!f)
        return rt_fail(e, "--mesh '%s': %s", path, strerror(errno));
    struct stat st;
    int is_dir = fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
    int c = is_dir ? EOF : fgetc(f);
    int read_err = ferror(f);
    fclose(f);
    if (is_dir)
        return rt_fail(e, "--mesh '%s': is a directory", path);
    if (read_err)
        return rt_fail(e, "--mesh '%s': cannot read it", path);
    if (c == EOF)
        return rt_fail(e, "--mesh '%s': the file is empty", path);
#ifndef RPT_HAVE_ASSIMP
    (void)g;
    return rt_fail(e, "--mesh '%s': rp_trace was built without libassimp "
                      "(install libassimp-dev and rebuild); only the built-in scene is available",
                   path);
#else
    if (scan_text_nonfinite(path, e))
        return -1;
    const struct aiScene *sc = aiImportFile(
        path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                  aiProcess_PreTransformVertices | aiProcess_SortByPType);
    if (!sc) {
        const char *why = aiGetErrorString();
        /* assimp's messages can span lines: keep the first */
        char first[300];
        snprintf(first, sizeof first, "%s", why && *why ? why : "unknown error");
        first[strcspn(first, "\r\n")] = '\0';
        return rt_fail(e, "--mesh '%s': assimp cannot read it: %s", path, first);
    }
    int rc = 0;
    size_t added = 0;
    for (unsigned m = 0; m < sc->mNumMeshes && rc == 0; m++) {
        const struct aiMesh *me = sc->mMeshes[m];
        size_t nt = 0;
        for (unsigned k = 0; k < me->mNumFaces; k++)
            nt += me->mFaces[k].mNumIndices == 3;
        if (nt == 0 || me->mNumVertices == 0)
            continue;
        for (unsigned v = 0; v < me->mNumVertices; v++) {
            const struct aiVector3D *p = &me->mVertices[v];
            if (!isfinite(p->x) || !isfinite(p->y) || !isfinite(p->z)) {
                rc = rt_fail(e, "--mesh '%s': vertex %u of mesh %u is not finite (%g %g %g)", path,
                             v, m, (double)p->x, (double)p->y, (double)p->z);
                break;
            }
        }
        if (rc)
            break;
        float *xyz = malloc(3 * (size_t)me->mNumVertices * sizeof *xyz);
        uint32_t *idx = malloc(3 * nt * sizeof *idx);
        if (!xyz || !idx) {
            free(xyz);
            free(idx);
            rc = rt_fail(e, "--mesh '%s': out of memory", path);
            break;
        }
        for (unsigned v = 0; v < me->mNumVertices; v++) {
            xyz[3 * v] = me->mVertices[v].x;
            xyz[3 * v + 1] = me->mVertices[v].y;
            xyz[3 * v + 2] = me->mVertices[v].z;
        }
        size_t t = 0;
        for (unsigned k = 0; k < me->mNumFaces; k++) {
            const struct aiFace *fc = &me->mFaces[k];
            if (fc->mNumIndices != 3)
                continue;
            for (int j = 0; j < 3; j++)
                idx[3 * t + (size_t)j] = fc->mIndices[j];
            t++;
        }
        char what[64];
        snprintf(what, sizeof what, "--mesh mesh %u", m);
        rc = rt_geometry_add(g, xyz, me->mNumVertices, idx, nt, palette(added), 0, what, e);
        added++;
    }
    aiReleaseImport(sc);
    if (rc)
        return -1;
    if (g->triangles == 0)
        return rt_fail(e, "--mesh '%s': no triangles in the file", path);
    rt_geometry_frame(g);
    snprintf(g->description, sizeof g->description, "%s", path);
    return 0;
#endif
}
