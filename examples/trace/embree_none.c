/*
 * embree_none.c - rp_trace without Embree 3 (not found at build time, or
 * not x86): --compare-embree says so instead of tracing.
 */
#include "trace.h"

int rt_have_embree(void) { return 0; }

int rt_backend_embree(rt_backend *b, const rt_geometry *g, int threads, rt_err *e) {
    (void)b;
    (void)g;
    (void)threads;
    return rt_fail(e, "rp_trace was built without Embree 3");
}

void rt_backend_embree_free(rt_backend *b) { (void)b; }
