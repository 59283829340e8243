#!/usr/bin/env bash
# scripts/demo.sh - the main job from nothing: installs what is missing,
# builds raypack (release), and runs rp_trace, which traces a batch of rays
# against a built-in scene of a plane, boxes, triangles and spheres, writes
# trace.ppm and prints the variant used and the rays per second.
# Extra arguments go to rp_trace (e.g. --isa=scalar --width=1280).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh # the build's packages only, not the test tools
[ -f build/build.ninja ] || meson setup build --buildtype=release
ninja -C build
build/examples/rp_trace -o trace.ppm "$@"
