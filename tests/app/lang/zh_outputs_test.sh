#!/usr/bin/env bash
# Under --lang zh, what collviz writes for a person holds no English word
# outside tests/app/lang/allowed_english.txt: SVG figures of every op, of the
# decomposition, of a ring round and a Bruck round (each with --status), and
# the text of `collviz run` (native and --algo), `collviz algos`, an NCCL
# log's `collviz nccl-log` text and `export --nccl-log` figures, and
# `collviz devices`. Every finding is printed; the test fails on any.
# usage: zh_outputs_test.sh COLLVIZ OUTDIR
set -u
cli=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
words="python3 $here/english_words.py"
rm -rf "$out" && mkdir -p "$out"
fail=0
check() {  # check NAME [--svg] FILE
  local name=$1
  shift
  if ! $words "$@" >"$out/$name.words"; then
    echo "English left in $name:"
    cat "$out/$name.words"
    fail=1
  fi
}
common=(--lang zh --backend gloo --ranks 4 --status)
for op in broadcast scatter gather reduce all_gather reduce_scatter all_reduce all_to_all; do
  "$cli" export --op "$op" "${common[@]}" -o "$out/$op.svg" >"$out/$op.log" 2>&1 || { echo "export $op failed:"; cat "$out/$op.log"; fail=1; }
  check "svg_$op" --svg "$out/$op.svg"
done
for step in 1 2; do
  "$cli" export --op all_reduce_decomposed --step $step "${common[@]}" -o "$out/decomposed$step.svg" >"$out/d$step.log" 2>&1 || { cat "$out/d$step.log"; fail=1; }
  check "svg_decomposed$step" --svg "$out/decomposed$step.svg"
done
"$cli" export --op all_reduce --algo ring --step 2 "${common[@]}" -o "$out/ring2.svg" >"$out/ring.log" 2>&1 || { cat "$out/ring.log"; fail=1; }
check svg_ring_round --svg "$out/ring2.svg"
"$cli" export --op all_to_all --algo bruck --step 2 "${common[@]}" -o "$out/bruck2.svg" >"$out/bruck.log" 2>&1 || { cat "$out/bruck.log"; fail=1; }
check svg_bruck_round --svg "$out/bruck2.svg"

# An NCCL log (written from NCCL's format strings): the text and the figure.
P="a:1:1 [0] NCCL INFO "
{
  echo "${P}NCCL version 2.26.2+cuda12.6"
  echo "${P}comm 0x1 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0"
  echo "${P}Channel 00/02 : 0 1 3 2"
  echo "${P}Channel 01/02 : 0 2 3 1"
  echo "${P}Trees [0] 1/2/-1->0->-1 [1] 2/-1/-1->0->-1"
  echo "${P}Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM"
  echo "${P}Channel 00/0 : 2[0] -> 0[0] [receive] via NET/IB/0"
  echo "${P}AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..1}"
  echo "${P}AllReduce: opCount 0 sendbuff 0x2 recvbuff 0x3 count 262144 datatype 7 op 0 root 0 comm 0x1 [nranks=4] stream 0x4"
} >"$out/nccl.log"
"$cli" nccl-log --lang zh "$out/nccl.log" >"$out/nccl_log.txt" 2>&1 || { cat "$out/nccl_log.txt"; fail=1; }
check nccl_log "$out/nccl_log.txt"
for ch in 0 all; do
  "$cli" export --lang zh --nccl-log "$out/nccl.log" --channel $ch -o "$out/nccl_log_$ch.svg" >"$out/nccl_log_$ch.log" 2>&1 || { cat "$out/nccl_log_$ch.log"; fail=1; }
  check "svg_nccl_log_$ch" --svg "$out/nccl_log_$ch.svg"
done

"$cli" run --op all_reduce --lang zh --backend gloo -N 4 >"$out/run_native.txt" 2>&1 || { cat "$out/run_native.txt"; fail=1; }
check run_native "$out/run_native.txt"
"$cli" run --op reduce_scatter --lang zh --backend gloo -N 4 --redop avg >"$out/run_avg.txt" 2>&1 || { cat "$out/run_avg.txt"; fail=1; }
check run_avg "$out/run_avg.txt"
"$cli" run --op all_reduce --algo ring --lang zh --backend gloo -N 4 >"$out/run_ring.txt" 2>&1 || { cat "$out/run_ring.txt"; fail=1; }
check run_ring "$out/run_ring.txt"
"$cli" run --op all_to_all --algo bruck --lang zh --backend gloo -N 5 >"$out/run_bruck.txt" 2>&1 || { cat "$out/run_bruck.txt"; fail=1; }
check run_bruck "$out/run_bruck.txt"
"$cli" algos --lang zh >"$out/algos.txt" 2>&1 || { cat "$out/algos.txt"; fail=1; }
check algos "$out/algos.txt"
"$cli" algos --lang zh -N 6 >"$out/algos6.txt" 2>&1 || { cat "$out/algos6.txt"; fail=1; }
check algos6 "$out/algos6.txt"
"$cli" devices --lang zh >"$out/devices_all.txt" 2>&1 || { cat "$out/devices_all.txt"; fail=1; }
# A library's own error string (CUDA's "driver version is insufficient ...")
# is quoted as the library gave it: the lines holding one are left out.
grep -v 'cuda[A-Z]' "$out/devices_all.txt" >"$out/devices.txt"
check devices "$out/devices.txt"
# A refused input: the error a person reads is Chinese too.
"$cli" run --op all_reduce --lang zh --backend gloo -N 0 >"$out/bad_ranks.txt" 2>&1
check bad_ranks "$out/bad_ranks.txt"
# The check itself finds English (so a pass means something).
echo "the group will be restarted" | $words - >/dev/null && { echo "english_words.py found nothing in English"; fail=1; }
exit $fail
