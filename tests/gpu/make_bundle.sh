#!/usr/bin/env bash
# Makes the GPU check's bundle: a folder that runs on a GPU machine that has
# the NVIDIA driver, CUDA 13 and NCCL but none of collviz's Debian packages.
#
#   tests/gpu/make_bundle.sh [--build-dir B] [--no-build] DIR
#
# Builds collviz with NCCL (in B, default build-bundle-obj/ of the checkout,
# configured with -DCOLLVIZ_NCCL=ON when it has no cache yet; --no-build uses
# B as it is), then writes into DIR (emptied first):
#   collviz, collviz-rank, nccl-allreduce-loop, nccl_test, nccl-watch-ranks   stripped
#   libcollviz-nccl.so  the NCCL module collviz-rank loads from its own
#                     directory for NCCL runs and the probe, stripped
#   libcollviz-tap-nccl.so  the NCCL tap collviz watch preloads (step 7), stripped
#   every shared library they need except glibc's, libstdc++, libgcc_s and
#     CUDA's/NCCL's own (those come from the GPU machine), stripped
#   device_check.sh, device_check_watch.sh   the check (see its header) and its step 7
#   watch_torch.py    step 7's PyTorch program, launcher and checker
#   MANIFEST.txt      what is in DIR, where each library came from, the glibc
#                     and libstdc++ versions the files need
# The executables, the module and the libraries carry the run path $ORIGIN
# (DT_RPATH, set with patchelf), so they find each other in DIR wherever it
# is, with nothing set by the caller. DIR must stay under 32 MiB (the device
# tool carries 64 MiB in all, the tree of about 8 MB included; the hosts'
# link brought libcrypto, 23 MB then).
#
# With the device tool (the `run` verb), from the checkout's root here:
#   tests/gpu/make_bundle.sh build-bundle
#   run  command: bash build-bundle/device_check.sh
#        carry:   ["build-bundle"]      (build*/ is git-ignored, so it must be carried)
#        timeout_s: 450                 (the check ends within 410 s)
# The results (at most 8 files) come back from $OUT.
# The stand-in CUDA runtime and NCCL (tests/standin, a test double on host
# memory) is REFUSED (exit 2): COLLVIZ_STANDIN set, or ldd resolving any
# library of the bundle to a stand-in file (LD_LIBRARY_PATH=build/standin).
set -euo pipefail
refuse_standin() {
  echo "make_bundle.sh: REFUSED: $1. The stand-in CUDA runtime and NCCL (tests/standin) is a test" \
       "double on host memory, not a GPU; the bundle is made against the real CUDA runtime and NCCL" \
       "(unset COLLVIZ_STANDIN and LD_LIBRARY_PATH)." >&2
  exit 2
}
[ -z "${COLLVIZ_STANDIN:-}" ] || refuse_standin "COLLVIZ_STANDIN is set"
IFS=: read -ra _ldp <<< "${LD_LIBRARY_PATH:-}"
for d in "${_ldp[@]}"; do
  for l in libcudart.so.13 libnccl.so.2; do
    if [ -f "$d/$l" ] && grep -qaE 'stand-in: host memory, not a GPU|stand-in NCCL' "$d/$l"; then
      refuse_standin "LD_LIBRARY_PATH holds $d/$l, collviz's stand-in"
    fi
  done
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build-bundle-obj
do_build=1
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build=$(cd "$2" 2>/dev/null && pwd || echo "$2"); shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    -*) echo "make_bundle.sh: unknown option $1; allowed: --build-dir B, --no-build" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "make_bundle.sh: one DIR only (got $dir and $1)" >&2; exit 2; }
       dir=$1; shift ;;
  esac
done
[ -n "$dir" ] || { echo "usage: make_bundle.sh [--build-dir B] [--no-build] DIR" >&2; exit 2; }
for tool in ldd strip patchelf; do
  command -v "$tool" >/dev/null ||
    { echo "make_bundle.sh: $tool not found (Debian: apt-get install patchelf binutils)" >&2; exit 1; }
done

exes=(collviz collviz-rank nccl-allreduce-loop nccl_test nccl-watch-ranks)
# Loaded with dlopen or preloaded, so ldd of the executables does not list them.
modules=(libcollviz-nccl.so libcollviz-tap-nccl.so)
if [ "$do_build" = 1 ]; then
  if [ ! -f "$build/CMakeCache.txt" ]; then
    if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
      export PATH=/usr/local/cuda/bin:$PATH
    fi
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOLLVIZ_NCCL=ON \
      -DCOLLVIZ_TESTS=ON >/dev/null
  fi
  cmake --build "$build" -j"${JOBS:-2}" --target "${exes[@]}" collviz-nccl collviz-tap-nccl
fi
for e in "${exes[@]}" "${modules[@]}"; do
  [ -x "$build/bin/$e" ] || {
    echo "make_bundle.sh: $build/bin/$e is missing: B must be a build with NCCL and tests" \
         "(-DCOLLVIZ_NCCL=ON -DCOLLVIZ_TESTS=ON)" >&2
    exit 1
  }
done

# What the GPU machine provides: the C runtime and the toolchain's C++
# runtime (glibc, libstdc++, libgcc_s), and CUDA/NCCL/the driver.
system_lib() {
  case "$1" in
    linux-vdso.so*|ld-linux*|libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*) return 0 ;;
    libutil.so.*|libresolv.so.*|libstdc++.so.*|libgcc_s.so.*) return 0 ;;
    libcuda.so.*|libcudart.so.*|libnccl.so.*|libnvidia-*|libnvrtc*) return 0 ;;
  esac
  return 1
}

# ldd needs CUDA's and NCCL's libraries to list the whole tree here.
cuda_path=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && cuda_path=$cuda_path${cuda_path:+:}$d
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
case "$dir" in /|"$root"|"$HOME") echo "make_bundle.sh: refusing to empty $dir" >&2; exit 2 ;; esac
find "$dir" -mindepth 1 -delete

declare -A libs=()
for e in "${exes[@]}" "${modules[@]}"; do
  case "$e" in
    *.so) strip --strip-unneeded -o "$dir/$e" "$build/bin/$e" ;;
    *) strip --strip-all -o "$dir/$e" "$build/bin/$e" ;;
  esac
  while read -r soname arrow path _; do
    [ "$arrow" = "=>" ] || continue
    if [ -f "$path" ] && grep -qaE 'stand-in: host memory, not a GPU|stand-in NCCL' "$path"; then
      refuse_standin "$e would load $soname from $path, collviz's stand-in"
    fi
    system_lib "$soname" && continue
    if [ "$path" = "not" ]; then
      echo "make_bundle.sh: $e needs $soname, which ldd cannot find here" >&2
      exit 1
    fi
    libs[$soname]=$path
  done < <(LD_LIBRARY_PATH=$cuda_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$build/bin/$e")
done

manifest=$dir/MANIFEST.txt
{
  echo "collviz GPU check bundle"
  echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}")"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(
        git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
  inc=$(grep -m1 '^NCCL_INCLUDE_DIR:' "$build/CMakeCache.txt" | cut -d= -f2)
  cudainc=$(dirname "$(grep -m1 '^CUDAToolkit_NVCC_EXECUTABLE:' "$build/CMakeCache.txt" |
            cut -d= -f2)")/../include
  echo "built against: nccl.h $(sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' \
        "$inc/nccl.h" 2>/dev/null), cuda_runtime_api.h $(sed -n \
        's/^#define CUDART_VERSION *\([0-9]*\).*/\1/p' "$cudainc/cuda_runtime_api.h" 2>/dev/null)"
  echo "not bundled (from the GPU machine): glibc, libstdc++, libgcc_s, libcudart.so.13, libnccl.so.2, libcuda.so.1"
  echo
  echo "executables:"
  for e in "${exes[@]}"; do echo "  $e"; done
  echo "modules (collviz-rank loads the NCCL module from its directory; collviz watch preloads the tap):"
  for e in "${modules[@]}"; do echo "  $e"; done
  echo "libraries (soname <- Debian file, package):"
} > "$manifest"
for soname in $(printf '%s\n' "${!libs[@]}" | sort); do
  src=$(readlink -f "${libs[$soname]}")
  strip --strip-unneeded -o "$dir/$soname" "$src"
  chmod 755 "$dir/$soname"
  pkg=$(dpkg -S "$src" 2>/dev/null | head -1 | cut -d: -f1 || true)
  [ -n "$pkg" ] || pkg=$(dpkg -S "${libs[$soname]}" 2>/dev/null | head -1 | cut -d: -f1 || true)
  echo "  $soname <- $src (${pkg:-?})" >> "$manifest"
done
for f in "${exes[@]}" "${modules[@]}" "${!libs[@]}"; do
  patchelf --force-rpath --set-rpath '$ORIGIN' "$dir/$f"
done
cp "$root/tests/gpu/device_check.sh" "$root/tests/gpu/device_check_watch.sh" "$root/tests/gpu/watch_torch.py" "$dir/"
chmod 755 "$dir/device_check.sh"

# The newest glibc/libstdc++ symbol versions needed: the GPU machine's must
# be at least these.
need() {
  for f in "${exes[@]}" "${modules[@]}" "${!libs[@]}"; do objdump -T "$dir/$f" 2>/dev/null; done |
    grep -o "($1_[0-9.]*)" | tr -d '()' | sort -t_ -k2 -V -u | tail -1
}
{
  echo "needs at least: $(need GLIBC) (glibc), $(need GLIBCXX) (libstdc++), $(need CXXABI)"
  echo
  echo "sizes:"
  (cd "$dir" && ls -l | awk 'NR>1{printf "  %9d  %s\n", $5, $9}')
} >> "$manifest"

bytes=$(du -sb "$dir" | cut -f1)
limit=$((32 * 1024 * 1024))
echo "make_bundle.sh: $dir: $(du -sh "$dir" | cut -f1) in $(ls "$dir" | wc -l) files" \
     "(${#exes[@]} executables, ${#modules[@]} modules, ${#libs[@]} libraries)"
if [ "$bytes" -ge "$limit" ]; then
  echo "make_bundle.sh: $dir is $bytes bytes, over the 32 MiB limit" >&2
  exit 1
fi
