#!/usr/bin/env bash
# scripts/demo.sh - the main job from nothing: installs what is missing
# (scripts/deps.sh: compiler, Meson, Ninja, pkg-config, SIMDe, plus
# libassimp-dev for rp_trace --mesh and libpng-dev for its PNG output),
# builds raypack and rp_trace (release; only the library and rp_trace, not
# the tests), and runs rp_trace with no arguments: it renders the built-in
# procedural scene (about 1.06 million triangles behind raypack's BVH) at
# 1280x720, 2 samples and 4 ambient-occlusion rays per pixel, on every
# core, writes trace.png and prints the BVH build time, the scene's memory
# and Mrays/s per ray kind (primary, shadow, AO) with the variant and the
# thread count.  About a minute on a fresh Debian 12 with 2 cores, most of
# it the compiler; the render itself takes a few seconds.
# Extra arguments go to rp_trace (e.g. --isa scalar, --size 640x360,
# --mesh model.obj, -o other.png; rp_trace --help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh libassimp-dev libpng-dev # what the demo needs, not the test tools
# Off ARM the NEON variant is SIMDe's emulation, there for cross-checking
# (the tests build it), never for speed, and its source is the slowest to
# compile: the demo leaves it out.
case "$(uname -m)" in
  aarch64|arm64) variants=() ;;
  *) variants=(-Dneon=disabled) ;;
esac
[ -f build/build.ninja ] || meson setup build --buildtype=release "${variants[@]}"
ninja -C build examples/rp_trace
build/examples/rp_trace -o trace.png "$@"
