/*
 * arm/cpu.c - which variants run natively on aarch64: NEON (Advanced SIMD)
 * is part of the base ARMv8-A architecture, so it is always there; nothing
 * wider is used yet (getauxval(AT_HWCAP) would tell SVE when it is).
 * Other architectures without a detector of their own get scalar only.
 */
#include "../internal.h"

#if defined(__aarch64__)
unsigned rp_cpu_native_isas(void) {
    return (1u << RP_ISA_SCALAR) | (1u << RP_ISA_NEON);
}
#elif !(defined(__x86_64__) || defined(__i386__))
unsigned rp_cpu_native_isas(void) {
    return 1u << RP_ISA_SCALAR;
}
#endif
