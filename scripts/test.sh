#!/usr/bin/env bash
# scripts/test.sh - the whole test suite from nothing: installs what is
# missing, then runs, each in its own build folder:
#   1. native x86 build: unit tests, rp_check over every variant, fuzz corpus
#      replay, threads, benchmark smoke run;
#   2. the same tests under qemu-x86_64 -cpu Nehalem (SSE4.1, no AVX): the
#      dispatcher must pick sse41 (RP_EXPECT_ISA makes tests/expect_isa check);
#   2b. a -O0 build (buildtype=debug) and its tests: the compiler chooses
#      other instructions there (a branch for the reference's min/max made it
#      disagree with the variants under DAZ until ref.h spelled minss/maxss);
#   3. the aarch64 cross build under qemu-aarch64 (NEON native there);
#   4. a user's view: meson install + pkg-config, and raypack as a Meson
#      subproject (tests/consumer/run.sh);
#   5. the reliability scripts in .ci/ that exist (sanitizers, fuzzer,
#      valgrind memcheck, ThreadSanitizer).
# Exits non-zero at the first failure; ends with "N passed, N failed" over
# the stages.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-deps.sh || exit 1

passed=0; failed=0; failures=()
stage() {
  local name="$1"; shift
  echo "=== stage: $name"
  local t0=$SECONDS
  if "$@"; then
    passed=$((passed + 1)); echo "=== ok: $name ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "=== FAILED: $name ($((SECONDS - t0)) s)"
  fi
}

native() {
  { [ -f build-test/build.ninja ] || meson setup build-test --buildtype=release; } &&
  ninja -C build-test &&
  meson test -C build-test --print-errorlogs --num-processes 2
}

nehalem() {
  # same binaries, an old CPU: no AVX, so the dispatcher must choose sse41
  # (the nm script is not an x86 binary for qemu to run: left out)
  # (test_scene and test_watertight trace with scalar and sse41 only: the
  # emulated neon is the native stage's, the same code on the same
  # instructions; rp_check's other configurations, suite check-more, ran
  # this sse41 code natively)
  RP_EXPECT_ISA=sse41 RP_TEST_ISAS=scalar,sse41 meson test -C build-test --no-rebuild --print-errorlogs \
    --num-processes 2 --timeout-multiplier 10 \
    --wrapper 'qemu-x86_64 -cpu Nehalem' --no-suite bench-smoke --no-suite symbols --no-suite check-more
}

debug() {
  # (the variants this CPU cannot run are left out: .ci/lib.sh)
  local native_only
  mapfile -t native_only < <(. .ci/lib.sh && rp_native_only_opts)
  { [ -f build-debug/build.ninja ] ||
    meson setup build-debug --buildtype=debug -Dbench=disabled "${native_only[@]}"; } &&
  ninja -C build-debug &&
  meson test -C build-debug --print-errorlogs --num-processes 2
}

aarch64() {
  { [ -f build-arm/build.ninja ] ||
    meson setup build-arm --cross-file cross/aarch64-linux-gnu.txt --buildtype=release; } &&
  ninja -C build-arm &&
  # test_scene and test_watertight trace with scalar and neon only here
  # (RP_TEST_ISAS): the x86 variants emulated through SIMDe took 79 of
  # test_scene's 124 s under qemu; rp_check compares every variant, those
  # included, with the reference on aarch64.
  # rp_check's other configurations (suite check-more: chunks, coherent,
  # floating-point environments) check neon only (--isa=neon), the variant
  # that runs natively here: every variant in them took 240 s of qemu time
  # (Zen 3 VM, 2026-11-29), the emulated x86 code whose real instructions
  # the x86 stages check in those configurations
  RP_EXPECT_ISA=neon RP_TEST_ISAS=scalar,neon meson test -C build-arm --print-errorlogs --num-processes 2 \
    --timeout-multiplier 10 --no-suite check-more &&
  meson test -C build-arm --no-rebuild --print-errorlogs --num-processes 2 --timeout-multiplier 10 \
    --suite check-more --test-args=--isa=neon
}

stage native native
stage nehalem nehalem
stage debug debug
stage aarch64 aarch64
# (installs from build-test: the library stage 1 tested, not a second compile)
stage consumer env RP_CONSUMER_BUILD=build-test bash tests/consumer/run.sh
for s in sanitize fuzz memcheck tsan; do
  [ -f ".ci/$s.sh" ] && stage "$s" bash ".ci/$s.sh"
done

echo
[ "$failed" -eq 0 ] || echo "failed stages: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
