/*
 * kernels.h - the one template of raypack's SIMD kernels: every batch loop of
 * every SIMD variant, written once against a small vector layer that each
 * ISA file (src/sse, src/avx2, src/avx512, src/neon) defines before it
 * includes this file.  Every lane performs exactly the IEEE operations of the
 * scalar reference (src/scalar/ref.h) in the same order, so the variants
 * return the reference's results bit for bit.  Two shapes give the same
 * results: ray packets (W rays per step, each primitive broadcast; used when
 * n >= W) and one ray against W primitives per step (vf_ld_aos: strided
 * gathers or a transposition in registers, the lanes then resolved in
 * index order; used when n < W, e.g. picking).  Partial blocks (of rays or of primitives) go through small
 * zero-padded stack copies, so nothing outside the caller's arrays is ever
 * read or written.  These files contain no intrinsics.
 *
 * The template is in parts, included below in this order, each relying on
 * those before it:
 *   src/simd/block.h          the lane types (vray, vprim, veval), the kinds
 *                             K_*, loading blocks of rays, primitives and
 *                             active masks
 *   src/simd/prim.h           the per-primitive steps (slab, triangles,
 *                             spheres, planes, the watertight test), as in
 *                             src/scalar/ref.h
 *   src/simd/closest.h        the closest-hit loops and entry points, and
 *                             intersect_aabb
 *   src/simd/occluded.h       the any-hit loops and entry point
 *   src/simd/prepare.h        rp_rays_prepare's loop (1 / d per ray)
 *   src/scene/traverse_simd.h the scene traversals (over block.h, prim.h)
 * and last the dispatch table, RP_SIMD_TABLE.  A variant may also hand
 * scene packets to another width's (defining RP_SIMD_NARROW_PACKETS as
 * that function, which a second file makes from this template with
 * RP_SIMD_PACKETS_FN defined: then only block.h, prim.h and the
 * traversal, and no table): its packets of mixed direction signs where
 * RP_SIMD_MIXED_ON (an int) is nonzero, those whose rays are not all
 * short where RP_SIMD_MIXED_LONG_ON(s) is (scene s), and every packet of
 * a query on scene s where RP_SIMD_NARROW_ON(s) is.
 *
 * The vector layer (static inline functions of the ISA file):
 *   types  vf (W floats), vi (W uint32), vm (a W-lane mask); V_W (= W);
 *          RP_SIMD_ISA (rp_isa value) and RP_SIMD_TABLE (the table's name)
 *   vf     vf_set1, vf_bcast(p) (= vf_set1(*p), a broadcast from memory that
 *          the compiler must not turn into scalar arithmetic where that is
 *          slower), vf_loadu, vf_storeu (4-byte aligned pointers suffice),
 *          vf_add, vf_sub, vf_mul, vf_div, vf_sqrt (correctly rounded),
 *          vf_neg and vf_xorsign(a, s) (sign-bit operations, exact),
 *          vf_min(a, b) = a < b ? a : b, vf_max(a, b) = a > b ? a : b,
 *          vf_lt, vf_le, vf_gt, vf_ge, vf_eq (ordered), vf_neq (true for NaN
 *          like C's !=), vf_nlt(a, b) = !(a < b), vf_ngt(a, b) = !(a > b), vf_select(m, a, b) = m ? a : b, vf_cswap(m, &a, &b)
 *          (swaps a and b in the lanes of m), vf_planes(p, m, &n, &f)
 *          (n = m ? p[3] : p[0], f = m ? p[0] : p[3]; reads p[0..3]),
 *          vf_gather(p, s) = {p[0], p[s], ..., p[(W-1)*s]},
 *          vf_ld_aos(p, nf, out): out[k] = vf_gather(p + k, nf) for k < nf
 *          (W records of nf <= 9 floats; reads exactly W * nf floats)
 *          vp (a per-lane pick index), vp_make(k) (k: a vi of 0..3),
 *          vf_pick(p, k): lane l = p[k_l] (reads p[0..3]; the watertight
 *          test's per-lane axis permutation of a broadcast vertex)
 *   vi     vi_set1, vi_loadu, vi_storeu, vi_eq, vi_select(m, a, b)
 *   vm     m_and, m_or, m_andnot(a, b) = a & ~b, m_any, m_bits (bit k =
 *          lane k), m_lanes(k) (lanes 0..k-1 set, 0 <= k <= W),
 *          m_from_bytes(p) (lane k set iff p[k] != 0, reads W bytes),
 *          m_store01(p, m) (writes W bytes 0 or 1)
 *   picks  optional, with RP_V_PICKR defined (wt_pick_sel in prim.h; SSE4.1
 *          and AVX2): vf_xyz(x, y, z) (broadcasts as x, y, z in each 128-bit
 *          block), vf_pickr(t, k) (each lane's component k of such a t)
 *   pairs  optional, with RP_V_PAIR defined (closest.h's closest_pair: two
 *          primitives per step for at most W/2 rays; AVX-512 only):
 *          vf_dup_lo (the low half in both halves),
 *          vf_swap_halves, m_lo (the low half's lanes),
 *          m_hi_to_lo (the high half's lanes moved to the low half),
 *          m_dup_lo (the low half's lanes in both halves),
 *          vf_loadu_dup(p) (p[0 .. W/2-1] in both halves),
 *          bc_prim2(p, q, nf, out) (field k of the records at p and q in
 *          the low and the high half)
 */
#ifndef V_W
#error "src/simd/kernels.h is included by an ISA file after its vector layer"
#endif

#include "simd/block.h"
#include "simd/prim.h"
#if defined(RP_SIMD_PACKETS_FN)
/* A second width of a variant (src/avx512/scene8_avx512.c): the scene's
 * packets alone, as the function RP_SIMD_PACKETS_FN (scene.h). */
#include "scene/traverse_simd.h"
#else
#include "simd/closest.h"
#include "simd/occluded.h"
#include "simd/prepare.h"

/* The scene traversal, over the steps above. */
#include "scene/traverse_simd.h"

const rp_kernels RP_SIMD_TABLE = {
    RP_SIMD_ISA,       intersect_aabb, closest_aabb,  closest_triangle,
    occluded_triangle, closest_sphere, closest_plane, scene_closest,
    scene_occluded,    scene_node_ray, scene_block_ray, scene_box_packet,
    scene_lane_nodes,  scene_frustum_packet, scene_seg_packet, scene_ray_setup,
    rays_prepare,
};
#endif
