#!/bin/bash
# collviz watch with NCCL programs (issue 59): --tap, the NCCL tap given
# through the environment a launcher passes on, and its capture read back.
#   usage: watch_nccl_test.sh CASE COLLVIZ WORKDIR
#   CASE:
#     options  --tap's refusals, a program not found, the NCCL tap missing
#              (a copy of collviz with no tap beside it), and where the tap
#              goes: into the command's own environment (LD_PRELOAD appended
#              to the one given, never replacing it; COLLVIZ_TAP_OUT and
#              _BYTES), inherited by a python launcher's children; under an
#              Open MPI mpirun (a stand-in script that prints what it got)
#              with -x to the ranks only. No NCCL needed: the "tap" there is
#              an empty library built here.
#   On the stand-in CUDA runtime and NCCL (tests/standin, a test double:
#   ctest sets COLLVIZ_STANDIN=1 and LD_LIBRARY_PATH), with the NCCL tap and
#   the ranks of tests/gpu/nccl_watch_ranks.cpp (WATCH_NCCL_RANKS: its path),
#   2 ranks, 6 steps of an all_reduce and an all_gather:
#     direct   the program run directly (it forks its ranks): every rank's
#              calls in the capture, returned, with the bytes the ranks
#              computed (tests/gpu/watch_torch.py check), as many --json
#              lines as calls;
#     python   through a python launcher whose children are the ranks, as
#              torchrun starts them (tests/gpu/watch_torch.py launch): the
#              same checks;
#     hang     rank 1 leaves out its all_reduce of step 3 and waits: the
#              verdict names rank 1, outside NCCL, and --kill-on-hang ends
#              the job (the verdict's delay after the last return is
#              written to the log, not asserted: no timed tests);
#     hang_launcher  the same through the python launcher, whose ranks are
#              each in a session of their own (as torchrun's): out of the
#              job's process group, they are ended all the same, and a
#              process of another capture (cap-other) is not.
# Nothing is left running: the checks look at the job's own processes only.
set -uo pipefail
case_name=${1:?usage: watch_nccl_test.sh CASE COLLVIZ WORKDIR}
collviz=${2:?collviz}
work=${3:?workdir}
here=$(cd "$(dirname "$0")" && pwd)

fail() { echo "FAIL ($case_name): $*"; exit 1; }
skip() { echo "SKIP ($case_name): $*"; exit 77; }

command -v python3 >/dev/null || skip "python3 not found"
rm -rf "$work"
mkdir -p "$work"
cd "$work" || fail "cannot enter $work"

# expect RC PATTERN ARGS...: collviz's exit status and its message.
expect() {
  local want=$1 pattern=$2
  shift 2
  "$collviz" "$@" > opt.out 2> opt.err
  local got=$?
  [ "$got" = "$want" ] || fail "collviz $* exited $got, not $want: $(cat opt.err)"
  grep -q -- "$pattern" opt.err opt.out || fail "collviz $*: no '$pattern' in: $(cat opt.err opt.out)"
  echo "ok: collviz $* -> $got: $(head -1 opt.err)"
}

# field FILE KEY: a capture.json field, as JSON.
field() { python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2"; }

case "$case_name" in
  options)
    command -v cc >/dev/null || skip "no C compiler (cc) to build the stand-in tap library"
    expect 2 "--tap nvshmem is not a tap; allowed: mpi, nccl, auto" watch --tap nvshmem -- true
    expect 2 "--tap nvshmem is not a tap; allowed: mpi, nccl" tap-path --tap nvshmem
    expect 2 "the program /nonexistent/train was not found (no such program)" watch -- /nonexistent/train
    expect 2 "the program no-such-program-59 was not found in PATH" watch --tap nccl -- no-such-program-59
    expect 2 "is not a launcher" watch --tap mpi -- python3 -c pass
    # The NCCL tap missing: collviz looks beside itself and in PREFIX/lib/collviz.
    mkdir -p alone/bin
    cp "$collviz" alone/bin/collviz
    alone=$work/alone/bin/collviz
    "$alone" tap-path --tap nccl > opt.out 2> opt.err
    rc=$?
    [ "$rc" = 1 ] && grep -q "the NCCL tap libcollviz-tap-nccl.so was not found (looked at $work/alone/bin/libcollviz-tap-nccl.so, $work/alone/lib/collviz/libcollviz-tap-nccl.so); build the target collviz-tap-nccl" opt.err ||
      fail "tap-path --tap nccl without the tap: exit $rc, $(cat opt.err)"
    echo "ok: tap-path --tap nccl without the tap -> 1: $(cat opt.err)"
    "$alone" watch -- python3 -c pass > opt.out 2> opt.err
    rc=$?
    [ "$rc" = 1 ] && grep -q "the NCCL tap libcollviz-tap-nccl.so was not found" opt.err ||
      fail "watch of a non-MPI command without the NCCL tap: exit $rc, $(cat opt.err)"
    ! ls -d collviz-watch-* > /dev/null 2>&1 || fail "a capture folder was made though the tap is missing"
    echo "ok: watch -- python3 (auto: nccl) without the tap -> 1"
    # A stand-in tap beside the copy: an empty library, so the environment
    # can be seen without NCCL. And a library of the program's own, preloaded.
    echo 'int collviz_standin_tap_59;' > empty.c
    cc -shared -fPIC -o alone/bin/libcollviz-tap-nccl.so empty.c || fail "cannot build the stand-in tap"
    cc -shared -fPIC -o own.so empty.c || fail "cannot build the program's own preload"
    tap=$("$alone" tap-path --tap nccl) || fail "tap-path --tap nccl failed with the tap there"
    [ "$tap" = "$work/alone/bin/libcollviz-tap-nccl.so" ] || fail "tap-path --tap nccl printed $tap"
    echo "ok: tap-path --tap nccl -> $tap"
    # A launcher (python, as torchrun is) whose two children print what they got.
    cat > launch.py <<'EOF'
import subprocess, sys
code = "import os; print('child', os.environ.get('LD_PRELOAD'), os.environ.get('COLLVIZ_TAP_OUT'), os.environ.get('COLLVIZ_TAP_BYTES'))"
kids = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(2)]
sys.exit(max(k.wait() for k in kids))
EOF
    LD_PRELOAD=$work/own.so "$alone" watch --out "$work/cap" --bytes 64 -- python3 launch.py > env.out 2> env.err ||
      fail "watch -- python3 launch.py failed: $(cat env.err)"
    want="child $work/own.so:$tap $work/cap 64"
    [ "$(grep -c "^$want\$" env.out)" = 2 ] || fail "the children did not get the tap appended to their LD_PRELOAD; want '$want' twice, got: $(cat env.out env.err)"
    echo "ok: both children of the launcher: $want"
    [ "$(field cap/capture.json tap)" = '"nccl"' ] || fail "capture.json's tap is $(field cap/capture.json tap)"
    [ "$(field cap/capture.json launched)" = '["python3", "launch.py"]' ] || fail "capture.json's launched: $(field cap/capture.json launched)"
    field cap/capture.json environment | grep -qF "\"LD_PRELOAD\": \"$work/own.so:$tap\"" ||
      fail "capture.json's environment: $(field cap/capture.json environment)"
    grep -q "the tap saw no NCCL call (no process wrote a capture file)" env.err || fail "no word that the tap saw nothing: $(cat env.err)"
    echo "ok: capture.json says tap nccl and the environment given; nothing seen is said"
    # Without an LD_PRELOAD of its own: the tap alone; collviz's own is unset.
    env -u LD_PRELOAD "$alone" watch --out "$work/cap2" -- python3 -c 'import os; print("self", os.environ["LD_PRELOAD"])' > env2.out 2> env2.err ||
      fail "watch -- python3 -c failed: $(cat env2.err)"
    grep -qx "self $tap" env2.out || fail "the program's LD_PRELOAD: $(cat env2.out)"
    echo "ok: no LD_PRELOAD before: the program gets $tap"
    # Under Open MPI's mpirun (a stand-in script): -x to the ranks, not in mpirun's own environment.
    mkdir -p fake
    cat > fake/mpirun <<'EOF'
#!/bin/sh
[ "$1" = --version ] && { echo "mpirun (Open MPI) 4.1.4"; exit 0; }
echo "mpirun got: $*"
echo "mpirun's own LD_PRELOAD: ${LD_PRELOAD:-unset}"
EOF
    chmod +x fake/mpirun
    env -u LD_PRELOAD PATH="$work/fake:$PATH" "$alone" watch --tap nccl --out "$work/cap3" -- mpirun -n 2 ./train > mpi.out 2> mpi.err ||
      fail "watch --tap nccl -- mpirun failed: $(cat mpi.err)"
    grep -qx "mpirun got: -x LD_PRELOAD=$tap -x COLLVIZ_TAP_OUT=$work/cap3 -x COLLVIZ_TAP_BYTES=256 -n 2 ./train" mpi.out ||
      fail "mpirun was not given the NCCL tap with -x: $(cat mpi.out)"
    grep -qx "mpirun's own LD_PRELOAD: unset" mpi.out || fail "mpirun itself got the tap: $(cat mpi.out)"
    [ "$(field cap3/capture.json environment)" = '{}' ] || fail "capture.json's environment under mpirun: $(field cap3/capture.json environment)"
    echo "ok: --tap nccl under mpirun: $(head -1 mpi.out)"
    # auto under mpirun is the MPI tap (none beside the copy: said).
    PATH="$work/fake:$PATH" "$alone" watch -- mpirun -n 2 ./train > opt.out 2> opt.err
    rc=$?
    [ "$rc" = 1 ] && grep -q "the tap libcollviz-tap-mpi.so was not found" opt.err || fail "auto under mpirun: exit $rc, $(cat opt.err)"
    echo "ok: auto under mpirun is the MPI tap"
    # Another MPI's mpirun with --tap nccl: refused, saying why.
    printf '#!/bin/sh\necho "HYDRA build details:"\n' > fake/mpirun
    PATH="$work/fake:$PATH" expect 2 "collviz gives the NCCL tap to the ranks with Open MPI's -x option" watch --tap nccl -- mpirun -n 2 ./train
    ;;
  direct|python|hang|hang_launcher)
    prog=${WATCH_NCCL_RANKS:?WATCH_NCCL_RANKS: the path of nccl-watch-ranks}
    [ -n "${COLLVIZ_STANDIN:-}" ] || fail "COLLVIZ_STANDIN is not set: these cases run on the stand-in (ctest sets it)"
    tap=$("$collviz" tap-path --tap nccl) || fail "the NCCL tap is not built: $tap"
    check=$here/../gpu/watch_torch.py
    export WATCH_TORCH_SIZES="4096 1024 1"  # 4096 float32 all_reduce, 1024 a rank all_gather, 5 + 1 steps
    steps=6
    mkdir -p ids
    case "$case_name" in
      direct) cmd=("$prog" --ranks 2 --steps "$steps" --count 4096 --gather 1024 "$work/ids") ;;
      python) cmd=(python3 "$check" launch "$work/steps.json")
              export COLLVIZ_WATCH_STANDIN=$prog ;;
      hang)   cmd=("$prog" --ranks 2 --steps "$steps" --count 4096 --gather 1024 --skip 1:3 "$work/ids") ;;
      hang_launcher) cmd=(python3 "$check" launch "$work/steps.json")
              export COLLVIZ_WATCH_STANDIN=$prog WATCH_TORCH_SKIP=1:3 ;;
    esac
    if [ "$case_name" != direct ] && [ "$case_name" != python ]; then
      bystander=
      if [ "$case_name" = hang_launcher ]; then
        # Not the job's: a process of another capture whose folder's name
        # begins with this one's. Ending the ranks that left the job's
        # group must spare it.
        COLLVIZ_TAP_OUT="$work/cap-other" sleep 120 &
        bystander=$!
        trap 'kill "$bystander" 2>/dev/null' EXIT
      fi
      "$collviz" watch --out "$work/cap" --json --hang-after 2 --kill-on-hang -- "${cmd[@]}" > watch.jsonl 2> watch.err
      rc=$?
      if [ -n "$bystander" ]; then
        kill -0 "$bystander" 2>/dev/null ||
          fail "collviz watch ended a process of another capture (COLLVIZ_TAP_OUT=$work/cap-other): only the job's are ended"
        kill "$bystander"
        wait "$bystander" 2>/dev/null
      fi
      echo "collviz watch exited $rc after --kill-on-hang"
      [ "$rc" != 0 ] && [ "$rc" != 2 ] || fail "collviz watch exited $rc: an ended job is neither a success nor a usage error: $(tail -5 watch.err)"
      "$collviz" job --json --all cap > job.json || fail "collviz job could not read the capture"
      python3 - watch.jsonl job.json <<'EOF' || fail "the verdict is not rank 1's, outside NCCL"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1]) if '"verdict"' in l]
calls = json.load(open(sys.argv[2]))["calls"]
assert v, "no verdict line"
last = v[-1]
exits = [c.get("time_exited_ns") or 0 for c in calls if (c.get("time_exited_ns") or 0) < last["t_ns"]]
print("verdict line as printed:", json.dumps(last, ensure_ascii=False))
print("printed %.2f s after the last call returned (hang-after 2 s)" % ((last["t_ns"] - max(exits)) / 1e9))
assert last["verdict_ranks"] == [1], last["verdict_ranks"]
assert "rank 1 has been outside NCCL" in last["verdict"], last["verdict"]
assert "rank 0 waits for it in ncclAllReduce" in last["verdict"], last["verdict"]
EOF
    else
      "$collviz" watch --out "$work/cap" --json -- "${cmd[@]}" > watch.jsonl 2> watch.err ||
        fail "collviz watch exited $?, the program 0: $(tail -5 watch.err)"
      "$collviz" job --json --all cap > job.json || fail "collviz job could not read the capture"
      python3 "$check" check job.json || fail "the capture's calls or bytes are not the ranks' (above)"
      python3 - watch.jsonl job.json $steps <<'EOF' || fail "the calls are not all there (above)"
import collections, json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
calls = json.load(open(sys.argv[2]))["calls"]
steps = int(sys.argv[3])
got = collections.Counter((c["rank"], c["name"]) for c in calls if c.get("state") == "completed")
live = collections.Counter((c["rank"], c["call"]) for c in lines if c.get("returned"))
want = {(r, f): steps for r in (0, 1) for f in ("ncclAllReduce", "ncclAllGather")}
print("calls returned, per rank and function: capture %s, --json %s" % (dict(got), dict(live)))
assert dict(got) == want, dict(got)
assert dict(live) == want, dict(live)
EOF
      grep -q '"tap": "nccl"' cap/capture.json || fail "capture.json does not say the NCCL tap"
    fi
    # Nothing of the job is left: its process group, and the ranks' pids.
    pgid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["launcher_pid"])' cap/capture.json) ||
      fail "capture.json has no launcher_pid"
    left=$(ps -eo pid=,pgid=,stat=,comm= | awk -v g="$pgid" '$2 == g && $3 !~ /^Z/')
    [ -z "$left" ] || fail "left running in the job's process group $pgid: $left"
    for p in $(python3 -c 'import json,sys; print(" ".join(str(r["pid"]) for r in json.load(open(sys.argv[1]))["ranks"] if "pid" in r))' job.json); do
      st=$(ps -o stat= -p "$p" 2>/dev/null)
      [ -z "$st" ] || [[ $st == Z* ]] || fail "rank process $p left running"
    done
    echo "nothing left running (group $pgid)"
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS ($case_name)"
