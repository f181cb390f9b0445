#!/usr/bin/env bash
# The GPU status is said plainly, and stays true: README.md's Backends row
# for NCCL and docs/gpu.md say that the NCCL path is built against NCCL X.Y
# (the nccl.h this build found, when it found one), tested without a GPU
# (the module's loading, the round logic on a stand-in device, the reduce
# arithmetic on the host) and not yet run on GPU hardware; both say how to
# run the GPU check (tests/gpu/make_bundle.sh, tests/gpu/README.md), and
# docs/gpu.md where to report its output; docs/standin.md says plainly what
# the stand-in (a test double) proves and what it cannot.
#   usage: gpu_status_test.sh SOURCE_DIR [NCCL_H]
set -u
root=${1:?usage: gpu_status_test.sh SOURCE_DIR [NCCL_H]}
nccl_h=${2:-}
failed=0
fail() { echo "FAIL: $*"; failed=1; }
row=$(grep '^| NCCL (GPU) |' "$root/README.md")
[ -n "$row" ] || fail "README.md has no '| NCCL (GPU) |' row in its Backends table"
gpu=$(tr '\n' ' ' <"$root/docs/gpu.md" | tr -s ' ')
for phrase in "not yet run on GPU hardware" "built against NCCL 2." "tested without a GPU" \
              "the module's loading" "the round logic on a stand-in device" "the reduce arithmetic on the host" \
              "tests/gpu/make_bundle.sh" "tests/gpu/README.md"; do
  grep -Fqi "$phrase" <<<"$row" || fail "README.md's NCCL row does not say \"$phrase\": $row"
  grep -Fqi "$phrase" <<<"$gpu" || fail "docs/gpu.md does not say \"$phrase\""
done
grep -Fq "report its output" <<<"$gpu" || fail "docs/gpu.md does not say where to report the GPU check's output"
# The stand-in (a test double) is said in one place, never as a GPU result.
standin=$(tr '\n' ' ' <"$root/docs/standin.md" 2>/dev/null | tr -s ' ')
for phrase in "NCCL has not run on GPU hardware" "a test double" "What it cannot prove" \
              "not a GPU" "GPU code" "topology" "performance"; do
  grep -Fq "$phrase" <<<"$standin" || fail "docs/standin.md does not say \"$phrase\""
done
grep -Fq "docs/standin.md" <<<"$row" || fail "README.md's NCCL row does not point to docs/standin.md"
# The version said is the one built against.
if [ -n "$nccl_h" ] && [ -f "$nccl_h" ]; then
  v=$(awk '/#define NCCL_MAJOR/ {M=$3} /#define NCCL_MINOR/ {m=$3} END {print M "." m}' "$nccl_h")
  for f in "README.md's NCCL row:$row" "docs/gpu.md:$gpu"; do
    grep -Fq "built against NCCL $v" <<<"${f#*:}" || fail "${f%%:*} does not say \"built against NCCL $v\" ($nccl_h)"
  done
fi
[ $failed -eq 0 ] && echo "PASS: README.md and docs/gpu.md say the GPU status${nccl_h:+ (NCCL from $nccl_h)}"
exit $failed
