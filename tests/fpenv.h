/*
 * fpenv.h - the floating-point environments a renderer or game engine may
 * run raypack in, for the differential tests (rp_check --fpenv, and one
 * byte of each rp_fuzz input): flush-to-zero and denormals-are-zero, and
 * the directed rounding modes.  raypack itself never changes the
 * environment; the tests check that every variant still returns the
 * reference's bits when the caller has.  See docs/SEMANTICS.md.
 *
 * Flush modes are the control bits of the vector unit: on x86 the MXCSR's
 * FTZ (bit 15: denormal results become zero) and DAZ (bit 6: denormal
 * inputs read as zero), which scalar SSE arithmetic obeys as well; on
 * AArch64 FPCR.FZ (bit 24: both at once, scalar and Advanced SIMD alike).
 */
#ifndef RP_TESTS_FPENV_H
#define RP_TESTS_FPENV_H

#include <fenv.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h> /* _mm_getcsr / _mm_setcsr: baseline on x86-64 */
#endif

/* The modes by name, in the order rp_fuzz numbers them. */
static const char *const rp_fpenv_names[] = {
    "default", "ftz", "daz", "flush", "upward", "downward", "towardzero"};
#define RP_FPENV_COUNT ((int)(sizeof rp_fpenv_names / sizeof rp_fpenv_names[0]))

/* What rp_fpenv_set changed, for rp_fpenv_restore. */
typedef struct rp_fpenv_saved {
    fenv_t env;
#if defined(__x86_64__) || defined(__i386__)
    unsigned csr;
#elif defined(__aarch64__)
    uint64_t fpcr;
#endif
} rp_fpenv_saved;

/* Sets mode (saving the environment in *saved).  Returns 1 when set and
 * read back, 0 when this host cannot set it (nothing changed), -1 for an
 * unknown name.  *emulated_ok is cleared where the SIMDe-emulated variants
 * cannot be compared with this host's reference: under x86 DAZ, minss/maxss
 * (the reference's min and max, and the x86 variants' minps/maxps) return a
 * denormal operand flushed to zero, while the emulated NEON variant, like
 * NEON hardware, selects with bitwise masks and keeps its bits. */
static inline int rp_fpenv_set(const char *mode, rp_fpenv_saved *saved, int *emulated_ok) {
    static const struct { const char *name; int round; } rounding[] = {
        {"upward", FE_UPWARD}, {"downward", FE_DOWNWARD}, {"towardzero", FE_TOWARDZERO}};
    *emulated_ok = 1;
    fegetenv(&saved->env);
#if defined(__x86_64__) || defined(__i386__)
    saved->csr = _mm_getcsr();
#elif defined(__aarch64__)
    __asm__ volatile("mrs %0, fpcr" : "=r"(saved->fpcr));
#endif
    if (!strcmp(mode, "default"))
        return 1;
    for (size_t i = 0; i < sizeof rounding / sizeof rounding[0]; i++)
        if (!strcmp(mode, rounding[i].name))
            return fesetround(rounding[i].round) == 0 && fegetround() == rounding[i].round;
    unsigned bits;
    if (!strcmp(mode, "flush")) bits = 3;
    else if (!strcmp(mode, "ftz")) bits = 1;
    else if (!strcmp(mode, "daz")) bits = 2;
    else return -1;
#if defined(__x86_64__) || defined(__i386__)
    unsigned want = (bits & 1 ? 0x8000u : 0u) | (bits & 2 ? 0x0040u : 0u);
    *emulated_ok = !(bits & 2);
    _mm_setcsr(saved->csr | want);
    return (_mm_getcsr() & want) == want;
#elif defined(__aarch64__)
    if (bits != 3)
        return 0; /* FPCR.FZ flushes inputs and results together */
    uint64_t fpcr = saved->fpcr | (uint64_t)1 << 24;
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return (int)((fpcr >> 24) & 1);
#else
    return 0;
#endif
}

static inline void rp_fpenv_restore(const rp_fpenv_saved *saved) {
    fesetenv(&saved->env);
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(saved->csr);
#elif defined(__aarch64__)
    __asm__ volatile("msr fpcr, %0" : : "r"(saved->fpcr));
#endif
}

#endif
