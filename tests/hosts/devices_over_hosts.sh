#!/usr/bin/env bash
# `collviz devices --hosts` across emulated hosts (issue 33), run by
# emulated_hosts.sh 3: node1 as it should be, node2 running a collviz-rank
# of another version (a test double bound over it there), node3 without
# collviz-rank (an empty folder over its own) and node9, a host the launcher
# agent cannot reach. Each is named with what was found there; node1's
# backends are listed; --json says the same; nothing is left running.
set -u
cv=$1
bin=$(dirname "$(readlink -f "$cv")")
ns=$COLLVIZ_TEST_NS
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The test double: answers --probe as a collviz-rank of version 0.0.1-test-double.
double="$dir/collviz-rank-test-double"
cat >"$double" <<'DOUBLE'
#!/bin/sh
echo '{"backends":[{"name":"gloo","available":true,"reason":"","gpus":0}],"collviz":"0.0.1-test-double","commit":"","host":"'"$(hostname)"'"}'
DOUBLE
chmod 755 "$double"
export COLLVIZ_TEST_MOUNTS="node2=$double=$bin/collviz-rank node3==$bin"
common=(--hosts node1:2,node2,node3:4,node9 --launcher-agent "$COLLVIZ_TEST_AGENT" --iface "$COLLVIZ_TEST_IFACE")

timeout 120 "$cv" devices "${common[@]}" >"$dir/out" 2>"$dir/err"
rc=$?
sed 's/^/  | /' "$dir/out"
[ $rc = 1 ] || bad "exit $rc, want 1 (three hosts cannot run ranks): $(tail -3 "$dir/err")"
grep -q "^host node1 (node1): collviz-rank " "$dir/out" || bad "node1 not listed as usable"
grep -q "^  gloo  available" "$dir/out" || bad "node1's backends not listed"
grep -q "^  mpi   available" "$dir/out" || bad "node1's MPI not listed"
grep -q "^host node2: runs collviz-rank 0.0.1-test-double and this collviz is " "$dir/out" || bad "node2's other version not named"
grep -q "^host node3: no collviz-rank at $bin/collviz-rank there (mpirun: " "$dir/out" || bad "node3's missing collviz-rank not named"
grep -q "^host node9: cannot be reached: mpirun could not start its daemon on node9 through $COLLVIZ_TEST_AGENT" "$dir/out" ||
  bad "node9 not named as unreachable"
grep -q "^3 of 4 host(s) cannot run collviz's ranks" "$dir/out" || bad "no summary"

timeout 120 "$cv" devices "${common[@]}" --json >"$dir/json" 2>"$dir/err"
rc=$?
[ $rc = 1 ] || bad "--json: exit $rc, want 1"
python3 - "$dir/json" <<'PY' || bad "--json does not say the same"
import json, sys
j = json.load(open(sys.argv[1]))
h = {x["host"]: x for x in j["hosts"]}
assert list(h) == ["node1", "node2", "node3", "node9"], list(h)
assert h["node1"]["ok"] and h["node1"]["hostname"] == "node1" and h["node1"]["collviz"] == j["collviz"]
assert {b["name"] for b in h["node1"]["backends"] if b["available"]} >= {"gloo", "mpi"}
assert not h["node2"]["ok"] and h["node2"]["collviz"] == "0.0.1-test-double" and "0.0.1-test-double" in h["node2"]["problem"]
assert not h["node3"]["ok"] and "no collviz-rank" in h["node3"]["problem"]
assert not h["node9"]["ok"] and "cannot be reached" in h["node9"]["problem"]
PY

# Every host fine: exit 0.
COLLVIZ_TEST_MOUNTS= timeout 120 "$cv" devices --hosts node1,node2,node3 --launcher-agent "$COLLVIZ_TEST_AGENT" >"$dir/out" 2>"$dir/err" ||
  bad "three good hosts: exit $?: $(tail -3 "$dir/out")"
grep -q "^every host runs collviz " "$dir/out" || bad "three good hosts: no summary"
# In Chinese too.
timeout 120 "$cv" devices "${common[@]}" --lang zh >"$dir/zh" 2>&1
grep -q "^主机 node3：那里没有位于 " "$dir/zh" || bad "--lang zh: node3 not named in Chinese: $(grep node3 "$dir/zh")"
# Nothing left on any host.
sleep 0.5
for h in node1 node2 node3; do
  left=$(ip netns pids "$ns-$h")
  [ -z "$left" ] || bad "left on $h: $(ps -o comm= -p $(echo $left | tr ' ' ,) | tr '\n' ' ')"
done
echo "$fails failed"
[ $fails = 0 ]
