/*
 * smoke.c - rp_bench_smoke, the benchmark suite without Google Benchmark or
 * C++: a plain C driver over the same workloads, implementations, clock and
 * bounds as rp_bench.  It runs each case once for a short time (so the suite
 * is exercised under the aarch64 cross build and under emulators), prints a
 * table, and checks only what is not timing: raypack's variants and the
 * autovec baseline (the reference's own code) must produce the scalar
 * reference's results (a mismatch of a raypack variant is reported; of
 * autovec, which is this suite's code, it fails the run).  Each triangle
 * flag set (rpb_flagsets: the watertight test) has its own reference, the
 * scalar variant with the same flags.  Timings under an
 * emulator (qemu) mean nothing.
 *
 * Usage: rp_bench_smoke [--full] [--miss] [--min-time=SECONDS]
 *   --full  the real sizes (1M-ray stream, 10k-primitive picking)
 *   --miss  the primitives out of every ray's way (rp_bench --rp_miss,
 *           bench.h); then the reference must report no hit at all and the
 *           bound's replay no candidate step, or the run fails
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct result {
    double sec_per_iter;
    uint64_t digest, digest_hits;
} result;

static double min_time = 0.02;

/* impl's one iteration, repeated for min_time; av: the autovec build's ISA */
static int run_one(rpb_work *w, rpb_impl impl, rp_isa av, result *res) {
    long iters = 0;
    double t0 = rpb_now(), t;
    do {
        if (impl == RPB_IMPL_RAYPACK) {
            rp_status st = rpb_run_raypack(w);
            if (st != RP_OK) {
                fprintf(stderr, "rp_bench_smoke: %s: %s\n", rpb_kernel_name(w->kernel),
                        rp_status_string(st));
                return -1;
            }
        } else if (impl == RPB_IMPL_NAIVE) {
            rpb_run_naive(w);
        } else {
            rpb_run_autovec_isa(w, av);
        }
        iters++;
        t = rpb_now() - t0;
    } while (t < min_time);
    res->sec_per_iter = t / (double)iters;
    res->digest = rpb_digest(w, 1);
    res->digest_hits = rpb_digest(w, 0);
    return 0;
}

int main(int argc, char **argv) {
    int quick = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full"))
            quick = 0;
        else if (!strcmp(argv[i], "--miss"))
            rpb_miss = 1;
        else if (!strncmp(argv[i], "--min-time=", 11))
            min_time = atof(argv[i] + 11);
        else {
            fprintf(stderr, "usage: rp_bench_smoke [--full] [--miss] [--min-time=SECONDS]\n");
            return 2;
        }
    }

    char cpu[256];
    rpb_cpu_name(cpu, sizeof cpu);
    double hz = rpb_calibrate_hz();
    double bw = rpb_measure_bw();
    printf("rp_bench_smoke: CPU %s (from /proc/cpuinfo: the host's under qemu-user); core clock %.2f GHz (add chain); triad bandwidth %.1f GB/s\n",
           cpu, hz * 1e-9, bw * 1e-9);
    printf("NOTE: under an emulator (qemu) these timings mean nothing; this run only proves that\n"
           "      the benchmark suite builds and runs, and checks results, not speed.\n");
    rpb_bound_print_table();

    unsigned runnable = rp_isa_runnable(), native = rp_isa_native();
    int failures = 0;
    printf("\n%-34s %10s %10s %9s %9s  %s\n", "benchmark", "Gtests/s", "cyc/test", "bound", "vs_bound",
           "check");
    for (int k = 0; k < RPB_KERNEL_COUNT; k++)
        for (int s = 0; s < RPB_SHAPE_COUNT; s++)
            for (int f = 0; f < RPB_FLAGSET_COUNT; f++) {
                unsigned fl = rpb_flagsets[f];
                if (!rpb_case_wanted((rpb_kernel)k, (rpb_shape)s, fl))
                    continue;
                rpb_work w;
                if (rpb_work_init(&w, (rpb_kernel)k, (rpb_shape)s, fl, quick) != 0)
                    return 1;
                result ref = {0, 0, 0};
                int have_ref = 0;
                /* raypack variants (scalar first: the reference), then the baselines */
                /* -2 - a: autovec built for variant a (sse41, avx2, avx512) */
                static const int order[] = {0, 1, 2, 3, 4, -1, -2 - RP_ISA_SSE41, -2 - RP_ISA_AVX2,
                                            -2 - RP_ISA_AVX512};
                for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
                    int v = order[o];
                    rpb_impl impl = v >= 0 ? RPB_IMPL_RAYPACK : v == -1 ? RPB_IMPL_NAIVE : RPB_IMPL_AUTOVEC;
                    rp_isa av = v <= -2 ? (rp_isa)(-2 - v) : RP_ISA_SCALAR;
                    const char *vname = v >= 0 ? rp_isa_name((rp_isa)v) : v == -1 ? "naive"
                                                                                  : rpb_autovec_name(av);
                    if (impl == RPB_IMPL_RAYPACK && !(runnable & (1u << v)))
                        continue;
                    /* an autovec build runs where built and where this CPU has its ISA */
                    if (impl == RPB_IMPL_AUTOVEC && (!rpb_autovec_built(av) || !(native & (1u << av))))
                        continue;
                    if (!rpb_impl_has(impl, (rpb_kernel)k, (rpb_shape)s, fl))
                        continue;
                    if (impl == RPB_IMPL_RAYPACK && rp_set_isa((rp_isa)v) != RP_OK)
                        continue;
                    result r;
                    if (run_one(&w, impl, av, &r) != 0)
                        return 1;
                    const char *check = "";
                    if (impl == RPB_IMPL_RAYPACK && v == RP_ISA_SCALAR) {
                        ref = r;
                        have_ref = 1;
                        check = "reference";
                        size_t nh = rpb_miss ? rpb_count_hits(&w) : 0;
                        double cs = rpb_miss ? rpb_bound_for(&w, "scalar", bw / hz).cand_steps : 0;
                        if (nh || cs > 0) {
                            printf("rp_bench_smoke: --miss: %s/%s: %zu ray(s) hit, %g candidate "
                                   "steps per test in the bound's replay\n",
                                   rpb_kernel_name((rpb_kernel)k), rpb_shape_name((rpb_shape)s), nh,
                                   cs);
                            failures++;
                        }
                    } else if (have_ref && impl == RPB_IMPL_NAIVE) {
                        check = r.digest_hits == ref.digest_hits ? "same hits" : "hits differ (seed rules; informative)";
                    } else if (have_ref) {
                        if (r.digest == ref.digest) {
                            check = "= reference";
                        } else if (impl == RPB_IMPL_AUTOVEC) {
                            check = "MISMATCH (autovec is the reference's code: bench bug)";
                            failures++;
                        } else {
                            check = "MISMATCH with the reference (rp_check should catch this)";
                        }
                    }
                    double tests = rpb_work_tests(&w);
                    double cyc = r.sec_per_iter * hz / tests;
                    rpb_bound b = rpb_bound_for(&w, vname, bw / hz);
                    char name[64], bstr[16] = "-", vstr[16] = "-";
                    snprintf(name, sizeof name, "%s/%s/%s%s%s", rpb_kernel_name((rpb_kernel)k), vname,
                             rpb_shape_name((rpb_shape)s), fl ? "/" : "", rpb_flags_name(fl));
                    if (b.known) {
                        snprintf(bstr, sizeof bstr, "%.3f", b.cycles);
                        snprintf(vstr, sizeof vstr, "%.2f", cyc / b.cycles);
                    }
                    printf("%-34s %10.4f %10.3f %9s %9s  %s%s\n", name, tests / r.sec_per_iter * 1e-9, cyc,
                           bstr, vstr, check,
                           impl == RPB_IMPL_RAYPACK && !(native & (1u << v)) ? " [emulated via SIMDe]" : "");
                }
                rpb_work_free(&w);
            }
    rp_set_isa(RP_ISA_AUTO);
    if (failures) {
        printf("rp_bench_smoke: %d failure(s)\n", failures);
        return 1;
    }
    printf("rp_bench_smoke: ok (timings are not checked)\n");
    return 0;
}
