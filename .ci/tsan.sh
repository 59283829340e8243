#!/usr/bin/env bash
# .ci/tsan.sh - ThreadSanitizer over the multi-threaded test
# (tests/threads: first use of the library from 8 threads at once, every
# kernel concurrently on private buffers, rp_set_isa() from another thread
# meanwhile), over a short rp_check run and over a small rp_trace render
# with 4 threads (scene queries from many threads, the tile counter, the
# progress lines).  Any data-race report fails.
#
# Builds build-tsan/ with -Db_sanitize=thread (gcc by default, CC=clang
# works too).  Environment: CC, RP_MESON_ARGS (extra meson options).
#
# apt packages: gcc (build-essential; libtsan2 comes with gcc-12), meson,
#   ninja-build, libsimde-dev; with CC=clang: clang-14, libclang-rt-14-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/lib.sh

BUILD=build-tsan
CC=${CC:-gcc}
t0=$SECONDS

# -g1: line tables, which the reports print (as .ci/memcheck.sh's build)
opts=(-Dbuildtype=debugoptimized -Db_sanitize=thread -Db_lundef=false
      "-Dc_args=-g1 -fno-omit-frame-pointer")
# the variants this CPU cannot run are left out (.ci/lib.sh)
mapfile -t native_only < <(rp_native_only_opts)
opts+=("${native_only[@]}")

rp_configure tsan "$BUILD" "$CC" "${opts[@]}"
echo "tsan: building test_threads, rp_check and rp_trace"
ninja -C "$BUILD" -j2 tests/threads/test_threads tests/check/rp_check examples/rp_trace | tail -2

# exitcode=66 makes a report fail the process even if the test passed
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:exitcode=66:second_deadlock_stack=1"
echo "tsan: TSAN_OPTIONS=$TSAN_OPTIONS"
# TSan needs the old mmap layout on kernels with high ASLR entropy; without
# it the runtime may stop with "unexpected memory mapping".
run=()
if command -v setarch >/dev/null && [ "$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 0)" -gt 28 ]; then
  run=(setarch "$(uname -m)" -R)
  echo "tsan: vm.mmap_rnd_bits > 28: running under ${run[*]}"
fi

echo "tsan: meson test --suite threads"
meson test -C "$BUILD" --no-rebuild --print-errorlogs --suite threads \
  --timeout-multiplier 4 ${run:+--wrapper "${run[*]}"}
if grep -q 'WARNING: ThreadSanitizer' "$BUILD/meson-logs/testlog.txt"; then
  echo "tsan: FAILED: a ThreadSanitizer report is in $BUILD/meson-logs/testlog.txt"
  exit 1
fi

# rp_check is single-threaded, but it switches variants and exercises the
# lazy initialization the same way a user's program does.
echo "tsan: rp_check --iterations=5"
"${run[@]}" "$BUILD/tests/check/rp_check" --iterations=5 2>&1 | tail -3

echo "tsan: rp_trace --threads 4 (small scene and image)"
"${run[@]}" "$BUILD/examples/rp_trace" --detail 1 --size 96x64 --spp 2 --ao 2 --threads 4 \
  -o "$BUILD/rp_trace_tsan.ppm" 2>&1 | tail -4
echo "tsan: ok: no ThreadSanitizer report ($((SECONDS - t0)) s)"
