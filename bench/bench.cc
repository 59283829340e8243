// bench.cc - rp_bench: the thin C++ shim that hands raypack's benchmark
// workloads (bench.h, plain C over the public API) to Google Benchmark.
// One benchmark per kernel x variant x shape, named kernel/variant/shape
// (e.g. aabb/avx2/packet): every variant native to this CPU (forced with
// rp_set_isa), then the baselines naive, autovec and embree-<isa>; cases
// timed with nonzero triangle flags append them to the name
// (tri/avx2/packet/watertight: RP_WATERTIGHT, raypack's variants only).  Items
// are ray-primitive tests; counters: cyc_per_test (this thread's CPU time
// times the core clock calibrated at start with an add chain), bound_cyc (the model core's best,
// bound.c) and vs_bound = cyc_per_test / bound_cyc.  The clock, CPU and
// bandwidth go into the JSON context (--benchmark_format=json).  The scene
// rows (scene/<variant>/<kind>/<mesh>, rp_scene_* against Embree) are in
// scene_bench.cc.  call/<variant>/1x1 (issue 13) is the fixed cost of a
// public call: one ray against one primitive through each of the six batch
// kernels in turn; call/<variant>/1x0 the same calls with no primitive (no
// kernel runs: checks and dispatch alone); counter ns_per_call is per call.
// prepare/<variant>/4096 is rp_rays_prepare on a 4096-ray batch (counter
// cyc_per_ray).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "bench.h"
#include "scene_bench.h"

namespace {

double g_hz = 0;             // calibrated core clock
double g_bytes_per_cycle = 0;

struct Case {
    rpb_kernel kernel;
    rpb_shape shape;
    rpb_impl impl;
    unsigned flags;           // triangle kernels' rp_* flags (rpb_flagsets)
    rp_isa isa;               // RPB_IMPL_RAYPACK; RPB_IMPL_AUTOVEC: the build's ISA
    std::string embree_isa;   // RPB_IMPL_EMBREE
    std::string variant;      // the middle part of the name
};

void fail(benchmark::State &state, const std::string &msg) {
    state.SkipWithError(msg.c_str());
    for (auto _ : state) {
    }
}

void run_case(benchmark::State &state, const Case &c) {
    rpb_work w;
    if (rpb_work_init(&w, c.kernel, c.shape, c.flags, 0) != 0)
        return fail(state, "workload setup failed");
    std::string label = c.variant;
    if (c.impl == RPB_IMPL_RAYPACK) {
        rp_status st = rp_set_isa(c.isa);
        if (st != RP_OK) {
            rpb_work_free(&w);
            return fail(state, std::string("rp_set_isa: ") + rp_status_string(st));
        }
    }
#ifdef RPB_HAVE_EMBREE
    if (c.impl == RPB_IMPL_EMBREE) {
        char isa_out[128];
        if (rpb_embree_init(&w, c.embree_isa.c_str(), isa_out, sizeof isa_out) != 0) {
            rpb_work_free(&w);
            return fail(state, "Embree device/scene setup failed");
        }
        label = std::string("Embree 3 ") + isa_out + ", 1 thread: end-to-end (BVH), not kernel for kernel";
    }
#endif
    double tests = rpb_work_tests(&w);
    double t0 = rpb_thread_cpu();
    for (auto _ : state) {
        switch (c.impl) {
        case RPB_IMPL_RAYPACK: {
            rp_status st = rpb_run_raypack(&w);
            if (st != RP_OK) {
                state.SkipWithError(rp_status_string(st));
                goto out;
            }
            break;
        }
        case RPB_IMPL_NAIVE: rpb_run_naive(&w); break;
        case RPB_IMPL_AUTOVEC: rpb_run_autovec_isa(&w, c.isa); break;
#ifdef RPB_HAVE_EMBREE
        case RPB_IMPL_EMBREE: rpb_embree_run(&w); break;
#endif
        default: break;
        }
        benchmark::ClobberMemory();
    }
out:
    double secs = rpb_thread_cpu() - t0; // CPU time, as items_per_second
    double iters = (double)state.iterations();
    state.SetItemsProcessed((int64_t)(iters * tests));
    if (iters > 0) {
        double cyc = secs * g_hz / (iters * tests);
        state.counters["cyc_per_test"] = cyc;
        // the bound: raypack variants and the scalar reference from the op
        // table; an autovec build is counted at its ISA's width
        std::string bv = c.impl == RPB_IMPL_RAYPACK ? rp_isa_name(c.isa)
                         : c.impl == RPB_IMPL_AUTOVEC ? rpb_autovec_name(c.isa) : "";
        if (!bv.empty()) {
            rpb_bound b = rpb_bound_for(&w, bv.c_str(), g_bytes_per_cycle);
            if (b.known) {
                state.counters["bound_cyc"] = b.cycles;
                state.counters["vs_bound"] = cyc / b.cycles;
                if (b.cand_steps > 0)  // per 1000 tests (bench.h)
                    state.counters["cand_steps_k"] = b.cand_steps * 1000.0;
                if (b.memory > 0)
                    state.counters["mem_cyc"] = b.memory;
            }
        }
    }
    state.SetLabel(label);
#ifdef RPB_HAVE_EMBREE
    if (c.impl == RPB_IMPL_EMBREE)
        rpb_embree_free(&w);
#endif
    rpb_work_free(&w);
    rp_set_isa(RP_ISA_AUTO);
}

// call/<variant>/1x1: the fixed cost of a public call (issue 13).  One
// prepared ray that hits every primitive; each iteration makes the six
// batch calls (rp_intersect_aabb, rp_closest_aabb, rp_closest_triangle,
// rp_occluded_triangle, rp_closest_sphere, rp_closest_plane), each over one
// ray and one primitive, after putting back tmax and the empty record (two
// stores) so every closest call takes the hit path.  Reported per call:
// ns_per_call and cyc_per_call (the time columns are per iteration: 6 calls).
void run_call(benchmark::State &state, rp_isa isa, size_t count) {
    rp_rays rays;
    rp_hits hits;
    if (rp_rays_alloc(1, &rays) != RP_OK || rp_hits_alloc(1, &hits) != RP_OK)
        return fail(state, "allocation failed");
    rays.ox[0] = 0.25f; rays.oy[0] = 0.25f; rays.oz[0] = -5.0f;
    rays.dx[0] = 0.0f; rays.dy[0] = 0.0f; rays.dz[0] = 1.0f;
    rays.tmin[0] = 0.0f; rays.tmax[0] = INFINITY;
    rp_status st = rp_rays_prepare(&rays);
    if (st == RP_OK)
        st = rp_set_isa(isa);
    if (st != RP_OK) {
        rp_rays_free(&rays);
        rp_hits_free(&hits);
        return fail(state, std::string("setup: ") + rp_status_string(st));
    }
    const rp_aabb box = {{-1, -1, -1}, {1, 1, 1}};
    const rp_triangle tri = {{-1, -1, 0}, {2, -1, 0}, {-1, 2, 0}};
    const rp_sphere sph = {{0, 0, 0}, 1.0f};
    const rp_plane pl = {{0, 0, 1}, 0.0f};
    uint8_t hit[4] = {0}, occ[4] = {0};
    float tn[4] = {0}, tf[4] = {0};
    // 1x0: no primitive, so no kernel runs (rp_intersect_aabb, which always
    // has its one box, is left out): the checks and the dispatch alone
    const int kCalls = count ? 6 : 5;
    double t0 = rpb_thread_cpu();
    for (auto _ : state) {
        rays.tmax[0] = INFINITY;
        hits.prim[0] = RP_NO_HIT;
        st = count ? rp_intersect_aabb(&rays, NULL, &box, hit, tn, tf) : RP_OK;
        st = (rp_status)(st | rp_closest_aabb(&rays, NULL, &box, count, 0, &hits));
        st = (rp_status)(st | rp_closest_triangle(&rays, NULL, &tri, count, 1, 0, &hits));
        st = (rp_status)(st | rp_occluded_triangle(&rays, NULL, &tri, count, 0, occ));
        st = (rp_status)(st | rp_closest_sphere(&rays, NULL, &sph, count, 2, &hits));
        st = (rp_status)(st | rp_closest_plane(&rays, NULL, &pl, count, 3, &hits));
        benchmark::ClobberMemory();
    }
    double secs = rpb_thread_cpu() - t0;
    if (st != RP_OK)
        state.SkipWithError(rp_status_string(st));
    double calls = (double)state.iterations() * kCalls;
    if (calls > 0) {
        state.counters["ns_per_call"] = secs * 1e9 / calls;
        state.counters["cyc_per_call"] = secs * g_hz / calls;
    }
    state.SetItemsProcessed((int64_t)calls);
    state.SetLabel(std::string(rp_isa_name(isa)) +
                   (count ? ": 6 kernels x 1 ray x 1 primitive, per call"
                          : ": 5 kernels x 1 ray x 0 primitives (checks and dispatch), per call"));
    rp_rays_free(&rays);
    rp_hits_free(&hits);
    rp_set_isa(RP_ISA_AUTO);
}

// prepare/<variant>/4096: rp_rays_prepare on a batch of 4096 rays (the
// call a caller makes once per batch before any query), forced variant;
// items are rays, counter cyc_per_ray.  Directions uniform in [-1, 1]^3,
// every 61st ray with an infinite origin component (NaN reciprocals).
void run_prepare(benchmark::State &state, rp_isa isa) {
    const size_t n = 4096;
    rp_rays rays;
    if (rp_rays_alloc(n, &rays) != RP_OK)
        return fail(state, "allocation failed");
    uint32_t x = 12345u;
    auto rnd = [&x]() { x = x * 1664525u + 1013904223u; return (float)(x >> 8) * 0x1p-23f - 1.0f; };
    for (size_t i = 0; i < n; i++) {
        rays.ox[i] = i % 61 == 7 ? INFINITY : rnd();
        rays.oy[i] = rnd(); rays.oz[i] = rnd();
        rays.dx[i] = rnd(); rays.dy[i] = rnd(); rays.dz[i] = rnd();
        rays.tmin[i] = 0.0f; rays.tmax[i] = INFINITY;
    }
    rp_status st = rp_set_isa(isa);
    double t0 = rpb_thread_cpu();
    for (auto _ : state) {
        st = (rp_status)(st | rp_rays_prepare(&rays));
        benchmark::ClobberMemory();
    }
    double secs = rpb_thread_cpu() - t0;
    if (st != RP_OK)
        state.SkipWithError(rp_status_string(st));
    double nr = (double)state.iterations() * (double)n;
    if (nr > 0)
        state.counters["cyc_per_ray"] = secs * g_hz / nr;
    state.SetItemsProcessed((int64_t)nr);
    state.SetLabel(std::string(rp_isa_name(isa)) + ": rp_rays_prepare, 4096 rays per call");
    rp_rays_free(&rays);
    rp_set_isa(RP_ISA_AUTO);
}

void add(const Case &c) {
    std::string name = std::string(rpb_kernel_name(c.kernel)) + "/" + c.variant + "/" +
                       rpb_shape_name(c.shape);
    if (c.flags)
        name += std::string("/") + rpb_flags_name(c.flags);
    if (rpb_miss)
        name += "/miss";
    benchmark::RegisterBenchmark(name.c_str(), [c](benchmark::State &st) { run_case(st, c); });
}

}  // namespace

int main(int argc, char **argv) {
    rpb_scene_args(&argc, argv);
    {  // --rp_miss (bench.h): the kernel rows with no primitive in any ray's way
        int o = 1;
        for (int i = 1; i < argc; i++) {
            if (!std::strcmp(argv[i], "--rp_miss"))
                rpb_miss = 1;
            else
                argv[o++] = argv[i];
        }
        argc = o;
        argv[o] = nullptr;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;

    char cpu[256];
    rpb_cpu_name(cpu, sizeof cpu);
    g_hz = rpb_calibrate_hz();
    double bw = rpb_measure_bw();
    g_bytes_per_cycle = bw / g_hz;
    char buf[64];
    benchmark::AddCustomContext("rp_cpu", cpu);
    std::snprintf(buf, sizeof buf, "%.3f", g_hz * 1e-9);
    benchmark::AddCustomContext("rp_core_ghz", buf);
    std::snprintf(buf, sizeof buf, "%.2f", bw * 1e-9);
    benchmark::AddCustomContext("rp_triad_gbps", buf);
    benchmark::AddCustomContext("rp_bound_model", rpb_bound_model()); /* bench/bound.c */
    std::fprintf(stderr, "rp_bench: CPU %s; core clock %.2f GHz (add chain); triad %.1f GB/s\n", cpu,
                 g_hz * 1e-9, bw * 1e-9);

    unsigned native = rp_isa_native();
    std::string natives;
    for (int v = 0; v < RP_ISA_COUNT; v++)
        if (native & (1u << v))
            natives += std::string(natives.empty() ? "" : " ") + rp_isa_name((rp_isa)v);
    benchmark::AddCustomContext("rp_native_variants", natives);

    if (rpb_miss)
        benchmark::AddCustomContext("rp_miss", "primitives moved out of every ray's way");
    // call/<variant>/1x1: the fixed cost of a public call (issue 13)
    for (int v = 0; v < RP_ISA_COUNT && !rpb_miss; v++)
        if ((native & (1u << v)) || v == RP_ISA_SCALAR) {
            rp_isa isa = (rp_isa)v;
            for (size_t count : {size_t{1}, size_t{0}}) { // 1x1, then 1x0
                std::string name = std::string("call/") + rp_isa_name(isa) + "/1x" +
                                   std::to_string(count);
                benchmark::RegisterBenchmark(name.c_str(), [isa, count](benchmark::State &st) {
                    run_call(st, isa, count);
                });
            }
        }

    // prepare/<variant>/4096: rp_rays_prepare's loop per variant
    for (int v = 0; v < RP_ISA_COUNT && !rpb_miss; v++)
        if ((native & (1u << v)) || v == RP_ISA_SCALAR) {
            rp_isa isa = (rp_isa)v;
            std::string name = std::string("prepare/") + rp_isa_name(isa) + "/4096";
            benchmark::RegisterBenchmark(name.c_str(), [isa](benchmark::State &st) { run_prepare(st, isa); });
        }

    for (int k = 0; k < RPB_KERNEL_COUNT; k++)
        for (int s = 0; s < RPB_SHAPE_COUNT; s++)
            for (int f = 0; f < RPB_FLAGSET_COUNT; f++) {
                rpb_kernel kk = (rpb_kernel)k;
                rpb_shape ss = (rpb_shape)s;
                unsigned fl = rpb_flagsets[f];
                if (!rpb_case_wanted(kk, ss, fl))
                    continue;
                // scalar is both a variant and the "scalar" baseline: once
                for (int v = 0; v < RP_ISA_COUNT; v++)
                    if ((native & (1u << v)) || v == RP_ISA_SCALAR)
                        add({kk, ss, RPB_IMPL_RAYPACK, fl, (rp_isa)v, "", rp_isa_name((rp_isa)v)});
                if (rpb_impl_has(RPB_IMPL_NAIVE, kk, ss, fl))
                    add({kk, ss, RPB_IMPL_NAIVE, fl, RP_ISA_SCALAR, "", "naive"});
                // autovec at each x86 variant's width, where this CPU runs it
                if (rpb_impl_has(RPB_IMPL_AUTOVEC, kk, ss, fl))
                    for (rp_isa a : {RP_ISA_SSE41, RP_ISA_AVX2, RP_ISA_AVX512})
                        if (rpb_autovec_built(a) && (native & (1u << a)))
                            add({kk, ss, RPB_IMPL_AUTOVEC, fl, a, "", rpb_autovec_name(a)});
#ifdef RPB_HAVE_EMBREE
                if (!rpb_miss && rpb_impl_has(RPB_IMPL_EMBREE, kk, ss, fl)) {
                    static const char *const isas[] = {"sse4.2", "avx2", "avx512"};
                    for (int e = 0; e < 3; e++)
                        if (rpb_embree_cpu_has(isas[e]))
                            add({kk, ss, RPB_IMPL_EMBREE, fl, RP_ISA_SCALAR, isas[e],
                                 std::string("embree-") + isas[e]});
                }
#endif
            }
    // scene/<variant>/<kind>/<mesh>: the rp_scene_* API beside Embree (scene_bench.cc)
    if (!rpb_miss)  // (an end-to-end BVH with nothing in the way measures nothing)
        rpb_scene_register(native);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
