/*
 * x86/cpu.c - which x86 variants this CPU and OS can run natively: CPUID
 * for the instruction sets, and OSXSAVE + XGETBV for the operating system's
 * promise to save the wide registers on a context switch.  Built at the
 * baseline ISA (it runs before anything is known about the CPU).
 */
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__SSE4_1__)
#error "cpu detection must be built at the baseline ISA: a wide ISA flag reached it"
#endif

#include "../internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0)); /* xgetbv */
    return ((uint64_t)hi << 32) | lo;
}

unsigned rp_cpu_native_isas(void) {
    unsigned isas = 1u << RP_ISA_SCALAR;
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return isas;
    if (c & (1u << 19))                          /* CPUID.1:ECX.SSE4_1 */
        isas |= 1u << RP_ISA_SSE41;
    int osxsave = (c & (1u << 27)) != 0;          /* CPUID.1:ECX.OSXSAVE: XGETBV usable */
    int avx = (c & (1u << 28)) != 0;              /* CPUID.1:ECX.AVX */
    int fma = (c & (1u << 12)) != 0;              /* CPUID.1:ECX.FMA (the one-ray node test) */
    if (!osxsave || !avx)
        return isas;
    uint64_t xcr0 = xgetbv0();
    int ymm_os = (xcr0 & 0x6) == 0x6;             /* XCR0 bits 1,2: SSE and AVX (YMM upper) state */
    int zmm_os = (xcr0 & 0xe6) == 0xe6;           /* + bits 5,6,7: opmask, ZMM0-15 upper, ZMM16-31 */
    if (__get_cpuid_max(0, NULL) < 7)
        return isas;
    __cpuid_count(7, 0, a, b, c, d);
    int avx2 = (b & (1u << 5)) != 0;              /* CPUID.7.0:EBX.AVX2 */
    int f = (b & (1u << 16)) != 0;                /* AVX512F */
    int dq = (b & (1u << 17)) != 0;               /* AVX512DQ */
    int bw = (b & (1u << 30)) != 0;               /* AVX512BW */
    int vl = (b & (1u << 31)) != 0;               /* AVX512VL */
    if (ymm_os && avx2 && fma)
        isas |= 1u << RP_ISA_AVX2;
    if (ymm_os && zmm_os && avx2 && fma && f && dq && bw && vl)
        isas |= 1u << RP_ISA_AVX512;
    return isas;
}

/* AMD Zen 4 (family 0x19 with AVX-512: Genoa, Bergamo, Siena, Raphael,
 * Phoenix) executes each 512-bit operation on a pair of its four 256-bit
 * pipes; Intel's AVX-512 cores and Zen 5 desktop and server parts (family
 * 0x1A) have 512-bit pipes.  (Zen 5 mobile parts split too and are not
 * told apart here.)  Family 0x19 without AVX-512 (Zen 3) never runs the
 * AVX-512 variant, so the family alone decides. */
int rp_cpu_splits512(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return 0;
    int amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u; /* "AuthenticAMD" */
    if (!amd || !__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    unsigned fam = (a >> 8) & 0xfu;
    if (fam == 0xfu)
        fam += (a >> 20) & 0xffu;
    return fam == 0x19u;
}
#else
int rp_cpu_splits512(void) { return 0; }
#endif
