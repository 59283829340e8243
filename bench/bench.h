/*
 * bench.h - the C core of raypack's benchmark suite, shared by rp_bench
 * (Google Benchmark, through the thin C++ shim bench.cc) and rp_bench_smoke
 * (the plain C driver smoke.c that also runs under the aarch64 cross build).
 * It holds the workloads (rays and primitives of each shape, built from a
 * fixed seed), the implementations timed on them (raypack through its public
 * API, and the baselines: naive seed code, compiler auto-vectorisation,
 * Embree), the calibrated cycle clock and the table of physical bounds.
 * Nothing here asserts anything about time.
 */
#ifndef RPB_BENCH_H
#define RPB_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "raypack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What is timed: one raypack entry point (or its baseline equivalent). */
typedef enum rpb_kernel {
    RPB_AABB,    /* rp_closest_aabb: nearest box */
    RPB_SLAB,    /* rp_intersect_aabb: rays x one box, called once per box */
    RPB_TRI,     /* rp_closest_triangle: Moller-Trumbore, closest hit */
    RPB_OCCL,    /* rp_occluded_triangle: any hit (shadow rays) */
    RPB_SPHERE,  /* rp_closest_sphere */
    RPB_KERNEL_COUNT
} rpb_kernel;

/* How many rays against how many primitives. */
typedef enum rpb_shape {
    RPB_PACKET,  /* 64 rays x 256 primitives: everything in L1/L2 */
    RPB_STREAM,  /* 1M rays x 1 box: streams 44 MB of rays from memory */
    RPB_PICK,    /* 1 ray x 10,000 primitives (n = 1) */
    RPB_SMALL,   /* 64 rays x 64 triangles: a closest-hit leaf */
    RPB_TINY,    /* 8 rays x 8 triangles: a small call, where the fixed cost shows (issue 13) */
    RPB_OCTANT,  /* 64 rays x 256 boxes as RPB_PACKET, every direction in one octant (a camera's packets) */
    RPB_SHAPE_COUNT
} rpb_shape;

/* Who does the work. */
typedef enum rpb_impl {
    RPB_IMPL_RAYPACK, /* the public API with the variant set by rp_set_isa */
    RPB_IMPL_NAIVE,   /* seeds 001/003/004: a division per slab, branches, one ray at a time */
    RPB_IMPL_AUTOVEC, /* the reference's per-pair code, -O3 -mavx2, auto-vectorised (x86) */
    RPB_IMPL_EMBREE   /* Embree 3 BVH over the same triangles (end-to-end, not kernel for kernel) */
} rpb_impl;

/* The triangle kernels' flag sets the suite times, on the same rays and
 * triangles: 0 (Moller-Trumbore, every kernel) and RP_WATERTIGHT (the
 * watertight test; raypack's variants only: the baselines implement
 * Moller-Trumbore).  Benchmark names append "/" rpb_flags_name(flags) for a
 * nonzero set, e.g. tri/avx2/packet/watertight. */
#define RPB_FLAGSET_COUNT 2
extern const unsigned rpb_flagsets[RPB_FLAGSET_COUNT]; /* {0, RP_WATERTIGHT} */
const char *rpb_flags_name(unsigned flags);            /* "" for 0, "watertight" */

const char *rpb_kernel_name(rpb_kernel k);
const char *rpb_shape_name(rpb_shape s);
/* Rays and primitives of a shape; `quick` shrinks the stream to 64k rays
 * and picking to 1,000 primitives (for the emulated smoke run). */
void rpb_shape_size(rpb_shape s, int quick, size_t *nrays, size_t *nprims);
/* The kernel x shape x flags cases that the suite times (spec of issue #4;
 * flags != 0 only for triangles: see rpb_flagsets). */
int rpb_case_wanted(rpb_kernel k, rpb_shape s, unsigned flags);
/* Whether an implementation (raypack or a baseline) has this case. */
int rpb_impl_has(rpb_impl impl, rpb_kernel k, rpb_shape s, unsigned flags);

/* One workload: a prepared ray batch, its hit records and outputs, and the
 * primitives.  tmax0 is the initial tmax, restored before every closest-hit
 * iteration (the kernels shorten tmax; the restore is timed too: 64 floats
 * and one rp_hits_reset per 16,384 tests, under 1%). */
typedef struct rpb_work {
    rpb_kernel kernel;
    rpb_shape shape;
    unsigned flags;       /* RPB_TRI, RPB_OCCL: the rp_* flags (rpb_flagsets) */
    size_t nrays, nprims;
    rp_rays rays;
    rp_hits hits;
    float *tmax0;
    uint8_t *hit;         /* RPB_SLAB: hit flags (nrays) */
    float *tnear, *tfar;  /* RPB_SLAB */
    uint8_t *occluded;    /* RPB_OCCL */
    rp_aabb *boxes;
    rp_triangle *tris;
    rp_sphere *spheres;
    void *embree;         /* Embree scene state, when used */
} rpb_work;

/* rp_bench --rp_miss: every workload's primitives moved 1000 units along
 * +y, out of the way of every ray of every shape (a stream ray, whose
 * direction is random, could still meet its box: about one in a million),
 * so that the kernels run their tests with no candidate and no hit.  The
 * rows' names end in "/miss".  What the hits cost (their acceptance, and
 * the branches that go their way) is then the normal row's time less this
 * one's (issue 13, README "Kernel speed").  0 by default. */
extern int rpb_miss;
/* The ray-primitive pairs with a hit in w's results after an iteration
 * (rays with a hit; for RPB_SLAB, every box's call made again with the
 * variant in force, rays with a hit summed over the boxes; SIZE_MAX if a
 * call fails). */
size_t rpb_count_hits(rpb_work *w);

/* Builds the workload (fixed seed, from k and s only: every flag set sees
 * the same rays and primitives); 0 on success, else a message on stderr. */
int rpb_work_init(rpb_work *w, rpb_kernel k, rpb_shape s, unsigned flags, int quick);
void rpb_work_free(rpb_work *w);
/* Ray-primitive tests one iteration performs (nrays * nprims). */
double rpb_work_tests(const rpb_work *w);

/* One iteration.  Returns RP_OK or the first failing rp_* status.  The
 * baselines run Moller-Trumbore whatever w->flags says (the drivers time
 * them only where rpb_impl_has). */
rp_status rpb_run_raypack(rpb_work *w);
void rpb_run_naive(rpb_work *w);
#if defined(__x86_64__) || defined(__i386__)
#define RPB_HAVE_AUTOVEC_TARGET 1
#endif
/* autovec.c, built once per x86 ISA (only linked where built): -mavx2
 * ("autovec"), -msse4.1 ("autovec-sse41"), the AVX-512 flags
 * ("autovec-avx512"). */
void rpb_run_autovec(rpb_work *w);
void rpb_run_autovec_sse41(rpb_work *w);
void rpb_run_autovec_avx512(rpb_work *w);
/* The autovec build for the variant `isa` (RP_ISA_SSE41, RP_ISA_AVX2,
 * RP_ISA_AVX512): its row name, and one iteration (0), or -1 where that
 * build is not in this binary. */
const char *rpb_autovec_name(rp_isa isa);
int rpb_autovec_built(rp_isa isa);
int rpb_run_autovec_isa(rpb_work *w, rp_isa isa);
/* An order-independent digest of the last iteration's results (hit prims,
 * hit flags, t bits) to check that implementations did the same work. */
uint64_t rpb_digest(const rpb_work *w, int with_t);

/* ---- the clock ---- */
/* Core clock estimated from a chain of dependent integer adds (1-cycle
 * latency on every x86 and ARM core of the last decade), best of a few
 * runs of ~2 ms; Hz. */
double rpb_calibrate_hz(void);
/* Sustained single-core triad bandwidth (a[i] = b[i] + c[i] over 3 x 16 MB),
 * bytes per second, counting bytes read and written. */
double rpb_measure_bw(void);
double rpb_now(void); /* CLOCK_MONOTONIC seconds */
/* This thread's CPU seconds (what Google Benchmark's rates use): on a
 * shared machine, time spent descheduled is not counted. */
double rpb_thread_cpu(void);
/* "model name" (x86) or implementer/part (ARM) from /proc/cpuinfo, or "unknown". */
void rpb_cpu_name(char *buf, size_t len);

/* ---- the physical bound (bound.c) ---- */
typedef struct rpb_bound {
    double cycles;       /* best cycles per ray-primitive test on the model core */
    double compute;      /* the FP-pipe part of it */
    double memory;       /* stream only: bytes / measured bandwidth (not in cycles) */
    double cand_steps;   /* steps with a candidate in some lane, per test: each
                            takes the kernel's branch to its acceptance, which
                            the bound counts as operations but which a core
                            also pays as a mispredicted branch where such steps
                            are rare and random (not in cycles) */
    int known;           /* 0 when no op count exists (baselines other than
                            "scalar", or an unknown variant) */
} rpb_bound;
/* The bound of w's kernel, shape and flags for a variant ("scalar", "sse41",
 * "avx2", "avx512", "neon"; "autovec" is counted as avx2), replaying the
 * kernel's loops on w's data.  bytes_per_cycle: rpb_measure_bw() /
 * rpb_calibrate_hz(), for the memory term of the stream. */
rpb_bound rpb_bound_for(const rpb_work *w, const char *variant, double bytes_per_cycle);
/* Prints the model core and the op-count table (one line per step) to stdout. */
void rpb_bound_print_table(void);
/* The model core's name, e.g. "Zen 5: ..." or "Golden Cove (Sapphire
 * Rapids): ...", for the rp_bound_model context.  Chosen once, from CPUID
 * (AMD family 0x1A: Zen 5; family 0x19 with AVX-512: Zen 4; family 0x19
 * Milan, Vermeer, Rembrandt, Cezanne: Zen 3; Intel family 6
 * Sapphire/Emerald/Granite Rapids, Alder/Raptor Lake P-cores: Golden Cove;
 * Ice Lake server: Sunny Cove;
 * otherwise "fallback", Zen 5's numbers) or forced by the environment
 * variable RP_BENCH_BOUND_MODEL=zen5|zen4|zen3|goldencove|icelake|fallback; the
 * choice is also printed once on stderr. */
const char *rpb_bound_model(void);

/* ---- Embree (embree_bench.c; only in rp_bench, when Embree is found) ---- */
/* Builds a one-thread device for "sse4.2", "avx2" or "avx512" and a BVH
 * over w's triangles.  0 on success; -1 (message on stderr) if that ISA is
 * unavailable.  *isa_out: what Embree reports it runs. */
int rpb_embree_init(rpb_work *w, const char *isa, char *isa_out, size_t len);
void rpb_embree_run(rpb_work *w); /* rtcIntersect/Occluded 4/8/16 or 1 */
void rpb_embree_free(rpb_work *w);
/* Whether this CPU runs Embree's code for that ISA. */
int rpb_embree_cpu_has(const char *isa);

#ifdef __cplusplus
}
#endif
#endif
