/*
 * status.c - the English text of every rp_status (rp_status_string), the
 * one place a status code gets its words.  Part of the API layer (src/api/),
 * built at the baseline ISA like the rest of it.
 */
#include "internal.h"

const char *rp_status_string(rp_status s) {
    switch (s) {
    case RP_OK: return "success";
    case RP_ERR_NULL: return "a required pointer is NULL";
    case RP_ERR_COUNT: return "a count is too large (byte size or primitive index overflows)";
    case RP_ERR_NOT_PREPARED: return "the ray batch is not prepared for its n (call rp_rays_prepare)";
    case RP_ERR_ALIGN: return "a pointer is not aligned to its element type";
    case RP_ERR_ALIAS: return "an output array overlaps an input or another output";
    case RP_ERR_SIZE_MISMATCH: return "hits.n differs from rays.n";
    case RP_ERR_NOMEM: return "out of memory";
    case RP_ERR_ISA_UNKNOWN: return "unknown instruction-set variant";
    case RP_ERR_ISA_UNAVAILABLE: return "variant not compiled in or not runnable on this CPU";
    case RP_ERR_INVALID: return "invalid argument";
    }
    return "unknown status";
}
