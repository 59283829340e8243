#!/usr/bin/env bash
# .ci/memcheck.sh - valgrind memcheck over the test executables: the unit
# and API-misuse tests, the fuzz corpus replay, the threads test, the
# variant-switch tests, the example's smoke run, and rp_check with a small
# iteration count (valgrind is ~50x slower).  Reads of uninitialised or
# unaddressable memory (--partial-loads-ok=no: a vector load that straddles
# the end of an array counts), invalid frees and definite leaks fail.
#
# Valgrind cannot execute AVX-512 (its CPUID hides it, so the dispatcher
# never picks it there); RP_ISA=avx2 forces the widest variant it can run
# (override with MEMCHECK_ISA).  rp_check and the tests that switch
# variants themselves still visit every variant valgrind can run.
#
# Builds build-memcheck/ (no sanitizers, -O2 -g1, no AVX-512 variant: it
# could not run).  Environment: CC,
# MEMCHECK_ISA (default avx2), MEMCHECK_ITERATIONS (rp_check, default 4),
# RP_MESON_ARGS (extra meson options).
#
# apt packages: valgrind (3.19 handles AVX2), gcc (build-essential), meson,
#   ninja-build, libsimde-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/lib.sh

BUILD=build-memcheck
CC=${CC:-gcc}
ISA=${MEMCHECK_ISA:-avx2}
ITER=${MEMCHECK_ITERATIONS:-4}
t0=$SECONDS
command -v valgrind >/dev/null || { echo "memcheck: valgrind not found (apt-get install valgrind)"; exit 1; }

# -g1 (line tables and functions: what valgrind's stack traces print) after
# debugoptimized's -g, which it overrides: -g's variable locations doubled
# gcc's time on the kernel files (kernels_neon.c, SIMDe's NEON on x86:
# 68 -> 34 s on the Zen 3 VM, 2026-11-29)
opts=(-Dbuildtype=debugoptimized -Db_ndebug=false -Dc_args=-g1)
# Valgrind cannot run AVX-512 (above): that variant is left out here on
# every CPU, and whatever else this CPU cannot run (rp_native_only_opts)
mapfile -t native_only < <(rp_native_only_opts | grep -vx -- -Davx512=disabled)
opts+=(-Davx512=disabled "${native_only[@]}")

rp_configure memcheck "$BUILD" "$CC" "${opts[@]}"
echo "memcheck: building"
ninja -C "$BUILD" -j2 | tail -1

vg=(valgrind --tool=memcheck --error-exitcode=99 --partial-loads-ok=no
    --leak-check=full --errors-for-leak-kinds=definite --track-origins=yes
    --num-callers=30)
export RP_ISA=$ISA
echo "memcheck: RP_ISA=$RP_ISA; valgrind $(valgrind --version): ${vg[*]:1}"
echo "memcheck: what the dispatcher sees under valgrind:"
"${vg[@]}" -q "$BUILD/tests/expect_isa" | sed 's/^/  /'

# Every test except the shell script (exported_symbols: nm, not our code),
# rp_check, which runs below with fewer iterations, and rp_check's
# floating-point environments (valgrind does not emulate FTZ/DAZ; the
# same code paths run in rp_check below).
# rp_check's other configurations (suite check-more: chunks, coherent) run
# apart, with fewer cases (--iterations=$MORE_ITER): the same code paths,
# 100 s of valgrind time at their own counts (Zen 3 VM, 2026-11-29).
list=$(meson test -C "$BUILD" --no-rebuild --list 2>/dev/null |
  grep -vE ' / (exported_symbols|rp_check|rp_check_fpenv_.*|rp_bench_smoke)$')
mapfile -t tests < <(grep -v 'check-more' <<<"$list" | sed -n 's/^.* \/ //p')
mapfile -t more < <(grep 'check-more' <<<"$list" | sed -n 's/^.* \/ //p')
[ "${#tests[@]}" -gt 0 ] || { echo "memcheck: no tests found"; exit 1; }
MORE_ITER=8
# test_scene and test_watertight trace with scalar and avx2 only
# (RP_TEST_ISAS): under valgrind test_scene's four variants took 192 s,
# these two 113 s (Zen 3, 2026-11-25), test_watertight's 88 and about 45 s.
# test_scene's time is mostly the scalar brute force it compares with; the
# scene code of sse41 is the avx2 code at another width (src/x86/layer.h),
# and ASan runs every variant's (.ci/sanitize.sh).  On a CPU without AVX2,
# all they can run.
scene_isas=
grep -qw avx2 /proc/cpuinfo 2>/dev/null && scene_isas=scalar,avx2
echo "memcheck: meson test --wrapper valgrind: ${tests[*]}"
RP_TEST_ISAS=$scene_isas meson test -C "$BUILD" --no-rebuild --print-errorlogs --num-processes 2 \
  --timeout-multiplier 20 --wrapper "${vg[*]}" "${tests[@]}"
if [ "${#more[@]}" -gt 0 ]; then
  echo "memcheck: meson test --wrapper valgrind --test-args=--iterations=$MORE_ITER: ${more[*]}"
  meson test -C "$BUILD" --no-rebuild --print-errorlogs --num-processes 2 \
    --timeout-multiplier 20 --wrapper "${vg[*]}" --test-args="--iterations=$MORE_ITER" "${more[@]}"
fi

echo "memcheck: rp_check --iterations=$ITER under valgrind (every variant it can run)"
"${vg[@]}" --log-file="$BUILD/rp_check.valgrind.log" \
  "$BUILD/tests/check/rp_check" --iterations="$ITER" | tail -8 || {
  echo "memcheck: FAILED: rp_check under valgrind"; cat "$BUILD/rp_check.valgrind.log"; exit 1; }
grep -E 'ERROR SUMMARY|definitely lost' "$BUILD/rp_check.valgrind.log" | sed 's/^==[0-9]*== /  /'
echo "memcheck: ok: no valgrind error ($((SECONDS - t0)) s)"
