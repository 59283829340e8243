/*
 * clock.c - the benchmark's notion of a cycle.  Time-stamp counters tick at
 * a fixed reference rate that is not the core clock (and ARM has no
 * portable cycle counter in user space), so the core clock is measured in
 * the same run: a chain of dependent integer adds retires one add per cycle
 * on every x86 and ARM core of the last decade, whatever the turbo state,
 * so adds / seconds is the frequency the core runs at right now.  Also the
 * single-core memory bandwidth for the memory term of the stream bound.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

double rpb_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double rpb_thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The empty asm makes x opaque after each add, so the compiler can neither
 * fold the chain into a multiply nor reorder it; the add itself stays a
 * plain register add (k is a register, not an immediate: some cores fold
 * add-immediate chains at rename).  The loop counter is independent of the
 * chain and runs beside it. */
#define STEP(x, k) do { x += k; __asm__ volatile("" : "+r"(x)); } while (0)
#define STEP10(x, k) STEP(x, k); STEP(x, k); STEP(x, k); STEP(x, k); STEP(x, k); \
                     STEP(x, k); STEP(x, k); STEP(x, k); STEP(x, k); STEP(x, k)

static volatile unsigned long sink_;

static double chain_seconds(unsigned long iters) {
    volatile unsigned long kv = 3;
    unsigned long k = kv, x = 1;
    double t0 = rpb_now();
    for (unsigned long i = 0; i < iters; i++) {
        STEP10(x, k); STEP10(x, k); STEP10(x, k); STEP10(x, k); STEP10(x, k);
        STEP10(x, k); STEP10(x, k); STEP10(x, k); STEP10(x, k); STEP10(x, k);
    }
    double t = rpb_now() - t0;
    sink_ = x;
    return t;
}

double rpb_calibrate_hz(void) {
    /* grow until one run takes ~2 ms, then keep the fastest of 40: short
     * runs often fit between interrupts and other processes' time slices,
     * and the slower ones lost time to those (or to a sibling thread) */
    unsigned long iters = 1000;
    while (chain_seconds(iters) < 0.002 && iters < (1ul << 40))
        iters *= 2;
    double best = 1e30;
    for (int r = 0; r < 40; r++) {
        double t = chain_seconds(iters);
        if (t < best)
            best = t;
    }
    return (double)iters * 100.0 / best;
}

double rpb_measure_bw(void) {
    size_t n = (16u << 20) / sizeof(float); /* 3 x 16 MB: beyond any L2, most L3 slices */
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        free(a); free(b); free(c);
        return 0.0;
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = 0.0f;
        b[i] = (float)(i & 255);
        c[i] = 1.0f;
    }
    double best = 1e30;
    for (int r = 0; r < 10; r++) {
        double t0 = rpb_now();
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + c[i];
        double t = rpb_now() - t0;
        __asm__ volatile("" : : "r"(a) : "memory");
        if (t < best)
            best = t;
    }
    free(a); free(b); free(c);
    return 3.0 * (double)(n * sizeof(float)) / best;
}

void rpb_cpu_name(char *buf, size_t len) {
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512], impl[64] = "", part[64] = "";
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        if (!strncmp(line, "model name", 10)) {
            snprintf(buf, len, "%s", v);
            fclose(f);
            return;
        }
        if (!strncmp(line, "CPU implementer", 15))
            snprintf(impl, sizeof impl, "%s", v);
        if (!strncmp(line, "CPU part", 8))
            snprintf(part, sizeof part, "%s", v);
    }
    fclose(f);
    if (impl[0])
        snprintf(buf, len, "ARM implementer %s part %s", impl, part);
}
