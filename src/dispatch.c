/*
 * dispatch.c - picks the kernel table.  On first use (once, thread-safe
 * through pthread_once) it asks the CPU detector which variants run
 * natively, takes the widest, then applies RP_ISA if set.  rp_set_isa()
 * swaps the table atomically later.  Built at the baseline ISA: nothing
 * here may execute an instruction the CPU has not been asked about.
 */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "dispatch must be built at the baseline ISA: a wide ISA flag reached it"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Compiled-in tables, indexed by rp_isa (NULL where not built). */
static const rp_kernels *const tables[RP_ISA_COUNT] = {
    &rp_kernels_scalar,
#ifdef RP_HAVE_SSE41
    &rp_kernels_sse41,
#else
    NULL,
#endif
#ifdef RP_HAVE_AVX2
    &rp_kernels_avx2,
#else
    NULL,
#endif
#ifdef RP_HAVE_AVX512
    &rp_kernels_avx512,
#else
    NULL,
#endif
#ifdef RP_HAVE_NEON
    &rp_kernels_neon,
#else
    NULL,
#endif
};

/* Variants that are compiled for another architecture than the host run
 * through SIMDe's portable emulation: x86 variants on aarch64, NEON on x86.
 * Native x86 variants are built with their -m flags and run only where the
 * CPU has them. */
#if defined(__x86_64__) || defined(__i386__)
#define EMULATED_ISAS (1u << RP_ISA_NEON)
#elif defined(__aarch64__)
#define EMULATED_ISAS ((1u << RP_ISA_SSE41) | (1u << RP_ISA_AVX2) | (1u << RP_ISA_AVX512))
#else
#define EMULATED_ISAS ((1u << RP_ISA_SSE41) | (1u << RP_ISA_AVX2) | (1u << RP_ISA_AVX512) | (1u << RP_ISA_NEON))
#endif

static const char *const names[RP_ISA_COUNT] = {"scalar", "sse41", "avx2", "avx512", "neon"};

/* The AVX-512 variant's width for scene packets of mixed direction signs
 * (diffuse bounces), internal.h.  Measured on the benchmark's diffuse
 * rows, rays over Embree's rtcIntersect1 of the same run:
 *   - AMD Zen 4, 2026-11-27 (bench/ab.sh, three alternated runs): 8 wide
 *     (e35157c) against 16: bunny 1.30 against 1.33, 300k triangles 1.17
 *     against 1.05, 1.2M 1.08 against 0.96.  A 512-bit operation takes two
 *     of Zen 4's four 256-bit pipes, and such packets keep few lanes busy;
 *   - Intel Sapphire Rapids, 2026-11-27 (f69c694, before this choice
 *     existed): 16 wide at 1.40x, 1.20x, 0.91x, AVX2's 8-wide packets at
 *     1.18x, 1.06x, 0.96x: there 16 wide won on the smaller meshes by more
 *     than it lost at 1.2M.
 * So 8 wide where 512-bit operations split (rp_cpu_splits512), for all
 * but short rays (rp_avx512_mixed8_tris below), and 16 elsewhere.
 * rp_avx512_mixed8 = 1 sends every mixed-sign packet, short ones too, to
 * the 8-wide walk: RP_AVX512_MIXED=8 (=16: none), and
 * RP_AVX512_PACKET8_TRIS where 512-bit operations split (tests run each
 * choice). */
int rp_avx512_mixed8;

/* And packets of one octant 8 or 16 rays wide as the query goes, where
 * 512-bit operations split (rp_avx512_adapt; scene_packets in
 * src/scene/traverse_simd.h has the rule and its measurements).  The rule
 * before it, every packet 8 wide from 2^19 triangles on (ae614d0, kept as
 * the override RP_AVX512_PACKET8_TRIS=N, 0: every scene), measured
 * below, lost 15-20% on rp_trace's built-in scene of 1.06M triangles,
 * larger ones than the subdivided bunny's: a triangle count does not say
 * how many lanes of a packet meet each leaf.  That rule's reasons: on a
 * large scene the 16 rays of a camera's or a light's
 * packet reach triangles each a few pixels wide (or less) and go different
 * ways in the lower levels, where a 16-lane step costs two 8-lane ones on
 * those cores whatever the lanes in play; on a small scene the 16 lanes
 * stay together and one packet's node and stack work serves 16 rays.
 * Measured on AMD Zen 4, 2026-11-27, rows over Embree's rtcIntersect1 of
 * the same run, primary / shadow rays:
 *   - every packet 8 wide on every mesh against mixed signs only (two
 *     alternated runs): bunny (75k triangles) 2.49 -> 2.30 and 1.94 ->
 *     1.80; 300k 2.05 -> 2.03 and 1.56 -> 1.57; 1.2M 1.63 -> 1.70 and
 *     1.25 -> 1.32; 4.8M 1.33 -> 1.33 and 1.08 -> 1.14;
 *   - this rule against the parent (bench/ab.sh, three alternated runs,
 *     medians): 1.2M 1.65 -> 1.69 and 1.26 -> 1.32; 4.8M 1.34 -> 1.31 and
 *     1.08 -> 1.14 (diffuse 1.00 -> 1.02); the smaller meshes, whose code
 *     did not change, and the AVX2 rows moved by -0.5% to +6% (noise).
 * So from 2^19 triangles on (between 300k and 1.2M, where the two cross)
 * on those cores, never elsewhere (Sapphire Rapids and Zen 5 have 512-bit
 * pipes; on AMD Zen 5, 2026-12-01, a079159, every packet 8 wide, =0,
 * against this rule's 16, three alternated runs of the paired rows,
 * primary / shadow over rtcIntersect1: 1.2M triangles 2.09 / 1.64
 * against 2.13 / 1.73, 4.8M 1.62 / 1.41 against 1.52 / 1.40, within the
 * runs' spread there); RP_AVX512_PACKET8_TRIS=N overrides (0: every
 * scene).  The count is a stand-in for how many triangles a 16-ray packet
 * meets, which also depends on the image's resolution and framing. */
size_t rp_avx512_packet8_tris = SIZE_MAX;
int rp_avx512_adapt;

/* And packets of mixed direction signs whose rays are not all short
 * (packet_short: diffuse bounces, not ambient occlusion) go 8 wide on
 * scenes of at least rp_avx512_mixed8_tris triangles, short ones staying
 * 16 wide (scene_packets in src/scene/traverse_simd.h).  Where 512-bit
 * operations split, on every scene (0): rp_avx512_mixed8's 8 was measured
 * on diffuse bounces, rays without end, but ambient-occlusion rays keep
 * their 16 lanes together and ran 6-22% faster 16 wide (Zen 4).
 * Elsewhere never (16 wide on every scene).  Intel Sapphire Rapids,
 * 2026-11-28 (6ed64f6, RP_AVX512_MIXED=16 against 8 in alternated runs,
 * diffuse rows over Embree's rtcIntersect1 of the same run), had put 8
 * wide ahead from 1.2M triangles: bunny (75k triangles) 1.271 against
 * 1.187 and 300k 1.097 against 1.098 (medians of three); 1.2M even (8
 * ahead in 10 of 16 pairs of runs); 4.8M 0.963 against 1.000 (four pairs,
 * +4% for 8), so from 2^20 triangles on, 2026-11-28 to 12-01.  Since
 * then the 16-lane walk of mixed signs tests its children with the lanes'
 * margins (box_test_margin, db54ec2), and on Intel Emerald Rapids,
 * 2026-12-01 (ae53b50, RP_AVX512_MIXED=16 against 8, alternated runs,
 * paired rows: raypack over Embree in turns inside each row), 16 wide won
 * at 1.2M triangles: Moller-Trumbore over Embree HIGH 1.087, 1.114, 1.114
 * against 0.988, 0.992, 0.973, watertight over rtcIntersect1 1.119,
 * 1.118, 1.075 against 1.085, 1.093, 1.036; at 4.8M the two were even or
 * 16 ahead (two runs: 0.992, 0.996 against 0.955, 0.993; 1.029, 1.051
 * against 1.034, 1.046).  rp_trace's ambient-occlusion rays (short) stay
 * 16 wide either way.  AMD Zen 5 (whole 512-bit pipes), 2026-12-01
 * (a079159, RP_AVX512_MIXED=16 against 8, three alternated runs, the
 * paired rows): 16 wide ahead on the bunny (1.42 against 1.23) and at
 * 300k triangles (1.18 against 1.06); at 1.2M 8 ahead by the medians
 * (1.01 against 0.94) within the runs' spread (0.85-1.08 and 0.92-1.09),
 * at 4.8M even (1.03 and 1.03).  So 16 wide there too.
 * RP_AVX512_MIXED=8 or 16 fixes the width of every mixed-sign packet
 * (SIZE_MAX here); RP_AVX512_MIXED_TRIS=N sets the count. */
size_t rp_avx512_mixed8_tris = SIZE_MAX;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned native_isas;   /* written once under `once` */
static rp_isa auto_isa;        /* written once under `once` */
/* NULL until init_once stores the first choice (internal.h reads it inline) */
_Atomic(const rp_kernels *) rp_kernels_active_;
#define active rp_kernels_active_

unsigned rp_isa_compiled(void) {
    unsigned m = 0;
    for (int i = 0; i < RP_ISA_COUNT; i++)
        if (tables[i])
            m |= 1u << i;
    return m;
}

/* A tuning variable's count of triangles (a decimal that strtoull takes
 * whole, at most SIZE_MAX): 1 and *v where name is set to one; unset or
 * empty, 0; else one warning that names it, and 0. */
static int env_count(const char *name, size_t *v) {
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end || errno) {
        fprintf(stderr, "raypack: %s=%s is not a number of triangles; ignored\n", name, s);
        return 0;
    }
    *v = x > SIZE_MAX ? SIZE_MAX : (size_t)x;
    return 1;
}

static void init_once(void) {
    native_isas = rp_cpu_native_isas() & rp_isa_compiled();
    auto_isa = RP_ISA_SCALAR;
    /* widest native variant: avx512 > avx2 > sse41, or neon */
    static const rp_isa order[] = {RP_ISA_AVX512, RP_ISA_AVX2, RP_ISA_SSE41, RP_ISA_NEON};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (native_isas & (1u << order[i])) {
            auto_isa = order[i];
            break;
        }
    int split = rp_cpu_splits512();
    rp_avx512_mixed8 = 0;
    rp_avx512_mixed8_tris = split ? 0 : SIZE_MAX;
    rp_avx512_packet8_tris = SIZE_MAX;
    rp_avx512_adapt = split;
    size_t v = 0, mtris = 0;
    int mixed_set = 0;
    const char *mixed = getenv("RP_AVX512_MIXED");
    if (mixed && *mixed) {
        if ((mixed_set = !strcmp(mixed, "8") || !strcmp(mixed, "16")))
            rp_avx512_mixed8 = mixed[0] == '8';
        else
            fprintf(stderr, "raypack: RP_AVX512_MIXED=%s is not 8 or 16; using %s\n", mixed,
                    split ? "8, 16 for short rays" : "16");
    }
    int mtris_set = env_count("RP_AVX512_MIXED_TRIS", &mtris);
    int p8_set = env_count("RP_AVX512_PACKET8_TRIS", &v);
    if (p8_set) {
        rp_avx512_packet8_tris = v;
        rp_avx512_adapt = 0;
    }
    /* the mixed-sign packets' rule, the first variable set deciding */
    if (mixed_set) { /* every one that width */
        rp_avx512_mixed8_tris = SIZE_MAX;
    } else if (mtris_set) {
        rp_avx512_mixed8_tris = mtris;
    } else if (p8_set) { /* every one 8 wide where 512-bit operations split, else
                          * 16, as before RP_AVX512_MIXED_TRIS */
        rp_avx512_mixed8 = split;
        rp_avx512_mixed8_tris = SIZE_MAX;
    }
    rp_isa want = auto_isa;
    const char *env = getenv("RP_ISA");
    if (env && *env) {
        rp_isa forced;
        if (rp_isa_from_name(env, &forced) != RP_OK)
            fprintf(stderr, "raypack: RP_ISA=%s is not a variant (scalar, sse41, avx2, avx512, neon, auto); using %s\n",
                    env, names[auto_isa]);
        else if (forced != RP_ISA_AUTO && !(rp_isa_runnable() & (1u << forced)))
            fprintf(stderr, "raypack: RP_ISA=%s cannot run on this CPU or is not compiled in; using %s\n",
                    env, names[auto_isa]);
        else if (forced != RP_ISA_AUTO)
            want = forced;
    }
    atomic_store(&active, tables[want]);
}

static void ensure_init(void) { pthread_once(&once, init_once); }

unsigned rp_isa_native(void) {
    ensure_init();
    return native_isas;
}

unsigned rp_isa_runnable(void) {
    /* no ensure_init here: init_once calls it */
    unsigned native = rp_cpu_native_isas() & rp_isa_compiled();
    return native | (rp_isa_compiled() & EMULATED_ISAS);
}

/* The slow path of rp_kernels_active() (internal.h): the first call. */
const rp_kernels *rp_kernels_init(void) {
    ensure_init();
    return atomic_load_explicit(&active, memory_order_acquire);
}

rp_isa rp_active_isa(void) { return rp_kernels_active()->isa; }

rp_status rp_set_isa(rp_isa isa) {
    ensure_init();
    if (isa == RP_ISA_AUTO) {
        atomic_store(&active, tables[auto_isa]);
        return RP_OK;
    }
    if ((int)isa < 0 || isa >= RP_ISA_COUNT)
        return RP_ERR_ISA_UNKNOWN;
    if (!(rp_isa_runnable() & (1u << isa)))
        return RP_ERR_ISA_UNAVAILABLE;
    atomic_store(&active, tables[isa]);
    return RP_OK;
}

const char *rp_isa_name(rp_isa isa) {
    if (isa == RP_ISA_AUTO)
        return "auto";
    if ((int)isa < 0 || isa >= RP_ISA_COUNT)
        return NULL;
    return names[isa];
}

rp_status rp_isa_from_name(const char *name, rp_isa *isa) {
    if (!name || !isa)
        return RP_ERR_NULL;
    if (!strcmp(name, "auto")) {
        *isa = RP_ISA_AUTO;
        return RP_OK;
    }
    for (int i = 0; i < RP_ISA_COUNT; i++)
        if (!strcmp(name, names[i])) {
            *isa = (rp_isa)i;
            return RP_OK;
        }
    return RP_ERR_ISA_UNKNOWN;
}
