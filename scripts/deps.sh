#!/usr/bin/env bash
# scripts/deps.sh [PACKAGE...] - installs on Debian 12, as root, what the
# build of the library and rp_trace needs (compiler, Meson >= 1.0.1, Ninja,
# pkg-config, SIMDe: the portable intrinsics of every variant), plus the
# packages named as arguments.  Idempotent: apt-get skips what is there.
# scripts/demo.sh calls it alone; scripts/test-deps.sh (for scripts/test.sh
# and so .ci/run) adds the test and benchmark tools.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "deps.sh: run as root (apt-get install)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
pkgs=(build-essential pkg-config meson ninja-build libsimde-dev "$@")
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
