#!/usr/bin/env bash
# Without a usable GPU: `collviz run --backend nccl` (with or without
# --algo) fails with exit code 2 and NCCL's reason; `--backend auto` runs on
# Gloo and says why.
# Usage: no_gpu_fallback.sh COLLVIZ COLLVIZ_RANK. Exit 77 (skipped) with a GPU.
set -u
collviz=$1 worker=$2
probe=$("$worker" --probe) || { echo "collviz-rank --probe failed"; exit 1; }
# The NCCL object as one line (it holds objects: gpu_memory entries, messages).
nccl=$(echo "$probe" | python3 -c 'import json, sys
for b in json.load(sys.stdin).get("backends", []):
    if b.get("name") == "nccl": print(json.dumps(b))')
if echo "$nccl" | grep -q '"available": \?true'; then
  echo "SKIPPED: NCCL is available here; the no-GPU fallback does not apply"
  exit 77
fi
reason=$(echo "$nccl" | sed -E 's/.*"reason": ?"([^"]*)".*/\1/')
echo "NCCL reason from the probe: ${reason:-?}"
fail=0

err=$(mktemp) out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
"$collviz" run --backend nccl --op all_reduce --ranks 2 >"$out" 2>"$err"
rc=$?
if [ "$rc" -ne 2 ]; then
  echo "FAIL: --backend nccl exited $rc, want 2"; fail=1
fi
if ! grep -qi "nccl" "$err"; then
  echo "FAIL: --backend nccl did not say why on stderr:"; fail=1
fi
if [ -n "$reason" ] && ! grep -qF "$reason" "$err"; then
  echo "FAIL: --backend nccl's message lacks the probe's reason"; fail=1
fi
sed 's/^/  nccl stderr: /' "$err"

# An algorithm's rounds on NCCL: refused the same way, with NCCL's reason.
"$collviz" run --backend nccl --algo ring --op all_reduce --ranks 2 >"$out" 2>"$err"
rc=$?
if [ "$rc" -ne 2 ]; then
  echo "FAIL: --backend nccl --algo ring exited $rc, want 2"; fail=1
fi
if [ -n "$reason" ] && ! grep -qF "$reason" "$err"; then
  echo "FAIL: --backend nccl --algo ring's message lacks the probe's reason"; fail=1
fi
sed 's/^/  nccl --algo ring stderr: /' "$err"

"$collviz" run --backend auto --op all_reduce --ranks 2 >"$out" 2>"$err"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "FAIL: --backend auto exited $rc, want 0 (Gloo)"; fail=1
fi
if ! cat "$out" "$err" | grep -qi "nccl unavailable"; then
  echo "FAIL: --backend auto gave no visible notice about NCCL"; fail=1
fi
sed 's/^/  auto stderr: /' "$err"
[ "$fail" -eq 0 ] && echo "PASS: no-GPU fallback"
exit "$fail"
