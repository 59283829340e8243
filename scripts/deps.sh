#!/usr/bin/env bash
# scripts/deps.sh [demo] - installs what raypack needs on Debian 12, as
# root.  Idempotent: apt-get skips what is there.  With "demo" (scripts/demo.sh):
# only the build of the library and rp_trace (compiler, Meson, Ninja,
# pkg-config, SIMDe); without (scripts/test.sh, and so .ci/run): everything
# the tests and the benchmark need.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "deps.sh: run as root (apt-get install)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# compiler and Meson >= 1.0.1; SIMDe (portable intrinsics for every variant);
# rp_bench (C++ shim, Google Benchmark, Embree as the peer, matplotlib chart);
# the aarch64 cross build and qemu-user (qemu-aarch64, and qemu-x86_64 -cpu
# Nehalem for the old-CPU run); clang with libclang-rt-14-dev (libFuzzer and
# sanitizer runtimes, only *recommended* by clang so named here); valgrind.
pkgs=(
  build-essential pkg-config meson ninja-build
  libsimde-dev
  g++ libbenchmark-dev libembree-dev
  python3 python3-matplotlib
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  qemu-user
  clang libclang-rt-14-dev
  valgrind
)
if [ "${1:-}" = demo ]; then
  pkgs=(build-essential pkg-config meson ninja-build libsimde-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "deps.sh: installing ${missing[*]}"
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "deps.sh: all packages present"
fi
