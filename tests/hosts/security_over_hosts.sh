#!/usr/bin/env bash
# Strangers at the engine's door while the ranks join (issue 33), run by
# tests/hosts/emulated_hosts.sh 2: node2 starts 3 s late, and meanwhile a
# client connects to the engine's listener without the secret, with a wrong
# HMAC, with an oversized first frame and with no hello at all, and 64
# connect and say nothing (each handshake has its own timer); once every
# rank has joined, a connection is refused outright. Each is refused and
# logged, and the run verifies. Then a byte flipped on the wire after its
# checksum (COLLVIZ_WIRE_FAULT) is caught and named.
# (A replayed hello is refused by remote_link_test: it needs the secret.)
set -u
cv=$1
common=(--backend mpi --hosts node1:2,node2:2 --iface "$COLLVIZ_TEST_IFACE"
        --launcher-agent "$COLLVIZ_TEST_AGENT" -N 4 --op all_reduce --deadline-ms 10000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

COLLVIZ_TEST_SLOW_NODE2=3 COLLVIZ_FAULT=rank:0,delay_ms:3000 timeout 60 "$cv" run "${common[@]}" --json \
  >"$dir/out" 2>"$dir/err" &
pid=$!
python3 - "$dir/err" "$pid" >"$dir/knock" 2>&1 <<'PY'
import json, os, re, socket, struct, sys, time
err, pid = sys.argv[1], int(sys.argv[2])
where = None
for _ in range(200):
    m = re.search(r"ranks connect to ([0-9.]+):(\d+)", open(err).read())
    if m: where = (m.group(1), int(m.group(2))); break
    time.sleep(0.05)
assert where, "the engine never said where it listens"
# 64 strangers that connect at once and say nothing (issue 55): the ranks
# still join, each stranger refused when its own 2 s are up.
silent = [socket.create_connection(where, timeout=5) for _ in range(64)]
def frame(s, body): s.sendall(struct.pack("<I", len(body)) + body)
def knock(what, speak):
    s = socket.create_connection(where, timeout=5)
    s.settimeout(5)
    n = struct.unpack("<I", s.recv(4))[0]; s.recv(n)  # the challenge
    speak(s)
    try: closed = s.recv(64) == b""
    except ConnectionResetError: closed = True
    print(what, "closed" if closed else "NOT CLOSED")
hello = lambda mac: json.dumps({"type": "hello", "rank": 3, "pid": 1, "host": "x", "challenge": "c", "mac": mac}).encode()
knock("no secret", lambda s: frame(s, hello("")))
knock("wrong hmac", lambda s: frame(s, hello("ab" * 32)))
knock("oversized", lambda s: s.sendall(struct.pack("<I", 1 << 30)))
knock("no hello", lambda s: frame(s, b'{"type":"ready"}'))
def challenged_then_closed(s):
    got = b""
    try:
        while True:
            b = s.recv(4096)
            if not b: return got != b""
            got += b
    except (ConnectionResetError, socket.timeout): return False
print("silent closed", sum(challenged_then_closed(s) for s in silent))
# After every rank joined (the run still going): nobody is let in.
deadline = time.time() + 20
while time.time() < deadline:
    try:
        socket.create_connection(where, timeout=2).close()
    except ConnectionRefusedError:
        alive = os.path.exists(f"/proc/{pid}")
        print("after join refused", "while running" if alive else "after the run")
        break
    time.sleep(0.1)
PY
wait $pid
rc=$?
cat "$dir/knock"
[ $rc = 0 ] || bad "the run failed (exit $rc): $(tail -3 "$dir/err")"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["verified"]' "$dir/out" || bad "not verified"
for w in "no secret" "wrong hmac" "oversized" "no hello"; do
  grep -q "^$w closed" "$dir/knock" || bad "$w was not refused"
done
grep -q "^silent closed 64" "$dir/knock" || bad "the 64 silent strangers were not each refused: $(grep silent "$dir/knock")"
[ "$(grep -c "refused a connection from .*no hello within 2000 ms" "$dir/err")" = 64 ] || bad "the silent strangers not logged"
grep -q "after join refused while running" "$dir/knock" || bad "a connection after the join was not refused while the run went on"
# Each knock logged with its reason (the probes after the join add "closed").
[ "$(grep -c "refused a connection from .*wrong HMAC" "$dir/err")" -ge 2 ] || bad "wrong HMACs not logged"
grep -q "refused a connection from .*message too large" "$dir/err" || bad "the oversized frame not logged"
grep -q "refused a connection from .*not a hello" "$dir/err" || bad "the message that is not a hello not logged"
grep "refused a connection" "$dir/err" | grep -v ": closed$" | grep -v "no hello within" | sed 's/^/  log: /'
echo "  log: $(grep -c "no hello within 2000 ms" "$dir/err") x no hello within 2000 ms"
grep -q "$(printf '%s' "COLLVIZ_SECRET")=" "$dir/err" && bad "the secret's variable appears in the log"

# A byte flipped on the wire, after the checksum: caught and named.
COLLVIZ_WIRE_FAULT=corrupt:3 timeout 60 "$cv" run "${common[@]}" >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc = 1 ] || bad "a corrupt buffer: exit $rc, want 1"
grep -q "fetching rank 3's buffers from host node2: a buffer of .* arrived corrupt" "$dir/err" \
  || bad "the corruption was not named: $(tail -3 "$dir/err")"
grep "arrived corrupt" "$dir/err" | head -1 | sed 's/^/  /'
echo "$fails failed"
[ $fails = 0 ]
