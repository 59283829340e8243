/*
 * rp_isa_test.c - the variant switches of the public API (TAP output).
 * Without arguments: rp_set_isa() accepts every runnable variant, refuses
 * every other one with RP_ERR_ISA_UNAVAILABLE and changes nothing then,
 * refuses out-of-range values with RP_ERR_ISA_UNKNOWN, RP_ISA_AUTO selects
 * the widest native variant, and names round-trip.  With --env it checks
 * what the library made of the RP_ISA environment variable it was started
 * with: a name that is not a variant, or a variant that cannot run here,
 * prints exactly one warning on stderr (however many calls follow) and
 * falls back to the automatic choice; a runnable one is used silently.
 * The AVX-512 tuning variables RP_AVX512_MIXED (8 or 16),
 * RP_AVX512_PACKET8_TRIS and RP_AVX512_MIXED_TRIS (decimal counts)
 * likewise: a bad value adds exactly one warning that names it, and
 * changes nothing else here.
 * stderr is redirected to a temporary file before the first library call
 * so the warnings can be counted.
 */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raypack.h"

static int ntests, nfailed;

static void ok(int cond, const char *fmt, const char *a, const char *b) {
    ntests++;
    if (!cond) nfailed++;
    printf("%s %d - ", cond ? "ok" : "not ok", ntests);
    printf(fmt, a ? a : "(null)", b ? b : "(null)");
    printf("\n");
}

/* the automatic choice, computed from the public masks */
static rp_isa widest_native(void) {
    static const rp_isa order[] = {RP_ISA_AVX512, RP_ISA_AVX2, RP_ISA_SSE41, RP_ISA_NEON};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (rp_isa_native() & (1u << order[i]))
            return order[i];
    return RP_ISA_SCALAR;
}

/* a call of every kind that could trigger the lazy initialisation */
static void touch_library(void) {
    rp_rays rays;
    if (rp_rays_alloc(4, &rays) == RP_OK) {
        rp_rays_prepare(&rays);
        uint8_t hit[4];
        rp_aabb box = {{-1, -1, -1}, {1, 1, 1}};
        rp_intersect_aabb(&rays, NULL, &box, hit, NULL, NULL);
        rp_rays_free(&rays);
    }
    (void)rp_active_isa();
    (void)rp_isa_native();
    (void)rp_isa_runnable();
}

static int test_set_isa(void) {
    unsigned runnable = rp_isa_runnable(), compiled = rp_isa_compiled(), native = rp_isa_native();
    char buf[160];
    printf("# compiled 0x%x runnable 0x%x native 0x%x\n", compiled, runnable, native);
    ok((runnable & compiled) == runnable && (native & runnable) == native,
       "native %s runnable %s compiled", "<=", "<=");
    ok(compiled & 1u, "%s%s is always compiled in", "scalar", "");
    int unavailable = 0;
    for (int i = 0; i < RP_ISA_COUNT; i++) {
        rp_isa isa = (rp_isa)i, back;
        const char *name = rp_isa_name(isa);
        ok(name && rp_isa_from_name(name, &back) == RP_OK && back == isa, "name %s%s round-trips", name, "");
        if (runnable & (1u << i)) {
            rp_status s = rp_set_isa(isa);
            ok(s == RP_OK && rp_active_isa() == isa, "rp_set_isa(%s) selects it (%s)", name,
               native & (1u << i) ? "native" : "emulated");
        } else {
            unavailable++;
            rp_set_isa(RP_ISA_SCALAR);
            rp_status s = rp_set_isa(isa);
            snprintf(buf, sizeof buf, "%s", rp_status_string(s));
            ok(s == RP_ERR_ISA_UNAVAILABLE && rp_active_isa() == RP_ISA_SCALAR,
               "rp_set_isa(%s), not runnable here, returns RP_ERR_ISA_UNAVAILABLE and changes nothing (got: %s)",
               name, buf);
        }
    }
    if (!unavailable)
        printf("# every variant is runnable here: RP_ERR_ISA_UNAVAILABLE not exercised\n");
    rp_set_isa(RP_ISA_SCALAR);
    ok(rp_set_isa((rp_isa)RP_ISA_COUNT) == RP_ERR_ISA_UNKNOWN && rp_active_isa() == RP_ISA_SCALAR,
       "rp_set_isa(%s) returns RP_ERR_ISA_UNKNOWN%s", "RP_ISA_COUNT", "");
    ok(rp_set_isa((rp_isa)-2) == RP_ERR_ISA_UNKNOWN && rp_active_isa() == RP_ISA_SCALAR,
       "rp_set_isa(%s) returns RP_ERR_ISA_UNKNOWN%s", "-2", "");
    rp_isa dummy;
    ok(rp_isa_from_name("bogus", &dummy) == RP_ERR_ISA_UNKNOWN, "rp_isa_from_name(%s)%s is RP_ERR_ISA_UNKNOWN",
       "bogus", "");
    ok(rp_isa_name((rp_isa)RP_ISA_COUNT) == NULL, "rp_isa_name(%s) is NULL%s", "RP_ISA_COUNT", "");
    ok(rp_set_isa(RP_ISA_AUTO) == RP_OK && rp_active_isa() == widest_native(),
       "rp_set_isa(auto) selects the widest native variant, %s%s", rp_isa_name(widest_native()), "");
    return 0;
}

/* Whether the library must warn about a tuning variable's value
 * (src/dispatch.c): RP_AVX512_MIXED other than 8 or 16, or
 * RP_AVX512_PACKET8_TRIS or RP_AVX512_MIXED_TRIS not a decimal count that
 * strtoull takes whole (the library's own rule, a 20-digit count above
 * ULLONG_MAX included); unset or empty: no. */
static int bad_mixed(const char *v) { return v && *v && strcmp(v, "8") && strcmp(v, "16"); }
static int bad_count(const char *v) {
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    (void)strtoull(v, &end, 10);
    return v[0] < '0' || v[0] > '9' || *end || errno;
}

static int test_env(void) {
    const char *env = getenv("RP_ISA");
    const char *mixed = getenv("RP_AVX512_MIXED"), *p8 = getenv("RP_AVX512_PACKET8_TRIS");
    const char *mt = getenv("RP_AVX512_MIXED_TRIS");
    int tune = bad_mixed(mixed) + bad_count(p8) + bad_count(mt);
    fflush(stderr);
    FILE *tmp = tmpfile();
    int saved = dup(2);
    if (!tmp || saved < 0 || dup2(fileno(tmp), 2) < 0) {
        printf("Bail out! cannot redirect stderr\n");
        return 1;
    }
    /* the first library call: reads RP_ISA */
    rp_isa first = rp_active_isa();
    touch_library();
    rp_set_isa(RP_ISA_SCALAR);
    touch_library();
    rp_set_isa(RP_ISA_AUTO);
    touch_library();
    rp_isa automatic = rp_active_isa();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);

    /* the warning lines */
    char line[512], shown[512] = "", all[2048] = "";
    int warnings = 0, lines = 0;
    rewind(tmp);
    while (fgets(line, sizeof line, tmp)) {
        lines++;
        if (strstr(line, "raypack")) {
            warnings++;
            if (!strstr(line, "RP_AVX512_")) { /* RP_ISA's */
                snprintf(shown, sizeof shown, "%s", line);
                shown[strcspn(shown, "\n")] = 0;
            }
            if (strlen(all) + strlen(line) < sizeof all)
                strcat(all, line);
        }
        fputs(line, stderr); /* let the test log show it */
    }
    fclose(tmp);
    printf("# RP_ISA=%s, active at start: %s, automatic: %s\n", env ? env : "(unset)",
           rp_isa_name(first), rp_isa_name(automatic));
    if (*shown)
        printf("# warning: %s\n", shown);

    rp_isa forced;
    int known = env && *env && rp_isa_from_name(env, &forced) == RP_OK;
    int usable = known && (forced == RP_ISA_AUTO || (rp_isa_runnable() & (1u << forced)));
    ok(automatic == widest_native(), "the automatic choice is %s%s", rp_isa_name(widest_native()), "");
    if (!env || !*env || usable) {
        rp_isa want = env && *env && forced != RP_ISA_AUTO ? forced : automatic;
        ok(warnings == tune && lines == tune, "RP_ISA=%s: no warning%s", env ? env : "(unset)",
           tune ? " of its own" : "");
        ok(first == want, "RP_ISA=%s: the library starts with %s", env ? env : "(unset)", rp_isa_name(want));
    } else {
        ok(warnings == 1 + tune && lines == 1 + tune,
           "RP_ISA=%s: exactly one warning line on stderr%s", env, tune ? " of its own" : "");
        ok(strstr(shown, env) != NULL, "the warning names the value %s%s", env, "");
        ok(first == automatic, "RP_ISA=%s: falls back to the automatic choice %s", env, rp_isa_name(automatic));
    }
    if (bad_mixed(mixed))
        ok(strstr(all, mixed) != NULL, "RP_AVX512_MIXED=%s: one warning that names it%s", mixed, "");
    if (bad_count(p8))
        ok(strstr(all, p8) != NULL, "RP_AVX512_PACKET8_TRIS=%s: one warning that names it%s", p8, "");
    if (bad_count(mt)) {
        char named[300];
        snprintf(named, sizeof named, "RP_AVX512_MIXED_TRIS=%s", mt);
        ok(strstr(all, named) != NULL, "%s: one warning that names it%s", named, "");
    }
    rp_set_isa(RP_ISA_AUTO);
    return 0;
}

int main(int argc, char **argv) {
    int env = argc > 1 && !strcmp(argv[1], "--env");
    if (argc > 1 && !env) {
        fprintf(stderr, "usage: rp_isa_test [--env]\n");
        return 2;
    }
    if (env ? test_env() : test_set_isa())
        return 1;
    printf("1..%d\n", ntests);
    return nfailed ? 1 : 0;
}
