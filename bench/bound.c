/*
 * bound.c - the physical bound: the fewest cycles per ray-primitive test
 * that raypack's SIMD kernels could take on the model core, from the vector
 * operations they issue (counted by hand from src/simd/kernels.h, below in
 * ONE table) and the core's issue rates.  The measured cycles per test
 * divided by this bound ("vs_bound") says how much of the machine a kernel
 * leaves unused; 1.0 would be perfect issue with no other cost.
 *
 * The model core is chosen from CPUID (issue #13), or forced with the
 * environment variable RP_BENCH_BOUND_MODEL=zen5|zen4|zen3|goldencove|icelake|fallback
 * (so that every model can be exercised on any machine); the issue rates of
 * each are in `models` below, per vector width.  rpb_bound_model() names the
 * one in use; it is printed once on stderr and in rpb_bound_print_table().
 *
 * AMD Zen 5 (family 0x1A; the model issue #4 names):
 *   - two FP multiply pipes (vmulps),
 *   - two FP pipes shared by add, sub, min, max and compare,
 *   - each 512 bits wide, so an SSE, AVX2 or AVX-512 operation issues at
 *     the same rate; a wider vector does more tests per operation;
 *   - selects (blendv), mask logic (and/or/andnot, k-register ops), sign-bit
 *     operations and broadcasts from a register are assumed to issue on any
 *     of the four FP pipes (the least restrictive assumption, so the bound
 *     stays a lower bound); broadcasts of primitive fields from memory are
 *     load-port operations and cost no FP-pipe slot;
 *   - not in the model, assumptions of ours, stated so they can be
 *     argued with: a vector division or square root takes the divider for
 *     5 cycles (any width; Zen 5 has a full-width divider); a gather
 *     of W floats costs W element loads at 4 per cycle, and
 *     the stream's memory time at the single-core bandwidth measured in the
 *     same run (rpb_measure_bw) is reported beside the bound (mem_cyc), not
 *     folded into it, since a noisy measurement could make it exceed what
 *     the kernel achieves.
 * AMD Zen 4 (family 0x19 with AVX-512: Genoa and Genoa-X, Bergamo, Siena,
 * Raphael, Phoenix, Dragon Range): the same four FP pipes as Zen 5 (two
 * multiply, two add/min/max/compare, selects and mask logic on any), but
 * each 256 bits wide.  An AVX-512 operation is one uop that takes a pair of
 * pipes for its two halves, so at 512 bits each class issues at half the
 * rate: 1 mul, 1 add, 2 of all per cycle (the "double-pumped" AVX-512 of
 * Alexander Yee's Zen 4 AVX-512 teardown).  Measured on an EPYC (family
 * 0x19 model 0x11) on 2026-11-27 with twelve independent register chains
 * per loop: vaddps, vmulps, vmaxps, vminps and vcmpltps ymm each 2 per
 * cycle; max, min and compare mixed with add still 2 (they share the add
 * pipes), mixed with mul 3.6 (the loop's own uops are the rest); vandps 3.6;
 * the same operations on zmm at half those rates.  vdivps: one every 3
 * cycles on xmm and ymm, 6 on zmm (divider occupancy).  Gathers as
 * element loads at 3 per cycle (Zen 4's three load pipes; its gathers are
 * microcoded and slower, so this keeps the bound a lower bound).
 * AMD Zen 3 (family 0x19 models 0x00-0x0f Milan, 0x20-0x2f Vermeer,
 * 0x40-0x5f Rembrandt and Cezanne; no AVX-512): the same four 256-bit FP
 * pipes as Zen 4.  Measured on an EPYC (family 0x19 model 0x01, a VM) on
 * 2026-11-29 the same way (twelve independent chains per loop, values kept
 * normal, the core clock from bench/clock.c's add chain): vaddps, vmulps,
 * vmaxps and vcmpltps on xmm and ymm each 2 per cycle; max mixed with add
 * still 2 (the add pipes); max, compare or add mixed with mul 3.8-3.9; and,
 * mul and add mixed 3.6; vandps alone 2.2 (counted among "all" at 4 per
 * cycle: so the bound stays a lower bound); vdivps one every 3.4-3.5
 * cycles on xmm and ymm.  Gathers as element loads at 3 per cycle (three
 * load pipes).  No 512-bit figures exist on the core: its 512-bit entries
 * (used only when RP_BENCH_BOUND_MODEL forces this model on another CPU)
 * are Zen 4's, two 256-bit halves per operation.
 * Intel Golden Cove (Sapphire/Emerald Rapids, Alder/Raptor Lake P-cores;
 * Granite Rapids' Redwood Cove is counted as Golden Cove) and Sunny Cove
 * (Ice Lake server): vector ALU ports 0, 1 and 5 (the vector ops of this
 * table issue nowhere else); 512-bit ops fuse ports 0 and 1 into one, so an
 * AVX-512 op issues on p0 or p5 only.  Sources: Intel 64 and IA-32
 * Architectures Optimization Reference Manual (Golden Cove and Sunny Cove
 * microarchitecture chapters: ports, 3 loads/cycle on Golden Cove (2 of
 * 512 bits), 2 on Sunny Cove, port-0/1 fusion for 512-bit uops), uops.info
 * (ADL-P, ICL; EMR for the server part) and Agner Fog's instruction tables
 * (divider throughputs):
 *   - mul/FMA: p0 p1 up to 256 bits, p0 p5 at 512 (server parts: the second
 *     512-bit FMA on p5): 2 per cycle at every width;
 *   - add class: Golden Cove adds/subs on p1 p5 (its fast adders), min/max
 *     and vector-result compares on p0 p1: 3 ports for the class up to 256
 *     bits; Sunny Cove p0 p1: 2; at 512 bits p0 p5: 2 on both (compares
 *     into a k-mask are p5 only; the table does not separate them from
 *     add, so that limit is not applied: the bound stays a lower bound);
 *   - every counted op (mul + add + other): 3 ports up to 256 bits, 2 at
 *     512;
 *   - div/sqrt: divider occupancy of vdivps 3 (xmm), 5 (ymm), 10 (zmm)
 *     cycles (Agner Fog, Ice Lake and Golden Cove rows; sqrt is slower: the
 *     div figure keeps it a lower bound);
 *   - gathers: element loads at 3 per cycle (Golden Cove) or 2 (Sunny
 *     Cove); the 2-per-cycle limit of Golden Cove is for 512-bit loads, not
 *     the 4-byte element loads of a gather;
 *   - NOT modelled, so each Intel bound is lower than the truth: vblendvps
 *     ymm is 3 uops on Golden Cove (2 on Sunny Cove) but "other" counts
 *     every select as one op (the table does not separate selects from mask
 *     logic; the AVX-512 layer's selects are 1-uop masked blends); shuffles
 *     (vf_ld_aos transposes, vpermilps plane choice) run on p5 (and p1 for
 *     some in-lane 256-bit ones) but are counted like "other" on any ALU
 *     port, since part of each transpose (vinsertf128 / vinsertf32x4 from
 *     memory) is a load plus any-port uop.  Latencies do not enter: the
 *     bound is a throughput bound.
 * An Intel family-6 CPU with another model number but AMX-TILE or
 * AVX512-FP16 (what a VM may report for a Sapphire Rapids host) is counted
 * as Golden Cove.
 * Any other CPU (and every non-x86 build) gets "fallback": Zen 5's numbers
 * under a name that says the CPU is not modelled.
 *
 * Cycles per vector step = max(mul / MUL, addcmp / ADD, (mul + addcmp +
 * other) / ALL) + div * DIV, max'ed with the load term (MUL, ADD, ALL, DIV
 * the model's figures for the variant's width; Zen 5: 2, 2, 4, 5); per
 * test = that / W, and
 * the candidate steps (those where some lane passes the division-free
 * test, which then runs the divisions and the acceptance) are counted
 * exactly by replaying the kernel's control flow on the benchmark's data
 * with the scalar reference.  Loop control, pointer arithmetic and the
 * scalar tail work (branches on m_any, the scalar resolution of picking)
 * are integer work on other ports and are not counted.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "scalar/ref.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <stdlib.h>

/* The model cores' issue rates, per vector width: [0] up to 128 bits
 * (scalar, SSE4.1, NEON), [1] 256 bits (AVX2, autovec), [2] 512 bits. */
typedef struct model {
    const char *key;  /* RP_BENCH_BOUND_MODEL value */
    const char *name; /* what rows and tables say */
    double mul[3];    /* ops per cycle: vf_mul */
    double add[3];    /* ops per cycle: add/sub/min/max/compare */
    double all[3];    /* ops per cycle: every counted op (mul + add + other) */
    double div[3];    /* divider cycles per vector div/sqrt */
    double loads[3];  /* element loads per cycle (gathers) */
} model;

enum {
    MODEL_ZEN5,
    MODEL_ZEN4,
    MODEL_ZEN3,
    MODEL_GOLDENCOVE,
    MODEL_ICELAKE,
    MODEL_FALLBACK,
    MODEL_COUNT
};

static const model models[MODEL_COUNT] = {
    [MODEL_ZEN5] = {"zen5", "Zen 5: 2 mul + 2 add/min/max/cmp pipes, 512-bit",
                    {2, 2, 2}, {2, 2, 2}, {4, 4, 4}, {5, 5, 5}, {4, 4, 4}},
    [MODEL_ZEN4] = {"zen4",
                    "Zen 4: 2 mul + 2 add/min/max/cmp pipes, 256-bit; 512-bit ops take"
                    " a pair (half rate)",
                    {2, 2, 1}, {2, 2, 1}, {4, 4, 2}, {3, 3, 6}, {3, 3, 3}},
    [MODEL_ZEN3] = {"zen3",
                    "Zen 3: 2 mul + 2 add/min/max/cmp pipes, 256-bit (no AVX-512)",
                    {2, 2, 1}, {2, 2, 1}, {4, 4, 2}, {3.5, 3.5, 6}, {3, 3, 3}},
    [MODEL_GOLDENCOVE] = {"goldencove",
                          "Golden Cove (Sapphire Rapids): p0 p1 p5, 2 mul, 3 add/min/max/cmp"
                          " up to 256-bit; 512-bit on p0 p5 only",
                          {2, 2, 2}, {3, 3, 2}, {3, 3, 2}, {3, 5, 10}, {3, 3, 3}},
    [MODEL_ICELAKE] = {"icelake",
                       "Sunny Cove (Ice Lake server): p0 p1 p5, 2 mul, 2 add/min/max/cmp"
                       " up to 256-bit; 512-bit on p0 p5 only",
                       {2, 2, 2}, {2, 2, 2}, {3, 3, 2}, {3, 5, 10}, {2, 2, 2}},
    [MODEL_FALLBACK] = {"fallback", "fallback (CPU not modelled): Zen 5's numbers",
                        {2, 2, 2}, {2, 2, 2}, {4, 4, 4}, {5, 5, 5}, {4, 4, 4}},
};

/* The model from CPUID: vendor string, family and model. */
static int model_from_cpuid(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    char vendor[13];
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return MODEL_FALLBACK;
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    vendor[12] = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return MODEL_FALLBACK;
    /* The extended model counts for base families 6 and 15 (AMD's 0x19 and
     * 0x1A are base 15 plus an extended family), so test the base family
     * before adding the extension to it. */
    unsigned base = (a >> 8) & 0xf, fam = base, mod = (a >> 4) & 0xf;
    if (base == 0xf)
        fam += (a >> 20) & 0xff;
    if (base == 0x6 || base == 0xf)
        mod |= ((a >> 16) & 0xf) << 4;
    if (!strcmp(vendor, "AuthenticAMD") && fam == 0x1a)
        return MODEL_ZEN5;
    if (!strcmp(vendor, "AuthenticAMD") && fam == 0x19) {
        switch (mod >> 4) {
        case 0x1: /* Genoa, Genoa-X (0x10-0x1f) */
        case 0x6: /* Raphael (0x60-0x6f) */
        case 0x7: /* Phoenix, Dragon Range (0x70-0x7f) */
        case 0xa: /* Bergamo, Siena (0xa0-0xaf) */
            return MODEL_ZEN4;
        case 0x0: /* Milan, Chagall (0x00-0x0f) */
        case 0x2: /* Vermeer (0x20-0x2f) */
        case 0x4: /* Rembrandt, Zen 3+ (0x40-0x4f) */
        case 0x5: /* Cezanne, Barcelo (0x50-0x5f) */
            return MODEL_ZEN3;
        default: break;
        }
    }
    if (!strcmp(vendor, "GenuineIntel") && fam == 6) {
        switch (mod) {
        case 0x8f: /* Sapphire Rapids */
        case 0xcf: /* Emerald Rapids */
        case 0xad: case 0xae: /* Granite Rapids (Redwood Cove) */
        case 0x97: case 0x9a: /* Alder Lake (P-cores) */
        case 0xb7: case 0xba: case 0xbf: /* Raptor Lake (Raptor Cove) */
            return MODEL_GOLDENCOVE;
        case 0x6a: case 0x6c: /* Ice Lake server */
            return MODEL_ICELAKE;
        default: break;
        }
        /* A hypervisor may report another model number (a Sapphire Rapids
         * VM seen here on 2026-11-28 said family 6 model 0xa7, Rocket
         * Lake's, with AMX and AVX512-FP16 in its flags).  AMX-TILE and
         * AVX512-FP16 (CPUID 7.0 EDX bits 24 and 23) exist only on Golden
         * Cove server cores and their successors (Sapphire, Emerald and
         * Granite Rapids), so either one names the core. */
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 24 | 1u << 23)))
            return MODEL_GOLDENCOVE;
    }
#endif
    return MODEL_FALLBACK;
}

static const model *model_get(void) {
    static int chosen = -1;
    if (chosen < 0) {
        const char *e = getenv("RP_BENCH_BOUND_MODEL");
        const char *how = "from CPUID";
        if (e && *e) {
            for (int i = 0; i < MODEL_COUNT; i++)
                if (!strcmp(e, models[i].key))
                    chosen = i;
            if (chosen < 0) { /* the names from the table, so none is left out */
                fprintf(stderr, "bound: RP_BENCH_BOUND_MODEL=%s unknown (", e);
                for (int i = 0; i < MODEL_COUNT; i++)
                    fprintf(stderr, "%s%s", i ? ", " : "", models[i].key);
                fprintf(stderr, "): chosen from CPUID\n");
            } else
                how = "forced by RP_BENCH_BOUND_MODEL";
        }
        if (chosen < 0)
            chosen = model_from_cpuid();
        fprintf(stderr, "bound: model %s (%s)\n", models[chosen].name, how);
    }
    return &models[chosen];
}

const char *rpb_bound_model(void) { return model_get()->name; }

/* The width class of W lanes: 0 up to 128 bits, 1 256, 2 512. */
static int width_of(int W) { return W >= 16 ? 2 : W >= 8 ? 1 : 0; }

/* FP-pipe cycles of one step with ops o at width class x. */
#define STEP_CYC(m, o, x)                                                                   \
    fmax(fmax((o)->mul / (m)->mul[x], (o)->add / (m)->add[x]),                             \
         ((o)->mul + (o)->add + (o)->other) / (m)->all[x])

/* Vector operations of one step (one vector of W lanes). */
typedef struct ops {
    double mul;    /* vf_mul */
    double add;    /* vf_add, vf_sub, vf_min, vf_max, vf_lt/le/gt/ge/eq/neq */
    double other;  /* vf_select, vi_select, m_and/or/andnot, xorsign, neg,
                      vi_set1 / vf_set1 from a register, m_any, m_store01 */
    double div;    /* vf_div, vf_sqrt */
    double gather; /* vf_gather calls (W element loads each) */
} ops;

/* The op-count table.  Each row is one step of a loop in kernels.h. */
enum {
    ROW_SLAB,        /* intersect_aabb: one vector of rays against the box */
    ROW_BOX_PACKET,  /* closest_packet, K_BOX: one broadcast box */
    ROW_BOX_PACKET_S,/* ... its live lanes in one octant: the planes chosen once */
    ROW_BOX_PACKET_C,/* ... extra when a lane hits */
    ROW_BOX_ACROSS,  /* closest_across, K_BOX: W gathered boxes, one ray */
    ROW_BOX_ACROSS_T,/* ... W boxes by loads and shuffles (vf_ld_aos) */
    ROW_BOX_ACROSS_C,/* ... extra when a lane is a candidate */
    ROW_TRI,         /* closest_packet / occluded_packet, K_TRI: one broadcast triangle */
    ROW_TRI_E,       /* ... the triangle's edges prepared (RP_I_EDGES, n >= 3W) */
    ROW_TRI_PREP,    /* ... preparing them: once per triangle and call */
    ROW_TRI_C,       /* closest_packet: extra when a lane is a candidate */
    ROW_OCC_C,       /* occluded_packet: extra when a lane is a candidate */
    ROW_TRI_ACROSS,  /* closest_across, K_TRI: W gathered triangles */
    ROW_TRI_ACROSS_T,/* ... W triangles by loads and shuffles (vf_ld_aos) */
    ROW_TRI_ACROSS_C,/* ... extra when a lane is a candidate */
    ROW_SPH,         /* closest_packet, K_SPH: one broadcast sphere */
    ROW_SPH_C,       /* ... extra when a lane is a candidate */
    ROW_WT,          /* closest_packet / occluded_packet, K_WT (RP_WATERTIGHT) */
    ROW_WT_C,        /* closest_packet, K_WT: extra when a lane is a candidate */
    ROW_WT_OCC_C,    /* occluded_packet, K_WT: extra when a lane is a candidate */
    ROW_WT_ACROSS,   /* closest_across, K_WT: W gathered triangles */
    ROW_WT_ACROSS_T, /* ... W triangles by loads and shuffles (vf_ld_aos) */
    ROW_WT_ACROSS_C, /* ... extra when a lane is a candidate */
    ROW_COUNT
};

/* The watertight packet step's vf_pick calls (3 vertices x 3 axes), each
 * one in-register permute of a 4-float broadcast load (pshufb, vpermilps,
 * vpermps, tbl), on packets whose live lanes have different kz only: when
 * they all share kz (wt_uniform; the benchmark's camera-like bundles do),
 * the vertex components are broadcast loads (load ports, no FP op), and the
 * scalar reference indexes the vertex arrays (loads).  Added per step by the
 * replay where they are issued. */
#define WT_PICKS 9.0

static const struct { const char *name; ops o; } table[ROW_COUNT] = {
    /* negx/negy/negz: 3 lt; per axis 2 select, 2 sub, 2 mul, max, min
     * (slab_axis); tn <= tf: 1 le; rdx == rdx: 1 eq; 2 m_and with the
     * validity masks; m_bits of active: 1; m_store01: 1.
     * mul 6, addcmp 3 + 6 + 6 + 1 + 1 = 17, other 6 + 2 + 1 + 1 = 10. */
    [ROW_SLAB] = {"slab (per ray vector)", {6, 17, 10, 0, 0}},
    /* slab: 6 select (vf_planes), 6 sub, 6 mul, 3 max, 3 min, 1 le; m_any
     * (dead lanes carry a NaN best, so no lane mask).
     * mul 6, addcmp 6 + 6 + 1 = 13, other 6 + 1 = 7. */
    [ROW_BOX_PACKET] = {"aabb packet step", {6, 13, 7, 0, 0}},
    /* the same with the planes broadcast from their places (slab_bc_oct):
     * no selects.  mul 6, addcmp 13, other 1. */
    [ROW_BOX_PACKET_S] = {"aabb packet step, one octant", {6, 13, 1, 0, 0}},
    /* the box's validity: 3 le + 3 m_and; acceptance lt + m_or + m_and;
     * m_any.  (The updates of best, nothas, upd and prim on the steps
     * that also accept are not counted.)  addcmp 3 + 1 = 4, other 6. */
    [ROW_BOX_PACKET_C] = {"aabb packet hit", {0, 4, 6, 0, 0}},
    /* 6 gathers; the slab without selects (one ray: its planes are
     * ordered by swapping whole vectors, chosen in scalar): 6 sub, 6 mul,
     * 3 max, 3 min, 1 le; vf_set1(best), m_and lanes, m_any.
     * mul 6, addcmp 13, other 3. */
    [ROW_BOX_ACROSS] = {"aabb across step", {6, 13, 3, 0, 6}},
    /* the same, the boxes transposed in registers by vf_ld_aos: loads
     * (load ports, not counted) and the shuffles of box_transpose_ops(),
     * added per variant.  mul 6, addcmp 13, other 3 + shuffles. */
    [ROW_BOX_ACROSS_T] = {"aabb across step (shuffles)", {6, 13, 3, 0, 0}},
    /* box_valid_v: 3 le + 3 m_and; ge, le; 2 m_and; m_bits; 1 store of t
     * (scalar resolution not counted).  addcmp 5, other 7. */
    [ROW_BOX_ACROSS_C] = {"aabb across candidate", {0, 5, 7, 0, 0}},
    /* e1, e2: 6 sub; p = cross(d, e2): 6 mul 3 sub; det: 3 mul 2 add;
     * s = o - v0: 3 sub; uu: 3 mul 2 add; q = cross(s, e1): 6 mul 3 sub;
     * vv: 3 mul 2 add (tt = dot(e2, q) only on candidate steps); xorsign
     * x3: 3 (AVX-512: one vpternlogd each; the other layers take the sign
     * of det once and 3 xor, 4); uvs: 1 add; inside: min, ge, le, m_and;
     * m_and with todo (occluded_packet; closest_packet has none: a lane
     * out of play has a NaN best); m_any.  (usable: det != 0 on candidate
     * steps, tri_late; with culling det > 0 here, not counted: the
     * benchmarks do not cull.)
     * mul 21, addcmp 6 + 3 + 2 + 3 + 2 + 3 + 2 + 1 + 3 = 25,
     * other 3 + 1 + 1 + 1 = 6. */
    [ROW_TRI] = {"triangle packet step", {21, 25, 6, 0, 0}},
    /* the same without the 6 edge subtractions: addcmp 19. */
    [ROW_TRI_E] = {"triangle packet step, edges prepared", {21, 19, 6, 0, 0}},
    /* tri_edges: 6 subtractions per triangle (scalar or 128-bit; counted
     * as one op each at the 128-bit rate, a lower bound) per call. */
    [ROW_TRI_PREP] = {"triangle edges (once per call)", {0, 6, 0, 0, 0}},
    /* det != 0 + m_and (tri_late); tt: 3 mul 2 add; t = tt / det;
     * rp_ref_accept: ge, le, lt + 2 and, or, and; best select, nothas
     * andnot, upd or, prim select + set1, buu/bvv/bdet selects.
     * mul 3, addcmp 1 + 2 + 3, other 1 + 4 + 5 + 3 = 13, div 1. */
    [ROW_TRI_C] = {"triangle closest candidate", {3, 6, 13, 1, 0}},
    /* det != 0 + m_and; tt: 3 mul 2 add; t = tt / det; ge, le, 2 and;
     * occ or; todo andnot; m_any(todo). */
    [ROW_OCC_C] = {"triangle any-hit candidate", {3, 5, 6, 1, 0}},
    /* 9 gathers; the triangle step as in a packet; vf_set1(best) (unused by
     * triangles but issued), m_and lanes, m_any.  mul 21, addcmp 25, other
     * 5 + 3 = 8. */
    [ROW_TRI_ACROSS] = {"triangle across step", {21, 25, 8, 0, 9}},
    /* the same, the triangles transposed in registers (the shuffles of
     * tri_transpose_ops() added per variant). */
    [ROW_TRI_ACROSS_T] = {"triangle across step (shuffles)", {21, 25, 8, 0, 0}},
    /* det != 0 + m_and; tt: 3 mul 2 add; div; ge, le; 2 and; m_bits;
     * stores of t, uu, vv, det: 4. */
    [ROW_TRI_ACROSS_C] = {"triangle across candidate", {3, 5, 8, 1, 0}},
    /* oc: 3 sub; a, b, c: 9 mul 6 add; rr: 1 mul; c - rr; bb, ac: 2 mul;
     * disc: 1 sub; 2 ge; m_and; m_and live; m_any.
     * (a = dot(d, d) is recomputed per sphere, as the reference does.)
     * mul 12, addcmp 3 + 6 + 1 + 1 + 2 = 13, other 3. */
    [ROW_SPH] = {"sphere packet step", {12, 13, 3, 0, 0}},
    /* sqrt + 1 div; neg; sub; ge, andnot, m_any (the far root, add + div
     * + select, only where a candidate's near root is below tmin: not
     * counted); acceptance as for triangles without the uv selects.
     * addcmp 1 + 1 + 3 = 5, other 1 + 2 + 4 + 5 = 12, div 2. */
    [ROW_SPH_C] = {"sphere closest candidate", {0, 5, 12, 2, 0}},
    /* wt_cand without the exact path (the vertices already in the ray's
     * frame; + WT_PICKS on mixed-kz packets, see above): per vertex 3 sub,
     * 2 mul, 2 sub; U, V, W: 6 mul 3 sub; neg: 3 le, 2 m_and; pos: 3 ge, 2
     * m_and; m_or; m_and with todo (as ROW_TRI); m_any.  (The exact-zero
     * test and det = (U + V) + W are in tri_late, on candidate steps.)
     * mul 6 + 6 = 12, addcmp 15 + 3 + 6 = 24, other 4 + 1 + 1 + 1 = 7. */
    [ROW_WT] = {"watertight packet step (+picks)", {12, 24, 7, 0, 0}},
    /* tri_late: the exact-zero test 3 eq, 2 m_or, m_and with c, m_any (the
     * double recomputation itself, on the rare steps where an inside lane
     * has a zero edge function, is not counted); det: 2 add; neq + m_and;
     * wt_t: 3 mul (sz * z), 3 mul, 2 add, div; acceptance and updates as
     * ROW_TRI_C (3 compares, 4 + 5 + 3 other).
     * mul 6, addcmp 3 + 2 + 1 + 2 + 3 = 11, other 4 + 1 + 12 = 17, div 1. */
    [ROW_WT_C] = {"watertight closest candidate", {6, 11, 17, 1, 0}},
    /* the exact-zero test 3 eq + 4; det: 2 add; neq + m_and; wt_t: 6 mul 2
     * add, div; ge, le, 2 and; occ or; todo andnot; m_any(todo). */
    [ROW_WT_OCC_C] = {"watertight any-hit candidate", {6, 10, 10, 1, 0}},
    /* 9 gathers (wt_permute only renames them: no op); wt_cand as in a
     * packet (without its m_and with todo and m_any: 5 other);
     * vf_set1(best), m_and lanes, m_any.  mul 12, addcmp 24, other 5 + 3. */
    [ROW_WT_ACROSS] = {"watertight across step", {12, 24, 8, 0, 9}},
    /* the same, the triangles transposed in registers (tri_transpose_ops) */
    [ROW_WT_ACROSS_T] = {"watertight across step (shuffles)", {12, 24, 8, 0, 0}},
    /* the exact-zero test 3 eq + 4; det: 2 add; neq + m_and; wt_t: 6 mul 2
     * add, div; ge, le; 2 and; m_bits; stores of t, uu, vv, det: 4. */
    [ROW_WT_ACROSS_C] = {"watertight across candidate", {6, 10, 12, 1, 0}},
};

static int lanes_of(const char *variant) {
    if (!strcmp(variant, "scalar")) return 1;
    if (!strcmp(variant, "sse41") || !strcmp(variant, "neon")) return 4;
    if (!strcmp(variant, "autovec-sse41")) return 4;
    if (!strcmp(variant, "avx2") || !strcmp(variant, "autovec")) return 8;
    if (!strcmp(variant, "avx512") || !strcmp(variant, "autovec-avx512")) return 16;
    return 0;
}

/* The shuffles with which a variant's vf_ld_aos transposes W boxes, or -1
 * where it gathers: SSE4.1 12 (unpack, movelh/movehl), AVX2 8 insertf128
 * + 12, AVX-512 6 x (3 vpermt2ps + 2 masked merges). */
static double box_transpose_ops(const char *variant) {
    if (!strcmp(variant, "sse41")) return 12;
    if (!strcmp(variant, "avx2")) return 20;
    if (!strcmp(variant, "avx512")) return 30;
    return -1;
}

/* The same for W triangles (3 groups of 4 fields, the last one for one
 * field): SSE4.1 8 + 8 + 3 shuffles, AVX2 24 insertf128 + 19, AVX-512 36
 * insertf32x4 + 19. */
static double tri_transpose_ops(const char *variant) {
    if (!strcmp(variant, "sse41")) return 19;
    if (!strcmp(variant, "avx2")) return 43;
    if (!strcmp(variant, "avx512")) return 55;
    return -1;
}

/* FP-pipe cycles of n steps of a row (plus `extra` other ops), loads, and
 * the candidate steps (those whose branch leads to the acceptance). */
typedef struct acc { double fp, div, loads, cand; } acc;

static int cand_row(int row) {
    switch (row) {
    case ROW_BOX_PACKET_C: case ROW_BOX_ACROSS_C: case ROW_TRI_C: case ROW_OCC_C:
    case ROW_TRI_ACROSS_C: case ROW_SPH_C: case ROW_WT_C: case ROW_WT_OCC_C:
    case ROW_WT_ACROSS_C:
        return 1;
    default:
        return 0;
    }
}

static void add_row_x(acc *a, int row, double n, int w, double extra) {
    ops x = table[row].o;
    const ops *o = &x;
    const model *m = model_get();
    int wx = width_of(w);
    x.other += extra;
    a->fp += n * STEP_CYC(m, o, wx);
    a->div += n * o->div * m->div[wx];
    a->loads += n * o->gather * (double)w / m->loads[wx];
    if (cand_row(row))
        a->cand += n;
}

static void add_row(acc *a, int row, double n, int w) { add_row_x(a, row, n, w, 0); }

static rp_ray1 ray_at(const rp_rays *r, size_t i, float tmax) {
    rp_ray1 x = {r->ox[i], r->oy[i], r->oz[i], r->dx[i], r->dy[i], r->dz[i],
                 r->rdx[i], r->rdy[i], r->rdz[i], r->tmin[i], tmax};
    return x;
}

/* Candidate (division-free test passed) of ray i and primitive j. */
static int cand(const rpb_work *w, size_t i, size_t j, float best, float *t) {
    rp_ray1 r = ray_at(&w->rays, i, best);
    if (w->boxes) {
        float tn, tf;
        int h = rp_ref_slab(&r, &w->boxes[j], &tn, &tf);
        *t = tn;
        return h;
    }
    if (w->tris && (w->flags & RP_WATERTIGHT)) {
        rp_wt_ray wr = rp_ref_wt_setup(&r);
        rp_wt_eval e = rp_ref_wt_eval(&r, &wr, &w->tris[j], w->flags);
        *t = e.candidate ? rp_ref_wt_t(&r, &wr, &w->tris[j], &e) : INFINITY;
        return e.candidate;
    }
    if (w->tris) {
        rp_tri_eval e = rp_ref_tri_eval(&r, &w->tris[j], w->flags);
        *t = e.candidate ? rp_ref_tri_t(&e) : INFINITY;
        return e.candidate;
    }
    int c = rp_ref_sphere(&r, &w->spheres[j], t);
    return c;
}

/* Replays kernels.h's loops on w's data, counting steps and candidate
 * steps; returns the summed cycles on the model core. */
/* Extra ops of intersect_aabb's plane choice per step: the AVX2 layer
 * swaps the planes by xor/and (vf_cswap: 4 logic ops per axis) rather than
 * by 2 selects, so 6 more "other" ops than the table's 6 selects.  (In
 * closest_packet its vf_planes takes 2 in-lane permutes per axis: the
 * table's 6.) */
static double cswap_extra(const char *variant) { return !strcmp(variant, "avx2") ? 6 : 0; }

static acc replay(const rpb_work *w, int W, double box_shuffles, double tri_shuffles,
                  double sel_extra, int pairs, int raypack) {
    acc a = {0, 0, 0, 0};
    size_t n = w->nrays, m = w->nprims;
    rpb_kernel k = w->kernel;
    /* the triangle rows: Moller-Trumbore, or the watertight test; the
     * raypack variants prepare Moller-Trumbore edges once per call from 3
     * packets on (RP_EDGE_RAYS in src/simd/block.h) */
    const int wt = (k == RPB_TRI || k == RPB_OCCL) && (w->flags & RP_WATERTIGHT);
    const int edges = raypack && !wt && (k == RPB_TRI || k == RPB_OCCL) && n >= 3 * (size_t)W;
    if (edges)
        add_row(&a, ROW_TRI_PREP, (double)m, 4);
    const int r_step = wt ? ROW_WT : edges ? ROW_TRI_E : ROW_TRI, r_cl = wt ? ROW_WT_C : ROW_TRI_C,
              r_occ = wt ? ROW_WT_OCC_C : ROW_OCC_C;
    const int r_ac = wt ? ROW_WT_ACROSS : ROW_TRI_ACROSS,
              r_ac_t = wt ? ROW_WT_ACROSS_T : ROW_TRI_ACROSS_T,
              r_ac_c = wt ? ROW_WT_ACROSS_C : ROW_TRI_ACROSS_C;

    if (k == RPB_SLAB) {
        add_row_x(&a, ROW_SLAB, (double)((n + W - 1) / W) * (double)m, W, sel_extra);
        return a;
    }
    /* closest_pair (src/simd/closest.h, in a layer with RP_V_PAIR: pairs):
     * 5 to W/2 rays in both halves of the vector, two Moller-Trumbore
     * triangles per step of W lanes.  (Below 5 rays the kernel pairs only
     * where closest_across would not run; that case is left to the rows
     * below.) */
    if (pairs && k == RPB_TRI && !wt && n >= 5 && n <= (size_t)W / 2) {
        for (size_t j = 0; j < m; j += 2) {
            add_row(&a, r_step, 1, W);
            int any = 0;
            for (size_t i = 0; i < n; i++)
                for (size_t l = j; l < j + 2 && l < m; l++) {
                    float t;
                    any |= cand(w, i, l, w->tmax0[i], &t);
                }
            if (any)
                add_row(&a, r_cl, 1, W);
        }
        return a;
    }
    if (n < (size_t)W) { /* closest_across / occluded_across, per ray */
        for (size_t i = 0; i < n; i++) {
            float best = w->tmax0[i];
            for (size_t j = 0; j < m; j += W) {
                if (k != RPB_AABB && tri_shuffles >= 0)
                    add_row_x(&a, r_ac_t, 1, W, tri_shuffles);
                else if (k != RPB_AABB)
                    add_row(&a, r_ac, 1, W);
                else if (box_shuffles >= 0)
                    add_row_x(&a, ROW_BOX_ACROSS_T, 1, W, box_shuffles);
                else
                    add_row(&a, ROW_BOX_ACROSS, 1, W);
                int any = 0;
                float nb = best;
                for (size_t l = j; l < j + (size_t)W && l < m; l++) {
                    float t;
                    if (cand(w, i, l, best, &t)) {
                        any = 1;
                        if (t >= w->rays.tmin[i] && t < nb)
                            nb = t;
                    }
                }
                if (any)
                    add_row(&a, k == RPB_AABB ? ROW_BOX_ACROSS_C : r_ac_c, 1, W);
                best = nb;
            }
        }
        return a;
    }
    for (size_t i0 = 0; i0 < n; i0 += (size_t)W) {
        size_t end = i0 + (size_t)W < n ? i0 + (size_t)W : n;
        if (k == RPB_AABB) { /* the slab clips by each ray's running best */
            float best[64];
            int has[64] = {0};
            /* the raypack variants choose the planes once where the rays
             * share the signs of rd (packet_oct; every ray here is valid) */
            unsigned sx = 0, sy = 0, sz = 0;
            for (size_t i = i0; i < end; i++) {
                best[i - i0] = w->tmax0[i];
                sx |= 1u << (w->rays.rdx[i] < 0.0f);
                sy |= 1u << (w->rays.rdy[i] < 0.0f);
                sz |= 1u << (w->rays.rdz[i] < 0.0f);
            }
            const int row = raypack && sx != 3 && sy != 3 && sz != 3 ? ROW_BOX_PACKET_S
                                                                   : ROW_BOX_PACKET;
            for (size_t j = 0; j < m; j++) {
                add_row(&a, row, 1, W);
                int any = 0;
                for (size_t i = i0; i < end; i++) {
                    float t;
                    if (!cand(w, i, j, best[i - i0], &t))
                        continue;
                    any = 1;
                    if (rp_ref_accept(t, w->rays.tmin[i], best[i - i0], has[i - i0])) {
                        best[i - i0] = t;
                        has[i - i0] = 1;
                    }
                }
                if (any)
                    add_row(&a, ROW_BOX_PACKET_C, 1, W);
            }
            continue;
        }
        uint8_t done[64] = {0};
        /* watertight: the per-lane picks unless every live lane has the
         * same kz (wt_uniform) */
        double picks = 0;
        if (wt && W > 1) {
            int kz = -1;
            for (size_t i = i0; i < end; i++) {
                rp_ray1 ri = ray_at(&w->rays, i, w->tmax0[i]);
                if (!(ri.rdx == ri.rdx))
                    continue;
                int z = rp_ref_wt_setup(&ri).kz;
                if (kz >= 0 && z != kz)
                    picks = WT_PICKS;
                kz = z;
            }
        }
        for (size_t j = 0; j < m; j++) {
            if (k == RPB_OCCL) {
                int todo = 0;
                for (size_t i = i0; i < end; i++)
                    todo |= !done[i - i0];
                if (!todo)
                    break;
            }
            if (k == RPB_SPHERE)
                add_row(&a, ROW_SPH, 1, W);
            else
                add_row_x(&a, r_step, 1, W, picks);
            int any = 0;
            for (size_t i = i0; i < end; i++) {
                float t;
                if (done[i - i0])
                    continue;
                if (cand(w, i, j, w->tmax0[i], &t)) {
                    any = 1;
                    if (k == RPB_OCCL && t >= w->rays.tmin[i] && t <= w->tmax0[i])
                        done[i - i0] = 1;
                }
            }
            if (any)
                add_row(&a, k == RPB_SPHERE ? ROW_SPH_C : k == RPB_OCCL ? r_occ : r_cl, 1, W);
        }
    }
    return a;
}

rpb_bound rpb_bound_for(const rpb_work *w, const char *variant, double bytes_per_cycle) {
    rpb_bound b = {0, 0, 0, 0, 0};
    int W = lanes_of(variant);
    /* autovec vectorises over rays only: a single ray runs one lane.  GCC
     * vectorises a loop's epilogue at the next narrower width (256 bits
     * under -mprefer-vector-width=512), so 8 to 15 rays run 8 lanes in the
     * AVX-512 build (tri/autovec-avx512/8x8 ran at 6.0 cyc/test, half the
     * one-lane count's 13) */
    int autovec = !strncmp(variant, "autovec", 7);
    if (autovec && w->nrays < (size_t)W)
        W = W > 8 && w->nrays >= (size_t)W / 2 ? W / 2 : 1;
    if (!W || w->nrays > 64 * 1024 * 1024)
        return b;
    /* the replay is O(tests) in scalar: skip it where it would take long */
    if (w->kernel != RPB_SLAB && rpb_work_tests(w) > 2e6)
        return b;
    acc a = replay(w, W, box_transpose_ops(variant), tri_transpose_ops(variant),
                   cswap_extra(variant), !strcmp(variant, "avx512"), W > 1 && !autovec);
    double tests = rpb_work_tests(w);
    b.compute = (a.fp + a.div) / tests;
    b.cand_steps = a.cand / tests;
    double loads = a.loads / tests;
    /* the memory term only for the full 1M-ray stream (44 MB, like the
     * triad's 48 MB); the quick smoke stream (2.8 MB) lives in cache */
    if (w->shape == RPB_STREAM && w->nrays >= (1u << 20) && bytes_per_cycle > 0) {
        /* 8 input floats (o, rd, tmin, tmax) read, hit byte + tnear + tfar written */
        b.memory = (8.0 * 4.0 + 1.0 + 4.0 + 4.0) / bytes_per_cycle;
    }
    /* the memory term is reported beside the bound, not in it: the triad
     * measured on a shared machine underestimates the bandwidth, and a
     * "bound" must never exceed what the kernel can do */
    b.cycles = fmax(b.compute, loads);
    b.known = 1;
    return b;
}

void rpb_bound_print_table(void) {
    const model *m = model_get();
    printf("model core: %s\n  ops/cycle (<=128 / 256 / 512-bit): mul %g/%g/%g, addcmp %g/%g/%g,"
           " all %g/%g/%g; div/sqrt %g/%g/%g cycles; %g/%g/%g element loads/cycle\n",
           m->name, m->mul[0], m->mul[1], m->mul[2], m->add[0], m->add[1], m->add[2], m->all[0],
           m->all[1], m->all[2], m->div[0], m->div[1], m->div[2], m->loads[0], m->loads[1],
           m->loads[2]);
    printf("%-34s %5s %6s %6s %4s %6s %10s %10s %10s\n", "step (kernels.h)", "mul", "addcmp", "other",
           "div", "gather", "cyc/v128", "cyc/v256", "cyc/v512");
    for (int r = 0; r < ROW_COUNT; r++) {
        const ops *o = &table[r].o;
        printf("%-34s %5.0f %6.0f %6.0f %4.0f %6.0f", table[r].name, o->mul, o->add, o->other,
               o->div, o->gather);
        for (int x = 0; x < 3; x++)
            printf(" %10.2f", STEP_CYC(m, o, x) + o->div * m->div[x]);
        printf("\n");
    }
}
