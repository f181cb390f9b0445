#!/usr/bin/env bash
# Emulated hosts for collviz's multi-host tests (issue 33), on one machine, as root.
#
#   emulated_hosts.sh N COMMAND [ARGS...]
#
# Makes N "hosts" (2 or 3) and an engine's host, runs COMMAND on the engine's
# host, then removes everything, also when COMMAND fails or the script is
# interrupted. Each host is:
#   - a network namespace with one interface, cv0, a veth whose other end is
#     attached to a bridge that lives in a namespace of its own; the subnet
#     10.233.0.0/24 exists only inside these namespaces;
#   - run (through the agent) in its own UTS namespace (its own hostname,
#     nodeK) and its own mount namespace with a private /dev/shm, so shared
#     memory cannot silently cross "hosts".
# The engine's host ("login", 10.233.0.100) is a network namespace too, so
# the interface that reaches the engine is a real one (cv0), and its /etc/hosts
# names the nodes (a private bind mount, in the engine's own mount namespace).
#
# COLLVIZ_TEST_SLOW_NODE2=S in mpirun's environment makes the agent wait S
# seconds before starting node2's daemon; COLLVIZ_TEST_MOUNTS changes a
# host's files (see host_setup below).
# COMMAND sees:
#   COLLVIZ_TEST_AGENT  the launcher agent for mpirun (--launcher-agent)
#   COLLVIZ_TEST_HOSTS  node1,node2[,node3]
#   COLLVIZ_TEST_IFACE  cv0
#   COLLVIZ_TEST_NS     the namespaces' prefix (a test sets a link down with
#                       `ip netns exec ${COLLVIZ_TEST_NS}-br ip link set vK down`)
# After COMMAND, a process still running in a host's namespace is a failure
# (it is named, then killed). Exit 77 with the reason where namespaces cannot
# be made (not root, no ip/unshare/bridge support).
set -u
n=${1:-}
shift || true
if [ "$n" != 2 ] && [ "$n" != 3 ] || [ $# -eq 0 ]; then
  echo "usage: $0 2|3 COMMAND [ARGS...]" >&2
  exit 2
fi
skip() { echo "emulated_hosts: SKIPPED: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to make network namespaces (running as uid $(id -u))"
for t in ip unshare mount; do command -v $t >/dev/null || skip "$t not found"; done

p=cv$$
dir=$(mktemp -d /tmp/collviz-hosts.XXXXXX)
made=()
cleanup() {
  local rc=$?
  for ns in "${made[@]}"; do
    local left
    left=$(ip netns pids "$ns" 2>/dev/null)
    if [ -n "$left" ]; then
      echo "emulated_hosts: LEFT in $ns: $(ps -o pid=,comm= -p $(echo $left | tr ' ' ,) | tr '\n' ';')" >&2
      kill -9 $left 2>/dev/null
      [ "$rc" = 0 ] && rc=1
    fi
  done
  sleep 0.2
  # Open MPI's session directories of these hosts (their names are the
  # hostnames): whatever the run left in the shared /tmp.
  for h in login node1 node2 node3; do
    if [ -e "/tmp/ompi.$h.0" ] && ! grep -qx "$h" "$dir/had_session" 2>/dev/null; then
      echo "emulated_hosts: LEFT: /tmp/ompi.$h.0 ($(ls "/tmp/ompi.$h.0" | tr '\n' ' '))" >&2
      rm -rf "/tmp/ompi.$h.0"
      [ "$rc" = 0 ] && rc=1
    fi
  done
  for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$dir"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

for h in login node1 node2 node3; do [ -e "/tmp/ompi.$h.0" ] && echo "$h" >>"$dir/had_session"; done
mkns() { ip netns add "$1" 2>"$dir/err" || skip "ip netns add: $(cat "$dir/err")"; made+=("$1"); }
br=$p-br
mkns "$br"
ip -n "$br" link add br0 type bridge 2>"$dir/err" || skip "bridge: $(cat "$dir/err")"
ip -n "$br" link set br0 up
ip -n "$br" link set lo up
hosts_file="$dir/hosts"
printf '127.0.0.1 localhost\n10.233.0.100 login\n' >"$hosts_file"
attach() {  # namespace, address, link name in the bridge's namespace
  mkns "$1"
  ip link add "$3" netns "$br" type veth peer name cv0 netns "$1" || exit 1
  ip -n "$br" link set "$3" master br0 up
  ip -n "$1" addr add "$2/24" dev cv0
  ip -n "$1" link set cv0 up
  ip -n "$1" link set lo up
}
attach "$p-login" 10.233.0.100 v0
names=()
for k in $(seq 1 "$n"); do
  attach "$p-node$k" "10.233.0.$k" "v$k"
  printf '10.233.0.%s node%s\n' "$k" "$k" >>"$hosts_file"
  names+=("node$k")
done

# Inside a host's namespaces: its hostname, a private /dev/shm, the hosts
# file, then the command. COLLVIZ_TEST_MOUNTS in mpirun's environment
# ("node2=SRC=DST node3==DIR", space-separated) changes one host's files:
# SRC bound over DST, or an empty tmpfs over DIR (a file missing there).
setup="$dir/host_setup"
cat >"$setup" <<'SETUP'
#!/bin/sh
h=$1; shift
hostname "$h" && mount -t tmpfs -o size=512m,mode=1777 tmpfs /dev/shm && mount --bind "$COLLVIZ_TEST_HOSTS_FILE" /etc/hosts || exit 1
for m in ${COLLVIZ_TEST_MOUNTS:-}; do
  [ "${m%%=*}" = "$h" ] || continue
  rest=${m#*=}; src=${rest%%=*}; dst=${rest#*=}
  if [ -n "$src" ]; then mount --bind "$src" "$dst"; else mount -t tmpfs tmpfs "$dst"; fi || exit 1
done
eval "$*"
SETUP
chmod 755 "$setup"
# The launcher agent: what ssh would be. Open MPI calls it as `AGENT HOST
# COMMAND...` with COMMAND meant for the remote shell, so it runs through sh.
agent="$dir/agent"
cat >"$agent" <<AGENT
#!/bin/sh
h=\$1; shift
case "\$h" in node[1-3]) ;; *) echo "agent: unknown host \$h" >&2; exit 255 ;; esac
# A slow host (security test: time to knock while the ranks join).
[ "\$h" = node2 ] && [ -n "\${COLLVIZ_TEST_SLOW_NODE2:-}" ] && sleep "\$COLLVIZ_TEST_SLOW_NODE2"
COLLVIZ_TEST_HOSTS_FILE=$hosts_file exec ip netns exec $p-\$h unshare --uts --mount --propagation private \\
  sh $setup "\$h" "\$*"
AGENT
chmod 755 "$agent"

export COLLVIZ_TEST_AGENT="$agent" COLLVIZ_TEST_IFACE=cv0 COLLVIZ_TEST_NS=$p
COLLVIZ_TEST_HOSTS=$(IFS=,; echo "${names[*]}")
export COLLVIZ_TEST_HOSTS
# The engine's host: its own network, UTS and mount namespaces (hostname
# login, /etc/hosts naming the nodes).
ip netns exec "$p-login" unshare --uts --mount --propagation private sh -c \
  'hostname login && mount --bind "$0" /etc/hosts && exec "$@"' "$hosts_file" "$@"
