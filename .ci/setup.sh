#!/usr/bin/env bash
# collviz set-up on Debian 12: install what is missing, build, then
#   run   (default) open the window (Gloo on CPU when there is no GPU);
#         without a display, run the command-line demo instead
#   test  run the whole test suite (ctest), then the ThreadSanitizer stress test
#   build only build
# Extra arguments after the mode go to collviz (run) or ctest (test).
set -euo pipefail

mode=${1:-run}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${COLLVIZ_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

case "$mode" in
  run|test|build) ;;
  *) echo "usage: $0 [run|test|build] [args...]" >&2; exit 2 ;;
esac

# 1. Debian packages (every dependency comes from Debian; nothing is downloaded
#    at build time). CUDA/NCCL are optional: found under /usr/local/cuda when
#    present, else collviz builds without the NCCL backend.
pkgs=(build-essential cmake ninja-build pkg-config git
      libgloo-dev nlohmann-json3-dev libcli11-dev libpugixml-dev
      libgtest-dev libgmock-dev googletest libbenchmark-dev
      libglfw3-dev libimgui-dev libepoxy-dev libstb-dev libgl-dev libtomlplusplus-dev libgif-dev
      fonts-dejavu-core fonts-noto-cjk xvfb xauth xdotool x11-utils imagemagick libxml2-utils procps
      libegl-dev libegl-mesa0 patchelf dpkg-dev desktop-file-utils lintian librsvg2-bin
      libcairo2-dev poppler-utils python3
      openmpi-bin libopenmpi-dev zlib1g-dev libssl-dev iproute2 util-linux
      libopen-trace-format2-dev)
# The test set only: a real browser for the HTML export's tests.
[ "$mode" = test ] && pkgs+=(chromium chromium-driver python3-selenium)
# The test set only: real MPI programs nobody here wrote for `collviz watch`
# (LAMMPS, mpi4py), a Fortran compiler for our own Fortran program, and
# otf2-print to read an exported OTF2 trace back.
[ "$mode" = test ] && pkgs+=(lammps python3-mpi4py gfortran otf2-tools)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "collviz: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo="sudo"; else
      echo "collviz: missing packages (${missing[*]}) and not root; install them with apt-get" >&2
      exit 1
    fi
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# 2. Build. The CUDA toolkit is found through /usr/local/cuda/bin on PATH.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
# The test set: the NCCL module's tests on the stand-in CUDA runtime and NCCL
# too (a test double, docs/standin.md; ctest -L standin), when the module is
# built (CUDA toolkit and NCCL found), else said and left out.
standin=()
[ "$mode" = test ] && standin=(-DCOLLVIZ_NCCL_STANDIN=ON)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${standin[@]}" >/dev/null
if [ "$mode" = test ] && ! grep -q 'standin_cudart' "$build/build.ninja"; then
  echo "collviz: no NCCL module here (CUDA toolkit or NCCL not found), so ctest -L standin has no tests" >&2
fi
cmake --build "$build" -j"$jobs"

case "$mode" in
  build) exit 0 ;;
  run)
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      exec "$build/bin/collviz" "$@"
    fi
    echo "collviz: no display here, so no window; running the command-line demo." >&2
    echo "collviz: (under X, this command opens the window; or: xvfb-run -a $build/bin/collviz)" >&2
    "$build/bin/collviz" devices
    echo
    "$build/bin/collviz" run --op all_reduce "$@"
    echo
    exec "$build/bin/collviz" run --op all_reduce_decomposed "$@"
    ;;
  test)
    ctest --test-dir "$build" --output-on-failure -j2 --timeout 600 "$@"
    # The stress test again under ThreadSanitizer (engine and test only).
    tsan=${build}-tsan
    cmake -S "$root" -B "$tsan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOLLVIZ_TSAN=ON \
      -DCOLLVIZ_APP=OFF -DCOLLVIZ_BENCH=OFF -DCOLLVIZ_NCCL=OFF >/dev/null
    cmake --build "$tsan" -j"$jobs" --target collviz-rank faults_test stress_test
    ctest --test-dir "$tsan" -L tsan --output-on-failure --timeout 600
    ;;
esac
