#!/usr/bin/env bash
# .ci/sanitize.sh - the whole test suite under AddressSanitizer and
# UndefinedBehaviorSanitizer, halting at the first report.
#
# Builds build-sanitize/ (gcc by default; CC=clang works too) at -O1 -g
# (the level ASan's authors advise; -O2 took twice as long to compile the
# kernels under the sanitizers: 93 s against 47 s for the AVX2 file on a
# Zen 3) with -Db_sanitize=address,undefined, -fno-sanitize-recover=all and, for gcc,
# -fsanitize=float-cast-overflow (clang's "undefined" already has it), then
# runs every `meson test` suite: unit and API-misuse tests, rp_check over
# every runnable variant, the fuzz corpus replay, the threads test and the
# example's smoke run.  Any ASan/UBSan report aborts its test, and the
# script exits non-zero.
#
# Environment: CC, RP_MESON_ARGS (extra meson options), RP_TEST_ARGS
# (extra `meson test` arguments, e.g. "--suite unit").
#
# apt packages: gcc (build-essential; libasan8 and libubsan1 come with
#   gcc-12), meson, ninja-build, libsimde-dev, python3; with CC=clang:
#   clang-14 and libclang-rt-14-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/lib.sh

BUILD=build-sanitize
CC=${CC:-gcc}
t0=$SECONDS

cargs="-fno-sanitize-recover=all -fno-omit-frame-pointer"
if [[ "$("$CC" --version 2>/dev/null)" != *clang* ]]; then
  cargs="$cargs -fsanitize=float-cast-overflow"
fi
# b_lundef=false: clang links the sanitizer runtimes into executables only,
# so the shared library has undefined __asan_* symbols until then.
opts=(-Doptimization=1 -Ddebug=true -Db_ndebug=false -Db_sanitize=address,undefined -Db_lundef=false
      "-Dc_args=$cargs")

# (b_ndebug=false: the project defaults to buildtype=release, whose
# b_ndebug=if-release would define NDEBUG and drop the asserts)
rp_configure sanitize "$BUILD" "$CC" "${opts[@]}"
echo "sanitize: building"
ninja -C "$BUILD" -j2 | tail -3

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
