/*
 * internal_check.h - rp_check's tests of internal functions (internal.c):
 * the scene traversals' steps in each variant's table against the scalar
 * reference.  Built when rp_check links the static library (RP_CHECK_INTERNAL);
 * rpc_name_selected is rp_check.c's, shared with it.
 */
#ifndef RP_INTERNAL_CHECK_H
#define RP_INTERNAL_CHECK_H
#include <stdint.h>

#include "raypack.h"

/* rp_check.c: 1 if the comma-separated substrings of list (NULL: all)
 * match name */
int rpc_name_selected(const char *list, const char *name);
/* 1 if --kernel=LIST (NULL: all) selects one of the internal functions */
int rpc_internal_selected(const char *kernel_list);
/* Runs the selected ones on the variants isas[0..nisa) (the scalar one has
 * none: skipped), iterations cases each; adds to the counters (per variant
 * too) and prints one line per function. */
void rpc_internal_run(const char *kernel_list, uint64_t seed, uint64_t iterations,
                      const rp_isa *isas, int nisa, unsigned long *passed,
                      unsigned long *failed, unsigned long *vpass, unsigned long *vfail);
#endif
