#!/bin/bash
# collviz watch on real programs (issue 54): LAMMPS, an mpi4py script, a
# Fortran program (use mpi and mpif.h), and programs of our own that hang
# with a rank outside MPI, wait in a cycle, lose a rank, or are interrupted.
# For each: the calls per rank and per function equal an independent count
# (pmpi_counter.c, preloaded in place of the tap in a second run; counts.py
# prints the table), the program's own output is unchanged, and a hang's
# verdict is printed (its delay after the last call returned is recorded in
# the log, not asserted: no timed tests). Nothing is left running: the
# checks look at the job's own processes only (the launcher's process group
# and the ranks' pids from the capture).
#   usage: watch_test.sh CASE COLLVIZ WORKDIR
#   CASE: lammps mpi4py fortran hang cycle lost_rank interrupt options
set -uo pipefail
case_name=${1:?usage: watch_test.sh CASE COLLVIZ WORKDIR}
collviz=${2:?collviz}
work=${3:?workdir}
here=$(cd "$(dirname "$0")" && pwd)

fail() { echo "FAIL ($case_name): $*"; exit 1; }
skip() { echo "SKIP ($case_name): $*"; exit 77; }

command -v mpirun >/dev/null || skip "mpirun not found (apt-get install openmpi-bin)"
command -v mpicc >/dev/null || skip "mpicc not found (apt-get install libopenmpi-dev)"
mpirun --version 2>&1 | grep -q "Open MPI" || skip "mpirun is not Open MPI's"
command -v python3 >/dev/null || skip "python3 not found"
tap=$("$collviz" tap-path) || skip "the tap is not built (collviz tap-path failed)"

rm -rf "$work"
mkdir -p "$work"
cd "$work" || fail "cannot enter $work"
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
MPIRUN=(mpirun --oversubscribe "${root[@]}" -n 4)
mpicc -shared -fPIC -O2 -o pmpi_counter.so "$here/pmpi_counter.c" -ldl || fail "the PMPI counter does not build"

now_ns() { date +%s%N; }

# Wait for a condition (a command) with a bound in seconds; fails naming it.
wait_for() {
  local what=$1 bound=$2
  shift 2
  local until=$(($(date +%s) + bound))
  until "$@"; do
    [ "$(date +%s)" -lt "$until" ] || fail "waited ${bound} s for $what"
    sleep 0.1
  done
}

# The job's leftovers: processes of the launcher's group and the ranks' pids.
no_leftovers() {
  local cap=$1 pgid pids
  pgid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["launcher_pid"])' "$cap/capture.json") ||
    fail "capture.json has no launcher_pid"
  local left
  # A zombie (state Z) has ended: it waits only for PID 1 to reap it.
  left=$(ps -eo pid=,pgid=,stat=,comm= | awk -v g="$pgid" '$2 == g && $3 !~ /^Z/')
  [ -z "$left" ] || fail "left running in the job's process group $pgid: $left"
  pids=$(python3 -c 'import json,sys; print(" ".join(str(r["pid"]) for r in json.load(open(sys.argv[1]))["ranks"] if "pid" in r))' "$cap/job.json") ||
    fail "no ranks in the capture"
  for p in $pids; do
    local st
    st=$(ps -o stat= -p "$p" 2>/dev/null)
    [ -z "$st" ] || [[ $st == Z* ]] || fail "rank process $p left running: $(ps -o pid=,stat=,comm= -p "$p")"
  done
  echo "nothing left running (group $pgid; ranks $pids)"
}

# Counter run: $1 = folder; the rest the command after mpirun's options.
counter_run() {
  local dir=$1
  shift
  mkdir -p "$dir"
  "${MPIRUN[@]}" -x LD_PRELOAD="$work/pmpi_counter.so" -x PMPI_COUNT_OUT="$work/$dir" "$@"
}

# The capture read back by collviz job, for counts.py and the ranks' pids.
read_back() {
  "$collviz" job --json --all "$1" > "$1/job.json" || fail "collviz job could not read the capture $1"
}

same_lines() {  # the program's lines (matching $3) of two outputs, sorted
  local a b
  a=$(grep -E "$3" "$1" | sort)
  b=$(grep -E "$3" "$2" | sort)
  [ -n "$a" ] || fail "the plain run printed no line matching '$3' ($1)"
  [ "$a" = "$b" ] || fail "the program's output changed under collviz watch:
--- plain ($1)
$a
--- watched ($2)
$b"
  echo "the program's output is unchanged ($(echo "$a" | wc -l) lines)"
}

# A plain run, a counter run and a watched run (--json) of one program that ends.
three_runs() {
  local pattern=$1
  shift
  "${MPIRUN[@]}" "$@" > plain.out 2> plain.err || fail "the plain run failed: $(tail -5 plain.err)"
  counter_run counter "$@" > counter.out 2> counter.err || fail "the counter run failed: $(tail -5 counter.err)"
  "$collviz" watch --out "$work/cap" --json -- "${MPIRUN[@]}" "$@" > watch.jsonl 2> watch.err
  local rc=$?
  [ "$rc" = 0 ] || fail "collviz watch exited $rc, the program 0: $(tail -5 watch.err)"
  read_back cap
  python3 "$here/counts.py" counter watch.jsonl cap/job.json || fail "the counts differ (table above)"
  # --json: the program's stdout goes to stderr, collviz's lines alone on stdout.
  same_lines plain.out watch.err "$pattern"
  no_leftovers cap
}

case "$case_name" in
  lammps)
    command -v lmp >/dev/null || skip "LAMMPS not found (apt-get install lammps)"
    three_runs '^ +[0-9]+ +[-0-9.]+ ' lmp -in "$here/melt.in" -log none -nocite -var steps 300
    grep -cE '^ +[0-9]+ +[-0-9.]+ ' plain.out | grep -qx 7 || fail "LAMMPS printed no thermo table (7 lines expected): $(head -30 plain.out)"
    ;;
  mpi4py)
    /usr/bin/python3 -c 'import mpi4py' 2>/dev/null || skip "mpi4py not found (apt-get install python3-mpi4py)"
    three_runs '^mpi4py ' /usr/bin/python3 "$here/collectives.py"
    ;;
  fortran)
    command -v mpifort >/dev/null || skip "mpifort not found (apt-get install gfortran libopenmpi-dev)"
    mpifort -O1 -o fortran_collectives "$here/fortran_use_mpi.f90" "$here/fortran_mpif.f90" || fail "the Fortran program does not build"
    three_runs '^ *fortran ' ./fortran_collectives
    n=$(grep -c '"fortran":true' watch.jsonl)
    [ "$n" -gt 0 ] || fail "no call is marked as made through the Fortran bindings"
    echo "$n calls marked fortran"
    ;;
  hang)
    # Rank 2 sleeps outside MPI until the test wakes it, after the verdict.
    mpicc -O1 -o hang_outside "$here/hang_outside.c" || fail "hang_outside does not build"
    touch awake
    WATCH_TEST_WAKE=$work/awake "${MPIRUN[@]}" -x WATCH_TEST_WAKE ./hang_outside > plain.out 2> plain.err || fail "the plain run failed"
    WATCH_TEST_WAKE=$work/awake counter_run counter -x WATCH_TEST_WAKE ./hang_outside > /dev/null 2>&1 || fail "the counter run failed"
    WATCH_TEST_WAKE=$work/wake "$collviz" watch --out "$work/cap" --json --hang-after 2 -- \
      "${MPIRUN[@]}" -x WATCH_TEST_WAKE ./hang_outside > watch.jsonl 2> watch.err &
    watcher=$!
    # The verdict that names rank 2 (a loaded machine may see an earlier
    # quiet moment of 2 s while the ranks start: said in the log, below).
    wait_for "the verdict naming rank 2" 60 grep -q '"verdict_ranks":\[2\]' watch.jsonl
    seen=$(now_ns)
    touch wake  # the job goes on (no --kill-on-hang) and ends by itself
    wait "$watcher"
    rc=$?
    [ "$rc" = 0 ] || fail "collviz watch exited $rc, the program 0: $(tail -5 watch.err)"
    read_back cap
    python3 - "$seen" watch.jsonl cap/job.json <<'EOF' || fail "the verdict is not rank 2's"
import json, sys
seen = int(sys.argv[1])
v = [json.loads(l) for l in open(sys.argv[2]) if '"verdict"' in l]
for early in v[:-1]:
    print("an earlier verdict (a quiet moment before rank 2 slept):", json.dumps(early, ensure_ascii=False))
v = v[-1:]
last_exit = max((c.get("time_exited_ns") or 0) for c in json.load(open(sys.argv[3]))["calls"]
                if (c.get("time_exited_ns") or 0) < v[0]["t_ns"])
print("verdict line as printed:", json.dumps(v[0], ensure_ascii=False))
print("verdict: %s" % v[0]["verdict"])
print("printed %.2f s after the last call returned (collviz's clock), seen by the test %.2f s after; hang-after 2 s, bound 4 s"
      % ((v[0]["t_ns"] - last_exit) / 1e9, (seen - last_exit) / 1e9))
assert v[0]["verdict_ranks"] == [2], v[0]["verdict_ranks"]
assert "outside MPI" in v[0]["verdict"], v[0]["verdict"]
assert any(f["kind"] == "hang" for f in v[0]["findings"]), v[0]["findings"]
EOF
    python3 "$here/counts.py" counter watch.jsonl cap/job.json || fail "the counts differ (table above)"
    same_lines plain.out watch.err '^hang_outside '
    no_leftovers cap
    ;;
  cycle)
    # Never ends by itself: the counter run is ended once every rank waits
    # (each has entered its 7th MPI_Allreduce), the watched one by --kill-on-hang.
    mpicc -O1 -o wait_cycle "$here/wait_cycle.c" || fail "wait_cycle does not build"
    mkdir -p counter
    setsid "${MPIRUN[@]}" -x LD_PRELOAD="$work/pmpi_counter.so" -x PMPI_COUNT_OUT="$work/counter" ./wait_cycle > counter.out 2> counter.err &
    counter_pid=$!
    all_wait() { [ "$(cat counter/count-*.txt 2>/dev/null | grep -c '^E MPI_Allreduce')" = 28 ]; }
    wait_for "every rank in the cycle (counter run)" 60 all_wait
    kill -TERM -- "-$counter_pid"
    wait "$counter_pid"
    "$collviz" watch --out "$work/cap" --hang-after 2 --kill-on-hang -- "${MPIRUN[@]}" ./wait_cycle > watch.out 2> watch.err &
    watcher=$!
    wait_for "the verdict" 60 grep -q 'verdict:' watch.err
    seen=$(now_ns)
    wait "$watcher"
    rc=$?
    echo "collviz watch exited $rc after --kill-on-hang"
    [ "$rc" != 2 ] && [ "$rc" != 0 ] || fail "collviz watch exited $rc: an ended job is not a success nor a usage error"
    grep -q 'the job was ended after the hang' watch.err || fail "no word that the job was ended: $(cat watch.err)"
    read_back cap
    python3 - "$seen" cap/job.json <<'EOF' || fail "no delay measured"
import json, sys
calls = json.load(open(sys.argv[2]))["calls"]
last_exit = max((c.get("time_exited_ns") or 0) for c in calls)
print("the verdict was seen %.2f s after the last call returned (hang-after 2 s, bound 4 s)" % ((int(sys.argv[1]) - last_exit) / 1e9))
EOF
    echo "verdict lines as printed:"
    grep -A1 'a hang:' watch.err
    grep -q 'deadlock' cap/job.json || fail "the capture's analysis names no deadlock: $(grep -A1 'a hang:' watch.err)"
    grep -A1 'a hang:' watch.err | grep -qi 'cycle\|deadlock' || fail "the verdict does not name the cycle"
    # Counts: from the capture (the text mode prints no call lines).
    python3 - cap/job.json > watch.jsonl <<'EOF'
import json, sys
for c in json.load(open(sys.argv[1]))["calls"]:
    print(json.dumps({"rank": c["rank"], "call": c["name"], "returned": c.get("state") == "completed"}))
EOF
    python3 "$here/counts.py" counter watch.jsonl cap/job.json || fail "the counts differ (table above)"
    same_lines counter.out watch.out '^wait_cycle '
    no_leftovers cap
    ;;
  lost_rank)
    mpicc -O1 -o lose_rank "$here/lose_rank.c" || fail "lose_rank does not build"
    "${MPIRUN[@]}" ./lose_rank > plain.out 2> plain.err
    plain_rc=$?
    counter_run counter ./lose_rank > /dev/null 2>&1
    "$collviz" watch --out "$work/cap" --json -- "${MPIRUN[@]}" ./lose_rank > watch.jsonl 2> watch.err
    rc=$?
    echo "mpirun exited $plain_rc on its own, $rc under collviz watch"
    [ "$rc" = "$plain_rc" ] || fail "collviz watch exited $rc, the program $plain_rc"
    read_back cap
    # Survivors may or may not have entered MPI_Barrier when mpirun ended them.
    python3 "$here/counts.py" counter watch.jsonl cap/job.json --entered 2 || fail "the counts differ (table above)"
    python3 - cap/job.json <<'EOF' || fail "the killed rank's calls are not all in the capture"
import json, sys
calls = [c for c in json.load(open(sys.argv[1]))["calls"] if c["rank"] == 2]
done = [c for c in calls if c.get("state") == "completed" and c["name"] == "MPI_Allreduce"]
print("rank 2 (killed): %d calls in the capture, %d MPI_Allreduce returned" % (len(calls), len(done)))
assert len(done) == 8, len(done)
EOF
    same_lines plain.out watch.err '^lose_rank '
    no_leftovers cap
    ;;
  interrupt)
    # SIGINT to collviz while the job hangs: the job ended, the capture closed.
    mpicc -O1 -o hang_outside "$here/hang_outside.c" || fail "hang_outside does not build"
    WATCH_TEST_WAKE=$work/never "$collviz" watch --out "$work/cap" --hang-after 2 -- \
      "${MPIRUN[@]}" -x WATCH_TEST_WAKE ./hang_outside > watch.out 2> watch.err &
    watcher=$!
    wait_for "the verdict" 60 grep -q 'verdict:' watch.err
    kill -INT "$watcher"
    wait "$watcher"
    rc=$?
    [ "$rc" = 130 ] || fail "collviz watch exited $rc after SIGINT, not 130: $(tail -3 watch.err)"
    grep -q 'interrupted; the job was ended' watch.err || fail "no word of the interrupt: $(cat watch.err)"
    grep -q '"interrupted": true' cap/capture.json || fail "capture.json does not say interrupted"
    read_back cap
    no_leftovers cap
    ;;
  options)
    expect() {  # expect RC PATTERN ARGS...: exit status and message
      local want=$1 pattern=$2
      shift 2
      "$collviz" "$@" > opt.out 2> opt.err
      local got=$?
      [ "$got" = "$want" ] || fail "collviz $* exited $got, not $want: $(cat opt.err)"
      grep -q -- "$pattern" opt.err opt.out || fail "collviz $*: no '$pattern' in: $(cat opt.err opt.out)"
      echo "ok: collviz $* -> $got: $(head -1 opt.err)"
    }
    expect 2 "the command to run is missing after --" watch
    expect 2 "out of range; allowed: 0 to 1048576" watch --bytes 1048577 -- mpirun -n 1 true
    expect 2 "out of range; allowed: 0 to 1048576" watch --bytes -1 -- mpirun -n 1 true
    expect 2 "is not a number" watch --hang-after soon -- mpirun -n 1 true
    expect 2 "is not a launcher" watch --tap mpi -- ./a.out
    mkdir -p empty
    PATH=$work/empty "$collviz" watch -- mpiexec -n 1 true > opt.out 2> opt.err
    rc=$?
    [ "$rc" = 2 ] && grep -q "was not found in PATH" opt.err || fail "a launcher not in PATH: exit $rc, $(cat opt.err)"
    echo "ok: a launcher not in PATH -> 2: $(cat opt.err)"
    expect 2 "not found" watch -- /nonexistent/mpirun -n 1 true
    mkdir -p fake
    printf '#!/bin/sh\necho "HYDRA build details:"\necho "    Version: 4.0.2"\n' > fake/mpirun
    chmod +x fake/mpirun
    PATH=$work/fake:$PATH expect 2 "is not Open MPI's launcher" watch -- mpirun -n 1 true
    [ -f "$tap" ] || fail "collviz tap-path printed $tap, which is not a file"
    echo "ok: collviz tap-path -> $tap"
    # Not an MPI program: the tap saw nothing, and says why that may be.
    mkdir -p here && cd here || fail "no folder"
    "$collviz" watch -- "${MPIRUN[@]}" true > nothing.out 2> nothing.err || fail "watch of true failed: $(cat nothing.err)"
    grep -q "the tap saw no MPI call" nothing.err || fail "no word that the tap saw nothing: $(cat nothing.err)"
    grep -q "statically" nothing.err || fail "the reasons are not said: $(cat nothing.err)"
    ls -d collviz-watch-* > /dev/null 2>&1 || fail "no default capture folder named by date and time in the current folder"
    echo "ok: nothing seen -> $(grep 'saw no' nothing.err)"
    echo "ok: default folder $(ls -d collviz-watch-*)"
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS ($case_name)"
