#!/usr/bin/env bash
# .ci/fuzz.sh - differential fuzzing with libFuzzer: every runnable variant
# against the scalar reference, bit for bit (tests/fuzz/rp_fuzz.c).
#
# Uses build-asan/, the one ASan + UBSan build (.ci/lib.sh,
# rp_asan_configure; .ci/sanitize.sh runs the test suite in it): clang at
# -O1 with line tables, the whole library with -fsanitize=fuzzer-no-link
# (coverage feedback from inside the kernels, and ASan reports for a vector tail that
# reads past an array), rp_fuzz itself with -fsanitize=fuzzer,address,undefined.
# Then replays the seed corpus and the regression inputs, and fuzzes for
# FUZZ_SECONDS (default 60) starting from a copy of the corpus.  A failing input is saved under
# build-asan/artifacts/; copy it to tests/fuzz/regressions/ once fixed.
#
# Environment: FUZZ_SECONDS (default 60), FUZZ_JOBS (parallel fuzzing
# processes, default 1), FUZZ_ARGS (extra libFuzzer flags), RP_MESON_ARGS
# (extra meson options).
#
# apt packages: clang-14 (clang), libclang-rt-14-dev (libFuzzer and the
#   sanitizer runtimes; only "recommended" by clang, so install it
#   explicitly), meson, ninja-build, libsimde-dev, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/lib.sh

SECONDS_TO_FUZZ=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
t0=$SECONDS
rp_asan_configure fuzz
BUILD=$ASAN_BUILD
CLANG=$ASAN_CC

# (the list in a variable first: with pipefail, grep -q closing the pipe
# early makes ninja die of SIGPIPE and the test fail at random)
targets=$(ninja -C "$BUILD" -t targets all)
if ! grep -q '^tests/fuzz/rp_fuzz:' <<<"$targets"; then
  echo "fuzz: meson found no libFuzzer for $CLANG, so rp_fuzz is not defined"
  echo "fuzz: (apt-get install libclang-rt-14-dev; see $BUILD/meson-logs/meson-log.txt)"
  exit 1
fi
echo "fuzz: building rp_fuzz and rp_fuzz_replay"
ninja -C "$BUILD" -j2 tests/fuzz/rp_fuzz tests/fuzz/rp_fuzz_replay

# The first report (a mismatch printed by rp_fuzz, or a sanitizer's) and
# libFuzzer's last words (where it saved the input).
report() {
  grep -m1 -B2 -A16 -E '^rp_fuzz: [a-z_.]+\[|ERROR: |runtime error:|rp_fuzz: .*(differs|wrote|changed|returned)' "$1" || true
  echo "..."
  tail -6 "$1"
}

export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
echo "fuzz: replaying tests/fuzz/corpus and tests/fuzz/regressions (instrumented)"
mkdir -p "$BUILD/artifacts"
if ! "$BUILD/tests/fuzz/rp_fuzz" -runs=0 -artifact_prefix="$BUILD/artifacts/" \
     tests/fuzz/corpus tests/fuzz/regressions >"$BUILD/replay.log" 2>&1; then
  echo "fuzz: FAILED while replaying the corpus; from $BUILD/replay.log:"
  report "$BUILD/replay.log"
  exit 1
fi
grep -E 'INITED|DONE' "$BUILD/replay.log" || true
"$BUILD/tests/fuzz/rp_fuzz_replay" tests/fuzz/corpus tests/fuzz/regressions

work="$BUILD/corpus"
mkdir -p "$work"
cp -n tests/fuzz/corpus/* "$work/" 2>/dev/null || true
echo "fuzz: fuzzing for ${SECONDS_TO_FUZZ}s ($JOBS job(s)); working corpus $work"
log="$BUILD/fuzz.log"
set +e
fargs=(-max_total_time="$SECONDS_TO_FUZZ" -print_final_stats=1 -timeout=30
       -rss_limit_mb=4096 -artifact_prefix="$BUILD/artifacts/")
[ "$JOBS" -gt 1 ] && fargs+=(-fork="$JOBS")
# shellcheck disable=SC2206
[ -n "${FUZZ_ARGS:-}" ] && fargs+=(${FUZZ_ARGS})
echo "fuzz: $BUILD/tests/fuzz/rp_fuzz ${fargs[*]} $work"
"$BUILD/tests/fuzz/rp_fuzz" "${fargs[@]}" "$work" >"$log" 2>&1
rc=$?
set -e
grep -E '^#[0-9]+ +(DONE|INITED)|stat::|ERROR|SUMMARY|rp_fuzz' "$log" | tail -25
if [ $rc -ne 0 ]; then
  echo "fuzz: FAILED (exit $rc); from $log:"
  report "$log"
  ls -l "$BUILD/artifacts/" || true
  exit 1
fi
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
if [ -z "$execs" ]; then # -fork (FUZZ_JOBS > 1) prints no final stats: its last progress line
  execs=$(sed -n 's/^#\([0-9][0-9]*\): cov:.*/\1/p' "$log" | tail -1)
fi
echo "fuzz: ok: ${execs:-?} executions in ${SECONDS_TO_FUZZ}s, no mismatch, no sanitizer report ($((SECONDS - t0)) s total)"
