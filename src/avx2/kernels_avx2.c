/*
 * kernels_avx2.c - the AVX2 variant: the template src/simd/kernels.h over
 * the 8-lane vector layer of layer_avx2.h (AVX registers, masks as
 * all-ones/all-zeros float lanes, selects by blendv, primitives of the
 * one-ray shape by vgatherdps), written with SIMDe intrinsics so that it is
 * native on x86 (built with -mavx2 and nothing else, so no FMA) and
 * emulated on other hosts.  All batch loops live in the template, and what
 * AVX2 shares with SSE4.1 and AVX-512 in src/x86/layer.h.
 */
#define RP_SIMD_ISA RP_ISA_AVX2
#define RP_SIMD_TABLE rp_kernels_avx2
#include "avx2/layer_avx2.h"

#include "simd/kernels.h"
