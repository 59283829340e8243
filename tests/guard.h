/*
 * guard.h - makes the guard bytes around test arrays inaccessible to the
 * tools that watch memory, so that a kernel *reading* one byte past an array
 * is reported, not only one writing there: ASan poisoning when built with
 * AddressSanitizer, else valgrind memcheck client requests (no-ops when not
 * running under valgrind; needs RP_HAVE_VALGRIND_H), else nothing.  Shared
 * by rp_check and rp_fuzz.
 */
#ifndef RP_TESTS_GUARD_H
#define RP_TESTS_GUARD_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RP_GUARD_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(RP_GUARD_ASAN)
#define RP_GUARD_ASAN 1
#endif

#if defined(RP_GUARD_ASAN)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#elif defined(RP_HAVE_VALGRIND_H)
#include <valgrind/memcheck.h>
#define POISON(p, n) ((void)VALGRIND_MAKE_MEM_NOACCESS((p), (n)))
#define UNPOISON(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif
