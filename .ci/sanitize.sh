#!/usr/bin/env bash
# .ci/sanitize.sh - the whole test suite under AddressSanitizer and
# UndefinedBehaviorSanitizer, halting at the first report.
#
# Builds build-asan/ (.ci/lib.sh, rp_asan_configure: clang at -O1, line
# tables only, with -Db_sanitize=address,undefined, -fno-sanitize-recover=all and libFuzzer's
# coverage instrumentation; .ci/fuzz.sh then fuzzes the same build), then
# runs every `meson test` suite: unit and API-misuse tests, rp_check over
# every runnable variant, the fuzz corpus replay, the threads test and the
# example's smoke run.  The x86 variants this CPU cannot run are left out
# of build-asan/ and compiled by clang alone in build-clang-rest/ (-O0, no
# sanitizers: .ci/lib.sh, rp_clang_rest).  Any ASan/UBSan report aborts
# its test, and the script exits non-zero.  (clang's "undefined" includes float-cast-overflow,
# which gcc's does not; gcc builds the native, -O0, memcheck and tsan stages.)
#
# Environment: CC (a clang; any other compiler is passed over for the
# clang on PATH), RP_MESON_ARGS (extra meson options), RP_TEST_ARGS (extra
# `meson test` arguments, e.g. "--suite unit").
#
# apt packages: clang-14, libclang-rt-14-dev (the sanitizer runtimes), meson,
#   ninja-build, libsimde-dev, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/lib.sh

t0=$SECONDS
rp_asan_configure sanitize
BUILD=$ASAN_BUILD
echo "sanitize: building"
ninja -C "$BUILD" -j2 | tail -3
rp_clang_rest sanitize "$ASAN_CC"

export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=${LSAN_OPTIONS:-}
echo "sanitize: ASAN_OPTIONS=$ASAN_OPTIONS"
echo "sanitize: UBSAN_OPTIONS=$UBSAN_OPTIONS"
echo "sanitize: meson test -C $BUILD (every suite)"
# shellcheck disable=SC2086
meson test -C "$BUILD" --no-rebuild --print-errorlogs --num-processes 2 \
  --timeout-multiplier 4 ${RP_TEST_ARGS:-}
# a report that a test swallowed would still be in the logs
if grep -lE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' \
     "$BUILD/meson-logs/testlog.txt" >/dev/null 2>&1; then
  echo "sanitize: FAILED: a sanitizer report is in $BUILD/meson-logs/testlog.txt"
  grep -nE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$BUILD/meson-logs/testlog.txt" | head
  exit 1
fi
echo "sanitize: ok: no ASan/UBSan report ($((SECONDS - t0)) s)"
