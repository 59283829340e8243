/*
 * scene8_avx512.c - the AVX-512 variant's scene packets of 8 rays: the
 * traversal of src/scene/traverse_simd.h over AVX2's 8-lane vector layer
 * (src/avx2/layer_avx2.h), built with the AVX-512 flags (the compiler may
 * then use EVEX encodings and 32 registers; the operations are the
 * layer's).  kernels_avx512.c hands it the packets whose rays' direction
 * signs differ, and every packet of a query on a large scene
 * (RP_SIMD_NARROW_PACKETS there), as one function,
 * rp_scene_packets8_avx512 (scene.h).  No table: the variant is
 * kernels_avx512.c's.
 */
#define RP_SIMD_PACKETS_FN rp_scene_packets8_avx512
#include "avx2/layer_avx2.h"

#include "simd/kernels.h"
