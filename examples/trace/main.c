/*
 * main.c - rp_trace's command line and report.  It parses and checks the
 * options (any bad one: a one-line message on stderr, exit 2), opens the
 * output's temporary file (image.c), makes the geometry (the built-in
 * scene of procedural.c, or --mesh through mesh_load.c), builds raypack's
 * scene, renders (render.c), optionally renders the same frame again with
 * Embree 3 (embree.c) and compares, then renames the image into place and
 * prints on stdout: the build time, the scene's memory, and Mrays/s per
 * ray kind with the variant and thread count.  Any failure after parsing
 * exits 1 and leaves no output file.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

#define MAX_DIM 16384
#define MAX_PIXELS (8192L * 8192L)

static void usage(FILE *f) {
    fprintf(f,
            "usage: rp_trace [options]\n"
            "Renders the built-in scene (about 1.06 M triangles) or a mesh through raypack's\n"
            "scene API (BVH) and writes a PNG or PPM.\n"
            "  --mesh FILE       render FILE (OBJ, PLY, OFF, STL, glTF, ... via libassimp%s)\n"
            "  --detail N        built-in scene detail, 1..16 (default 8: ~16500*N^2 triangles)\n"
            "  --size WxH        image size (default 1280x720)\n"
            "  --spp N           samples per pixel, 1..4096 (default 2)\n"
            "  --ao N            ambient-occlusion rays per hit, 0..256 (default 4)\n"
            "  --ao-hint H       AO queries: packet (no hint: packets, the default) or ray (RP_INCOHERENT)\n"
            "  --test T          triangle test: watertight (RP_WATERTIGHT, the default) or mt\n"
            "                    (Moller-Trumbore: the like for like of Embree's default test)\n"
            "  --threads N       render threads, 1..1024 (default: every core, %ld here)\n"
            "  --isa NAME        force a variant: scalar, sse41, avx2, avx512, neon, auto\n"
            "  --list-isa        print the variants that can run here and exit\n"
            "  --compare-embree  trace the same frame with Embree 3 too and compare%s\n"
            "  -q, --quiet       no progress on stderr\n"
            "  -o FILE           output image, .png%s or .ppm (default trace.%s)\n",
            rt_have_assimp() ? "" : "; not in this build", sysconf(_SC_NPROCESSORS_ONLN),
            rt_have_embree() ? "" : " (not in this build)",
            rt_have_png() ? "" : " (not in this build)", rt_have_png() ? "png" : "ppm");
}

static void die_usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;
static void die_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rp_trace: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* Takes an option's value: "--name=VALUE" or "--name VALUE".  Returns NULL
 * when argv[*i] is not this option; a missing value is an error. */
static const char *opt_value(const char *name, int argc, char **argv, int *i) {
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (argv[*i][len] != '\0')
        return NULL;
    if (*i + 1 >= argc)
        die_usage("%s needs a value", name);
    return argv[++*i];
}

static int parse_int(const char *s, long lo, long hi, const char *opt) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *s == ' ' || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "rp_trace: %s: '%s' is not a whole number from %ld to %ld\n", opt, s, lo, hi);
        exit(2);
    }
    return (int)v;
}

static void parse_size(const char *s, int *w, int *h) {
    char *end, *end2;
    errno = 0;
    long a = strtol(s, &end, 10);
    long b = (*end == 'x' || *end == 'X') ? strtol(end + 1, &end2, 10) : -1;
    int ok = *s >= '0' && *s <= '9' && (*end == 'x' || *end == 'X') && end[1] >= '0' &&
             end[1] <= '9' && *end2 == '\0' && errno != ERANGE;
    if (!ok) {
        fprintf(stderr, "rp_trace: --size: '%s' is not WIDTHxHEIGHT (e.g. 1280x720)\n", s);
        exit(2);
    }
    if (a < 1 || b < 1 || a > MAX_DIM || b > MAX_DIM || a * b > MAX_PIXELS) {
        fprintf(stderr, "rp_trace: --size: %s is out of range (each side 1..%d, at most %ld pixels)\n",
                s, MAX_DIM, MAX_PIXELS);
        exit(2);
    }
    *w = (int)a;
    *h = (int)b;
}

static void print_isas(void) {
    unsigned run = rp_isa_runnable();
    const char *sep = "";
    for (int i = 0; i < RP_ISA_COUNT; i++)
        if (run & (1u << i)) {
            printf("%s%s", sep, rp_isa_name((rp_isa)i));
            sep = " ";
        }
    printf("\n");
}

static void report_kinds(const rt_stats *st, int threads) {
    static const char *names[RT_KINDS] = {"primary", "shadow", "ao"};
    for (int k = 0; k < RT_KINDS; k++) {
        double secs = st->thread_s[k] / threads; /* per-thread seconds = wall time spent */
        printf("rp_trace:   %-8s %11llu rays %8.2f Mrays/s\n", names[k],
               (unsigned long long)st->rays[k], secs > 0 ? 1e-6 * (double)st->rays[k] / secs : 0.0);
    }
}

static double mrays(const rt_stats *st, int k, int threads) {
    double secs = st->thread_s[k] / threads;
    return secs > 0 ? 1e-6 * (double)st->rays[k] / secs : 0.0;
}

int main(int argc, char **argv) {
    rt_settings set = {1280, 720, 2, 4, 0, 0, 1};
    const char *out = NULL, *mesh = NULL, *isa_name = NULL;
    int detail = 8, compare = 0;
    unsigned test = RP_WATERTIGHT; /* --test */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    set.threads = ncpu < 1 ? 1 : ncpu > 1024 ? 1024 : (int)ncpu;

    for (int i = 1; i < argc; i++) {
        const char *v;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--list-isa")) {
            print_isas();
            return 0;
        } else if (!strcmp(argv[i], "--compare-embree")) {
            compare = 1;
        } else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
            set.progress = 0;
        } else if (!strcmp(argv[i], "-o")) {
            if (i + 1 >= argc)
                die_usage("-o needs a value");
            out = argv[++i];
        } else if ((v = opt_value("--size", argc, argv, &i))) {
            parse_size(v, &set.width, &set.height);
        } else if ((v = opt_value("--spp", argc, argv, &i))) {
            set.spp = parse_int(v, 1, 4096, "--spp");
        } else if ((v = opt_value("--ao-hint", argc, argv, &i))) {
            if (!strcmp(v, "ray"))
                set.ao_hint = RP_INCOHERENT;
            else if (!strcmp(v, "packet"))
                set.ao_hint = 0; /* the default traversal: packets */
            else
                die_usage("--ao-hint: '%s' is neither ray nor packet", v);
        } else if ((v = opt_value("--test", argc, argv, &i))) {
            if (!strcmp(v, "watertight"))
                test = RP_WATERTIGHT;
            else if (!strcmp(v, "mt"))
                test = 0; /* Moller-Trumbore */
            else
                die_usage("--test: '%s' is neither watertight nor mt", v);
        } else if ((v = opt_value("--ao", argc, argv, &i))) {
            set.ao = parse_int(v, 0, 256, "--ao");
        } else if ((v = opt_value("--threads", argc, argv, &i))) {
            set.threads = parse_int(v, 1, 1024, "--threads");
        } else if ((v = opt_value("--detail", argc, argv, &i))) {
            detail = parse_int(v, 1, 16, "--detail");
        } else if ((v = opt_value("--isa", argc, argv, &i))) {
            isa_name = v;
        } else if ((v = opt_value("--mesh", argc, argv, &i))) {
            mesh = v;
        } else {
            die_usage("unknown option '%s' (rp_trace --help lists them)", argv[i]);
        }
    }
    if (!out)
        out = rt_have_png() ? "trace.png" : "trace.ppm";
    if (!*out)
        die_usage("-o: the file name is empty");
    if (compare && !rt_have_embree())
        die_usage("--compare-embree: rp_trace was built without Embree 3 "
                  "(install libembree-dev and cmake, and rebuild)");

    if (isa_name) {
        rp_isa isa;
        rp_status s = rp_isa_from_name(isa_name, &isa);
        if (s == RP_OK)
            s = rp_set_isa(isa);
        if (s != RP_OK) {
            fprintf(stderr, "rp_trace: --isa %s: %s (runnable here: ", isa_name, rp_status_string(s));
            unsigned run = rp_isa_runnable();
            const char *sep = "";
            for (int i = 0; i < RP_ISA_COUNT; i++)
                if (run & (1u << i)) {
                    fprintf(stderr, "%s%s", sep, rp_isa_name((rp_isa)i));
                    sep = " ";
                }
            fprintf(stderr, ")\n");
            return 2;
        }
    }

    rt_err e = {{0}};
    rt_output o;
    rt_geometry g;
    rt_backend rpk, emb;
    memset(&g, 0, sizeof g);
    memset(&rpk, 0, sizeof rpk);
    memset(&emb, 0, sizeof emb);
    uint8_t *rgb = NULL, *rgb2 = NULL;
    rt_stats st, st2;
    if (rt_output_open(&o, out, &e)) {
        fprintf(stderr, "rp_trace: %s\n", e.msg);
        return 1;
    }
    double t_make = rt_now();
    if (mesh ? rt_load_mesh(&g, mesh, &e) : rt_procedural(&g, detail, &e))
        goto fail;
    t_make = rt_now() - t_make;
    if (rt_backend_raypack(&rpk, &g, set.threads, test, &e))
        goto fail;
    printf("rp_trace: %s: %zu triangles in %zu meshes, %s in %.3f s\n", g.description, g.triangles,
           g.count, mesh ? "read" : "made", t_make);
    printf("rp_trace: BVH built in %.3f s; scene memory %.1f MB (%.1f bytes/triangle)\n", rpk.build_s,
           1e-6 * (double)rpk.bytes, (double)rpk.bytes / (double)g.triangles);
    printf("rp_trace: %dx%d, %d spp, %d AO rays per hit (%s), %s test, variant %s, %d thread%s\n",
           set.width, set.height, set.spp, set.ao,
           set.ao_hint == RP_INCOHERENT ? "one ray at a time" : "in packets",
           test ? "watertight" : "Moller-Trumbore", rp_isa_name(rp_active_isa()), set.threads,
           set.threads == 1 ? "" : "s");
    fflush(stdout);

    size_t bytes = 3 * (size_t)set.width * (size_t)set.height;
    rgb = malloc(bytes);
    if (!rgb) {
        rt_fail(&e, "out of memory for a %dx%d image", set.width, set.height);
        goto fail;
    }
    if (rt_render(&g, &rpk, &set, rgb, &st, &e))
        goto fail;
    uint64_t total = st.rays[RT_PRIMARY] + st.rays[RT_SHADOW] + st.rays[RT_AO];
    printf("rp_trace: rendered in %.3f s: %.2f Mrays/s over all rays\n", st.wall_s,
           1e-6 * (double)total / st.wall_s);
    report_kinds(&st, set.threads);
    fflush(stdout);

    if (compare) {
        rgb2 = malloc(bytes);
        if (!rgb2) {
            rt_fail(&e, "out of memory");
            goto fail;
        }
        if (rt_backend_embree(&emb, &g, set.threads, &e))
            goto fail;
        printf("rp_trace: Embree 3: BVH built in %.3f s (%d thread%s); scene memory %.1f MB "
               "(%.1f bytes/triangle)\n",
               emb.build_s, set.threads, set.threads == 1 ? "" : "s", 1e-6 * (double)emb.bytes,
               (double)emb.bytes / (double)g.triangles);
        fflush(stdout);
        if (rt_render(&g, &emb, &set, rgb2, &st2, &e))
            goto fail;
        uint64_t total2 = st2.rays[RT_PRIMARY] + st2.rays[RT_SHADOW] + st2.rays[RT_AO];
        printf("rp_trace: Embree 3 rendered in %.3f s: %.2f Mrays/s over all rays\n", st2.wall_s,
               1e-6 * (double)total2 / st2.wall_s);
        static const char *names[RT_KINDS] = {"primary", "shadow", "ao"};
        for (int k = 0; k < RT_KINDS; k++) {
            double a = mrays(&st, k, set.threads), b = mrays(&st2, k, set.threads);
            printf("rp_trace:   %-8s raypack %8.2f, Embree %8.2f Mrays/s: raypack/Embree %.2f\n",
                   names[k], a, b, b > 0 ? a / b : 0.0);
        }
        size_t npix = (size_t)set.width * (size_t)set.height, diff = 0;
        for (size_t p = 0; p < npix; p++)
            diff += memcmp(rgb + 3 * p, rgb2 + 3 * p, 3) != 0;
        printf("rp_trace: pixels that differ from Embree's image: %zu of %zu (%.3f%%)\n", diff, npix,
               100.0 * (double)diff / (double)npix);
        rt_backend_embree_free(&emb);
    }

    if (rt_output_commit(&o, rgb, set.width, set.height, &e))
        goto fail;
    printf("rp_trace: wrote %s\n", out);
    free(rgb);
    free(rgb2);
    rt_backend_raypack_free(&rpk);
    rt_geometry_free(&g);
    return 0;

fail:
    fflush(stdout);
    fprintf(stderr, "rp_trace: %s\n", e.msg);
    rt_output_abort(&o);
    free(rgb);
    free(rgb2);
    if (emb.ctx)
        rt_backend_embree_free(&emb);
    if (rpk.ctx)
        rt_backend_raypack_free(&rpk);
    rt_geometry_free(&g);
    return 1;
}
