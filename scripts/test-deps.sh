#!/usr/bin/env bash
# scripts/test-deps.sh - what scripts/test.sh (and so .ci/run) needs on top
# of the build (scripts/deps.sh): rp_bench (C++ shim, Google Benchmark,
# Embree as the peer, matplotlib chart); the aarch64 cross build and
# qemu-user (qemu-aarch64, and qemu-x86_64 -cpu Nehalem for the old-CPU
# run); clang with libclang-rt-14-dev (libFuzzer and sanitizer runtimes,
# only *recommended* by clang so named here); valgrind; rp_trace's optional
# mesh loader and PNG writer (libassimp-dev, libpng-dev), so the tests cover
# them; cmake, for the find_package(raypack) consumer test.
set -euo pipefail
exec bash "$(dirname "$0")/deps.sh" \
  g++ libbenchmark-dev libembree-dev \
  python3 python3-matplotlib \
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
  qemu-user \
  clang libclang-rt-14-dev \
  valgrind \
  libassimp-dev libpng-dev cmake
