#!/usr/bin/env bash
# run.sh - checks the ways a user takes raypack: installed (meson install into
# a staging prefix, then cc with pkg-config, and a CMake project with
# find_package), and as a Meson subproject.  The CMake part also checks the
# installed executables (rp_check, rp_trace), that the CMake package still
# works once the prefix is moved (relocatable: what a DESTDIR staging needs),
# and that find_package finds a Debian-layout install (/usr/local, multiarch
# libdir) with CMake's default search paths.  Needs cmake (scripts/test-deps.sh).
#
# RP_CONSUMER_BUILD=DIR installs from DIR, an existing build folder of this
# checkout (scripts/test.sh passes its native one, build-test: the library
# its tests passed on, with no second compile of it), reconfigured here:
# its prefix and libdir are left at the Debian defaults of the last step.
# Without it, a fresh folder in a temporary directory.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! command -v cmake >/dev/null; then
  echo "consumer: cmake not found (apt-get install cmake; scripts/test-deps.sh installs it)" >&2
  exit 1
fi

# builds only what `meson install` installs (tests=true for rp_check, without
# the rest of the test suite), then installs it with the given arguments
install_build() {
  local b="$1"; shift
  local files
  files=$(meson introspect "$b" --targets | python3 -c '
import json, os, sys
b = sys.argv[1]
for t in json.load(sys.stdin):
    if t["installed"]:
        for f in t["filename"]:
            print(os.path.relpath(f, b))' "$b")
  # shellcheck disable=SC2086
  ninja -C "$b" $files >/dev/null
  meson install -C "$b" --no-rebuild "$@" >/dev/null
}

echo "--- install + pkg-config"
build="$work/build"
if [ -n "${RP_CONSUMER_BUILD:-}" ]; then
  build=$(cd "$RP_CONSUMER_BUILD" && pwd)
  [ -f "$build/build.ninja" ] || { echo "consumer: RP_CONSUMER_BUILD=$RP_CONSUMER_BUILD is not a build folder" >&2; exit 1; }
  echo "consumer: installing from $build"
  meson configure "$build" -Dprefix="$work/prefix" -Dlibdir=lib -Dtests=true >/dev/null
else
  meson setup "$build" "$repo" --prefix="$work/prefix" --libdir=lib -Dtests=true -Dbench=disabled >/dev/null
fi
install_build "$build"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -std=c99 -Wall -Werror "$repo/tests/consumer/app.c" $(pkg-config --cflags --libs raypack) \
   -Wl,-rpath,"$work/prefix/lib" -o "$work/app_shared"
"$work/app_shared"
cc -std=c99 "$repo/tests/consumer/app.c" $(pkg-config --cflags raypack) \
   "$work/prefix/lib/libraypack.a" $(pkg-config --libs-only-l --static raypack | sed 's/-lraypack//') -pthread -lm \
   -o "$work/app_static"
"$work/app_static"

echo "--- installed executables"
# rp_check and rp_trace in bin/, run from there (installed without an rpath:
# the library through LD_LIBRARY_PATH, as for any prefix ld.so does not search)
export LD_LIBRARY_PATH="$work/prefix/lib"
for f in bin/rp_trace bin/rp_check include/raypack.h lib/libraypack.a lib/pkgconfig/raypack.pc \
         lib/cmake/raypack/raypackConfig.cmake lib/cmake/raypack/raypackConfigVersion.cmake; do
  [ -e "$work/prefix/$f" ] || { echo "consumer: $f not installed" >&2; exit 1; }
done
"$work/prefix/bin/rp_check" --list
"$work/prefix/bin/rp_check" --iterations=2 >/dev/null
"$work/prefix/bin/rp_trace" --help >/dev/null # (its options are rp_trace's own tests' business)
unset LD_LIBRARY_PATH

echo "--- install + CMake find_package"
# the same app.c, as a CMake project (tests/consumer/CMakeLists.txt) linking
# raypack::raypack and raypack::raypack_static; configured from scratch each
# time (a fresh build folder) so find_package really runs
cmake_app() {
  local b="$1"; shift
  cmake -S "$repo/tests/consumer" -B "$b" -G Ninja -DCMAKE_C_FLAGS="-Wall -Werror" \
        "$@" >"$b.log" 2>&1 || { cat "$b.log"; echo "consumer: cmake configure failed" >&2; return 1; }
  grep -- '-- raypack ' "$b.log"
  ninja -C "$b" >"$b.log" 2>&1 || { cat "$b.log"; echo "consumer: CMake build failed" >&2; return 1; }
  "$b/app_shared"
  "$b/app_static"
}
cmake_app "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix"
# relocatable: the prefix moved elsewhere (as a DESTDIR staging is), the old
# path gone; the package computes its prefix from its own location
mv "$work/prefix" "$work/moved"
cmake_app "$work/cmake-moved" -DCMAKE_PREFIX_PATH="$work/moved"
# a version from another series is refused (0.x: the minor must match)
if cmake -S "$repo/tests/consumer" -B "$work/cmake-v" -G Ninja -DCMAKE_PREFIX_PATH="$work/moved" \
     -DRP_CONSUMER_VERSION=0.99 >"$work/cmake-v.log" 2>&1; then
  echo "consumer: find_package(raypack 0.99) accepted raypack $(grep -o 'raypack [0-9.]*' "$work/cmake-v.log")" >&2
  exit 1
fi
grep -q 'compatible with requested version "0.99"' "$work/cmake-v.log" ||
  { cat "$work/cmake-v.log"; echo "consumer: find_package(raypack 0.99) failed otherwise" >&2; exit 1; }

echo "--- Debian layout + CMake default search paths"
# what `meson setup` gives a Debian user: prefix /usr/local, libdir
# lib/<multiarch>; staged with DESTDIR and found without CMAKE_PREFIX_PATH
# (CMAKE_FIND_ROOT_PATH re-roots CMake's default prefixes into the staging)
multiarch=$(cc -print-multiarch 2>/dev/null || true)
meson configure "$build" -Dprefix=/usr/local -Dlibdir="lib${multiarch:+/$multiarch}" >/dev/null
install_build "$build" --destdir "$work/root"
cmake_app "$work/cmake-debian" -DCMAKE_FIND_ROOT_PATH="$work/root" -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY

echo "--- subproject"
mkdir -p "$work/proj/subprojects"
cp "$repo/tests/consumer/meson.build" "$repo/tests/consumer/app.c" "$work/proj/"
ln -s "$repo" "$work/proj/subprojects/raypack"
meson setup "$work/proj/build" "$work/proj" >/dev/null
ninja -C "$work/proj/build" >/dev/null
meson test -C "$work/proj/build" --print-errorlogs
echo "consumer: pkg-config, CMake (find_package) and subproject all work"
