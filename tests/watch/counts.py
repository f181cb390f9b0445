#!/usr/bin/env python3
"""Calls per rank and per function, three ways, for tests/watch:
  counter  the PMPI counter's lines (pmpi_counter.c: "E name" at entry,
           "X name" at return, one file per process),
  watch    collviz watch --json's call lines (entered: every line;
           returned: "returned": true),
  job      collviz job --json --all over the capture folder (entered: every
           call; returned: state "completed").
Prints the table and exits 1 where they differ. Compared: returned calls
for every rank and function (blocking functions: the counter sees their
return; nonblocking ones are compared by entries), and entered calls for
the ranks given by --entered (default: all; a killed job's survivors may
or may not have entered their last call when mpirun ended them).
usage: counts.py COUNTER_DIR WATCH_JSONL JOB_JSON [--entered all|none|R,R]"""
import collections, glob, json, sys

counter_dir, watch_jsonl, job_json = sys.argv[1:4]
entered_ranks = "all"
if len(sys.argv) > 5 and sys.argv[4] == "--entered":
    entered_ranks = sys.argv[5]

def table():
    return collections.defaultdict(lambda: [0, 0])  # (rank, name) -> [entered, returned]

counter = table()
for path in glob.glob(counter_dir + "/count-*.txt"):
    rank = None
    for line in open(path):
        kind, name = line.split()
        if kind == "rank":
            rank = int(name)
        elif kind == "E":
            counter[(rank, name)][0] += 1
        elif kind == "X":
            counter[(rank, name)][1] += 1

watch = table()
for line in open(watch_jsonl):
    line = line.strip()
    if not line.startswith("{"):
        continue
    d = json.loads(line)
    if "call" not in d:
        continue  # a verdict
    watch[(d["rank"], d["call"])][0] += 1
    watch[(d["rank"], d["call"])][1] += 1 if d["returned"] else 0

job = table()
for c in json.load(open(job_json)).get("calls", []):
    job[(c["rank"], c["name"])][0] += 1
    job[(c["rank"], c["name"])][1] += 1 if c.get("state") == "completed" else 0

keys = sorted(set(counter) | set(watch) | set(job))
bad = []
print("%-5s %-26s %17s %17s %17s" % ("rank", "function", "counter E/X", "watch E/R", "job E/R"))
for k in keys:
    c, w, j = counter[k], watch[k], job[k]
    nonblocking = k[1].startswith("MPI_I")
    check_entered = entered_ranks == "all" or (entered_ranks != "none" and str(k[0]) in entered_ranks.split(","))
    ok = True
    if (check_entered or nonblocking) and not (c[0] == w[0] == j[0]):
        ok = False
    if not nonblocking and not (c[1] == w[1] == j[1]):
        ok = False
    print("%-5s %-26s %8d/%-8d %8d/%-8d %8d/%-8d%s" % (k[0], k[1], c[0], c[1], w[0], w[1], j[0], j[1], "" if ok else "   <-- differs"))
    if not ok:
        bad.append(k)
total = [sum(v[i] for v in counter.values()) for i in (0, 1)]
print("total: counter %d entered / %d returned; watch %d / %d; job %d / %d" % (
    total[0], total[1], sum(v[0] for v in watch.values()), sum(v[1] for v in watch.values()),
    sum(v[0] for v in job.values()), sum(v[1] for v in job.values())))
if not keys or total[0] == 0:
    print("FAIL: the counter saw no call")
    sys.exit(1)
if bad:
    print("FAIL: the counts differ for %s" % ", ".join("rank %s %s" % k for k in bad))
    sys.exit(1)
print("counts equal")
