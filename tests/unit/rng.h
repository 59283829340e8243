/*
 * rng.h - the unit tests' random numbers: xorshift64* (Vigna), a fixed
 * sequence for a fixed seed on every platform.  A test sets the state
 * `rng` once (its own seed, so each test's inputs stay as they were) and
 * draws with rnd(), unit() in [0, 1) and range(lo, hi).
 */
#ifndef RP_TESTS_RNG_H
#define RP_TESTS_RNG_H

#include <stdint.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static inline uint32_t rnd(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 32);
}
static inline float unit(void) { return (float)(rnd() >> 8) * 0x1p-24f; }
static inline float range(float lo, float hi) { return lo + (hi - lo) * unit(); }

#endif
