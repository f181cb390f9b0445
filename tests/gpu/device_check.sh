#!/usr/bin/env bash
# The device check for NCCL, on a machine with an NVIDIA GPU:
#   1. build the project with COLLVIZ_NCCL=ON;
#   2. run the `gpu` and `nccl` ctest labels;
#   3. `collviz run --backend nccl --json` for every op with N = 1, 2, 4 (on one
#      GPU, 2 and 4 ranks share it through the NCCL_HOSTID route); every
#      result must be "verified": true;
#   4. all_reduce busbw from 1 MiB to 1 GiB: the engine (`collviz bench`)
#      against a plain NCCL loop (nccl-allreduce-loop) with the same placement;
#   5. print a short summary. Budget: under 8 minutes on one H200.
#
# Usage: tests/gpu/device_check.sh [build-dir]   (default build-device)
# Env:   BW_RANKS (ranks for the busbw comparison; default 4 on one GPU, else
#        the GPU count), JOBS, OUT (where logs go; default <build>/device-check),
#        SKIP_BUILD=1 (use the build dir as it is; for trying the script out)
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${1:-build-device}
LOGS=${OUT:-$BUILD/device-check}
mkdir -p "$LOGS"
T0=$(date +%s)
BUDGET_S=450  # keep the whole run under 8 minutes
elapsed() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( BUDGET_S - $(elapsed) )); }
SUMMARY=()
FAIL=0
say() { SUMMARY+=("$*"); echo "== $*"; }
have() { command -v "$1" >/dev/null 2>&1; }
PY=""; have python3 && PY=python3

# ---- 0. the machine -------------------------------------------------------------
GPUS=0
if have nvidia-smi; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$LOGS/gpus.txt" 2>&1
  GPUS=$(grep -c . "$LOGS/gpus.txt")
  say "GPUs: $(sort "$LOGS/gpus.txt" | uniq -c | sed 's/^ *//' | paste -sd';')"
else
  say "nvidia-smi not found"
fi

# ---- 1. build -----------------------------------------------------------------
t=$(date +%s)
JOBS=${JOBS:-$(nproc)}
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  say "build: skipped (SKIP_BUILD=1), using $BUILD as it is"
elif cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCOLLVIZ_NCCL=ON \
       -DCOLLVIZ_TESTS=ON -DCOLLVIZ_BENCH=OFF > "$LOGS/configure.log" 2>&1 &&
   timeout 300 cmake --build "$BUILD" -j "$JOBS" > "$LOGS/build.log" 2>&1; then
  say "build: ok ($(( $(date +%s) - t )) s, -j$JOBS)"
else
  say "build: FAILED (see $LOGS/configure.log, $LOGS/build.log)"
  tail -30 "$LOGS/build.log" 2>/dev/null || tail -30 "$LOGS/configure.log"
  printf '%s\n' "${SUMMARY[@]}" > "$LOGS/summary.txt"
  echo "RESULT: FAIL"; exit 1
fi
BIN=$ROOT/$BUILD/bin
"$BIN/collviz-rank" --probe > "$LOGS/probe.json" 2>&1
if ! grep -o '{[^{}]*"name": \?"nccl"[^{}]*}' "$LOGS/probe.json" | grep -q '"available": \?true'; then
  say "probe: NCCL unavailable: $(grep -o '{[^{}]*"name": \?"nccl"[^{}]*}' "$LOGS/probe.json" |
        sed -E 's/.*"reason": ?"([^"]*)".*/\1/')"
  FAIL=1
fi

# ---- 2. ctest -------------------------------------------------------------------
t=$(date +%s)
(cd "$BUILD" && timeout 200 ctest -L 'gpu|nccl' --output-on-failure --timeout 180) \
  > "$LOGS/ctest.log" 2>&1
rc=$?
line=$(grep -E 'tests passed|tests failed' "$LOGS/ctest.log" | tail -1)
skips=$(grep -c -- '\*\*\*Skipped' "$LOGS/ctest.log")
say "ctest -L 'gpu|nccl': ${line:-no result} (skipped: $skips, $(( $(date +%s) - t )) s)"
grep -E 'Not Run|\*\*\*Failed|\*\*\*Skipped|Timeout' "$LOGS/ctest.log" | sed 's/^/     /' | head -10
grep -h '^\[N=' "$LOGS/ctest.log" | head -3 | sed 's/^/     /'
[ "$rc" -eq 0 ] || FAIL=1

# ---- 3. collviz run for every op, N = 1, 2, 4 ----------------------------------------
verified() {  # file -> exit 0 when the top-level "verified" is true
  if [ -n "$PY" ]; then
    $PY -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1])).get("verified") is True else 1)' "$1" 2>/dev/null
  elif have jq; then
    jq -e '.verified == true' "$1" >/dev/null 2>&1
  else
    grep -q '^  "verified": true' "$1"
  fi
}
t=$(date +%s)
ok=0 total=0 bad=()
for n in 1 2 4; do
  for op in broadcast scatter gather reduce all_gather reduce_scatter all_reduce all_to_all; do
    total=$((total + 1))
    f="$LOGS/run_${op}_N${n}.json"
    if [ "$(left)" -lt 90 ]; then bad+=("$op/N=$n(no time left)"); continue; fi
    timeout 60 "$BIN/collviz" run --backend nccl --json --op "$op" --ranks "$n" > "$f" 2> "${f%.json}.err"
    rc=$?
    if [ "$rc" -eq 0 ] && verified "$f"; then ok=$((ok + 1)); else bad+=("$op/N=$n(rc=$rc)"); fi
  done
done
say "collviz run --backend nccl: $ok/$total verified ($(( $(date +%s) - t )) s)${bad:+; failed: ${bad[*]:0:6}}$([ ${#bad[@]} -gt 6 ] && echo " ...")"
[ "$ok" -eq "$total" ] || FAIL=1
for b in "${bad[@]:0:3}"; do
  op=${b%%/*}; n=${b#*N=}; n=${n%%(*}
  sed "s/^/     /" "$LOGS/run_${op}_N${n}.err" 2>/dev/null | head -3
done
if [ -n "$PY" ] && [ -s "$LOGS/run_all_reduce_N4.json" ]; then
  while IFS= read -r l; do say "$l"; done < <($PY - "$LOGS/run_all_reduce_N4.json" <<'EOF'
import json, sys
try:
    b = json.load(open(sys.argv[1])).get("backend") or {}
    if b.get("name"):
        print(f"backend N=4: {b['name']} {b.get('version')} | {b.get('devices')} | {b.get('transport')}")
        print(f"notes: {b.get('notes')}")
    else:
        print("backend N=4: no description in the all_reduce N=4 result")
except Exception as e:
    print(f"backend N=4: no description ({e})")
EOF
)
fi

# ---- 4. busbw: engine vs a plain NCCL loop ------------------------------------------
if [ "${BW_RANKS:-}" ]; then R=$BW_RANKS; elif [ "$GPUS" -ge 2 ]; then R=$GPUS; else R=4; fi
t=$(date +%s)
if [ -x "$BIN/nccl-allreduce-loop" ] && [ "$(left)" -gt 60 ]; then
  timeout $(( $(left) / 2 )) "$BIN/nccl-allreduce-loop" --ranks "$R" -b 1M -e 1G -f 4 -w 2 -n 10 --json \
    > "$LOGS/busbw_plain.json" 2> "$LOGS/busbw_plain.log"
  rc=$?
  say "plain NCCL loop, N=$R: rc=$rc ($(( $(date +%s) - t )) s)"
  [ "$rc" -eq 0 ] || { FAIL=1; tail -5 "$LOGS/busbw_plain.log"; }
else
  say "plain NCCL loop: not run (binary missing or out of time)"
fi
t=$(date +%s)
"$BIN/collviz" --help > "$LOGS/collviz_help.txt" 2>&1
if ! grep -qE '^ +bench ' "$LOGS/collviz_help.txt"; then
  say "engine busbw: \`collviz bench\` does not exist in this build yet; engine side not measured"
elif [ "$(left)" -gt 30 ]; then
  # -c 0: no verification in the timed sweep (step 3 verified every op).
  timeout $(( $(left) - 10 )) "$BIN/collviz" bench --op all_reduce -b 1M -e 1G -f 4 -w 2 -n 10 \
    -c 0 --backend nccl --ranks "$R" --json > "$LOGS/busbw_engine.json" 2> "$LOGS/busbw_engine.log"
  rc=$?
  say "engine bench, N=$R: rc=$rc ($(( $(date +%s) - t )) s)"
  [ "$rc" -eq 0 ] || { FAIL=1; tail -5 "$LOGS/busbw_engine.log"; }
else
  say "engine busbw: not run (out of time)"
fi
if [ -n "$PY" ]; then
  while IFS= read -r l; do say "$l"; done < <($PY - "$LOGS/busbw_plain.json" "$LOGS/busbw_engine.json" "$R" <<'EOF'
import json, sys
def rows(path):
    """{bytes: busbw GB/s} from any JSON holding a list of rows with a size and a busbw."""
    try:
        doc = json.load(open(path))
    except Exception:
        return {}
    found = {}
    def walk(x):
        if isinstance(x, list):
            for y in x: walk(y)
        elif isinstance(x, dict):
            size = next((x[k] for k in ("bytes", "size", "size_bytes", "rank_bytes") if k in x), None)
            bw = next((x[k] for k in ("busbw_gbps", "busbw", "bus_bw_gbps", "busbw_GBps") if k in x), None)
            if isinstance(size, (int, float)) and isinstance(bw, (int, float)):
                found[int(size)] = float(bw)
            for y in x.values(): walk(y)
    walk(doc)
    return found
plain, engine = rows(sys.argv[1]), rows(sys.argv[2])
print(f"all_reduce busbw, N={sys.argv[3]}, GB/s (bytes per rank):")
print(f"  {'bytes':>10} {'plain':>8} {'engine':>8} {'engine/plain':>12}")
for b in sorted(set(plain) | set(engine)):
    p, e = plain.get(b), engine.get(b)
    r = f"{e / p:.2f}" if p and e else "-"
    fmt = lambda v: f"{v:8.2f}" if v is not None else f"{'-':>8}"
    size = f"{b >> 30}G" if b >= 1 << 30 else f"{b >> 20}M" if b >= 1 << 20 else str(b)
    print(f"  {size:>10} {fmt(p)} {fmt(e)} {r:>12}")
EOF
)
else
  say "busbw table: python3 missing; see $LOGS/busbw_plain.log and busbw_engine.json"
fi

say "total: $(elapsed) s"
printf '%s\n' "${SUMMARY[@]}" > "$LOGS/summary.txt"
echo
echo "================ summary ================"
cat "$LOGS/summary.txt"
if [ "$FAIL" -eq 0 ]; then echo "RESULT: PASS"; else echo "RESULT: FAIL"; fi
exit "$FAIL"
