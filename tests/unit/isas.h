/*
 * isas.h - the variants a unit test (and test_watertight, without its
 * --isa) runs: every runnable one, or those
 * named in RP_TEST_ISAS (comma-separated, e.g. "scalar,neon").  The
 * aarch64 and Nehalem CI stages run under qemu, where the variants emulated
 * through SIMDe are slow; there they name scalar and the native variant,
 * and rp_check still compares every variant with the reference.  A name
 * that is not a variant, or one that cannot run here, stops the test; a
 * name after '?' ("?avx512") is left out where that variant does not run
 * natively, and a test left with none is skipped (a test that takes such
 * names calls tested_isas before it prints anything).
 */
#ifndef RP_TESTS_ISAS_H
#define RP_TESTS_ISAS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raypack.h"
#include "tap.h"

/* A bit per variant (1u << rp_isa); who: the test's name, for messages. */
static unsigned tested_isas(const char *who) {
    static unsigned mask;
    if (mask)
        return mask;
    const char *env = getenv("RP_TEST_ISAS");
    if (!env || !*env)
        return mask = rp_isa_runnable();
    char buf[128];
    snprintf(buf, sizeof buf, "%s", env);
    unsigned m = 0;
    int left_out = 0;
    for (char *name = strtok(buf, ","); name; name = strtok(NULL, ",")) {
        rp_isa isa;
        int optional = name[0] == '?'; /* "?avx512": that variant where it runs natively */
        name += optional;
        if (optional && rp_isa_from_name(name, &isa) == RP_OK && isa != RP_ISA_AUTO &&
            !(rp_isa_native() & (1u << isa))) {
            left_out = 1;
            continue;
        }
        if (rp_isa_from_name(name, &isa) != RP_OK || isa == RP_ISA_AUTO ||
            !(rp_isa_runnable() & (1u << isa))) {
            fprintf(stderr, "%s: RP_TEST_ISAS: '%s' is not a variant that runs here\n", who,
                    name);
            exit(1);
        }
        m |= 1u << isa;
    }
    if (!m && left_out) { /* (called before the test prints anything) */
        printf("1..0 # SKIP RP_TEST_ISAS=%s: none of these runs natively here\n", env);
        exit(0);
    }
    if (!m) {
        fprintf(stderr, "%s: RP_TEST_ISAS='%s' names no variant\n", who, env);
        exit(1);
    }
    tap_diag("RP_TEST_ISAS=%s: only these variants run here", env);
    return mask = m;
}

#endif
