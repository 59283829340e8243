/*
 * expect_isa.c - prints the variant the dispatcher chose and what is
 * compiled in / runnable / native; with RP_EXPECT_ISA=NAME in the
 * environment it fails unless the automatic choice is NAME.  The test script
 * runs the suite under qemu-x86_64 -cpu Nehalem with RP_EXPECT_ISA=sse41 and
 * under qemu-aarch64 with RP_EXPECT_ISA=neon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raypack.h"

static void list(const char *what, unsigned mask) {
    printf("# %s:", what);
    for (int i = 0; i < RP_ISA_COUNT; i++)
        if (mask & (1u << i))
            printf(" %s", rp_isa_name((rp_isa)i));
    printf("\n");
}

int main(void) {
    const char *want = getenv("RP_EXPECT_ISA");
    const char *forced = getenv("RP_ISA");
    const char *got = rp_isa_name(rp_active_isa());
    printf("1..1\n");
    list("compiled", rp_isa_compiled());
    list("runnable", rp_isa_runnable());
    list("native", rp_isa_native());
    printf("# active: %s%s\n", got, forced ? " (RP_ISA set)" : "");
    if (want && *want && !(forced && *forced) && strcmp(want, got) != 0) {
        printf("not ok 1 - dispatcher chose %s, expected %s\n", got, want);
        return 1;
    }
    printf("ok 1 - dispatcher chose %s%s%s\n", got, want ? ", expected " : "", want ? want : "");
    return 0;
}
