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
