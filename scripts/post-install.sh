#!/bin/sh
# scripts/post-install.sh - run by `meson install` (meson.build): refreshes
# the dynamic loader's cache after an install into the system (DESTDIR
# empty, as root, on Linux), so that rp_check, rp_trace and programs linked
# with -lraypack find libraypack.so.0 at once; without it they fail with
# "cannot open shared object file" until someone runs ldconfig.  Staged
# installs (DESTDIR set) and non-root installs into a private prefix are
# left alone: there the caller sets LD_LIBRARY_PATH or an rpath.
if [ -z "${DESTDIR:-}" ] && [ "$(id -u)" = 0 ] && [ "$(uname -s)" = Linux ]; then
  for l in ldconfig /sbin/ldconfig /usr/sbin/ldconfig; do
    if command -v "$l" >/dev/null 2>&1; then
      "$l" && echo "post-install: ran $l"
      exit 0
    fi
  done
fi
exit 0
