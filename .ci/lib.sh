# .ci/lib.sh - what the reliability scripts (sanitize, fuzz, memcheck, tsan)
# share: configure one build folder with the given compiler and options
# (reconfigure when it exists, so a second run is incremental), keeping the
# setup log in the folder and printing it only on failure.  Sourced, not run.
#
#   rp_configure NAME BUILD CC OPTION...
# RP_MESON_ARGS (environment) adds meson options to every script's build.

rp_configure() {
  local name=$1 build=$2 cc=$3
  shift 3
  local opts=(-Dbench=disabled "$@")
  # shellcheck disable=SC2206
  [ -n "${RP_MESON_ARGS:-}" ] && opts+=(${RP_MESON_ARGS})
  echo "$name: configuring $build with CC=$cc: ${opts[*]}"
  local log
  log=$(mktemp)
  if [ -f "$build/build.ninja" ]; then
    meson setup --reconfigure "$build" "${opts[@]}" >"$log" 2>&1 || { cat "$log"; return 1; }
  else
    rm -rf "$build"
    CC="$cc" meson setup "$build" "${opts[@]}" >"$log" 2>&1 || { cat "$log"; return 1; }
  fi
  mv "$log" "$build/setup.log"
}

# The one ASan + UBSan build that sanitize.sh tests and fuzz.sh fuzzes
# (clang, so libFuzzer can link against it): build-asan/ at -O1, the
# level ASan's authors advise (-O2 took twice as long to compile the kernels
# under the sanitizers: 93 s against 47 s for the AVX2 file on a Zen 3),
# with -fno-sanitize-recover=all and the whole library instrumented for
# libFuzzer's coverage (-fsanitize=fuzzer-no-link: the tests run with it
# too; the ASan runtime supplies the coverage hooks).  Until 2026-11-25 the
# two scripts built two such folders, gcc's and clang's: 200 s of CI each.
# UBSan's pointer-overflow check is left out (-fno-sanitize=pointer-overflow):
# on the SIMD kernels' files, whose traversal copies are inlined many times
# over, it cost more compile time than the rest of UBSan and ASan together
# (clang 14, kernels_sse41.c alone: UBSan 40 s, without that check 14 s;
# the whole set 92 s -> 43 s; the stage took 551 s at 297d339, most of it
# compiling), and an address that wraps is still caught by ASan where it is
# used.  Every other check of "undefined" stays.
# Debug information: line tables only (-gline-tables-only, not -g), which is
# what the sanitizers' stack traces print (function, file, line); the
# variables' locations of -g cost clang 23 s of kernels_sse41.c's 184 s in
# "Live DEBUG_VALUE analysis" alone (clang -ftime-report, Zen 3,
# 2026-11-29), and 184 -> 121 s in all.
# b_ndebug=false: the project defaults to buildtype=release, whose
# b_ndebug=if-release would define NDEBUG and drop the asserts.
# b_lundef=false: clang links the sanitizer runtimes into executables only,
# so the shared library has undefined __asan_* symbols until then.
#   rp_asan_configure NAME   sets ASAN_BUILD and ASAN_CC, configures
rp_find_clang() {
  local c=${CC:-}
  if [ -z "$c" ] || [[ "$("$c" --version 2>/dev/null)" != *clang* ]]; then
    c=$(command -v clang || command -v clang-14 || true)
  fi
  echo "$c"
}

# The variants this CPU cannot run are left out (rp_native_only_opts, below:
# compiled under ASan they are never run, and AVX-512 took 218 of the
# build's 584 s of compile jobs on a Zen 3, 2026-11-29); sanitize.sh has
# clang compile them apart (rp_clang_rest).
rp_asan_configure() {
  ASAN_BUILD=build-asan
  ASAN_CC=$(rp_find_clang)
  [ -n "$ASAN_CC" ] || { echo "$1: clang not found (apt-get install clang-14 libclang-rt-14-dev)"; return 1; }
  local native_only
  mapfile -t native_only < <(rp_native_only_opts)
  rp_configure "$1" "$ASAN_BUILD" "$ASAN_CC" \
    -Doptimization=1 -Ddebug=false -Db_ndebug=false \
    -Db_sanitize=address,undefined -Db_lundef=false \
    "-Dc_args=-gline-tables-only -fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-sanitize=pointer-overflow -fno-omit-frame-pointer" \
    "${native_only[@]}"
}

# rp_clang_rest NAME CC: the variants the ASan build left out, compiled by
# CC (clang) alone, at -O0 and without sanitizers, in build-clang-rest/,
# so that clang still compiles every source of the library (the ASan build
# is its only other build); nothing where none was left out.
rp_clang_rest() {
  local opts=() targets=() v left
  left=$(rp_native_only_opts)
  [ -n "$left" ] || return 0
  for v in sse41 avx2 avx512 neon; do
    if grep -qx -- "-D$v=disabled" <<<"$left"; then
      opts+=("-D$v=enabled"); targets+=("src/libraypack_$v.a")
    else
      opts+=("-D$v=disabled")
    fi
  done
  rp_configure "$1" build-clang-rest "$2" -Dtests=false -Doptimization=0 "${opts[@]}" &&
  echo "$1: clang compiles what the ASan build left out: ${targets[*]}" &&
  ninja -C build-clang-rest "${targets[@]}" | tail -1
}

# rp_native_only_opts: the meson options (one per line) that leave out the
# x86 variants this CPU cannot run; nothing on other hosts, nor where every
# variant runs.  For the builds whose tests run natively only (the -O0
# build of scripts/test.sh, memcheck, tsan, and the ASan build of
# sanitize and fuzz), where such a variant is compiled and never run:
# AVX-512 on an AMD Zen 3, 60-110 s of compile jobs in each of those builds
# (2026-11-29).  The native build still compiles every variant, the
# aarch64 build runs the x86 variants emulated, and clang compiles what
# the ASan build leaves out (rp_clang_rest).
rp_native_only_opts() {
  [ "$(uname -m)" = x86_64 ] || return 0
  local flags
  flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
  _rp_cpu_has() {
    local f
    for f in "$@"; do [[ $flags == *" $f "* ]] || return 1; done
  }
  _rp_cpu_has sse4_1 || echo -Dsse41=disabled
  _rp_cpu_has avx2 fma || echo -Davx2=disabled
  _rp_cpu_has avx512f avx512dq avx512bw avx512vl || echo -Davx512=disabled
  return 0
}
