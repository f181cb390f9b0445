#!/usr/bin/env bash
# The NCCL check on a GPU machine, run from the bundle that
# tests/gpu/make_bundle.sh makes (this file is copied into it):
#
#   bash DIR/device_check.sh          (the device tool: see make_bundle.sh)
#
# The machine needs the NVIDIA driver, the CUDA 13 runtime and NCCL, none of
# collviz's Debian packages (they are in DIR). Steps, each with its own time
# budget counted from after the set-up; steps 0-6 end within 5 minutes
# (290 s; DEVICE_CHECK_FULL=1: 7 minutes with the parts cut below), step 7
# within 120 s more (the whole run: 410 s; FULL 525 s):
#   0. no GPU: says so and exits 77 at once, before anything else;
#      the stand-in CUDA runtime and NCCL (tests/standin, a test double) is
#      REFUSED (exit 2) wherever it is found: as the chosen libnccl.so.2 or
#      libcudart.so.13, or COLLVIZ_STANDIN set. Only a rehearsal may run on
#      it, with COLLVIZ_DEVICE_CHECK_REHEARSAL=standin, and the summary then
#      says on every line that matters that no GPU was used;
#   1. set-up: finds this machine's libnccl.so.2 and libcudart.so.13 (CUDA
#      toolkit lib64, the nvidia wheels under Python's site-packages,
#      ldconfig -p; NCCL_LIB / CUDART_LIB override), says which it took and
#      their versions, checks with ldd that nothing is missing (the NCCL
#      module libcollviz-nccl.so included), probes; machine.txt records
#      /dev/shm's size, NCCL's and the CUDA runtime's versions and every
#      library the probe loaded, with its path (LD_DEBUG=libs);
#      a NCCL version this check has not seen (SEEN_NCCL) is reported, and
#      its log's format is then read as far as it goes: a log collviz cannot
#      read is a NOTE, never a FAIL;
#   2. the NCCL tests (nccl_test) run directly; none run is a failure; if
#      they fail in NCCL's topology detection (a sandbox hiding /sys), the
#      ready fallback: an NCCL_TOPO_FILE written from nvidia-smi's PCI bus
#      ids (topo.xml), and the tests once more with it, said in the summary;
#   3. `collviz run --backend nccl --json` for every op at N = 2, 4
#      (they share one GPU through the host-id route), deadline 60 s;
#      (N = 1 is cut: nccl_test runs every op at N = 1; FULL adds it);
#   4. an algorithm's rounds on NCCL: `collviz run --backend nccl --json
#      --algo A --op OP --ranks N` for every algorithm and op of `collviz
#      algos` at N = 4, then six N=4 runs with the reduce kernel's other
#      dtypes and reduce ops, three runs at a time (N = 3 and N = 2 are cut:
#      the stand-in runs every algorithm there in CI; FULL adds them);
#      each must exit 0 with every round verified against the reference and
#      final_matches_native true;
#   5. one all_reduce N=4 run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,TUNING,COLL:
#      its log shows the transport the shared-GPU ranks took, and its stdout
#      must still be one JSON document; `collviz nccl-log` reads that log back
#      (a communicator of 4 ranks with its rings); then an N=2 run without
#      NCCL_DEBUG must say NCCL's choice (nccl_choice, from collviz's own log);
#   6. all_reduce busbw 64 KiB .. 256 MiB, every 4th size (FULL: every 2nd):
#      the engine (`collviz bench`) against the plain NCCL loop, compared at
#      every size, summarised at >= 64 MiB (bandwidth) and <= 1 MiB (time per op);
#   7. `collviz watch` on a PyTorch program (issue 59): 2 ranks on GPU 0
#      (NCCL_HOSTID each), all_reduce and all_gather, started through a python
#      launcher as torchrun starts them; the capture's bytes checked against
#      the tensors, the step time alone and watched printed with their ratio
#      (goal <= 1.03x); SKIPPED, saying why, where no python imports torch
#      (device_check_watch.sh, watch_torch.py).
# A run that a step's budget leaves out is not a failure: the summary says
# "INCOMPLETE: K of M ... not run" and judges what ran.
# Budgets (s, from after the set-up; a step that ends early leaves its time
# to the later ones; nothing of steps 0-6 runs past 290 s from the start,
# FULL 405; step 7 has 120 s of its own, to 410 s at most, FULL 525): NCCL
# tests 60, runs 60, rounds 50, NCCL_DEBUG run 25, plain loop 25, engine
# sweep 40 (FULL: 90, 115, 60, 30, 40, 90). Every limit handed to timeout(1)
# comes from limit(): a whole number of seconds >= 1 and never past the end,
# so no step's limit can become 0 (unlimited for timeout) or negative.
# Results: at most 8 files in $OUT (else DIR/results): summary.txt,
# machine.txt, nccl_tests.log, runs.jsonl (step 3's documents, then one line
# per step 4 run: its checks, and its whole document when it failed),
# runs.log, nccl_debug.log, busbw.json, busbw.log. The summary ends with RESULT: PASS or RESULT: FAIL
# (exit 0 or 1).
set -u
T0=$(date +%s)  # steps 0-6 end by T0 + 290 s (FULL: 405 s), step 0 included; step 7 by T0 + 410 (525)
ORIG_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}  # the caller's: a PyTorch program's (step 7)
B=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RESULTS=${OUT:-$B/results}
OPS="broadcast scatter gather reduce all_gather reduce_scatter all_reduce all_to_all"
FULL=${DEVICE_CHECK_FULL:-0}
REHEARSAL=${COLLVIZ_DEVICE_CHECK_REHEARSAL:-}
# NCCL versions (major.minor) whose log format this check and collviz's log
# reader were written against.
SEEN_NCCL="2.28"
case "$REHEARSAL" in
  ""|standin) ;;
  *) echo "device_check: COLLVIZ_DEVICE_CHECK_REHEARSAL=$REHEARSAL: the only value is 'standin'" >&2; exit 2 ;;
esac
# The stand-in CUDA runtime and NCCL (tests/standin): a test double on host memory.
is_standin() { [ -f "$1" ] && grep -qaE 'stand-in: host memory, not a GPU|stand-in NCCL' "$1"; }
refuse() {
  echo "device_check: REFUSED: $1. The stand-in CUDA runtime and NCCL (tests/standin) is a test double"
  echo "on host memory, not a GPU: nothing it runs is a GPU result. Run this check on the machine's"
  echo "own libnccl.so.2 and libcudart.so.13 (unset COLLVIZ_STANDIN, NCCL_LIB, CUDART_LIB, LD_LIBRARY_PATH)."
  [ -z "${W:-}" ] || rm -rf "$W"  # nothing left behind
  exit 2
}
if [ -z "$REHEARSAL" ] && [ -n "${COLLVIZ_STANDIN:-}" ]; then refuse "COLLVIZ_STANDIN is set"; fi

# ---- 0. a GPU? -------------------------------------------------------------------
no_gpu() {
  echo "device_check: no GPU: $1. Nothing was run: this check needs an NVIDIA GPU and its driver."
  exit 77
}
if [ "$REHEARSAL" = standin ]; then
  GPU_LIST="GPU 0: REHEARSAL on the stand-in (a test double on host memory, not a GPU)"
  echo "device_check: REHEARSAL ONLY (COLLVIZ_DEVICE_CHECK_REHEARSAL=standin): no GPU is looked for or used"
elif command -v nvidia-smi >/dev/null 2>&1; then
  GPU_LIST=$(timeout 20 nvidia-smi -L 2>&1) || no_gpu "nvidia-smi -L failed ($(echo "$GPU_LIST" | head -1))"
  echo "$GPU_LIST" | grep -q '^GPU [0-9]' || no_gpu "nvidia-smi lists no GPU"
elif ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  GPU_LIST="(nvidia-smi not found; $(ls /dev/nvidia[0-9]* | wc -l) /dev/nvidia device(s))"
else
  no_gpu "neither nvidia-smi nor /dev/nvidia0 is here"
fi
GPUS=$(echo "$GPU_LIST" | grep -c '^GPU [0-9]')
[ "$GPUS" -gt 0 ] || GPUS=1

W=$(mktemp -d /tmp/collviz-device-check.XXXXXX)
FAIL=0
SUMMARY=()
say() { SUMMARY+=("$*"); echo "== $*"; }
bad() { FAIL=1; say "FAIL: $*"; }
now() { date +%s; }
have() { command -v "$1" >/dev/null 2>&1; }
PY=""
for p in python3 /opt/torch/.venv/bin/python3 python; do have "$p" && { PY=$p; break; }; done
touch "$W/machine.txt" "$W/nccl_tests.log" "$W/runs.jsonl" "$W/runs.log" "$W/nccl_debug.log" \
      "$W/busbw.log"
finish() {
  say "total: $(( $(now) - T0 )) s"
  local r=PASS; [ "$FAIL" -eq 0 ] || r=FAIL
  if [ "$REHEARSAL" = standin ]; then
    SUMMARY+=("REHEARSAL ONLY: every step ran on the stand-in CUDA runtime and NCCL (a test double on host memory, not a GPU)")
    r="REHEARSAL-$r (stand-in, not a GPU)"
  fi
  SUMMARY+=("RESULT: $r")
  printf '%s\n' "${SUMMARY[@]}" > "$W/summary.txt"
  mkdir -p "$RESULTS"
  for f in summary.txt machine.txt nccl_tests.log runs.jsonl runs.log nccl_debug.log busbw.json \
           busbw.log; do
    [ -f "$W/$f" ] && cp "$W/$f" "$RESULTS/$f"
  done
  rm -rf "$W"
  echo
  echo "================ summary ($RESULTS) ================"
  cat "$RESULTS/summary.txt"
  exit "$FAIL"
}
trap 'jobs -p | xargs -r kill 2>/dev/null; bad "interrupted"; finish' INT TERM

# ---- 1. set-up: this machine's NCCL and CUDA runtime -----------------------------
site_dirs() {
  [ -n "$PY" ] && "$PY" -c 'import site, sys
for d in site.getsitepackages() + [site.getusersitepackages()] + sys.path:
    print(d)' 2>/dev/null
  ls -d /opt/*/.venv/lib/python3*/site-packages /usr/local/lib/python3*/dist-packages \
        /usr/lib/python3/dist-packages 2>/dev/null
}
# find_lib NAME OVERRIDE -> candidates "where<TAB>path", first one taken.
find_lib() {
  local name=$1 override=$2 d
  [ -n "$override" ] && printf 'override\t%s\n' "$override"
  for d in ${CUDA_HOME:+$CUDA_HOME/lib64} /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
           /usr/local/cuda-13*/lib64; do
    [ -e "$d/$name" ] && printf 'CUDA toolkit\t%s\n' "$d/$name"
  done
  while read -r d; do
    [ -d "$d/nvidia" ] || continue
    find "$d/nvidia" -maxdepth 3 -name "$name" 2>/dev/null | sort | sed 's/^/python wheel\t/'
  done < <(site_dirs | awk '!seen[$0]++')
  ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n && /x86-64/ {print "ldconfig\t" $NF}'
}
lib_version() {  # the file's own name, and the wheel's name and version
  local v w
  v="file $(basename "$(readlink -f "$1")")"
  w=$(ls -d "$(dirname "$1")"/../../../nvidia_*"$2"*.dist-info 2>/dev/null | head -1)
  [ -n "$w" ] && v="$v, wheel $(basename "$w" .dist-info)"
  echo "$v"
}
declare -A CHOSEN=()
LIBPATH=""
{
  echo "GPUs: $GPU_LIST"
  have nvidia-smi && timeout 20 nvidia-smi --query-gpu=name,memory.total,driver_version,compute_mode --format=csv 2>&1
  echo "kernel: $(uname -r) (a sandbox such as gVisor reports its own)"
  echo "PCI devices in /sys/bus/pci/devices: $(ls /sys/bus/pci/devices 2>/dev/null | wc -l) (NCCL reads its topology there)"
  echo "python: ${PY:-none}"
  echo "bundle:"; sed 's/^/  /' "$B/MANIFEST.txt" 2>/dev/null || echo "  (no MANIFEST.txt)"
  echo "glibc here: $(ldd --version 2>/dev/null | head -1)"
  echo "/dev/shm: $(df -hP /dev/shm 2>/dev/null | awk 'NR == 2 {print $2 " size, " $4 " free, " $1}')${SHM_NOTE:-}"
} >> "$W/machine.txt"
for spec in "libnccl.so.2:nccl:NCCL_LIB:${NCCL_LIB:-}" \
            "libcudart.so.13:cuda_runtime:CUDART_LIB:${CUDART_LIB:-}"; do
  IFS=: read -r name wheel var override <<< "$spec"
  cands=$(find_lib "$name" "$override" | awk -F'\t' '!seen[$2]++')
  { echo "candidates for $name:"; echo "${cands:-  none}" | sed 's/^/  /'; } >> "$W/machine.txt"
  if [ -z "$cands" ]; then
    bad "$name not found (CUDA toolkit lib64, python site-packages/nvidia, ldconfig -p); set $var to its path"
    continue
  fi
  where=$(echo "$cands" | head -1 | cut -f1)
  path=$(echo "$cands" | head -1 | cut -f2)
  CHOSEN[$name]=$path
  if is_standin "$path"; then
    [ "$REHEARSAL" = standin ] || refuse "$name at $path is collviz's stand-in"
  elif [ "$REHEARSAL" = standin ]; then
    echo "device_check: COLLVIZ_DEVICE_CHECK_REHEARSAL=standin, but $name at $path is not the stand-in: refused" >&2
    rm -rf "$W"
    exit 2
  fi
  say "$name: $path (from the $where; $(lib_version "$path" "$wheel"); $(echo "$cands" | wc -l) candidate(s))"
  LIBPATH=$LIBPATH${LIBPATH:+:}$(dirname "$path")
done
export LD_LIBRARY_PATH=$LIBPATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
EXES="collviz collviz-rank nccl-allreduce-loop nccl_test nccl-watch-ranks libcollviz-nccl.so libcollviz-tap-nccl.so"
for e in $EXES; do
  out=$(ldd "$B/$e" 2>&1)
  { echo "ldd $e:"; echo "$out" | sed 's/^/  /'; } >> "$W/machine.txt"
  missing=$(echo "$out" | grep -E 'not found|version .* not found' | sed 's/^[[:space:]]*//')
  [ -z "$missing" ] || bad "ldd $e: $(echo "$missing" | paste -sd';')"
done
# collviz-rank loads NCCL through its module (libcollviz-nccl.so, beside it).
nccl_in_use=$(ldd "$B/libcollviz-nccl.so" 2>/dev/null | awk '$1 == "libnccl.so.2" {print $3}')
say "ldd: the NCCL module loads libnccl.so.2 from ${nccl_in_use:-?}, bundled libraries from $B"
mkdir -p "$W/ld"
LD_DEBUG=libs LD_DEBUG_OUTPUT=$W/ld/probe timeout 30 "$B/collviz-rank" --probe > "$W/probe.json" \
  2>> "$W/machine.txt" || echo "collviz-rank --probe: rc=$?" >> "$W/machine.txt"
{ echo "libraries the probe loaded (LD_DEBUG=libs; the NCCL module's among them):"
  grep -h 'calling init: ' "$W"/ld/probe.* 2>/dev/null | sed 's/.*calling init: //' | sort -u | sed 's/^/  /'
} >> "$W/machine.txt"
rm -rf "$W/ld"
{ echo "probe:"; cat "$W/probe.json"; } >> "$W/machine.txt"
probe_field() {  # the NCCL backend's field from the probe
  if [ -n "$PY" ]; then
    "$PY" -c 'import json, sys
b = [x for x in json.load(open(sys.argv[1]))["backends"] if x["name"] == "nccl"][0]
print(b.get(sys.argv[2], ""))' "$W/probe.json" "$1" 2>/dev/null
  else
    grep -o "\"$1\": *[^,}]*" "$W/probe.json" | tail -1 | sed 's/^[^:]*: *//; s/"//g'
  fi
}
NCCL_OK=$(probe_field available)
NCCL_VERSION=$(probe_field version)
say "probe: runtime NCCL $NCCL_VERSION (ncclGetVersion), CUDA runtime $(probe_field cuda_runtime) (cudaRuntimeGetVersion)"
{ echo "NCCL (runtime, ncclGetVersion): $NCCL_VERSION"
  echo "CUDA runtime (cudaRuntimeGetVersion): $(probe_field cuda_runtime)"; } >> "$W/machine.txt"
NCCL_MM=$(echo "$NCCL_VERSION" | grep -oE '^[0-9]+\.[0-9]+')
NEW_NCCL=0
case " $SEEN_NCCL " in
  *" $NCCL_MM "*) ;;
  *) NEW_NCCL=1
     say "NOTE: NCCL ${NCCL_VERSION:-?} is a version this check has not seen (seen: $SEEN_NCCL): its log is read as far as it goes, a log collviz cannot read is a NOTE, not a FAIL" ;;
esac
if [ "$NCCL_OK" = "True" ] || [ "$NCCL_OK" = "true" ]; then
  say "probe: NCCL available on $(probe_field devices)"
  # Where the size check's free memory came from (NVML needs no context).
  [ -n "$PY" ] && while IFS= read -r l; do say "  $l"; done < <("$PY" -c 'import json, sys
b = [x for x in json.load(open(sys.argv[1]))["backends"] if x["name"] == "nccl"][0]
for m in b.get("gpu_memory", []):
    err = m.get("error")
    print("GPU %s: free %s of %s bytes, from %s%s" % (m.get("gpu"), m.get("free", "?"), m.get("total"),
                                                      m.get("source"), "; " + err if err else ""))' "$W/probe.json" 2>&1 | head -8)
else
  bad "probe: NCCL unavailable: $(probe_field reason)"
fi
SETUP_S=$(( $(now) - T0 ))
say "set-up: $SETUP_S s"
T1=$(now)  # budgets count from here

# step_left END: seconds until the step's end (and never past the end of the check)
HARD_END=$(( T0 + 290 ))
[ "$FULL" = 1 ] && HARD_END=$(( T0 + 405 ))
step_left() { local e=$1; [ "$e" -gt "$HARD_END" ] && e=$HARD_END; echo $(( e - $(now) )); }
# limit END MAX [MIN]: a timeout(1) limit of at most MAX s that ends by END,
# or nothing and status 1 when fewer than MIN (default 8) s are left; never 0
# (which timeout reads as no limit) nor negative.
limit() {
  local l; l=$(step_left "$1")
  [ "$l" -gt "$2" ] && l=$2
  [ "$l" -ge "${3:-8}" ] && [ "$l" -ge 1 ] || return 1
  echo "$l"
}
# bud FAST FULL: a step's budget.
bud() { if [ "$FULL" = 1 ]; then echo "$2"; else echo "$1"; fi; }
# Not read (a NCCL or log format the check has not seen): a NOTE, not a FAIL.
unread() { say "NOTE: not read: $* (NCCL ${NCCL_VERSION:-?}$([ "$NEW_NCCL" = 1 ] && echo ", a version not seen before"))"; }

# topo_xml: an NCCL topology (NCCL_TOPO_FILE) from nvidia-smi's PCI bus ids,
# every GPU on one CPU, for when NCCL cannot read /sys itself.
topo_xml() {
  echo '<system version="1">'
  echo '  <cpu numaid="0" affinity="ffffffff,ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">'
  local i=0 bus
  while read -r bus; do
    bus=$(echo "$bus" | tr 'A-F' 'a-f' | sed -E 's/^0000([0-9a-f]{4}):/\1:/')
    [ -n "$bus" ] || continue
    echo "    <pci busid=\"$bus\" class=\"0x030200\" vendor=\"0x10de\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
    echo "      <gpu dev=\"$i\" sm=\"90\" rank=\"$i\" gdr=\"0\"/>"
    echo "    </pci>"
    i=$((i + 1))
  done < <(timeout 20 nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null)
  echo '  </cpu>'
  echo '</system>'
}

# ---- 2. the NCCL tests, directly --------------------------------------------------
END2=$(( T1 + $(bud 60 90) ))
t=$(now)
nccl_tests() {
  local l
  if l=$(limit "$END2" 600 5); then
    timeout --kill-after=5 "$l" "$B/nccl_test" > "$W/nccl_tests.log" 2>&1
  else
    echo "not run: no time left" > "$W/nccl_tests.log"; return 124
  fi
}
nccl_tests
rc=$?
# NCCL's topology detection failing (a sandbox that hides /sys): the ready
# fallback, a topology file from nvidia-smi's bus ids, and the tests once more.
if [ "$rc" -ne 0 ] && [ -z "${NCCL_TOPO_FILE:-}" ] && [ "$REHEARSAL" != standin ] &&
   grep -qiE 'topo[a-z]*\.cc|ncclTopo|/sys/(bus|devices|class)' "$W/nccl_tests.log"; then
  topo_xml > "$W/topo.xml"
  export NCCL_TOPO_FILE=$W/topo.xml
  say "FALLBACK: NCCL's topology detection failed ($(grep -m1 -iE 'topo|/sys/' "$W/nccl_tests.log" | cut -c1-160)); every later step runs with NCCL_TOPO_FILE=topo.xml (machine.txt)"
  { echo "NCCL_TOPO_FILE used (topology detection failed):"; sed 's/^/  /' "$W/topo.xml"; } >> "$W/machine.txt"
  nccl_tests
  rc=$?
fi
passed=$(grep -c '^\[       OK \]' "$W/nccl_tests.log")
failed=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$W/nccl_tests.log")  # not gtest's closing list
total=$((passed + failed))
note="rc=$rc, $passed passed, $failed failed, $(( $(now) - t )) s"
[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && note="$note, stopped at its budget"
if [ "$rc" -eq 77 ]; then bad "NCCL tests skipped themselves: $(grep -m1 SKIPPED "$W/nccl_tests.log")"
elif [ "$total" -eq 0 ]; then bad "NCCL tests: none ran ($note)"
elif [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then bad "NCCL tests: $note"
else say "NCCL tests: $note"; fi
while read -r l; do say "  $l"; done < <(grep -E '^\[N=' "$W/nccl_tests.log" | head -3)

# ---- 3. collviz run, every op, N = 1, 2, 4 -------------------------------------------
END3=$(( END2 + $(bud 60 115) ))
verified() {
  if [ -n "$PY" ]; then
    "$PY" -c 'import json, sys
sys.exit(0 if json.load(open(sys.argv[1])).get("verified") is True else 1)' "$1" 2>/dev/null
  else
    grep -q '^  "verified": true' "$1"
  fi
}
t=$(now)
ok=0 total=0 skipped=0 failed_runs=()
RUN_NS="2 4"
[ "$FULL" = 1 ] && RUN_NS="1 2 4"
for n in $RUN_NS; do
  for op in $OPS; do
    total=$((total + 1))
    if ! left=$(limit "$END3" 75); then skipped=$((skipped + 1)); continue; fi
    f=$W/run.json
    echo "---- collviz run --op $op --ranks $n" >> "$W/runs.log"
    s=$(now)
    timeout --kill-after=5 "$left" "$B/collviz" run --backend nccl --json \
      --op "$op" --ranks "$n" --deadline-ms 60000 > "$f" 2>> "$W/runs.log"
    rc=$?
    doc=$(tr -d '\n' < "$f")
    printf '{"op":"%s","ranks":%d,"rc":%d,"seconds":%d,"result":%s}\n' "$op" "$n" "$rc" \
      $(( $(now) - s )) "${doc:-null}" >> "$W/runs.jsonl"
    if [ "$rc" -eq 0 ] && verified "$f"; then ok=$((ok + 1)); else failed_runs+=("$op/N=$n(rc=$rc)"); fi
  done
done
msg="collviz run --backend nccl: $ok/$(( total - skipped )) verified ($(( $(now) - t )) s)"
if [ "$ok" -eq "$(( total - skipped ))" ] && [ "$ok" -gt 0 ]; then say "$msg"; else bad "$msg; not: ${failed_runs[*]}"; fi
# Out of time is not a failure of what ran; the summary says what was left.
[ "$skipped" -eq 0 ] || say "INCOMPLETE: $skipped of $total runs not run (the step's time budget)"
if [ -n "$PY" ]; then
  # say in this shell, not a pipe's subshell, so the lines reach summary.txt
  while IFS= read -r l; do say "  $l"; done < <("$PY" - "$W/runs.jsonl" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r["op"] == "all_reduce" and r["result"]:
        b = r["result"].get("backend", {})
        copies = sorted({k.get("copies", "?") for s in r["result"].get("steps", []) for k in s.get("ranks", [])})
        print(f"N={r['ranks']}: {b.get('version')} | {b.get('transport')} | copies: {', '.join(copies)}")
        if r["ranks"] == 4:
            print(f"notes: {b.get('notes')}")
EOF
  )
fi

# ---- 4. an algorithm's rounds on NCCL, every algorithm and op, N = 4, 2, 3 ------------
ENDR=$(( END3 + $(bud 50 60) ))
ROUND_JOBS=3
mkdir -p "$W/rounds"
# "algo:op" for every algorithm but native, from the algorithms table.
PAIRS=$("$B/collviz" algos --json --ranks 4 2>> "$W/runs.log" |
        awk -F'"' '/"algo":/ {a = $4} /"op":/ {if (a != "native") print a ":" $4}')
[ -n "$PAIRS" ] || bad "collviz algos --json listed no algorithm"
# The kernels' other dtypes and reduce ops (the runs above are f32 sum), at N = 4:
# "algo:op:dtype:redop".
KERNEL_RUNS="ring:all_reduce:i32:max halving_doubling:all_reduce:f16:prod tree:reduce:u8:min
  ring:reduce_scatter:bf16:sum halving_doubling:reduce_scatter:i64:sum ring:all_reduce:f64:avg"
round_run() {  # NAME N ALGO OP [DTYPE REDOP]: one run, its files under $W/rounds/NAME
  local f="$W/rounds/$1" left s extra=()
  [ $# -ge 6 ] && extra=(--dtype "$5" --redop "$6")
  if ! left=$(limit "$ENDR" 45); then echo "budget" > "$f.rc"; return; fi
  s=$(now)
  timeout --kill-after=5 "$left" "$B/collviz" run --backend nccl --json \
    --algo "$3" --op "$4" --ranks "$2" "${extra[@]}" --deadline-ms 30000 > "$f.json" 2> "$f.err"
  echo $? > "$f.rc"
  echo $(( $(now) - s )) > "$f.s"
}
# Every round verified, final_matches_native, verified: "ok" or what is not.
round_verdict() {
  if [ -n "$PY" ]; then
    "$PY" -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON document (" + type(e).__name__ + ")")
    sys.exit()
if d.get("error"):
    print("error: " + str(d["error"])[:240])
    sys.exit()
steps = d.get("steps", [])
rounds = d.get("rounds")
bad = [str(i + 1) for i, s in enumerate(steps) if s.get("verified") is not True]
why = []
if not steps or len(steps) != rounds:
    why.append(str(len(steps)) + " round(s) of " + str(rounds))
if bad:
    why.append("round(s) " + ",".join(bad) + " differ from the reference")
if d.get("final_matches_native") is not True:
    why.append("final_matches_native " + str(d.get("final_matches_native")) + " (" +
               str(d.get("differing_elements")) + " elements differ)")
if d.get("verified") is not True:
    why.append("not verified")
print("; ".join(why) if why else "ok")' "$1"
  elif grep -q '"final_matches_native": true' "$1" && grep -q '^  "verified": true' "$1" &&
       ! grep -q '"verified": false' "$1"; then
    echo ok
  else
    echo "not verified (final_matches_native, a round or the output)"
  fi
}
# Every run: "name n algo op [dtype redop]", N = 4 first.
RUNS=()
for p in $PAIRS; do RUNS+=("${p%%:*}.${p##*:}.4 4 ${p%%:*} ${p##*:}"); done
for k in $KERNEL_RUNS; do
  IFS=: read -r a op dt rd <<< "$k"
  RUNS+=("$a.$op.$dt.$rd.4 4 $a $op $dt $rd")
done
ROUND_NS=""
[ "$FULL" = 1 ] && ROUND_NS="3 2"
for n in $ROUND_NS; do  # last: what the time left allows
  for p in $PAIRS; do RUNS+=("${p%%:*}.${p##*:}.$n $n ${p%%:*} ${p##*:}"); done
done
t=$(now)
for r in "${RUNS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$ROUND_JOBS" ]; do wait -n; done
  # shellcheck disable=SC2086  # the fields split on purpose
  round_run $r &
done
wait
ok=0 total=0 skipped=0 failed_runs=() slowest=0
declare -A n_ok=() n_total=()
for r in "${RUNS[@]}"; do
  read -r name n a op dt rd <<< "$r"
  f="$W/rounds/$name" group=$([ -n "$dt" ] && echo "dtypes" || echo "N=$n")
  label="$a/$op/N=$n${dt:+/$dt/$rd}"
  total=$((total + 1)) n_total[$group]=$(( ${n_total[$group]:-0} + 1 ))
  rc=$(cat "$f.rc" 2>/dev/null || echo "?")
  secs=$(cat "$f.s" 2>/dev/null || echo 0)
  [ "$secs" -gt "$slowest" ] && slowest=$secs
  if [ "$rc" = "budget" ]; then
    skipped=$((skipped + 1))
    printf '{"algo":"%s","op":"%s","ranks":%d,"dtype":"%s","redop":"%s","rc":null,"check":"not run: step budget"}\n' \
      "$a" "$op" "$n" "${dt:-f32}" "${rd:-sum}" >> "$W/runs.jsonl"
    continue
  fi
  verdict=$(round_verdict "$f.json")
  { echo "---- collviz run --algo $a --op $op --ranks $n${dt:+ --dtype $dt --redop $rd}: rc=$rc, $secs s: $verdict"
    cat "$f.err"; } >> "$W/runs.log"
  if [ "$rc" = 0 ] && [ "$verdict" = ok ]; then
    ok=$((ok + 1)) n_ok[$group]=$(( ${n_ok[$group]:-0} + 1 ))
    doc=null
  else
    failed_runs+=("$label(rc=$rc: $verdict)")
    doc=$(tr -d '\n' < "$f.json")
  fi
  verdict_json=$(printf '%s' "$verdict" | sed 's/\\/\\\\/g; s/"/\\"/g')
  [[ $rc =~ ^[0-9]+$ ]] || rc=null
  printf '{"algo":"%s","op":"%s","ranks":%d,"dtype":"%s","redop":"%s","rc":%s,"seconds":%d,"check":"%s","result":%s}\n' \
    "$a" "$op" "$n" "${dt:-f32}" "${rd:-sum}" "$rc" "$secs" "$verdict_json" "${doc:-null}" >> "$W/runs.jsonl"
done
msg="collviz run --backend nccl --algo: $ok/$(( total - skipped )) runs with every round and the output verified and final_matches_native ($(( $(now) - t )) s, $ROUND_JOBS at a time, slowest run $slowest s)"
if [ "$ok" -gt 0 ] && [ "$ok" -eq "$(( total - skipped ))" ]; then say "$msg"; else bad "$msg"; fi
[ "$skipped" -eq 0 ] || say "INCOMPLETE: $skipped of $total rounds runs not run (the step's time budget; N=2 and N=3 go last)"
say "  f32 sum: N=4 ${n_ok[N=4]:-0}/${n_total[N=4]:-0}, N=2 ${n_ok[N=2]:-0}/${n_total[N=2]:-0}, N=3 ${n_ok[N=3]:-0}/${n_total[N=3]:-0}; other dtypes and reduce ops (N=4): ${n_ok[dtypes]:-0}/${n_total[dtypes]:-0}"
for r in "${failed_runs[@]:0:12}"; do say "  not: $r"; done
[ "${#failed_runs[@]}" -le 12 ] || say "  ... and $(( ${#failed_runs[@]} - 12 )) more (runs.jsonl)"

# ---- 5. one run with NCCL's own log -------------------------------------------------
END4=$(( ENDR + $(bud 25 30) ))
if left=$(limit "$END4" 600 10); then
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,TUNING,COLL timeout --kill-after=5 "$left" "$B/collviz" run \
    --backend nccl --json --op all_reduce --ranks 4 --deadline-ms 60000 \
    > "$W/debug_run.json" 2> "$W/nccl_debug.log"
  rc=$?
  lines=$(grep -c 'NCCL INFO' "$W/nccl_debug.log")
  if [ -n "$PY" ] && ! "$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$W/debug_run.json" 2>/dev/null; then
    bad "NCCL_DEBUG run: stdout is not one JSON document (rc=$rc); first line: $(head -c 120 "$W/debug_run.json")"
  elif [ "$rc" -ne 0 ] || ! verified "$W/debug_run.json"; then
    bad "NCCL_DEBUG run: rc=$rc, not verified"
  else
    say "NCCL_DEBUG=INFO run (all_reduce N=4): verified, $lines NCCL INFO lines on stderr, stdout clean JSON"
  fi
  { echo; echo "---- stdout of this run:"; cat "$W/debug_run.json"; } >> "$W/nccl_debug.log"
  while read -r c w; do say "  transport: $w ($c connections)"; done < <(
    grep -oE 'via (NET/[A-Za-z]+[^ ]*|P2P[^ ]*|SHM[^ ]*|direct shared memory)' "$W/nccl_debug.log" |
      sort | uniq -c | sort -rn | head -4)
  while IFS= read -r l; do say "$l"; done < <(
    grep -m2 -E 'NET/Socket : Using|Using network' "$W/nccl_debug.log" | sed 's/^.*NCCL INFO /  /')
  # The same log through collviz's own reader (engine/job/nccl_log): four
  # processes wrote one stream, so some lines interleave; the reader counts
  # them and must still find the communicator of 4 ranks and its rings.
  if [ -n "$PY" ]; then
    "$B/collviz" nccl-log --json "$W/nccl_debug.log" > "$W/nccl_log.json" 2>> "$W/nccl_debug.log"
    rc=$?
    got=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = max(d["comms"], key=lambda c: len(c["members"])) if d["comms"] else None
if not c: print("no communicator"); sys.exit(1)
ok = c["ranks"] == 4 and len(c["members"]) == 4 and len(c["rings"]) > 0
print(("" if ok else "WRONG: ") + c["sentence"] + "; %d rings, %d tuning choices, %d interleaved lines"
      % (len(c["rings"]), len(d["collectives"]), d["lines"]["interleaved"]))
sys.exit(0 if ok else 1)' "$W/nccl_log.json" 2>&1)
    if [ "$rc" -eq 0 ] && [ "${got#WRONG}" = "$got" ] && [ "$got" != "no communicator" ]; then
      say "  collviz nccl-log: $got"
    else
      unread "collviz nccl-log on the NCCL_DEBUG run's log: rc=$rc: $got"
    fi
    # Without NCCL_DEBUG set, collviz gives its ranks NCCL_DEBUG=INFO into a
    # folder of its own and says NCCL's choice beside the op (nccl_choice).
    if left=$(limit "$END4" 600 10); then
      env -u NCCL_DEBUG -u NCCL_DEBUG_SUBSYS -u NCCL_DEBUG_FILE timeout --kill-after=5 "$left" "$B/collviz" run \
        --backend nccl --json --op all_reduce --ranks 2 --deadline-ms 60000 > "$W/choice_run.json" 2>> "$W/nccl_debug.log"
      got=$("$PY" -c 'import json, sys; c = json.load(open(sys.argv[1])).get("nccl_choice"); print(c["algo"] + " · " + c["proto"] + " · channels %d-%d" % (c["channel_lo"], c["channel_hi"]) if c else "none")' "$W/choice_run.json" 2>&1)
      case "$got" in
        none|*Error*|"") unread "run without NCCL_DEBUG: no nccl_choice in its JSON ($got)" ;;
        *) say "  NCCL's choice beside the op (all_reduce N=2): NCCL: $got" ;;
      esac
      # ... and the communicator its ranks built (nccl_log: rings, transports).
      got=$("$PY" -c 'import json, sys
l = json.load(open(sys.argv[1])).get("nccl_log") or {}
cs = l.get("comms") or []
print("%d communicator(s), %d rings, %d links" % (len(cs), sum(len(c.get("rings", [])) for c in cs),
      sum(len(m.get("transports", [])) for c in cs for m in c.get("members", []))) if cs else "none")' "$W/choice_run.json" 2>&1)
      case "$got" in
        none|*Error*|"") unread "run without NCCL_DEBUG: no nccl_log (communicator) in its JSON ($got)" ;;
        *) say "  the communicator from the ranks' log: $got" ;;
      esac
    fi
  fi
else
  bad "NCCL_DEBUG run: not run (out of time)"
fi

# ---- 6. busbw: the engine against the plain NCCL loop ------------------------------
R=$(( GPUS >= 2 ? GPUS : 4 ))
SIZES=(-b 64K -e 256M -f "$(bud 4 2)")  # 1 MiB .. 256 MiB, and small sizes where host work would show
# The stand-in copies on the host: a rehearsal sweeps up to 4 MiB only.
[ "$REHEARSAL" = standin ] && SIZES=(-b 64K -e 4M -f 4)
END5=$(( END4 + $(bud 25 40) ))
t=$(now)
if left=$(limit "$END5" 600 10); then
  timeout --kill-after=5 "$left" "$B/nccl-allreduce-loop" --ranks "$R" "${SIZES[@]}" -w 2 -n 10 \
    --timeout-s "$left" --json > "$W/plain.json" 2> "$W/busbw.log"
  rc=$?
  if [ "$rc" -eq 0 ]; then say "plain NCCL loop, N=$R: ok ($(( $(now) - t )) s)"
  else bad "plain NCCL loop, N=$R: rc=$rc ($(( $(now) - t )) s)"; fi
else
  bad "plain NCCL loop: not run (out of time)"
fi
END6=$(( END5 + $(bud 40 90) ))
t=$(now)
if left=$(limit "$END6" 600 10); then
  echo "---- collviz bench" >> "$W/busbw.log"
  timeout --kill-after=5 "$left" "$B/collviz" bench --op all_reduce "${SIZES[@]}" -w 2 -n 10 -c 0 \
    --backend nccl --ranks "$R" --deadline-ms 60000 --json > "$W/engine.json" 2>> "$W/busbw.log"
  rc=$?
  if [ "$rc" -eq 0 ]; then say "engine (collviz bench), N=$R: ok ($(( $(now) - t )) s)"
  else bad "engine (collviz bench), N=$R: rc=$rc ($(( $(now) - t )) s)"; fi
else
  bad "engine busbw: not run (out of time)"
fi
if [ -n "$PY" ]; then
  "$PY" - "$W/plain.json" "$W/engine.json" "$R" "$W/busbw.json" > "$W/busbw_table.txt" 2>&1 <<'EOF'
import json, sys
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return None
def rows(doc, size_key, bw_key):
    return {int(r[size_key]): r for r in (doc or {}).get("rows", []) if size_key in r}
plain_doc, engine_doc = load(sys.argv[1]), load(sys.argv[2])
plain, engine = rows(plain_doc, "bytes", "busbw_gbps"), rows(engine_doc, "size", "busbw")
out = []
print(f"all_reduce busbw, N={sys.argv[3]}, GB/s per size (bytes per rank):")
print(f"  {'size':>6} {'plain':>8} {'engine':>8} {'engine/plain':>12} {'plain us':>10} {'engine us':>10}")
for b in sorted(set(plain) | set(engine)):
    p, e = plain.get(b), engine.get(b)
    pb, eb = (p or {}).get("busbw_gbps"), (e or {}).get("busbw")
    ratio = eb / pb if pb and eb else None
    out.append({"bytes": b, "plain_busbw": pb, "engine_busbw": eb, "ratio": ratio,
                "plain_us": (p or {}).get("time_us"), "engine_us": (e or {}).get("time_us")})
    f = lambda v, w=8, d=2: f"{v:{w}.{d}f}" if v is not None else f"{'-':>{w}}"
    size = f"{b >> 20}M" if b >= 1 << 20 else f"{b >> 10}K"
    print(f"  {size:>6} {f(pb)} {f(eb)} {f(ratio, 12)} {f(out[-1]['plain_us'], 10, 1)} {f(out[-1]['engine_us'], 10, 1)}")
big = [r for r in out if r["bytes"] >= 64 << 20 and r["ratio"] is not None]
if big:
    mean = sum(r["ratio"] for r in big) / len(big)
    print(f">= 64 MiB: engine/plain busbw mean {mean:.2f}, min {min(r['ratio'] for r in big):.2f} "
          f"over {len(big)} sizes; engine {sum(r['engine_busbw'] for r in big) / len(big):.2f} GB/s, "
          f"plain {sum(r['plain_busbw'] for r in big) / len(big):.2f} GB/s (means)")
else:
    print(">= 64 MiB: no size measured by both")
small = [r for r in out if r["bytes"] <= 1 << 20 and r["plain_us"] and r["engine_us"]]
if small:
    print(f"<= 1 MiB: engine/plain time per op mean {sum(r['engine_us'] / r['plain_us'] for r in small) / len(small):.2f} "
          f"over {len(small)} sizes (host work between the timed calls would raise it)")
json.dump({"ranks": int(sys.argv[3]), "compare": out, "plain": plain_doc, "engine": engine_doc},
          open(sys.argv[4], "w"), indent=1)
EOF
  while IFS= read -r l; do say "$l"; done < "$W/busbw_table.txt"
  if [ "$REHEARSAL" = standin ]; then say "rehearsal: busbw swept to 4 MiB only, no comparison at >= 64 MiB"
  else grep -q '^>= 64 MiB: engine/plain' "$W/busbw_table.txt" || bad "busbw: no comparison at >= 64 MiB"; fi
else
  bad "busbw: python3 missing here, so the two sweeps were not compared (raw output in busbw.log)"
  cat "$W/plain.json" "$W/engine.json" >> "$W/busbw.log" 2>/dev/null
fi

# ---- 7. collviz watch on PyTorch (device_check_watch.sh) ---------------------------
# shellcheck source=device_check_watch.sh
. "$B/device_check_watch.sh"
watch_step
finish
