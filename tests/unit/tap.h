/*
 * tap.h - the few lines of TAP (Test Anything Protocol) every unit test of
 * raypack prints: "ok N - name" / "not ok N - name" with "# " diagnostics,
 * "# TODO" for a known library bug (so the suite stays green while the bug
 * stays visible) and "# SKIP", then the plan "1..N" at the end (TAP allows
 * a trailing plan, so no test has to count its assertions up front).
 * Floats in diagnostics are printed as hex floats (%a): exact, and the same
 * on every libc.  Header-only, C99 and C++ clean (the header tests include
 * it under -std=c99 -pedantic -Werror and as C++); everything is static
 * inline so a test that uses only part of it gets no unused-function warning.
 */
#ifndef RP_TESTS_TAP_H
#define RP_TESTS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TAP_PRINTF(f, a)
#endif

typedef struct tap_state {
    int n;      /* assertions so far */
    int failed; /* failures that are not TODO */
    int todo;   /* TODO assertions that failed (known bugs) */
} tap_state;

/* Per test program (each test is one translation unit). */
static inline tap_state *tap_st(void) {
    static tap_state s;
    return &s;
}

static inline void tap_vline(const char *prefix, const char *fmt, va_list ap) {
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    /* a '#' in a name would start a directive: replace it */
    for (char *p = buf; *p; p++)
        if (*p == '#' || *p == '\n')
            *p = '_';
    printf("%s%s", prefix, buf);
}

/* "# ..." diagnostic line. */
static inline void tap_diag(const char *fmt, ...) TAP_PRINTF(1, 2);
static inline void tap_diag(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

static inline int tap_vresult(int cond, const char *directive, const char *fmt,
                              va_list ap) {
    tap_state *s = tap_st();
    char num[32];
    s->n++;
    snprintf(num, sizeof num, "%sok %d - ", cond ? "" : "not ", s->n);
    tap_vline(num, fmt, ap);
    if (directive)
        printf(" # %s", directive);
    printf("\n");
    fflush(stdout);
    return cond;
}

/* One assertion; returns cond so callers can add diagnostics on failure. */
static inline int tap_ok(int cond, const char *fmt, ...) TAP_PRINTF(2, 3);
static inline int tap_ok(int cond, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(cond, NULL, fmt, ap);
    va_end(ap);
    if (!cond)
        tap_st()->failed++;
    return cond;
}

/* An assertion of documented behaviour the library does not have yet: the
 * reason names the bug.  A failure is reported but does not fail the run. */
static inline int tap_todo(int cond, const char *reason, const char *fmt, ...)
    TAP_PRINTF(3, 4);
static inline int tap_todo(int cond, const char *reason, const char *fmt, ...) {
    char dir[300];
    va_list ap;
    snprintf(dir, sizeof dir, "TODO %s", reason);
    va_start(ap, fmt);
    tap_vresult(cond, dir, fmt, ap);
    va_end(ap);
    if (!cond)
        tap_st()->todo++;
    return cond;
}

static inline void tap_skip(const char *reason, const char *fmt, ...) TAP_PRINTF(2, 3);
static inline void tap_skip(const char *reason, const char *fmt, ...) {
    char dir[300];
    va_list ap;
    snprintf(dir, sizeof dir, "SKIP %s", reason);
    va_start(ap, fmt);
    tap_vresult(1, dir, fmt, ap);
    va_end(ap);
}

/* The plan, last; the exit status is 0 unless a non-TODO assertion failed. */
static inline int tap_done(void) {
    tap_state *s = tap_st();
    printf("1..%d\n", s->n);
    if (s->failed)
        printf("# %d of %d failed\n", s->failed, s->n);
    if (s->todo)
        printf("# %d known bug(s) marked TODO\n", s->todo);
    fflush(stdout);
    return s->failed ? 1 : 0;
}

/* ---- value helpers ------------------------------------------------ */

static inline uint32_t tap_f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Same float: identical bits, or both NaN (any payload).  -0 != +0. */
static inline int tap_same_f32(float a, float b) {
    if (a != a && b != b)
        return 1;
    return tap_f2u(a) == tap_f2u(b);
}

/* got is bit-identical to want (NaN matches NaN; +0 and -0 differ). */
static inline int tap_f32(float got, float want, const char *fmt, ...) TAP_PRINTF(3, 4);
static inline int tap_f32(float got, float want, const char *fmt, ...) {
    int ok = tap_same_f32(got, want);
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(ok, NULL, fmt, ap);
    va_end(ap);
    if (!ok) {
        tap_st()->failed++;
        tap_diag("  got  %a (0x%08x)", (double)got, (unsigned)tap_f2u(got));
        tap_diag("  want %a (0x%08x)", (double)want, (unsigned)tap_f2u(want));
    }
    return ok;
}

/* got == want as numbers (+0 == -0), or both NaN. */
static inline int tap_f32v(float got, float want, const char *fmt, ...) TAP_PRINTF(3, 4);
static inline int tap_f32v(float got, float want, const char *fmt, ...) {
    int ok = got == want || (got != got && want != want);
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(ok, NULL, fmt, ap);
    va_end(ap);
    if (!ok) {
        tap_st()->failed++;
        tap_diag("  got  %a", (double)got);
        tap_diag("  want %a", (double)want);
    }
    return ok;
}

/* Three floats at once (a point or a normal), compared as numbers. */
static inline int tap_f32x3(const float got[3], float wx, float wy, float wz,
                            const char *fmt, ...) TAP_PRINTF(5, 6);
static inline int tap_f32x3(const float got[3], float wx, float wy, float wz,
                            const char *fmt, ...) {
    int ok = got[0] == wx && got[1] == wy && got[2] == wz;
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(ok, NULL, fmt, ap);
    va_end(ap);
    if (!ok) {
        tap_st()->failed++;
        tap_diag("  got  (%a, %a, %a)", (double)got[0], (double)got[1], (double)got[2]);
        tap_diag("  want (%a, %a, %a)", (double)wx, (double)wy, (double)wz);
    }
    return ok;
}

/* Integers (statuses, flags, indices). */
static inline int tap_int(long long got, long long want, const char *fmt, ...)
    TAP_PRINTF(3, 4);
static inline int tap_int(long long got, long long want, const char *fmt, ...) {
    int ok = got == want;
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(ok, NULL, fmt, ap);
    va_end(ap);
    if (!ok) {
        tap_st()->failed++;
        tap_diag("  got  %lld (0x%llx)", got, (unsigned long long)got);
        tap_diag("  want %lld (0x%llx)", want, (unsigned long long)want);
    }
    return ok;
}

#endif
