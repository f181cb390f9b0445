#!/usr/bin/env bash
# The engine's layers (cmake/engine_layers.cmake) hold on the tree, and the check
# fails, naming the file and the rule, when an upward include is planted: a
# verify/ file including group/, a group/ file including the engine core, a
# backend including another, a job reader including algo/. engine/ has at most 15 top-level entries (a
# file and its header counting once), and no source file in engine/ or app/
# is over 500 lines (the string tables aside).
set -euo pipefail
src=${1:?usage: layers_test.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake -DENGINE_DIR="$src/engine" -P "$src/cmake/engine_layers.cmake" >"$tmp/ok.log" 2>&1 ||
  { cat "$tmp/ok.log"; echo "FAIL: the tree's own layers do not hold"; exit 1; }

plant() {  # FILE INCLUDE RULE-TEXT
  rm -rf "$tmp/engine"; cp -r "$src/engine" "$tmp/engine"
  printf '#include "%s"\n' "$2" >>"$tmp/engine/$1"
  if cmake -DENGINE_DIR="$tmp/engine" -P "$src/cmake/engine_layers.cmake" >"$tmp/bad.log" 2>&1; then
    echo "FAIL: planted $2 in engine/$1 and the check passed"; exit 1
  fi
  grep -q "engine/$1: .*$3" "$tmp/bad.log" ||
    { cat "$tmp/bad.log"; echo "FAIL: the error does not name engine/$1 and '$3'"; exit 1; }
  echo "refused: engine/$1 including $2"
}
plant verify/oracle.cpp engine/group/rank_group.h "verify may include only base, verify, not group"
plant group/rank_group.cpp engine/engine.h "group may include only .*, not core"
plant worker/mpi/common.cpp engine/worker/nccl/common.h "mpi may include only .*, not nccl"
plant algo/ring.cpp engine/worker/communicator.h "algo may include only .*, not worker"
plant job/nccl_log/reader.cpp engine/algo/schedule.h "job may include only base, job, not algo"
plant spec.h engine/verify/oracle.h "base may include only base, not verify"

top=$(ls "$src/engine" | sed -E 's/\.(h|cpp)$//' | sort -u | wc -l)
[ "$top" -le 15 ] || { echo "FAIL: engine/ has $top top-level entries (at most 15):"; ls "$src/engine"; exit 1; }

long=$(cd "$src" && find engine app \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) \
         ! -name 'translations*.cpp' -exec awk 'END { if (NR > 500) print FILENAME ": " NR " lines" }' {} \;)
if [ -n "$long" ]; then echo "FAIL: over 500 lines:"; echo "$long"; exit 1; fi
echo "layers hold; engine/ has $top top-level entries; no source file over 500 lines"
