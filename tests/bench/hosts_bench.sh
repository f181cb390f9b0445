#!/usr/bin/env bash
# Benchmark (figures, not a test) of ranks on several hosts (issue 33), run
# inside the emulated hosts:
#   emulated_hosts.sh 2 tests/bench/hosts_bench.sh path/to/collviz
# 1. The engine's transfer of remote buffers against a plain TCP stream
#    between the same two namespaces (the engine's "login" and node1): an
#    all_reduce of 64 MiB per rank (2 blocks of 8M f32), 2 ranks on node1, so each rank's
#    connection carries 128 MiB out (its input and poisoned output) and 64
#    MiB back (its output); the run's "wire:" bytes / us against a plain
#    python3 sender/receiver moving the same bytes the same way on as many
#    connections at once. Ratio: engine / plain.
# 2. The engine's time per op beyond the op itself at 16 MiB, ranks on 2
#    hosts (node1:1,node2:1) against 1 host (node1:2): `collviz bench`, 5
#    requests of one checked op each, (engine_us / requests - time_us).
set -u
cv=$1
ns=$COLLVIZ_TEST_NS
agent=(--iface "$COLLVIZ_TEST_IFACE" --launcher-agent "$COLLVIZ_TEST_AGENT" --backend mpi --deadline-ms 60000)
dir=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
server=""
cat >"$dir/plain.py" <<'PY'
# A plain TCP stream: `serve PORT K` (node1) takes K connections, reads
# PUSH bytes from each, answers PULL bytes; `send HOST PORT K PUSH PULL`
# (the engine's namespace) opens K connections at once and prints MB/s of
# all bytes both ways, from the first connect to the last byte back. Like
# the engine's, the bytes come from and go to memory of their own size
# (allocated and touched before the clock starts), in chunks of 4 MiB: a
# 4 MiB buffer used over and over would stay in the cache, which no rank's
# memory of 64 MiB does.
import socket, sys, threading, time
CHUNK = 4 << 20
def memory(n):
    b = bytearray(n)
    for i in range(0, n, 4096): b[i] = 1  # touched: no page fault on the clock
    return memoryview(b)
def recv_n(s, view):
    got, n = 0, len(view)
    while got < n:
        k = s.recv_into(view[got:], min(CHUNK, n - got))
        if k == 0: raise EOFError
        got += k
def send_n(s, view):
    for at in range(0, len(view), CHUNK): s.sendall(view[at:at + CHUNK])
if sys.argv[1] == "serve":
    port, k = int(sys.argv[2]), int(sys.argv[3])
    ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port)); ls.listen(k)
    print("ready", flush=True)
    def one(c):
        push, pull = (int(x) for x in c.recv(64).decode().split())
        into, out = memory(push), memory(pull)
        c.sendall(b"k"); recv_n(c, into); send_n(c, out); c.close()
    ts = []
    for _ in range(k):  # each served as it arrives (the sender waits for its "k")
        ts.append(threading.Thread(target=one, args=(ls.accept()[0],))); ts[-1].start()
    for t in ts: t.join()
else:
    host, port, k, push, pull = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    conns, mem = [], []
    for _ in range(k):
        mem.append((memory(push), memory(pull)))
        c = socket.create_connection((host, port)); c.sendall(f"{push} {pull}".ljust(64).encode()); c.recv(1); conns.append(c)
    t0 = time.perf_counter()
    def one(c, m): send_n(c, m[0]); recv_n(c, m[1])
    ts = [threading.Thread(target=one, args=(c, m)) for c, m in zip(conns, mem)]
    for t in ts: t.start()
    for t in ts: t.join()
    dt = time.perf_counter() - t0
    print(f"{k * (push + pull) / dt / 1e6:.1f}")
PY

mib=$((1 << 20))
per=${HOSTS_BENCH_MIB:-64}  # MiB per rank
# 1. The engine's wire.
timeout 300 "$cv" run "${agent[@]}" --hosts node1:2 -N 2 --op all_reduce --elems $((per * mib / 4 / 2)) --values none \
  >"$dir/run.txt" 2>"$dir/run.err" || { echo "the engine's run failed: $(tail -3 "$dir/run.err")"; exit 1; }
engine=$(sed -n 's/^  wire: \([0-9]*\) bytes in \([0-9.]*\) us$/\1 \2/p' "$dir/run.txt" |
  awk '{printf "%.1f %.0f %.0f\n", $1 / $2, $1 / 1048576, $2 / 1000}')
[ -n "$engine" ] || { echo "no wire figures in the run's output"; exit 1; }
read -r engine_mbs engine_mib engine_ms <<<"$engine"
# The plain stream: the same bytes per connection, as many connections.
ip netns exec "$ns-node1" python3 "$dir/plain.py" serve 47001 2 >"$dir/server" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q ready "$dir/server" && break; sleep 0.05; done
plain_mbs=$(python3 "$dir/plain.py" send 10.233.0.1 47001 2 $((2 * per * mib)) $((per * mib)))
wait $server
server=""
echo "transfer, 64 MiB per rank, 2 ranks on node1 ($engine_mib MiB both ways):"
echo "  engine:      $engine_mbs MB/s ($engine_ms ms)"
echo "  plain TCP:   $plain_mbs MB/s"
python3 -c 'import sys; print(f"  engine / plain: {float(sys.argv[1]) / float(sys.argv[2]):.2f}x")' "$engine_mbs" "$plain_mbs"

# 2. The engine's time per op beyond the op, 16 MiB.
overhead() {  # hosts -> "overhead_ms op_ms"
  timeout 300 "$cv" bench "${agent[@]}" --hosts "$1" -N 2 --op all_reduce -b 16M -e 16M -n 5 -w 0 -c 5 --json \
    >"$dir/bench.json" 2>"$dir/bench.err" || { echo "bench on $1 failed: $(tail -3 "$dir/bench.err")" >&2; return 1; }
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); r = (j["rows"] if "rows" in j else j["results"])[0]
assert r["wrong"] == 0, "wrong elements"
e, n, t = r["engine_us"], r["requests"], r["time_us"]
print(f"{(e / n - t) / 1e3:.1f} {t / 1e3:.1f}")' "$dir/bench.json"
}
read -r one_ms one_op <<<"$(overhead node1:2)" || exit 1
read -r two_ms two_op <<<"$(overhead node1:1,node2:1)" || exit 1
echo "engine time per op beyond the op, all_reduce 16 MiB, 2 ranks:"
echo "  1 host  (node1:2):         $one_ms ms (op $one_op ms)"
echo "  2 hosts (node1:1,node2:1): $two_ms ms (op $two_op ms)"
python3 -c 'import sys; print(f"  2 hosts / 1 host: {float(sys.argv[1]) / float(sys.argv[2]):.2f}x")' "$two_ms" "$one_ms"
