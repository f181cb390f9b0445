#!/usr/bin/env bash
# The NCCL module (libcollviz-nccl.so beside collviz-rank), no GPU needed:
#   1. collviz-rank needs neither libnccl nor libcudart (readelf NEEDED); the
#      module needs both and exports only its three C entry points;
#   2. as built, the probe loads the module (NCCL's version is known), and a
#      Gloo run's rank workers never load it (LD_DEBUG=files per process:
#      only the probe's process opens it);
#   3. with the module unloadable, (a) missing (COLLVIZ_NCCL_MODULE names a
#      file that is not there) and (b) its libnccl broken (LD_LIBRARY_PATH
#      puts an empty libnccl.so.2 first), the probe says NCCL is unavailable
#      with the loader's reason, a Gloo run still verifies, `--backend auto`
#      runs on Gloo and says why, and `--backend nccl` exits 2 with the reason.
# Usage: nccl_module_test.sh COLLVIZ COLLVIZ_RANK
set -u
collviz=$(readlink -f "$1") worker=$(readlink -f "$2")  # as collviz finds it: /proc/self/exe
module=$(dirname "$worker")/libcollviz-nccl.so
fail=0
bad() { echo "FAIL: $*"; fail=1; }
work=$(mktemp -d /tmp/collviz-nccl-module.XXXXXX)
trap 'rm -rf "$work"' EXIT

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# ---- 1. who needs what -------------------------------------------------------------
w=$(needed "$worker")
echo "collviz-rank needs: $(echo $w)"
if echo "$w" | grep -Eq 'libnccl|libcudart|libcuda\.'; then
  bad "collviz-rank itself needs $(echo "$w" | grep -E 'libnccl|libcudart|libcuda\.' | paste -sd' ')"
fi
[ -f "$module" ] || { echo "FAIL: no NCCL module at $module"; exit 1; }
m=$(needed "$module")
echo "the module needs: $(echo $m)"
echo "$m" | grep -q '^libnccl' || bad "the module does not need libnccl: is $module the NCCL module?"
echo "$m" | grep -q '^libcudart' || bad "the module does not need libcudart"
exports=$(nm -D --defined-only "$module" | awk '$2 == "T" {print $3}' | sort | paste -sd' ')
echo "the module exports: $exports"
[ "$exports" = "collviz_make_nccl_communicator collviz_nccl_abi_version collviz_probe_nccl" ] ||
  bad "the module exports other functions than its entry points"

# The probe's NCCL object as one line (it holds objects of its own: the
# gpu_memory entries, a text's message).
nccl_object() {
  echo "$1" | python3 -c 'import json, sys
for b in json.load(sys.stdin).get("backends", []):
    if b.get("name") == "nccl": print(json.dumps(b))'
}
run_gloo() {  # run_gloo LABEL [env...]: an all_reduce on Gloo must verify
  local label=$1; shift
  env "$@" "$collviz" run --backend gloo --op all_reduce --ranks 2 --json > "$work/out" 2> "$work/err"
  local rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^  "verified": true' "$work/out"; then
    echo "ok: $label: collviz run --backend gloo verified"
  else
    bad "$label: collviz run --backend gloo: rc=$rc: $(head -c 300 "$work/err")"
  fi
}

# ---- 2. as built -----------------------------------------------------------------------
probe=$("$worker" --probe 2>"$work/probe.err") || bad "collviz-rank --probe failed: $(cat "$work/probe.err")"
nccl=$(nccl_object "$probe")
if echo "$nccl" | grep -q '"version_code"' && ! echo "$nccl" | grep -q 'cannot load the NCCL module'; then
  echo "ok: the probe loaded the module: $(echo "$nccl" | grep -o '"version": \?"[^"]*"')"
else
  bad "the probe did not load the module: $nccl"
fi
mkdir -p "$work/ld"
run_gloo "as built, under LD_DEBUG=files" LD_DEBUG=files LD_DEBUG_OUTPUT="$work/ld/log"
ranks=0 probes=0
for f in "$work"/ld/log.*; do
  grep -q "needed by $worker " "$f" || continue  # a collviz-rank process
  if grep -q 'file=.*libcollviz-nccl.so' "$f"; then probes=$((probes + 1)); else ranks=$((ranks + 1)); fi
done
echo "LD_DEBUG: $ranks collviz-rank process(es) without the module, $probes with it"
[ "$ranks" -ge 2 ] || bad "LD_DEBUG saw $ranks rank workers without the module, want the run's 2"
[ "$probes" -le 1 ] || bad "$probes collviz-rank processes loaded the module: a Gloo rank worker did"

# ---- 3. the module cannot load -----------------------------------------------------------
mkdir -p "$work/broken"
: > "$work/broken/libnccl.so.2"
check_unloadable() {  # LABEL WANT_IN_REASON env...
  local label=$1 want=$2; shift 2
  local p n rc
  p=$(env "$@" "$worker" --probe 2>/dev/null)
  n=$(nccl_object "$p")
  if echo "$n" | grep -q '"available": \?false' && echo "$n" | grep -qF "cannot load the NCCL module" &&
     echo "$n" | grep -qF "$want"; then
    echo "ok: $label: the probe says $(echo "$n" | grep -o '"reason": \?"[^"]*"')"
  else
    bad "$label: the probe's NCCL object lacks available=false and '$want': $n"
  fi
  run_gloo "$label" "$@"
  env "$@" "$collviz" run --backend auto --op all_reduce --ranks 2 > "$work/out" 2> "$work/err"
  rc=$?
  # The notice is printed once: in the run's table (stdout), or on stderr.
  if [ "$rc" -eq 0 ] && cat "$work/out" "$work/err" | grep -q "NCCL unavailable (cannot load the NCCL module"; then
    echo "ok: $label: --backend auto ran on Gloo and said why"
  else
    bad "$label: --backend auto: rc=$rc: $(cat "$work/out" "$work/err" | head -c 300)"
  fi
  env "$@" "$collviz" run --backend nccl --op all_reduce --ranks 2 > "$work/out" 2> "$work/err"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qF "$want" "$work/err"; then
    echo "ok: $label: --backend nccl exits 2 with the reason"
  else
    bad "$label: --backend nccl: rc=$rc (want 2 naming '$want'): $(head -c 300 "$work/err")"
  fi
}
check_unloadable "module missing" "$work/none/libcollviz-nccl.so: cannot open shared object file" \
  COLLVIZ_NCCL_MODULE="$work/none/libcollviz-nccl.so"
check_unloadable "libnccl broken" "libnccl.so.2: file too short" \
  LD_LIBRARY_PATH="$work/broken${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

[ "$fail" -eq 0 ] && echo "PASS: collviz-rank loads NCCL only through its module"
exit "$fail"
