#!/usr/bin/env python3
"""The device check's PyTorch step (issue 59): 2 ranks on one GPU under
`collviz watch`, as torchrun starts them, and the capture checked.

  watch_torch.py probe               prints why torch cannot run here, or "ok"
  watch_torch.py launch OUT.json     the launcher: starts 2 ranks (this file,
                                     `rank R`) as its children, each in a
                                     session of its own as torchrun does,
                                     passes its own environment on (LD_PRELOAD
                                     included), and writes their step times
                                     into OUT.json
  watch_torch.py rank R              one rank (started by `launch`)
  watch_torch.py check JOB.json      the capture (`collviz job DIR --json --all`)
                                     against the tensors: prints what it found,
                                     exits 1 on a difference

Each rank: torch.distributed with the nccl backend, initialised from a file
store (no TCP store, no network but NCCL's own loopback sockets), its own
NCCL_HOSTID (NCCL <= 2.29 refuses two ranks of one host on one GPU: as
different hosts they talk over NCCL's socket transport on lo, as
docs/gpu.md says), both on cuda:0. Per step: an all_reduce of N float32 and
an all_gather of M float32 per rank, with values this file can recompute
(below), timed with torch.cuda.synchronize around WARM + STEPS steps: the
median step time is the figure.

The rehearsal (tests/gpu/bundle_rehearsal.sh) has no torch: with
COLLVIZ_WATCH_STANDIN=PROGRAM the launcher starts that NCCL program
(nccl-watch-ranks, tests/gpu/nccl_watch_ranks.cpp: the same steps, sizes and
values, on the stand-in NCCL there) as each rank instead, and `check` reads
its capture the same way.
"""
import json
import os
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

RANKS = 2
# The sizes (tests/watch runs small ones on the stand-in: WATCH_TORCH_SIZES="count gather steps").
_sizes = [int(v) for v in os.environ.get("WATCH_TORCH_SIZES", "").split()] or [1 << 20, 1 << 18, 40]
N = _sizes[0]        # all_reduce: 4 MiB of float32
M = _sizes[1]        # all_gather: 1 MiB of float32 per rank
WARM, STEPS = 5, _sizes[2]


def value(rank, step, i):
    """Element i of rank's all_reduce input at step (exact in float32)."""
    return float((i % 97) + 1000 * rank + step)


def gather_value(rank, step, i):
    return float((i % 89) + 100000 * rank + 7 * step)


def probe():
    try:
        import torch
        import torch.distributed as dist
    except Exception as e:  # ImportError, or a broken wheel
        return "torch is not importable with %s (%s: %s)" % (sys.executable, type(e).__name__, e)
    if not torch.cuda.is_available():
        return "torch %s sees no CUDA device (torch.version.cuda %s)" % (torch.__version__, torch.version.cuda)
    if not dist.is_available() or not dist.is_nccl_available():
        return "torch %s has no NCCL backend" % torch.__version__
    return "ok"


def rank_main(rank):
    import torch
    import torch.distributed as dist
    store = os.environ["WATCH_TORCH_STORE"]
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", init_method="file://" + store, rank=rank, world_size=RANKS)
    dev = torch.device("cuda", 0)
    idx = torch.arange(N, device=dev, dtype=torch.int64)
    gidx = torch.arange(M, device=dev, dtype=torch.int64)
    out = torch.empty(RANKS * M, device=dev, dtype=torch.float32)
    gather = getattr(dist, "all_gather_into_tensor", None)
    times = []
    for step in range(WARM + STEPS):
        x = ((idx % 97) + 1000 * rank + step).to(torch.float32)
        g = ((gidx % 89) + 100000 * rank + 7 * step).to(torch.float32)
        torch.cuda.synchronize()
        t = time.perf_counter()
        dist.all_reduce(x)
        if gather:
            gather(out, g)
        else:
            dist.all_gather(list(out.chunk(RANKS)), g)
        torch.cuda.synchronize()
        if step >= WARM:
            times.append(time.perf_counter() - t)
        want = sum(value(r, step, 0) for r in range(RANKS))
        if float(x[0]) != want:
            print("rank %d step %d: all_reduce gave %s, want %s" % (rank, step, float(x[0]), want), file=sys.stderr)
            return 1
    dist.destroy_process_group()
    v = torch.cuda.nccl.version()  # a tuple, or a number in older torch
    print(json.dumps({"rank": rank, "step_s": statistics.median(times), "steps": STEPS,
                      "torch": torch.__version__, "nccl": ".".join(map(str, v)) if isinstance(v, tuple) else str(v)}))
    return 0


def launch(out_json):
    """torchrun's part: the ranks as children, this process's environment passed on."""
    store_dir = tempfile.mkdtemp(prefix="collviz-watch-torch-")
    # Ended (collviz watch --kill-on-hang, Ctrl-C): the store goes all the same.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    try:
        return run_ranks(out_json, store_dir)
    finally:
        shutil.rmtree(store_dir, ignore_errors=True)


def run_ranks(out_json, store_dir):
    standin = os.environ.get("COLLVIZ_WATCH_STANDIN")
    kids = []
    for r in range(RANKS):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(RANKS), LOCAL_RANK=str(r),
                   NCCL_HOSTID="collviz-watch-%d" % r, NCCL_SOCKET_IFNAME="lo", NCCL_IB_DISABLE="1",
                   WATCH_TORCH_STORE=os.path.join(store_dir, "store"))
        argv = ([standin, "--rank", str(r), "--ranks", str(RANKS), "--steps", str(WARM + STEPS), "--count", str(N),
                 "--gather", str(M), store_dir] if standin else [sys.executable, __file__, "rank", str(r)])
        if standin and os.environ.get("WATCH_TORCH_SKIP"):  # "R:K": rank R leaves out its all_reduce of step K
            argv[1:1] = ["--skip", os.environ["WATCH_TORCH_SKIP"]]
        # Each rank in a session of its own, as torchrun starts them.
        kids.append(subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True, start_new_session=True))
    results, rc = [], 0
    for k in kids:
        o, _ = k.communicate()
        rc = max(rc, k.returncode)
        for line in o.splitlines():
            print(line)
            if line.startswith("{"):
                try:
                    results.append(json.loads(line))
                except ValueError:
                    pass
    with open(out_json, "w") as f:
        json.dump(results, f)
    return rc


def floats(hexstr):
    b = bytes.fromhex(hexstr or "")
    return list(struct.unpack("<%df" % (len(b) // 4), b[: len(b) // 4 * 4]))


def check(job_json):
    calls = json.load(open(job_json))["calls"]
    problems = []
    # The program's own calls: by their size (torch's may add small ones of its own).
    ar = {r: sorted((c for c in calls if c["rank"] == r and c["name"] == "ncclAllReduce"
                     and c.get("input_elements") == N), key=lambda c: c["seq"]) for r in range(RANKS)}
    ag = {r: sorted((c for c in calls if c["rank"] == r and c["name"] == "ncclAllGather"
                     and c.get("input_elements") == M), key=lambda c: c["seq"]) for r in range(RANKS)}
    want = WARM + STEPS
    for r in range(RANKS):
        if len(ar[r]) != want or len(ag[r]) != want:
            problems.append("rank %d: %d all_reduce and %d all_gather captured, want %d each"
                            % (r, len(ar[r]), len(ag[r]), want))
    checked = 0
    for r in range(RANKS):
        for step, c in enumerate(ar[r]):
            if c.get("output_bytes") is None:
                problems.append("rank %d all_reduce #%d never returned" % (r, c["seq"]))
                continue
            i, o = floats(c["input_bytes"]), floats(c["output_bytes"])
            want_i = [value(r, step, k) for k in range(len(i))]
            want_o = [sum(value(q, step, k) for q in range(RANKS)) for k in range(len(o))]
            if not i or i != want_i[: len(i)]:
                problems.append("rank %d all_reduce step %d: input bytes %s, want %s" % (r, step, i[:4], want_i[:4]))
            elif not o or o != want_o[: len(o)]:
                problems.append("rank %d all_reduce step %d: output bytes %s, want %s" % (r, step, o[:4], want_o[:4]))
            else:
                checked += 1
        for step, c in enumerate(ag[r]):
            if c.get("output_bytes") is None:
                problems.append("rank %d all_gather #%d never returned" % (r, c["seq"]))
                continue
            i, o = floats(c["input_bytes"]), floats(c["output_bytes"])
            want_i = [gather_value(r, step, k) for k in range(len(i))]
            want_o = [gather_value(0, step, k) for k in range(len(o))]  # the first bytes: rank 0's part
            if not i or i != want_i or not o or o != want_o:
                problems.append("rank %d all_gather step %d: bytes %s / %s, want %s / %s"
                                % (r, step, i[:4], o[:4], want_i[:4], want_o[:4]))
            else:
                checked += 1
    print("%d of %d calls' kept bytes (input and output) equal the ranks' buffers" % (checked, 2 * RANKS * want))
    for p in problems[:8]:
        print("  " + p)
    return 1 if problems or checked == 0 else 0


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "probe":
        print(probe())
        return 0
    if what == "launch":
        return launch(sys.argv[2])
    if what == "rank":
        return rank_main(int(sys.argv[2]))
    if what == "check":
        return check(sys.argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
