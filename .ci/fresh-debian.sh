#!/usr/bin/env bash
# .ci/fresh-debian.sh [COMMAND...] - runs COMMAND (default: bash scripts/demo.sh)
# as root on a fresh, minimal Debian 12 (bookworm) system: a debootstrap
# chroot with nothing but the base packages, holding a `git clone` of this
# repository's committed HEAD (not the working tree: uncommitted edits are
# not seen, so this shows what a user who clones gets).  Prints the wall time
# of COMMAND and exits with its status.  Not run by CI (.ci/run); run it by
# hand on a Debian/Ubuntu host, as root, with network access to the mirror:
#
#   sudo bash .ci/fresh-debian.sh                      # the README's demo
#   sudo bash .ci/fresh-debian.sh bash scripts/test.sh # the whole test suite
#   sudo bash .ci/fresh-debian.sh bash -c 'bash scripts/deps.sh && ...'
#
# COMMAND runs in the clone (/root/raypack inside the chroot) with a clean
# environment (HOME=/root, PATH, LANG=C.UTF-8, no terminal on stdin).
#
# The first run debootstraps bookworm (--variant=minbase: essential packages
# and apt, as in the debian:bookworm container image) into a cache and packs
# it as a tarball; later runs unpack that tarball into a new directory, so
# every run starts from the same untouched system (apt-get update inside the
# chroot still fetches today's package lists).  The chroot is deleted after
# the run unless FRESH_DEBIAN_KEEP=1.  /proc, /sys and /dev (with /dev/pts)
# are mounted for the run and unmounted by an EXIT trap, also on failure or
# Ctrl-C; the directory is removed only once nothing is mounted under it.
#
# Environment:
#   FRESH_DEBIAN_CACHE   cache folder (default /tmp/fresh-debian-cache)
#   FRESH_DEBIAN_REFRESH=1  debootstrap again even if the tarball exists
#   FRESH_DEBIAN_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#   FRESH_DEBIAN_REF     commit or branch to clone (default: HEAD)
#   FRESH_DEBIAN_KEEP=1  keep the chroot afterwards (its path is printed)
#   FRESH_DEBIAN_TMP     where the chroot is made (default /tmp; not noexec)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
mirror=${FRESH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${FRESH_DEBIAN_CACHE:-/tmp/fresh-debian-cache}
ref=${FRESH_DEBIAN_REF:-HEAD}
[ "$#" -gt 0 ] || set -- bash scripts/demo.sh

say() { echo "fresh-debian: $*" >&2; }
if [ "$(id -u)" != 0 ]; then
  say "run as root (debootstrap, mount, chroot)"
  exit 1
fi
commit=$(git -c safe.directory="$repo" -C "$repo" rev-parse --verify "$ref^{commit}")
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null
fi
arch=$(dpkg --print-architecture)
tarball="$cache/$suite-$arch-minbase.tar"

root=""
cleanup() {
  local status=$?
  [ -n "$root" ] || exit "$status"
  # innermost first; umount -R takes /dev/pts with /dev
  for m in "$root/dev" "$root/sys" "$root/proc"; do
    if mountpoint -q "$m"; then
      umount -R "$m" || umount -R -l "$m" || say "could not unmount $m"
    fi
  done
  if [ "${FRESH_DEBIAN_KEEP:-0}" = 1 ]; then
    say "kept $root"
  elif findmnt -rn -o TARGET | grep -q "^$root/"; then
    say "something is still mounted under $root: not removing it"
  else
    rm -rf --one-file-system "$root"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# 1. the base system, debootstrapped once and cached as a tarball
t0=$SECONDS
if [ ! -f "$tarball" ] || [ "${FRESH_DEBIAN_REFRESH:-0}" = 1 ]; then
  mkdir -p "$cache"
  base="$cache/base.tmp"
  rm -rf --one-file-system "$base"
  say "debootstrap $suite ($arch, minbase) from $mirror"
  if ! debootstrap --variant=minbase --arch="$arch" "$suite" "$base" "$mirror" \
       >"$cache/debootstrap.log" 2>&1; then
    say "debootstrap failed (mirror $mirror unreachable?); last lines of $cache/debootstrap.log:"
    tail -n 15 "$cache/debootstrap.log" >&2
    rm -rf --one-file-system "$base"
    exit 1
  fi
  # what a Debian 12 installation lists: main, updates, security
  cat >"$base/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb http://deb.debian.org/debian-security $suite-security main
EOF
  rm -rf "$base/var/lib/apt/lists/"* "$base/var/cache/apt/archives/"*.deb
  tar -C "$base" -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
  rm -rf --one-file-system "$base"
  say "cached $tarball ($((SECONDS - t0)) s)"
fi
root=$(mktemp -d "${FRESH_DEBIAN_TMP:-/tmp}/fresh-debian.XXXXXX")
chmod 755 "$root"
tar -C "$root" -xf "$tarball"

# 2. the repository's committed state, cloned (not copied) into /root/raypack
git -c safe.directory="$repo" clone -q --no-hardlinks "$repo" "$root/root/raypack"
git -C "$root/root/raypack" checkout -q --detach "$commit"
say "cloned $(git -C "$root/root/raypack" log -1 --format='%h %s' | cut -c1-70)"

# 3. what a running system has: /proc, /sys, /dev, name resolution; no
# daemons started by package scripts
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"

# 4. the command, timed
printf -v cmd ' %q' "$@"
say "running as root in $root/root/raypack:$cmd"
t1=$(date +%s.%N)
set +e
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/bash -c "cd /root/raypack && exec$cmd" </dev/null
status=$?
set -e
t2=$(date +%s.%N)
say "$(printf 'command exited %d after %.1f s wall time (commit %s, %s %s)' \
  "$status" "$(awk "BEGIN{print $t2 - $t1}")" \
  "${commit:0:7}" "$suite" "$arch")"
exit "$status"
