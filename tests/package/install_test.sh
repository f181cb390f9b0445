#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, the tree moved elsewhere, then
# run from another directory with the source and build trees hidden
# (check_tree.sh): --version, run (Gloo, verified), export (PNG), lecture
# --export; and with the build tree in sight, it runs its own worker. Also: every file the layout promises is there, and no installed
# program carries an RPATH into the build or source tree.
#   usage: install_test.sh SOURCE_DIR BUILD_DIR
# Exit 77 (skipped) with the reason when no display can be had for export.
set -u
root=$(cd "${1:?usage: install_test.sh SOURCE_DIR BUILD_DIR}" && pwd)
build=$(cd "${2:?usage: install_test.sh SOURCE_DIR BUILD_DIR}" && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
[ -n "${DISPLAY:-}" ] || command -v xvfb-run >/dev/null ||
  skip "export needs a display: DISPLAY is unset and xvfb-run is missing (Debian: xvfb)"

WORK=$(mktemp -d /tmp/collviz-install-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cmake --install "$build" --prefix "$WORK/first" > "$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log"; echo "FAIL: cmake --install failed"; exit 1; }
mv "$WORK/first" "$WORK/moved"
TREE=$WORK/moved
echo "installed, then moved to $TREE:"
(cd "$TREE" && find . -type f -o -type l | sort | sed 's/^\.\//  /')

expect=(bin/collviz lib/collviz/collviz-rank share/man/man1/collviz.1.gz
        share/applications/collviz.desktop share/icons/hicolor/scalable/apps/collviz.svg
        share/doc/collviz/copyright share/doc/collviz/changelog.gz)
for f in "$root"/assets/lectures/*.toml; do expect+=("share/collviz/lectures/$(basename "$f")"); done
[ -e "$build/bin/libcollviz-nccl.so" ] && expect+=(lib/collviz/libcollviz-nccl.so)
taps=()
for t in mpi nccl; do [ -e "$build/bin/libcollviz-tap-$t.so" ] && taps+=("$t") && expect+=("lib/collviz/libcollviz-tap-$t.so"); done
if grep -q '^RSVG_CONVERT:FILEPATH=/' "$build/CMakeCache.txt"; then
  for s in 16 24 32 48 64 128 256; do expect+=("share/icons/hicolor/${s}x${s}/apps/collviz.png"); done
fi
for f in "${expect[@]}"; do [ -e "$TREE/$f" ] || fail "missing $f"; done
for f in $(cd "$TREE" && find . -type f | sed 's/^\.\///'); do
  case "$f" in bin/collviz | lib/collviz/* | share/*) ;; *) fail "unexpected file $f" ;; esac
done
for e in bin/collviz lib/collviz/collviz-rank lib/collviz/libcollviz-nccl.so; do
  [ -e "$TREE/$e" ] || continue
  rp=$(readelf -d "$TREE/$e" | grep -E 'RPATH|RUNPATH')
  case "$rp" in *"$build"* | *"$root"*) fail "$e has an RPATH into the build or source tree: $rp" ;; esac
  [ -n "$rp" ] && echo "$e: $(echo "$rp" | sed 's/.*\[\(.*\)\]/RUNPATH \1/')"
done
if [ -e "$TREE/share/man/man1/collviz.1.gz" ]; then
  for c in run devices bench export algos lecture; do
    zcat "$TREE/share/man/man1/collviz.1.gz" | grep -q "^\.SS collviz $c\$" ||
      fail "the man page has no section for collviz $c"
  done
  if command -v man >/dev/null; then
    warn=$(MANWIDTH=80 man --warnings -l "$TREE/share/man/man1/collviz.1.gz" 2>&1 >/dev/null)
    [ -z "$warn" ] || fail "man reports: $warn"
  fi
fi

WANT_VERSION=$("$build/bin/collviz" --version)
project=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
echo "$WANT_VERSION" | grep -Eq "^collviz $project( \(git [0-9a-f]{12}(-dirty)?\))?\$" ||
  fail "--version says '$WANT_VERSION'; want 'collviz $project (git COMMIT)'"
if head=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null); then
  case "$WANT_VERSION" in *"(git $head"*) ;; *) fail "--version says '$WANT_VERSION', the checkout is at $head (stale?)" ;; esac
fi
# Where the worker comes from: with the build tree in plain sight (run from
# build/bin, build/bin first on PATH), the installed collviz runs its own
# lib/collviz/collviz-rank, never the checkout's. The workers are read from
# /proc while a delayed run holds them (waited for, at most 10 s).
check_worker_origin() {
  local out=$WORK/origin.txt pid c found=""
  (cd "$build/bin" && PATH="$build/bin:$PATH" COLLVIZ_FAULT=delay_ms:1500 \
     exec "$TREE/bin/collviz" run --op all_reduce -N 2 -E 3 --backend gloo) > "$out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    for c in $(pgrep -P $pid -x collviz-rank); do found="$found $(readlink /proc/$c/exe)"; done
    [ -n "$found" ] && break
    sleep 0.1
  done
  wait $pid || fail "the installed collviz, run from build/bin, exited $?: $(tail -3 "$out")"
  [ -n "$found" ] || { fail "no worker of the installed collviz was seen within 10 s"; return; }
  for c in $found; do
    [ "$c" = "$TREE/lib/collviz/collviz-rank" ] ||
      fail "the installed collviz ran the worker $c, not $TREE/lib/collviz/collviz-rank"
  done
  echo "worker: $TREE/lib/collviz/collviz-rank, with build/bin in sight (cwd and PATH)"
}

# The installed collviz watches with its own taps, not the build tree's.
check_taps() {
  local t got
  for t in "${taps[@]}"; do
    got=$(cd "$build/bin" && "$TREE/bin/collviz" tap-path --tap "$t" 2>&1)
    [ "$got" = "$TREE/lib/collviz/libcollviz-tap-$t.so" ] || fail "tap-path --tap $t said '$got', not $TREE/lib/collviz/libcollviz-tap-$t.so"
  done
  echo "taps: ${taps[*]:-none built} from $TREE/lib/collviz"
}

HIDE="$build $root"
. "$(dirname "$0")/check_tree.sh"
check_tree
check_worker_origin
check_taps
[ $failed -eq 0 ] && echo PASS
exit $failed
