/*
 * kernels_avx2.c - the AVX2 variant: the template src/simd/kernels.h over
 * the 8-lane vector layer of layer_avx2.h (AVX registers, masks as
 * all-ones/all-zeros float lanes, selects by blendv, primitives of the
 * one-ray shape by vgatherdps), written with SIMDe intrinsics so that it is
 * native on x86 (built with -mavx2 and nothing else, so no FMA) and
 * emulated on other hosts.  All batch loops live in the template, and what
 * AVX2 shares with SSE4.1 and AVX-512 in src/x86/layer.h.
 */
/* Box packets two boxes a step (src/simd/closest.h, closest_packet): on
 * Sapphire Rapids, two sets of three alternated runs, aabb/avx2/packet
 * 1.54 -> 1.41 and 1.48 -> 1.40 cycles per test, aabb/avx2/octant 1.17 ->
 * 1.14 and 1.19 -> 1.09 (the rows whose code did not change within 3%).
 * (AVX-512: octant 0.77 -> 0.80, packet within noise; SSE4.1 -3% to +2%:
 * not there.) */
#define RP_V_BOX2
#define RP_SIMD_ISA RP_ISA_AVX2
#define RP_SIMD_TABLE rp_kernels_avx2
#include "avx2/layer_avx2.h"

#include "simd/kernels.h"
