#!/usr/bin/env bash
# Line coverage of the NCCL module's own host code (engine/worker/nccl/*.cpp
# and *.h; reduce_kernel.cu is device code that nvcc compiles, not counted),
# with gcc --coverage and gcov, BEFORE and AFTER the stand-in:
#   before  the module's tests as they ran without the stand-in (ctest -L nccl
#           and -L gpu on the real CUDA runtime and NCCL, no GPU: the gpu ones
#           skip after the probe), i.e. what ran before tests/standin existed;
#   after   the same plus ctest -L standin (the module on the stand-in CUDA
#           runtime and NCCL, a test double on host memory, not a GPU).
# Builds in its own directory (default build-cov, COLLVIZ_NCCL_COVERAGE=ON:
# only the module's files carry --coverage, the rest comes from ccache),
# only the targets the tests need.
# Usage: tests/standin/coverage.sh [before|after|both] [build-dir]
# (MISSED=1: the line numbers no test ran, per file.)
set -euo pipefail
what=${1:-both}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-cov}
case "$what" in before|after|both) ;; *) echo "usage: $0 [before|after|both] [build-dir]" >&2; exit 2 ;; esac
command -v gcov >/dev/null || { echo "coverage.sh: gcov not found (Debian: gcc)" >&2; exit 2; }
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  -DCOLLVIZ_NCCL=ON -DCOLLVIZ_NCCL_STANDIN=ON -DCOLLVIZ_NCCL_COVERAGE=ON -DCOLLVIZ_BENCH=OFF >/dev/null
cmake --build "$build" -j"${JOBS:-2}" --target collviz collviz-rank collviz-nccl standin nccl_test \
  nccl_faults_test nccl_rounds_test nccl_probe_test nccl_watchdog_test standin_test >/dev/null

objdir=$(find "$build" -type d -name 'collviz_nccl.dir' | head -1)
[ -n "$objdir" ] || { echo "coverage.sh: no collviz_nccl objects in $build" >&2; exit 1; }

# Lines (file:line) executed at least once over every .gcda of the module's
# files, per file and in total.
report() {
  local gcdas
  gcdas=$(find "$build" -name '*.gcda' -path '*nccl*')
  [ -n "$gcdas" ] || { echo "  no counts written"; return; }
  # shellcheck disable=SC2086  # one argument per file
  (cd "$build" && gcov --json-format --stdout $gcdas 2>/dev/null) | python3 -c '
import json, sys, collections, os
root = sys.argv[1]
lines = collections.defaultdict(dict)
for doc in sys.stdin:
    doc = doc.strip()
    if not doc: continue
    for f in json.loads(doc)["files"]:
        path = os.path.normpath(os.path.join(sys.argv[2], f["file"]))
        rel = os.path.relpath(path, root)
        if not rel.startswith("engine/worker/nccl/"): continue
        for l in f["lines"]:
            n = l["line_number"]
            lines[rel][n] = lines[rel].get(n, 0) + l["count"]
tot = hit = 0
for rel in sorted(lines):
    t = len(lines[rel]); h = sum(1 for c in lines[rel].values() if c > 0)
    tot += t; hit += h
    print(f"  {rel:42s} {h:5d} / {t:5d}  {100.0 * h / t:5.1f} %")
    if os.environ.get("MISSED"):
        print("    not run: " + " ".join(str(n) for n, c in sorted(lines[rel].items()) if c == 0))
label = "total"
print(f"  {label:42s} {hit:5d} / {tot:5d}  {100.0 * hit / max(tot, 1):5.1f} %")
' "$root" "$build"
}

run() {  # label regex, title
  find "$build" -name '*.gcda' -delete
  local t0=$SECONDS
  env -u COLLVIZ_STANDIN -u LD_LIBRARY_PATH ctest --test-dir "$build" -L "$1" -j2 --timeout 300 \
    > "$build/coverage-$2.log" 2>&1 || true
  echo "$2: ctest -L '$1' ($((SECONDS - t0)) s; $(grep -E 'tests passed' "$build/coverage-$2.log"))"
  grep -E '\*\*\*(Failed|Timeout)|Not Run' "$build/coverage-$2.log" | sed 's/^/  /' || true
  report
}
[ "$what" != after ] && run '^(nccl|gpu)$' before
[ "$what" != before ] && run '^(nccl|gpu|standin)$' after
exit 0
