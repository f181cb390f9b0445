#!/usr/bin/env bash
# Rehearses the GPU check's bundle here (ctest label `bundle`): proves that
# the bundle is self-contained and that its check behaves without a GPU.
#
#   bundle_rehearsal.sh BUILD_DIR     (a build with NCCL and tests)
#
#   1. tests/gpu/make_bundle.sh --no-build from BUILD_DIR's executables;
#   2. in a private mount namespace (unshare -m) every Debian library the
#      bundle carries is bind-mounted over by an empty file; there the build's
#      own collviz must fail to start (the hiding works), and the bundle's
#      ldd must resolve each bundled library inside the bundle (the NCCL
#      module's too); the bundle's collviz-rank needs no libnccl/libcudart
#      and its probe loads the module from the bundle;
#   3. there, the bundle's `collviz run --backend gloo --json` for every op
#      (N = 4) must exit 0 and be verified;
#   4. device_check.sh without a GPU stops at once: exit 77, "no GPU";
#   5. device_check.sh with a stand-in nvidia-smi (still no usable GPU) goes
#      through every step (the algorithm runs included: every pair of
#      `collviz algos` at N = 4, six other dtypes), writes at most 8 files into $OUT and a
#      summary ending in RESULT: FAIL, exit 1: the script's plumbing, not NCCL;
#   6. a clean root (unshare -m -n, chroot) holding only the bundle, the CUDA
#      runtime and NCCL (libcudart.so.13, libnccl.so.2), glibc/libstdc++, the
#      shell tools device_check.sh uses, python3's standard library and the
#      stand-in's three libraries: no Debian dev packages, no mpirun, no
#      network (not even loopback up):
#      a. device_check.sh on the stand-in, end to end, with the rehearsal's
#         own override COLLVIZ_DEVICE_CHECK_REHEARSAL=standin: exit 0, every
#         step run, "RESULT: REHEARSAL-PASS (stand-in, not a GPU)", within
#         300 s (its wall time and summary printed); step 7 (collviz watch)
#         with the bundle's nccl-watch-ranks as the ranks in place of
#         PyTorch, which is not here: the launcher, the tap through its
#         environment, the capture and the byte check, never torch itself;
#      b. the same without the override: REFUSED, exit 2;
#      c. on the real CUDA runtime and NCCL: stops at once at "no GPU" with
#         its reason, exit 77;
#   7. make_bundle.sh with the stand-in on LD_LIBRARY_PATH: REFUSED, exit 2.
#   (6 and 7 need a build with -DCOLLVIZ_NCCL_STANDIN=ON; said, not run, otherwise.)
# Exit 77 (skipped) with the reason when this build has no NCCL backend, when
# patchelf is missing, or when a private mount namespace is not permitted.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: bundle_rehearsal.sh BUILD_DIR}" && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }

[ -x "$build/bin/nccl-allreduce-loop" ] ||
  skip "this build has no NCCL backend (CUDA/NCCL not found at configure time), so there is nothing to bundle"
command -v patchelf >/dev/null || skip "patchelf is not installed (Debian: apt-get install patchelf)"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
[ "$(id -u)" -eq 0 ] || skip "a private mount namespace with bind mounts needs root here (uid $(id -u))"
why=$(unshare -m true 2>&1) || skip "unshare -m is not permitted here: $why"

work=$(mktemp -d /tmp/collviz-bundle-rehearsal.XXXXXX)
trap 'rm -rf "$work"' EXIT
bundle=$work/bundle
t0=$(date +%s)
"$root/tests/gpu/make_bundle.sh" --build-dir "$build" --no-build "$bundle" || {
  echo "FAIL: make_bundle.sh failed"; exit 1; }
echo "bundle: $(du -sh "$bundle" | cut -f1), $(ls "$bundle" | tr '\n' ' ')"

# The Debian files the bundle replaces (MANIFEST: "  soname <- /path (package)").
hide=$(sed -n 's/^  [^ ]* <- \(\/[^ ]*\) .*/\1/p' "$bundle/MANIFEST.txt")
[ -n "$hide" ] || { echo "FAIL: MANIFEST.txt lists no bundled library"; exit 1; }
cuda_path=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [ -d "$d" ] && cuda_path=$cuda_path${cuda_path:+:}$d; done

# Everything below runs in the namespace; the mounts vanish with it.
unshare -m --propagation private env HIDE="$hide" BUNDLE="$bundle" BUILD="$build" \
  WORK="$work" CUDA_PATH="$cuda_path" bash -s <<'EOF' > "$work/namespace.log" 2>&1
set -u
fail=0
: > "$WORK/empty"
for f in $HIDE; do mount --bind "$WORK/empty" "$f" || { echo "FAIL: mount over $f"; exit 1; }; done
echo "hidden: $(echo $HIDE | wc -w) Debian libraries"
if out=$("$BUILD/bin/collviz" --help 2>&1); then
  echo "FAIL: the build's own collviz still starts: the Debian libraries are not hidden"; exit 1
fi
echo "the build's collviz without them: $(echo "$out" | head -1)"
export LD_LIBRARY_PATH=$CUDA_PATH  # what device_check.sh sets for NCCL and the CUDA runtime
for e in collviz collviz-rank nccl-allreduce-loop nccl_test nccl-watch-ranks libcollviz-nccl.so libcollviz-tap-nccl.so; do
  l=$(ldd "$BUNDLE/$e" 2>&1)
  if echo "$l" | grep -q 'not found'; then echo "FAIL: ldd $e: $(echo "$l" | grep 'not found' | paste -sd';')"; fail=1; fi
  for soname in $(ls "$BUNDLE" | grep '\.so'); do
    where=$(echo "$l" | awk -v s="$soname" '$1 == s {print $3}')
    if [ -n "$where" ] && [ "$(dirname "$where")" != "$BUNDLE" ]; then
      echo "FAIL: $e loads $soname from $where, not from the bundle"; fail=1
    fi
  done
done
if LD_LIBRARY_PATH=$BUNDLE readelf -d "$BUNDLE/collviz-rank" | grep NEEDED | grep -Eq 'libnccl|libcudart'; then
  echo "FAIL: the bundle's collviz-rank needs libnccl or libcudart itself"; fail=1
fi
probe=$("$BUNDLE/collviz-rank" --probe 2>&1)
if echo "$probe" | grep -q 'cannot load the NCCL module' || ! echo "$probe" | grep -q '"version_code"'; then
  echo "FAIL: the bundle's probe did not load its NCCL module: $(echo "$probe" | head -c 400)"; fail=1
else
  echo "ok: the bundle's collviz-rank --probe loaded $BUNDLE/libcollviz-nccl.so"
fi
for op in broadcast scatter gather reduce all_gather reduce_scatter all_reduce all_to_all; do
  "$BUNDLE/collviz" run --backend gloo --json --op "$op" --ranks 4 > "$WORK/$op.json" 2> "$WORK/$op.err"
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^  "verified": true' "$WORK/$op.json"; then
    echo "ok: bundle's collviz run --backend gloo --op $op --ranks 4: verified"
  else
    echo "FAIL: bundle's collviz run --op $op: rc=$rc: $(head -c 300 "$WORK/$op.err")"; fail=1
  fi
done
exit "$fail"
EOF
rc=$?
cat "$work/namespace.log"
[ "$rc" -eq 0 ] || bad "inside the namespace (rc=$rc)"

# Without a GPU: at once, exit 77, "no GPU", nothing written.
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]'; then
  echo "note: a GPU is present here: the no-GPU check is not rehearsed"
else
  s=$(date +%s%N)
  out=$(OUT="$work/out77" bash "$bundle/device_check.sh" 2>&1)
  rc=$?
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "device_check.sh without a GPU: rc=$rc in $ms ms: $out"
  [ "$rc" -eq 77 ] || bad "device_check.sh without a GPU exited $rc, want 77"
  echo "$out" | grep -q 'no GPU' || bad "device_check.sh without a GPU does not say \"no GPU\""
  [ "$ms" -lt 5000 ] || bad "device_check.sh without a GPU took $ms ms: it must stop at once"
  [ ! -e "$work/out77" ] || bad "device_check.sh without a GPU wrote results"

  # Every step with a stand-in nvidia-smi: the plumbing, not NCCL.
  mkdir -p "$work/fake" "$work/out"
  printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: stand-in (UUID: GPU-0)" || echo "stand-in, 0 MiB, 0"\n' \
    > "$work/fake/nvidia-smi"
  chmod 755 "$work/fake/nvidia-smi"
  PATH=$work/fake:$PATH OUT=$work/out LD_LIBRARY_PATH="" timeout 300 bash "$bundle/device_check.sh" \
    > "$work/stand-in.log" 2>&1
  rc=$?
  files=$(ls "$work/out" | wc -l)
  echo "device_check.sh with a stand-in nvidia-smi: rc=$rc, $files files in \$OUT: $(ls "$work/out" | tr '\n' ' ')"
  [ "$rc" -eq 1 ] || { bad "with a stand-in nvidia-smi device_check.sh exited $rc, want 1 (FAIL)"; tail -20 "$work/stand-in.log"; }
  [ "$files" -ge 1 ] && [ "$files" -le 8 ] || bad "device_check.sh wrote $files files into \$OUT (1 to 8 allowed)"
  [ "$(tail -1 "$work/out/summary.txt" 2>/dev/null)" = "RESULT: FAIL" ] ||
    bad "summary.txt does not end with RESULT: FAIL"
  pairs=$("$bundle/collviz" algos --json --ranks 4 |
          awk -F'"' '/"algo":/ {a = $4} /"op":/ {if (a != "native") print a ":" $4}' | wc -l)
  rounds=$((pairs + 6))  # N = 4, and six runs of the kernel's other dtypes (N = 3, 2: DEVICE_CHECK_FULL=1)
  for want in "libnccl.so.2: " "libcudart.so.13: " "probe: runtime NCCL" "NCCL tests" \
              "collviz run --backend nccl: 0/16" "collviz run --backend nccl --algo: 0/$rounds " \
              "NCCL_DEBUG run" "plain NCCL loop" "engine" "collviz watch on PyTorch"; do
    grep -qF "$want" "$work/out/summary.txt" 2>/dev/null || bad "summary.txt lacks '$want'"
  done
  grep -c '^{"op"' "$work/out/runs.jsonl" | grep -qx 16 || bad "runs.jsonl does not hold the 16 runs (N = 2, 4)"
  grep -c '^{"algo"' "$work/out/runs.jsonl" | grep -qx "$rounds" ||
    bad "runs.jsonl does not hold the $rounds algorithm runs ($pairs algorithm/op pairs at N = 4, and 6)"
  if command -v python3 >/dev/null; then
    python3 -c 'import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' "$work/out/runs.jsonl" || bad "runs.jsonl has a line that is not JSON"
  fi
fi
# ---- 6. a clean root: the bundle, the CUDA runtime and NCCL, nothing else ------------
standin=$build/standin
if [ ! -f "$standin/libnccl.so.2" ]; then
  echo "note: no stand-in in this build (-DCOLLVIZ_NCCL_STANDIN=ON): the clean-root rehearsal is not run"
else
  R=$work/root
  mkdir -p "$R"/{usr/bin,lib64,lib/x86_64-linux-gnu,usr/local/cuda/lib64,standin,bundle,out,proc,dev,tmp,usr/lib/python3.11,etc}
  ln -s usr/bin "$R/bin"
  ln -s usr/bin "$R/sbin"
  cp -a "$bundle/." "$R/bundle/"
  cp -L /usr/local/cuda/lib64/libcudart.so.13 /usr/local/cuda/lib64/libnccl.so.2 "$R/usr/local/cuda/lib64/"
  cp -L "$standin"/libcudart.so.13 "$standin"/libnccl.so.2 "$standin"/libnvidia-ml.so.1 "$R/standin/"
  tools="bash sh env mktemp date ls grep sed awk cut head tail wc tr sort uniq paste cat cp mkdir rm touch find
         readlink dirname basename timeout ldd uname df xargs sleep python3 id chmod mv ldconfig"
  for t in $tools; do
    src=$(PATH=/usr/bin:/bin:/usr/sbin:/sbin command -v "$t") || { bad "clean root: $t not found here"; continue; }
    cp -L "$src" "$R/usr/bin/$t"
  done
  # Every shared library the tools need, and those the bundle needs but does
  # not carry (glibc, libstdc++, libgcc_s), but CUDA's and NCCL's.
  for f in "$R"/usr/bin/* "$R"/bundle/* "$R"/standin/*; do
    LD_LIBRARY_PATH=/usr/local/cuda/lib64 ldd "$f" 2>/dev/null |
      awk -v b="${f#"$R"/bundle/}" '$2 == "=>" && $3 ~ /^\// {print b "\t" $3} $1 ~ /^\// {print b "\t" $1}'
  done | sort -u | while IFS=$'\t' read -r from l; do
    case "$(basename "$l")" in libcudart*|libnccl*|libnvidia-ml*) continue ;; esac
    [ "$from" != "${from#/}" ] || [ ! -e "$R/bundle/$(basename "$l")" ] || continue  # the bundle's own
    case "$l" in /lib64/*) cp -L "$l" "$R/lib64/" ;; *) cp -L "$l" "$R/lib/x86_64-linux-gnu/" ;; esac
  done
  echo "clean root: $(du -sh "$R" | cut -f1) ($(ls "$R/usr/bin" | wc -l) tools, $(ls "$R/lib/x86_64-linux-gnu" | wc -l)" \
       "system libraries, python3's standard library bound read-only; no network)"
  # in_root MODE: one run of device_check.sh in the clean root; its output in $work/root-MODE.log.
  in_root() {
    unshare -m -n --propagation private env R="$R" MODE="$1" bash -s > "$work/root-$1.log" 2>&1 <<'EOF'
set -u
mount -t proc proc "$R/proc" && mount --rbind /dev "$R/dev" && mount -t tmpfs none "$R/dev/shm" &&
  mount -t tmpfs none "$R/tmp" && mount --bind -o ro /usr/lib/python3.11 "$R/usr/lib/python3.11" ||
  { echo "clean root: mounts failed"; exit 99; }
rm -rf "$R/out" && mkdir -p "$R/out"
base=(env -i PATH=/usr/bin HOME=/tmp OUT=/out)
case "$MODE" in
  standin) exec chroot "$R" "${base[@]}" COLLVIZ_DEVICE_CHECK_REHEARSAL=standin COLLVIZ_STANDIN=1 \
             NCCL_LIB=/standin/libnccl.so.2 CUDART_LIB=/standin/libcudart.so.13 bash /bundle/device_check.sh ;;
  refuse)  exec chroot "$R" "${base[@]}" COLLVIZ_STANDIN=1 NCCL_LIB=/standin/libnccl.so.2 \
             CUDART_LIB=/standin/libcudart.so.13 bash /bundle/device_check.sh ;;
  real)    exec chroot "$R" "${base[@]}" bash /bundle/device_check.sh ;;
esac
EOF
  }
  # a. the stand-in, end to end
  s=$(date +%s)
  in_root standin
  rc=$? secs=$(( $(date +%s) - s ))
  echo "clean root, device_check.sh on the stand-in (COLLVIZ_DEVICE_CHECK_REHEARSAL=standin): rc=$rc in $secs s; its summary:"
  sed 's/^/  | /' "$R/out/summary.txt" 2>/dev/null || tail -20 "$work/root-standin.log"
  [ "$rc" -eq 0 ] || { bad "device_check.sh on the stand-in exited $rc, want 0"; tail -30 "$work/root-standin.log"; }
  [ "$secs" -le 300 ] || bad "device_check.sh on the stand-in took $secs s, over 5 minutes"
  [ "$(tail -1 "$R/out/summary.txt" 2>/dev/null)" = "RESULT: REHEARSAL-PASS (stand-in, not a GPU)" ] ||
    bad "the stand-in rehearsal's summary does not end with RESULT: REHEARSAL-PASS (stand-in, not a GPU)"
  for want in "REHEARSAL ONLY" "libnccl.so.2: /standin/libnccl.so.2" "NCCL tests: rc=0" \
              "collviz run --backend nccl: 16/16 verified" "collviz run --backend nccl --algo: " \
              "NCCL_DEBUG=INFO run" "plain NCCL loop" "engine (collviz bench)" \
              "collviz watch on PyTorch (REHEARSAL: nccl-watch-ranks in its place): 180 of 180 calls' kept bytes"; do
    grep -qF "$want" "$R/out/summary.txt" 2>/dev/null || bad "the stand-in rehearsal's summary lacks '$want'"
  done
  grep -q '^/dev/shm: ' "$R/out/machine.txt" 2>/dev/null || bad "machine.txt lacks /dev/shm's size"
  grep -q '^NCCL (runtime, ncclGetVersion): ' "$R/out/machine.txt" 2>/dev/null || bad "machine.txt lacks NCCL's version"
  grep -q '^  /standin/libnccl.so.2' "$R/out/machine.txt" 2>/dev/null ||
    bad "machine.txt does not list the libraries loaded (libnccl.so.2 from /standin)"
  # b. without the override: refused
  in_root refuse
  rc=$?
  if [ "$rc" -eq 2 ] && grep -q 'REFUSED: .*stand-in\|REFUSED: COLLVIZ_STANDIN' "$work/root-refuse.log"; then
    echo "ok: clean root, the stand-in without the rehearsal's override: $(grep -m1 REFUSED "$work/root-refuse.log")"
  else
    bad "device_check.sh on the stand-in without the override: rc=$rc, not refused: $(head -c 300 "$work/root-refuse.log")"
  fi
  # c. the real CUDA runtime and NCCL: no GPU
  in_root real
  rc=$?
  if [ "$rc" -eq 77 ] && grep -q 'no GPU: ' "$work/root-real.log"; then
    echo "ok: clean root, the real CUDA runtime and NCCL: rc=77, $(grep -m1 'no GPU' "$work/root-real.log")"
  else
    bad "device_check.sh on the real libraries in the clean root: rc=$rc: $(head -c 300 "$work/root-real.log")"
  fi
  # ---- 7. make_bundle.sh refuses the stand-in -----------------------------------------
  out=$(LD_LIBRARY_PATH=$standin "$root/tests/gpu/make_bundle.sh" --build-dir "$build" --no-build "$work/refused" 2>&1)
  rc=$?
  if [ "$rc" -eq 2 ] && echo "$out" | grep -q 'REFUSED'; then
    echo "ok: make_bundle.sh with the stand-in on LD_LIBRARY_PATH: $(echo "$out" | head -c 160)..."
  else
    bad "make_bundle.sh with the stand-in on LD_LIBRARY_PATH: rc=$rc, not refused: $(echo "$out" | head -c 300)"
  fi
fi
echo "rehearsal: $(( $(date +%s) - t0 )) s"
[ "$fail" -eq 0 ] && echo "PASS: the bundle is self-contained and its check behaves without a GPU"
exit "$fail"
