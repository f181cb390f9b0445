#!/usr/bin/env bash
# collviz watch across emulated hosts (issue 54), run by tests/hosts/emulated_hosts.sh:
#   emulated_hosts.sh 2 watch_over_hosts.sh COLLVIZ LOOP
# `collviz watch -- mpirun -H node1:2,node2:2 …` starts 4 ranks, two on each
# host, through the hosts' launcher agent. The tap reaches every rank (its
# LD_PRELOAD passed by mpirun's -x to the daemons, never to mpirun itself),
# each rank writes its capture file into the capture folder (the hosts share
# its file system, as a cluster's home folder is shared), and the capture
# reads back as one job: 4 ranks on node1 and node2, the same calls on each,
# every call returned, MPI_COMM_WORLD's members 0-3. LOOP is tap-bench-loop:
# 10 warm-up allreduces, then per batch a barrier, 10 allreduces and one
# more (the batch's time): with 2 batches, 32 MPI_Allreduce and 2 MPI_Barrier
# a rank.
set -u
cv=$1 loop=$2
IFS=, read -r -a names <<<"$COLLVIZ_TEST_HOSTS"
dir=$(mktemp -d /tmp/collviz-watch-hosts.XXXXXX)
trap 'rm -rf "$dir"' EXIT
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
timeout 120 "$cv" watch --out "$dir/cap" --json --hang-after 30 -- \
  mpirun "${root[@]}" --oversubscribe --bind-to none --mca btl self,vader,tcp \
  --mca plm_rsh_agent "$COLLVIZ_TEST_AGENT" \
  --mca btl_tcp_if_include "$COLLVIZ_TEST_IFACE" --mca oob_tcp_if_include "$COLLVIZ_TEST_IFACE" \
  -H "${names[0]}:2,${names[1]}:2" -np 4 "$loop" 2 10 >"$dir/out" 2>"$dir/err"
rc=$?
if [ $rc != 0 ]; then
  echo "FAIL: collviz watch exited $rc"
  tail -20 "$dir/err"
  exit 1
fi
grep -q "allreduce 8 B on 4 ranks" "$dir/err" || { echo "FAIL: the program's own line is missing"; tail -20 "$dir/err"; exit 1; }
timeout 60 "$cv" job "$dir/cap" --json --all >"$dir/job.json" 2>"$dir/job.err" ||
  { echo "FAIL: collviz job on the capture"; cat "$dir/job.err"; exit 1; }
python3 - "$dir/job.json" "${names[0]}" "${names[1]}" <<'PY' || exit 1
import json, sys, collections
j = json.load(open(sys.argv[1]))
a, b = sys.argv[2], sys.argv[3]
hosts = {r["rank"]: r.get("host", "") for r in j["ranks"]}
assert sorted(hosts) == [0, 1, 2, 3], f"ranks {sorted(hosts)}"
assert [hosts[r] for r in range(4)] == [a, a, b, b], f"hosts {hosts}"
calls = [c for g in j["groups"] for c in g.get("calls", [])] if "calls" not in j else j["calls"]
count = collections.Counter((c["rank"], c.get("name") or c.get("op")) for c in calls)
for r in range(4):
    assert count[(r, "MPI_Allreduce")] == 32, f"rank {r}: {count[(r, 'MPI_Allreduce')]} MPI_Allreduce, want 32 ({dict(count)})"
    assert count[(r, "MPI_Barrier")] == 2, f"rank {r}: {count[(r, 'MPI_Barrier')]} MPI_Barrier, want 2"
assert all(c.get("time_exited_ns") for c in calls), "a call never returned"
world = [g for g in j["groups"] if g.get("desc") == "MPI_COMM_WORLD" or g.get("name") == "MPI_COMM_WORLD"]
assert world and world[0]["ranks"] == [0, 1, 2, 3], f"MPI_COMM_WORLD: {world}"
print(f"ok: 4 ranks on {a} and {b}, {len(calls)} calls captured, every one returned")
PY
# The live lines name every rank's calls too.
n=$(grep -c '"MPI_Allreduce"' "$dir/out")
[ "$n" -ge 128 ] || { echo "FAIL: $n live MPI_Allreduce lines, want 128"; exit 1; }
echo "ok: $n live MPI_Allreduce lines"
