#!/usr/bin/env bash
# A run with the same fault and no failure verifies (the cases below fail
# because of what they do, not because of the fault).
# Failures across emulated hosts (issue 33), run by emulated_hosts.sh 2: a
# remote rank SIGKILLed, a remote rank SIGSTOPped (named hung: it stops
# beating), node2's link set down
# mid-run, the engine SIGKILLed, a launcher agent that never returns (also
# with SIGTERM or SIGINT meanwhile). Each is named with the host within the
# deadline (the engine's cases), and afterwards nothing runs in any host's
# namespace (no collviz-rank, orted or mpirun).
set -u
cv=$1
ns=$COLLVIZ_TEST_NS
common=(--backend mpi --hosts node1:2,node2:2 --iface "$COLLVIZ_TEST_IFACE"
        --launcher-agent "$COLLVIZ_TEST_AGENT" -N 4 --op all_reduce --deadline-ms 3000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# Rank 3 (on node2), once the group runs. Its reply is held back 2 s a
# call (COLLVIZ_FAULT), well inside the deadline: without a failure the run
# verifies.
rank_on_node2() {
  for _ in $(seq 600); do
    for p in $(ip netns pids "$ns-node2"); do
      [ "$(cat /proc/$p/comm 2>/dev/null)" = collviz-rank ] &&
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=3 && { echo "$p"; return; }
    done
    sleep 0.05
  done
}
nothing_left() {  # within 15 s
  local left
  for _ in $(seq 150); do
    left=""
    for h in node1 node2; do left="$left$(ip netns pids "$ns-$h" | tr '\n' ' ')"; done
    # On the engine's host (where this script runs too): collviz's own.
    for p in $(ip netns pids "$ns-login"); do
      case "$(cat /proc/$p/comm 2>/dev/null)" in mpirun|orterun|orted|collviz-rank|collviz) left="$left $p" ;; esac
    done
    # Open MPI's session directories (named by the hosts' names) are gone too.
    for h in login node1 node2; do [ -n "$(ls -A "/tmp/ompi.$h.0" 2>/dev/null)" ] && left="$left /tmp/ompi.$h.0"; done
    [ -z "${left// /}" ] && return 0
    sleep 0.1
  done
  bad "$1: left: $left"
}
# Every rank has joined once the engine's listener is closed.
joined() {
  local port=""
  for _ in $(seq 600); do
    port=$(sed -n 's/.*ranks connect to [0-9.]*:\([0-9]*\).*/\1/p' "$dir/err" | head -1)
    [ -n "$port" ] && ! ss -ltn | grep -q ":$port " && return 0
    sleep 0.05
  done
  return 1
}
start() {
  COLLVIZ_FAULT=rank:3,delay_ms:2000 timeout 60 "$cv" run "${common[@]}" >"$dir/out" 2>"$dir/err" &
  pid=$!
  victim=$(rank_on_node2)
  [ -n "$victim" ] || bad "no rank appeared on node2"
  joined || bad "the ranks never joined"
  sleep 1  # inside the op (rank 3 asleep in its delay)
}
finish() {  # case, pattern the error must match, seconds allowed
  local t0=$SECONDS
  wait $pid
  local rc=$? took=$((SECONDS - t0))
  [ $rc = 1 ] || bad "$1: exit $rc, want 1"
  grep -Eq "$2" "$dir/err" || bad "$1: not named as /$2/: $(grep -v '^\[' "$dir/err" | tail -4)"
  [ $took -le "$3" ] || bad "$1: took $took s, allowed $3"
  echo "$1 ($took s): $(grep -E "$2" "$dir/err" | head -1)"
  nothing_left "$1"
}

COLLVIZ_FAULT=rank:3,delay_ms:2000 timeout 60 "$cv" run "${common[@]}" >"$dir/out" 2>"$dir/err" ||
  bad "the fault alone failed the run: $(tail -3 "$dir/err")"
nothing_left "a clean run"

start
ip netns exec "$ns-node2" kill -KILL "$victim"
finish "rank SIGKILLed" "rank 3 on host node2 .*(signal 9|connection closed)" 12

start
ip netns exec "$ns-node2" kill -STOP "$victim"
# It cannot beat (engine/worker/heartbeat.h): hung within the 3 s window, not
# "slow" at the op's scaled cap.
finish "rank SIGSTOPped" "rank\(s\) 3 \(node2\) did not finish: not heard from for [0-9]+ ms \(hung" 10


COLLVIZ_FAULT=rank:3,delay_ms:2000 "$cv" run "${common[@]}" >"$dir/out" 2>"$dir/err" &
pid=$!
[ -n "$(rank_on_node2)" ] || bad "engine SIGKILLed: no rank appeared on node2: $(grep -v "^\[" "$dir/err" | tail -3)"
joined || bad "engine SIGKILLed: the ranks never joined"
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
echo "engine SIGKILLed"
nothing_left "engine SIGKILLed"
# A launcher agent that never returns (issue 55): the hello deadline covers
# the launch (exit 1 naming the ranks), and nothing collviz started is left,
# not the agent nor the agent's child; nor after SIGTERM or SIGINT while the
# agent hangs. The agent writes down its own pid and its child's: the check
# looks at those processes only.
cat >"$dir/hang" <<EOF
#!/bin/sh
echo \$\$ >>"$dir/hang_pids"
sleep 1000 &
echo \$! >>"$dir/hang_pids"
wait
EOF
chmod 755 "$dir/hang"
hang=(--backend mpi --hosts node1:2,node2:2 --iface "$COLLVIZ_TEST_IFACE" --launcher-agent "$dir/hang" -N 4
      --op all_reduce --deadline-ms 3000)
alive() { [ -e "/proc/$1" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
hang_gone() {  # within 5 s
  local p left
  for _ in $(seq 50); do
    left=""
    for p in $(cat "$dir/hang_pids"); do alive "$p" && left="$left $p"; done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  bad "$1: the agent's processes left:$left ($(ps -o pid=,ppid=,comm= -p "${left# }" | tr '\n' ';'))"
  kill -KILL $left 2>/dev/null
}
: >"$dir/hang_pids"
timeout 60 "$cv" run "${hang[@]}" >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc = 1 ] || bad "an agent that never returns: exit $rc (124: still running after 60 s), want 1"
grep -q "rank(s) 0, 1, 2, 3 never said hello within 10000 ms" "$dir/err" ||
  bad "an agent that never returns: not named: $(grep -v '^\[' "$dir/err" | tail -3)"
[ -s "$dir/hang_pids" ] || bad "the hanging agent never ran"
echo "an agent that never returns: exit $rc: $(grep -o 'rank(s) .* never said hello.*' "$dir/err" | head -1)"
hang_gone "an agent that never returns"
for sig in TERM INT; do
  : >"$dir/hang_pids"
  "$cv" run "${hang[@]}" >"$dir/out" 2>"$dir/err" &
  pid=$!
  for _ in $(seq 400); do [ "$(wc -l <"$dir/hang_pids")" -ge 4 ] && break; sleep 0.05; done
  [ "$(wc -l <"$dir/hang_pids")" -ge 4 ] || bad "SIG$sig: the agents never ran: $(cat "$dir/hang_pids")"
  kill -$sig $pid
  for _ in $(seq 300); do alive $pid || break; sleep 0.1; done
  alive $pid && { bad "SIG$sig: collviz still running after 30 s"; kill -KILL $pid; }
  wait $pid
  echo "SIG$sig while the agent hangs: exit $?"
  hang_gone "SIG$sig while the agent hangs"
done

# Last: the link stays down (the namespaces go with the test).
start
ip -n "$ns-br" link set v2 down
finish "node2's link down" "on host node2|\(node2\)|host node2 was lost" 20
echo "$fails failed"
[ $fails = 0 ]
