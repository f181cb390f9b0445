#!/usr/bin/env bash
# NCCL across emulated hosts (issue 33) up to NCCL itself, run by
# emulated_hosts.sh 2:  nccl_over_hosts.sh COLLVIZ STANDIN_MODULE
# There is no GPU here: on each host a stand-in module (a test double,
# tests/hosts/standin_nccl_module.cpp) is bound over libcollviz-nccl.so. It
# says it sees 2 GPUs, exchanges its id through the engine as NCCL's unique
# id goes, writes what its host gave it to NCCL_DEBUG_FILE and refuses every
# op. Checked: the hosts' probe decides NCCL (this machine's own NCCL is not
# asked), mpirun starts the ranks where --map-by puts them, each takes GPU
# local_rank mod 2, NCCL_SOCKET_IFNAME is the hosts' interface (from --iface
# or from the link), NCCL_HOSTID is set only where a host's ranks outnumber
# its GPUs and differs between hosts, every rank got rank 0's id, and a host
# without NCCL (the real module, no GPU driver here) is named.
set -u
cv=$1 standin=$2
bin=$(dirname "$(readlink -f "$cv")")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
both="node1=$standin=$bin/libcollviz-nccl.so node2=$standin=$bin/libcollviz-nccl.so"
common=(--backend nccl --launcher-agent "$COLLVIZ_TEST_AGENT" --op all_reduce --elems 4 --deadline-ms 10000)

# run NAME RANKS HOSTS [more collviz args]: the run must reach the op and be refused there by the stand-in.
run() {
  local name=$1 n=$2 hosts=$3; shift 3
  mkdir -p "$dir/$name"
  COLLVIZ_TEST_MOUNTS=$both NCCL_DEBUG_FILE="$dir/$name/rank.%h.%p" timeout 120 \
    "$cv" run "${common[@]}" -N "$n" --hosts "$hosts" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  local rc=$?
  [ $rc = 1 ] || bad "$name: exit $rc, want 1: $(tail -3 "$dir/$name.err")"
  grep -q "stand-in NCCL module (a test double): no op runs here" "$dir/$name.out" "$dir/$name.err" ||
    bad "$name: the op did not reach the stand-in: $(tail -3 "$dir/$name.err")"
  cat "$dir/$name"/rank.* 2>/dev/null | sort >"$dir/$name.ranks"
  sed 's/^/  | /' "$dir/$name.ranks"
}

# check NAME PYTHON: the facts the ranks wrote, as a list of dicts `r` sorted by rank.
check() {
  python3 - "$dir/$1.ranks" "$COLLVIZ_TEST_IFACE" <<PY || bad "$1: the ranks' placement is wrong (above)"
import sys
r = sorted((dict(kv.split("=", 1) for kv in line.split()) for line in open(sys.argv[1])), key=lambda d: int(d["rank"]))
iface = sys.argv[2]
$2
PY
}

# 4 ranks on 2 hosts with 2 GPUs each: one rank per GPU, no host ids.
run two 4 node1:2,node2:2 --iface "$COLLVIZ_TEST_IFACE"
check two '
assert [d["rank"] for d in r] == ["0", "1", "2", "3"], r
assert [d["host"] for d in r] == ["node1", "node1", "node2", "node2"], r
assert [d["gpu"] for d in r] == ["0", "1", "0", "1"], r
assert all(d["ifname"] == iface for d in r), r
assert all(d["hostid"] == "(unset)" for d in r), r
assert len({d["uid"] for d in r}) == 1 and len(r[0]["uid"]) == 16, r'

# 6 ranks, 3 per host on 2 GPUs, without --iface: local ranks 0 and 2
# share GPU 0, so each host's slots get their own host id; the interface is
# the one the rank's link to the engine leaves from.
run shared 6 node1:3,node2:3
check shared '
assert [d["host"] for d in r] == ["node1"] * 3 + ["node2"] * 3, r
assert [d["gpu"] for d in r] == ["0", "1", "0"] * 2, r
assert [d["hostid"] for d in r] == ["node1-slot0", "node1-slot0", "node1-slot1",
                                    "node2-slot0", "node2-slot0", "node2-slot1"], r
assert all(d["ifname"] == iface for d in r), r
assert len({d["uid"] for d in r}) == 1, r'

# --map-by node: R0 R2 on node1, R1 R3 on node2; local ranks follow.
run bynode 4 node1:2,node2:2 --map-by node
check bynode '
assert [d["host"] for d in r] == ["node1", "node2", "node1", "node2"], r
assert [d["gpu"] for d in r] == ["0", "0", "1", "1"], r'

# node2 with the real module: no GPU driver here, so the hosts' probe names node2.
COLLVIZ_TEST_MOUNTS="node1=$standin=$bin/libcollviz-nccl.so" timeout 120 \
  "$cv" run "${common[@]}" -N 4 --hosts node1:2,node2:2 >"$dir/nogpu.out" 2>"$dir/nogpu.err"
rc=$?
[ $rc != 0 ] || bad "a host without NCCL: exit 0"
grep -q "backend nccl is unavailable: on host node2: " "$dir/nogpu.out" "$dir/nogpu.err" ||
  bad "a host without NCCL is not named: $(tail -2 "$dir/nogpu.err")"
grep -h "unavailable" "$dir/nogpu.out" "$dir/nogpu.err" | sed 's/^/  | /'

[ $fails = 0 ] && echo "nccl over hosts: all checks passed"
exit $((fails > 0))
