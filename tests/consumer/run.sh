#!/usr/bin/env bash
# run.sh - checks the two ways a user takes raypack: installed (meson install
# into a staging prefix, then cc with pkg-config) and as a Meson subproject.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "--- install + pkg-config"
meson setup "$work/build" "$repo" --prefix="$work/prefix" --libdir=lib -Dtests=false -Dbench=disabled >/dev/null
ninja -C "$work/build" >/dev/null
meson install -C "$work/build" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -std=c99 -Wall -Werror "$repo/tests/consumer/app.c" $(pkg-config --cflags --libs raypack) \
   -Wl,-rpath,"$work/prefix/lib" -o "$work/app_shared"
"$work/app_shared"
cc -std=c99 "$repo/tests/consumer/app.c" $(pkg-config --cflags raypack) \
   "$work/prefix/lib/libraypack.a" $(pkg-config --libs-only-l --static raypack | sed 's/-lraypack//') -pthread -lm \
   -o "$work/app_static"
"$work/app_static"

echo "--- subproject"
mkdir -p "$work/proj/subprojects"
cp "$repo/tests/consumer/meson.build" "$repo/tests/consumer/app.c" "$work/proj/"
ln -s "$repo" "$work/proj/subprojects/raypack"
meson setup "$work/proj/build" "$work/proj" >/dev/null
ninja -C "$work/proj/build" >/dev/null
meson test -C "$work/proj/build" --print-errorlogs
echo "consumer: install and subproject both work"
