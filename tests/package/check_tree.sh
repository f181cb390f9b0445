#!/usr/bin/env bash
# Runs an installed collviz tree the way a user would, from a working
# directory of its own: --version, devices --json, run (Gloo, verified),
# export (a PNG), lecture <installed script> --export DIR. Sourced by
# install_test.sh and deb_test.sh after they set:
#   TREE   the prefix (TREE/bin/collviz, TREE/lib/collviz, TREE/share/collviz)
#   WANT_VERSION  what `collviz --version` must print (the build's own)
#   WORK   a scratch directory
# and `fail MSG` (records a failure). Hidden from the tree when root may make
# a private mount namespace: the source tree and the build tree (HIDE), so
# the tree cannot be reading them.
check_tree() {
  local bin=$TREE/bin/collviz here=$WORK/elsewhere
  mkdir -p "$here"
  local lecture
  lecture=$(ls "$TREE"/share/collviz/lectures/*.toml 2>/dev/null | head -1)
  [ -n "$lecture" ] || { fail "no lecture script in $TREE/share/collviz/lectures"; return; }
  local script=$WORK/commands.sh
  cat > "$script" <<SCRIPT
set -u
cd "$here"
v=\$("$bin" --version) || { echo "FAIL: collviz --version exited \$?"; exit 1; }
[ "\$v" = "$WANT_VERSION" ] || { echo "FAIL: --version says '\$v', the build says '$WANT_VERSION'"; exit 1; }
echo "version: \$v"
"$bin" devices --json > devices.json || { echo "FAIL: devices --json exited \$?"; exit 1; }
grep -q '"collviz_version": "' devices.json || { echo "FAIL: devices --json has no collviz_version"; exit 1; }
"$bin" run --op all_reduce -N 4 -E 3 --backend gloo --json > run.json 2> run.err ||
  { echo "FAIL: run exited \$?: \$(tail -3 run.err)"; exit 1; }
grep -q '^  "verified": true' run.json || { echo "FAIL: run not verified: \$(grep -m3 'verified\\|error' run.json)"; exit 1; }
grep -q '"collviz_version": "' run.json || { echo "FAIL: run --json's backend block has no collviz_version"; exit 1; }
echo "run: all_reduce N=4 on Gloo verified"
"$bin" export --op all_gather -N 4 --backend gloo -o figure.png > export.log 2>&1 ||
  { echo "FAIL: export exited \$?: \$(tail -3 export.log)"; exit 1; }
[ "\$(head -c 8 figure.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  { echo "FAIL: export wrote no PNG"; exit 1; }
echo "export: figure.png \$(stat -c %s figure.png) bytes"
"$bin" lecture "$lecture" --export deck --format png > lecture.log 2>&1 ||
  { echo "FAIL: lecture --export exited \$?: \$(tail -3 lecture.log)"; exit 1; }
n=\$(ls deck/*.png 2>/dev/null | wc -l)
[ "\$n" -gt 0 ] && [ -f deck/index.md ] || { echo "FAIL: lecture --export wrote \$n PNGs and no index.md"; exit 1; }
echo "lecture: \$(basename "$lecture") -> \$n PNGs and index.md"
SCRIPT
  local out rc
  if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    # Empty directories mounted over the source and build trees.
    out=$(unshare -m --propagation private bash -c '
      for d in '"$HIDE"'; do mount -t tmpfs -o size=1m,mode=0555 hidden "$d" || exit 3; done
      echo "hidden: '"$HIDE"'"
      bash "$0"' "$script" 2>&1)
    rc=$?
  else
    echo "note: not root or no private mount namespace: the source and build trees stay visible"
    out=$(bash "$script" 2>&1)
    rc=$?
  fi
  echo "$out" | sed 's/^/  /'
  [ $rc -eq 0 ] || fail "the tree at $TREE did not run (exit $rc)"
}
