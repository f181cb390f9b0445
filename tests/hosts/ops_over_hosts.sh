#!/usr/bin/env bash
# Every op, the decomposition and every algorithm's rounds across emulated
# hosts (issue 33), run by tests/hosts/emulated_hosts.sh:
#   emulated_hosts.sh 2|3 ops_over_hosts.sh COLLVIZ BACKEND RANKS
# Each run must verify; the ranks must sit where --map-by slot puts them
# (the JSON's "hosts"); dtypes and reduce ops vary from op to op.
set -u
cv=$1 backend=$2 n=$3
IFS=, read -r -a names <<<"$COLLVIZ_TEST_HOSTS"
h=${#names[@]}
per=$((n / h))
hosts=$(for x in "${names[@]}"; do printf '%s:%s,' "$x" "$per"; done)
hosts=${hosts%,}
common=(--backend "$backend" --hosts "$hosts" --iface "$COLLVIZ_TEST_IFACE"
        --launcher-agent "$COLLVIZ_TEST_AGENT" -N "$n" --deadline-ms 10000)
fails=0
check() {  # what, then the command's arguments
  local what=$1; shift
  local out err rc
  out=$(mktemp) err=$(mktemp)
  timeout 60 "$cv" run "${common[@]}" "$@" --json >"$out" 2>"$err"
  rc=$?
  if [ $rc != 0 ] || ! python3 - "$out" "$n" "$per" "${names[@]}" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[2]); per = int(sys.argv[3]); names = sys.argv[4:]
assert j["verified"] is True, "not verified"
hosts = [p["host"] for p in j["hosts"]]
want = [names[r // per] for r in range(n)]
assert hosts == want, f"ranks on {hosts}, want {want}"
assert all(p["pid"] > 0 for p in j["hosts"])
PY
  then
    echo "FAIL: $what (exit $rc)"; tail -5 "$err"; fails=$((fails + 1))
  else
    echo "ok: $what"
  fi
  rm -f "$out" "$err"
}
dtypes=(f32 i32 f64 i64 f32 f64 i32 f32)
redops=(sum max min sum prod sum max avg)
k=0
for op in broadcast scatter gather reduce all_gather reduce_scatter all_reduce all_to_all; do
  dt=${dtypes[$k]} ro=${redops[$k]}
  [ "$ro" = avg ] && [ "$dt" != f32 ] && ro=sum
  check "$op $dt $ro" --op "$op" --dtype "$dt" --redop "$ro" --elems 5 --root $((n - 1))
  k=$((k + 1))
done
check "all_reduce_decomposed f64 sum" --op all_reduce_decomposed --dtype f64 --elems 3
for pair in ring:all_reduce tree:reduce recursive_doubling:all_gather halving_doubling:reduce_scatter \
            direct:scatter pairwise:all_to_all bruck:all_to_all; do
  check "--algo ${pair%%:*} ${pair#*:}" --op "${pair#*:}" --algo "${pair%%:*}" --elems 2
done
# The picture shows the hosts: an SVG of the op and of a ring round names
# each host beside its ranks ("host node1"), and the round's messages
# across hosts are dashed.
picture() {  # what, then export's arguments
  local what=$1; shift
  local dir ok=1
  dir=$(mktemp -d)
  if ! timeout 60 "$cv" export "${common[@]}" "$@" --format svg -o "$dir/f.svg" >"$dir/log" 2>&1; then
    ok=0; tail -5 "$dir/log"
  else
    for x in "${names[@]}"; do
      grep -q ">host $x</text>" "$dir/f.svg" || { ok=0; echo "no label 'host $x' in the SVG"; }
    done
    case "$what" in *ring*) grep -qE '<path d="M[^"]* C[^"]*"[^>]*stroke-dasharray' "$dir/f.svg" ||
                              { ok=0; echo "no dashed message across hosts"; } ;; esac
  fi
  if [ $ok = 1 ]; then echo "ok: picture of $what"; else echo "FAIL: picture of $what"; fails=$((fails + 1)); fi
  rm -rf "$dir"
}
picture "all_reduce" --op all_reduce
picture "--algo ring all_reduce round 2" --op all_reduce --algo ring --step 2
# A lecture script whose steps run on the same hosts (its hosts,
# launcher_agent and iface keys), exported as SVG: every step verified, and
# the ranks started on the hosts (the engine's line says where).
deck=$(mktemp -d)
quoted=$(for x in "${names[@]}"; do printf '"%s:%s", ' "$x" "$per"; done)
cat >"$deck/deck.toml" <<TOML
title = "hosts"
hosts = [${quoted%, }]
iface = "$COLLVIZ_TEST_IFACE"
launcher_agent = "$COLLVIZ_TEST_AGENT"
[[step]]
op = "all_reduce"
ranks = $n
backend = "$backend"
caption = "all_reduce"
[[step]]
op = "all_to_all"
caption = "all_to_all"
TOML
if timeout 120 "$cv" lecture "$deck/deck.toml" --export "$deck/out" --format svg --deadline-ms 10000 \
     >"$deck/stdout" 2>"$deck/stderr" &&
   [ -s "$deck/out/index.md" ] && [ "$(ls "$deck/out"/step0[12]_*.svg | wc -l)" = 2 ] &&
   grep -q "ranks connect to .* ($n ranks on $hosts)" "$deck/stderr"; then
  echo "ok: lecture --export on $hosts"
else
  echo "FAIL: lecture --export on $hosts"; tail -5 "$deck/stderr"; ls "$deck/out" 2>&1 | head; fails=$((fails + 1))
fi
rm -rf "$deck"
echo "$fails failed"
[ $fails = 0 ]
