#!/bin/bash
# NCCL's profiler plugin inside the NCCL tap, end to end on the stand-in CUDA
# runtime and NCCL (tests/standin: a TEST DOUBLE on host memory, not a GPU;
# its NCCL loads a profiler plugin as NCCL's documentation says NCCL does);
# ctest tap_nccl_profiler, labels standin and tap.
#   joined:  nccl_program's ops on 4 ranks under the tap, which points
#            NCCL_PROFILER_PLUGIN at itself: in `collviz job --json` every
#            collective of the program carries the stand-in's algorithm,
#            protocol and channel count (nccl_profiler.cpp's rule: TREE for an
#            all-reduce of at most 64 KiB else RING; LL up to 4 KiB; 1 channel
#            up to 128 KiB), the split's communicators too; send and recv carry
#            none; no profiler record is left without its call; the text
#            output lists them in its table of NCCL's calls
#   other:   NCCL_PROFILER_PLUGIN names another plugin: the tap leaves it,
#            works without its own part, and `collviz job` lists the note
#   old:     the stand-in playing NCCL 2.27.3: the plugin part absent, said
#   usage: profiler_tap_test.sh TAP PROGRAM COLLVIZ
set -u
TAP=$1 PROG=$2 COLLVIZ=$3
WORK=$(mktemp -d /tmp/collviz-nccl-profiler-test.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
fail() { echo "profiler_tap_test: FAIL: $*" >&2; exit 1; }

mkdir -p "$WORK/out-joined" "$WORK/out-other"
LD_PRELOAD="$TAP" COLLVIZ_TAP_OUT="$WORK/cap-joined" "$PROG" ops 4 "$WORK/out-joined" 2> "$WORK/joined.err" ||
  { cat "$WORK/joined.err"; fail "joined: the program under the tap exited $?"; }
grep -q "profiler plugin .*libcollviz-tap-nccl.so loaded" "$WORK/joined.err" ||
  { cat "$WORK/joined.err"; fail "joined: the stand-in's NCCL did not load the tap as its profiler plugin"; }
"$COLLVIZ" job "$WORK/cap-joined" --json --all > "$WORK/joined.json" || fail "joined: collviz job could not read the capture"
python3 - "$WORK/joined.json" <<'EOF' || fail "joined: the calls do not carry the stand-in's choices"
import json, sys
j = json.load(open(sys.argv[1]))
bad, joined, groups = [], 0, set()
for c in j["calls"]:
    name, size = c.get("name"), c.get("bytes") or 0
    if name in ("ncclSend", "ncclRecv"):
        if c.get("algorithm"): bad.append(f"{name} #{c['seq']} rank {c['rank']}: an algorithm on a send/recv")
        continue
    if size <= 0: continue
    if size > 4096: bad.append(f"{name} #{c['seq']}: {size} B, larger than this test's rule covers")
    want = ("TREE" if name == "ncclAllReduce" else "RING", "LL", 1)
    got = (c.get("algorithm"), c.get("protocol"), c.get("channels"))
    if got != want: bad.append(f"{name} #{c['seq']} rank {c['rank']} in {c['group']}: {got}, want {want}")
    else: joined += 1; groups.add(c["group"])
notes = json.dumps(j.get("files", [])) + json.dumps(j.get("notes", []))
if "match no call" in notes: bad.append("profiler records matched no call: " + notes)
if joined < 36: bad.append(f"only {joined} collectives joined (4 ranks x 9 on the world communicator at least)")
if len(groups) < 3: bad.append(f"joined in {len(groups)} communicators, want the world and both halves of the split")
print("\n".join(bad) if bad else f"{joined} collectives joined in {len(groups)} communicators")
sys.exit(1 if bad else 0)
EOF
"$COLLVIZ" job "$WORK/cap-joined" > "$WORK/joined.txt" 2>&1 || fail "joined: collviz job could not read the capture"
grep -A3 "NCCL's calls (Inspector, profiler)" "$WORK/joined.txt" | grep -qE "all_reduce +0 .* TREE +LL +1$" ||
  { cat "$WORK/joined.txt"; fail "joined: collviz job's table of NCCL's calls does not list the first all-reduce as TREE LL 1"; }

NCCL_PROFILER_PLUGIN=/nonexistent/libnccl-profiler-other.so LD_PRELOAD="$TAP" COLLVIZ_TAP_OUT="$WORK/cap-other" \
  "$PROG" ops 4 "$WORK/out-other" 2> "$WORK/other.err" || { cat "$WORK/other.err"; fail "other: the program under the tap exited $?"; }
for f in "$WORK/out-joined"/rank-*.txt; do
  cmp -s "$f" "$WORK/out-other/${f##*/}" || fail "other: ${f##*/} differs from the run with the tap's plugin"
done
"$COLLVIZ" job "$WORK/cap-other" > "$WORK/other.txt" 2>&1 || { cat "$WORK/other.txt"; fail "other: collviz job could not read the capture"; }
grep -q "NCCL_PROFILER_PLUGIN names another profiler plugin (/nonexistent/libnccl-profiler-other.so): the tap works without its own" \
  "$WORK/other.txt" || { cat "$WORK/other.txt"; fail "other: collviz job does not list the note"; }
"$COLLVIZ" job "$WORK/cap-other" --json --all | grep -q '"algorithm"' && fail "other: an algorithm without the tap's plugin"

# An NCCL older than 2.28 (the stand-in playing 2.27.3) asks for profiler v4 or older: absent, said.
mkdir -p "$WORK/out-old"
COLLVIZ_STANDIN_NCCL_VERSION=22703 LD_PRELOAD="$TAP" COLLVIZ_TAP_OUT="$WORK/cap-old" "$PROG" ops 2 "$WORK/out-old" 2> "$WORK/old.err" ||
  { cat "$WORK/old.err"; fail "old: the program under the tap exited $?"; }
"$COLLVIZ" job "$WORK/cap-old" > "$WORK/old.txt" 2>&1 || { cat "$WORK/old.txt"; fail "old: collviz job could not read the capture"; }
grep -q "NCCL 2.27.3 is older than 2.28: the tap's profiler plugin is absent" "$WORK/old.txt" ||
  { cat "$WORK/old.txt"; fail "old: collviz job does not say the plugin is absent"; }
echo "profiler_tap_test: ok"
