#!/usr/bin/env python3
"""Writes the MSCCL algorithm files collviz's tests run (tests/engine/algo/msccl/good)
and the broken ones its checker must refuse (tests/engine/algo/msccl/bad, with
bad/expect.txt: file, line, words the error must contain).

Run from anywhere: python3 tests/engine/algo/msccl/gen_fixtures.py (also writes the
benchmark's files, tests/engine/algo/msccl/bench).
The files are committed; run this again after changing it.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Tb:
    def __init__(self, tid, send=-1, recv=-1, chan=0):
        self.id, self.send, self.recv, self.chan = tid, send, recv, chan
        self.steps = []

    def step(self, typ, srcbuf="i", srcoff=0, dstbuf="i", dstoff=0, cnt=1, depid=-1, deps=-1):
        self.steps.append(dict(type=typ, srcbuf=srcbuf, srcoff=srcoff, dstbuf=dstbuf,
                               dstoff=dstoff, cnt=cnt, depid=depid, deps=deps, hasdep=0))
        return len(self.steps) - 1


class Algo:
    def __init__(self, name, coll, ngpus, inplace, nchannels=1, proto="Simple"):
        self.name, self.coll, self.ngpus, self.inplace = name, coll, ngpus, inplace
        self.nchannels, self.proto = nchannels, proto
        self.gpus = {}  # id -> (i, o, s, [Tb])
        self.nchunks = None  # nchunksperloop when not the largest i_chunks or o_chunks

    def gpu(self, g, i, o, s=0):
        self.gpus[g] = (i, o, s, [])
        return self.gpus[g][3]

    def xml(self):
        # hasdep: 1 on every step another step names in depid/deps
        for (_, _, _, tbs) in self.gpus.values():
            for tb in tbs:
                for st in tb.steps:
                    if st["depid"] >= 0:
                        dep = next(t for t in tbs if t.id == st["depid"])
                        dep.steps[st["deps"]]["hasdep"] = 1
        most = self.nchunks or max(max(i, o) for (i, o, _, _) in self.gpus.values())
        out = [f'<algo name="{self.name}" proto="{self.proto}" nchannels="{self.nchannels}" '
               f'nchunksperloop="{most}" ngpus="{self.ngpus}" coll="{self.coll}" '
               f'inplace="{1 if self.inplace else 0}">']
        for g in sorted(self.gpus):
            i, o, s, tbs = self.gpus[g]
            out.append(f'  <gpu id="{g}" i_chunks="{i}" o_chunks="{o}" s_chunks="{s}">')
            for tb in tbs:
                out.append(f'    <tb id="{tb.id}" send="{tb.send}" recv="{tb.recv}" chan="{tb.chan}">')
                for k, st in enumerate(tb.steps):
                    out.append(f'      <step s="{k}" type="{st["type"]}" srcbuf="{st["srcbuf"]}" '
                               f'srcoff="{st["srcoff"]}" dstbuf="{st["dstbuf"]}" dstoff="{st["dstoff"]}" '
                               f'cnt="{st["cnt"]}" depid="{st["depid"]}" deps="{st["deps"]}" '
                               f'hasdep="{st["hasdep"]}"/>')
                out.append('    </tb>')
            out.append('  </gpu>')
        out.append('</algo>')
        return "\n".join(out) + "\n"


def ring_allreduce(n, channels=1, parts=None, inplace=False, name=None):
    """Ring all_reduce from plain s/r/rrc steps. Chunk of block b on channel
    ch: b*channels + ch. Out of place: the reduce-scatter reads the input and
    writes the output (rrc with src != dst), the all-gather fills the output."""
    parts = channels if parts is None else parts
    a = Algo(name or f"ring_allreduce_{n}_{channels}ch", "allreduce", n, inplace, channels)
    outbuf = "i" if inplace else "o"
    for r in range(n):
        tbs = a.gpu(r, n * parts, n * parts)
        for ch in range(channels):
            tb = Tb(ch, (r + 1) % n, (r - 1) % n, ch)
            tbs.append(tb)
            for p in range(ch, parts, channels):
                c = lambda b: ((b % n) * parts) + p
                tb.step("s", "i", c(r), outbuf, c(r))
                for k in range(1, n):
                    b = r - k
                    tb.step("rrc", "i", c(b), outbuf, c(b))
                    tb.step("s", outbuf, c(b), outbuf, c(b))
                for k in range(0, n - 2):
                    b = r - k
                    tb.step("r", "i", c(b), outbuf, c(b))
                    tb.step("s", outbuf, c(b), outbuf, c(b))
                tb.step("r", "i", c(r - (n - 2)), outbuf, c(r - (n - 2)))
    return a


def ring_allreduce_fused(n):
    """NCCL's ring as fused steps, in place: s, rrs x (N-2), rrcs, rcs x (N-2), r."""
    a = Algo(f"ring_allreduce_fused_{n}", "allreduce", n, True)
    for r in range(n):
        tb = Tb(0, (r + 1) % n, (r - 1) % n)
        a.gpu(r, n, n).append(tb)
        c = lambda x: x % n
        tb.step("s", "i", c(r), "i", c(r))
        for t in range(1, n - 1):
            tb.step("rrs", "i", c(r - t), "i", c(r - t))
        tb.step("rrcs", "i", c(r + 1), "i", c(r + 1))
        for t in range(n, 2 * n - 2):
            tb.step("rcs", "i", c(r - t + n), "i", c(r - t + n))
        tb.step("r", "i", c(r + 2), "i", c(r + 2))
    return a


def allpairs_allreduce(n, nop=False):
    """All-pairs all_reduce with a scratch buffer: every rank sends chunk j to
    rank j's scratch, reduces what it got into its own chunk (re), then sends
    that chunk to everyone. The local tb waits on every receive through
    depid/deps, or (nop=True) through nop steps and one depid."""
    a = Algo(f"allpairs_allreduce_{n}" + ("_nop" if nop else ""), "allreduce", n, True)
    for r in range(n):
        tbs = a.gpu(r, n, n, n)
        peers = [j for j in range(n) if j != r]
        local = Tb(len(peers))
        for k, j in enumerate(peers):
            tb = Tb(k, j, j)
            tb.step("s", "i", j, "s", r)
            tb.step("r", "i", r, "s", j)
            tbs.append(tb)
        if nop:
            for k in range(len(peers) - 1):
                local.step("nop", "i", 0, "i", 0, depid=k, deps=1)
            for k, j in enumerate(peers):
                last = len(peers) - 1
                local.step("re", "s", j, "i", r, depid=last if k == 0 else -1, deps=1 if k == 0 else -1)
        else:
            for k, j in enumerate(peers):
                local.step("re", "s", j, "i", r, depid=k, deps=1)
        tbs.append(local)
        last_re = len(local.steps) - 1
        for k, j in enumerate(peers):
            tbs[k].step("s", "i", r, "i", r, depid=local.id, deps=last_re)
            tbs[k].step("r", "i", j, "i", j)
    return a


def ring_allgather(n):
    a = Algo(f"ring_allgather_{n}", "allgather", n, False)
    for r in range(n):
        tb = Tb(0, (r + 1) % n, (r - 1) % n)
        a.gpu(r, 1, n).append(tb)
        tb.step("cpy", "i", 0, "o", r)
        for k in range(n - 1):
            tb.step("s", "o", (r - k) % n, "o", (r - k) % n)
            tb.step("r", "o", (r - k - 1) % n, "o", (r - k - 1) % n)
    return a


def ring_allgather_inplace(n):
    """In place, the output omitted (o_chunks="0"): o is the op's output,
    and rank r's input is its block r of it."""
    a = Algo(f"ring_allgather_{n}_inplace", "allgather", n, True)
    a.nchunks = n
    for r in range(n):
        tb = Tb(0, (r + 1) % n, (r - 1) % n)
        a.gpu(r, 1, 0).append(tb)
        for k in range(n - 1):
            tb.step("s", "o", (r - k) % n, "o", (r - k) % n)
            tb.step("r", "o", (r - k - 1) % n, "o", (r - k - 1) % n)
    return a


def ring_allreduce_ll_nop(n, channels=2, parts=8):
    """A ring all_reduce as the MSCCL runtime's files have it: LL protocol,
    2 channels, 32 chunks per loop, and nop steps (cnt="0", srcoff and
    dstoff -1) that only wait: channel 1 starts after channel 0's first
    send, and a third tb waits on both channels' last receives."""
    a = ring_allreduce(n, channels, parts=parts, inplace=True, name=f"ring_allreduce_{n}_ll_nop")
    a.proto = "LL"
    for r in range(n):
        tbs = a.gpus[r][3]
        tbs[1].steps.insert(0, dict(type="nop", srcbuf="i", srcoff=-1, dstbuf="o", dstoff=-1, cnt=0,
                                    depid=0, deps=0, hasdep=0))
        done = Tb(channels)
        for ch in range(channels):
            done.step("nop", "i", -1, "o", -1, cnt=0, depid=ch, deps=len(tbs[ch].steps) - 1)
        tbs.append(done)
    return a


def allpairs_alltoall(n):
    a = Algo(f"allpairs_alltoall_{n}", "alltoall", n, False)
    for r in range(n):
        tbs = a.gpu(r, n, n)
        peers = [j for j in range(n) if j != r]
        for k, j in enumerate(peers):
            tb = Tb(k, j, j)
            tb.step("s", "i", j, "o", r)
            tb.step("r", "i", r, "o", j)
            tbs.append(tb)
        local = Tb(len(peers))
        local.step("cpy", "i", r, "o", r)
        tbs.append(local)
    return a


GOOD = {
    "ring_allreduce_4_1ch.xml": lambda: ring_allreduce(4, 1),
    "ring_allreduce_4_2ch.xml": lambda: ring_allreduce(4, 2, inplace=True),
    "allpairs_allreduce_4_scratch.xml": lambda: allpairs_allreduce(4),
    "allpairs_allreduce_4_nop.xml": lambda: allpairs_allreduce(4, nop=True),
    "ring_allgather_4.xml": lambda: ring_allgather(4),
    "allpairs_alltoall_4.xml": lambda: allpairs_alltoall(4),
    "ring_allreduce_4_fused.xml": lambda: ring_allreduce_fused(4),
    "ring_allgather_4_inplace.xml": lambda: ring_allgather_inplace(4),
    "ring_allreduce_4_ll_nop.xml": lambda: ring_allreduce_ll_nop(4),
}


def line_of(text, needle, nth=1):
    at = -1
    for _ in range(nth):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1


def bad_files():
    """(name, text, line, words): each breaks one check of the table."""
    base = ring_allreduce(4, 1).xml()
    out = []

    def sub(name, old, new, words, nth=1, line_needle=None):
        at = -1
        for _ in range(nth):
            at = base.index(old, at + 1)
        text = base[:at] + new + base[at + len(old):]
        line = base.count("\n", 0, at) + 1 if line_needle is None else line_of(text, line_needle)
        out.append((name, text, line, words))

    out.append(("not_xml.xml", base.replace("</gpu>", "</gpux>", 1), line_of(base, "</gpu>"), "not well-formed XML"))
    out.append(("top_element.xml", "<algorithm/>\n", 1, "starts with <algo>"))
    sub("missing_attr.xml", ' ngpus="4"', "", "has no attribute ngpus")
    sub("not_integer.xml", 'srcoff="0"', 'srcoff="zero"', "is not an integer")
    sub("coll_unknown.xml", 'coll="allreduce"', 'coll="allshuffle"', "is not a collective")
    sub("coll_custom.xml", 'coll="allreduce"', 'coll="custom"', "known collective")
    sub("proto_unknown.xml", 'proto="Simple"', 'proto="Fast"', "is not a protocol")
    sub("ngpus_range.xml", 'ngpus="4"', 'ngpus="99"', "ngpus = 99")
    sub("gpu_out_of_range.xml", '<gpu id="3"', '<gpu id="7"', "out of range")
    sub("gpu_twice.xml", '<gpu id="3"', '<gpu id="2"', "appears twice")
    sub("i_chunks.xml", 'i_chunks="4"', 'i_chunks="5"', "i_chunks = 5", nth=2)
    sub("o_chunks.xml", 'o_chunks="4"', 'o_chunks="3"', "o_chunks = 3", nth=2)
    sub("nchunksperloop.xml", 'nchunksperloop="4"', 'nchunksperloop="8"', "nchunksperloop = 8")
    sub("step_order.xml", '<step s="1"', '<step s="7"', "numbered")
    sub("step_type.xml", 'type="rrc"', 'type="rrx"', "is not a step type")
    sub("buffer_name.xml", 'srcbuf="i"', 'srcbuf="x"', "is not a buffer")
    sub("offset_range.xml", 'dstoff="1"', 'dstoff="9"', "out of range")
    sub("cnt_zero.xml", 'cnt="1"', 'cnt="0"', "cnt = 0")
    sub("peer_self.xml", 'send="1" recv="3"', 'send="0" recv="3"', "is not another gpu")
    sub("chan_range.xml", 'chan="0"', 'chan="3"', "chan = 3")
    sub("send_no_peer.xml", 'send="1" recv="3"', 'send="-1" recv="3"', 'send="-1"',
        line_needle='<step s="0" type="s"')
    sub("dep_tb.xml", 'depid="-1" deps="-1"', 'depid="5" deps="0"', "not a threadblock")
    sub("dep_step.xml", 'depid="-1" deps="-1"', 'depid="0" deps="40"', "deps = 40")
    sub("dep_half.xml", 'depid="-1" deps="-1"', 'depid="0" deps="-1"', "both -1")
    # gpu 0 sends one message fewer: its last send to gpu 1 is gone, so gpu 1's
    # last receive from it has no send.
    text = base
    g0 = text.index('<gpu id="0"')
    last_s = text.rindex('type="s"', g0, text.index('</gpu>', g0))
    ls = text.rindex("\n", 0, last_s)
    le = text.index("\n", last_s)
    text = text[:ls] + text[le:]
    # renumber the steps after the removed one
    lines = text.split("\n")
    tb_start = next(i for i, l in enumerate(lines) if '<gpu id="0"' in l) + 1
    k = 0
    for i in range(tb_start + 1, len(lines)):
        if "</tb>" in lines[i]:
            break
        lines[i] = re.sub(r'<step s="\d+"', f'<step s="{k}"', lines[i])
        k += 1
    text = "\n".join(lines)
    g1 = text.index('<gpu id="1"')
    last_r = text.rindex('type="r"', g1, text.index('</gpu>', g1))
    out.append(("recv_unmatched.xml", text, text.count("\n", 0, last_r) + 1, "no matching send"))
    # a send more: gpu 0's last step becomes a send
    text = base
    g0 = text.index('<gpu id="0"')
    last_r = text.rindex('type="r"', g0, text.index('</gpu>', g0))
    text = text[:last_r] + 'type="s"' + text[last_r + len('type="r"'):]
    # gpu 0 now sends 7 messages to gpu 1, which receives 6
    out.append(("send_unmatched.xml", text, text.count("\n", 0, last_r) + 1, "no matching receive"))
    sub("cnt_mismatch.xml", 'type="rrc" srcbuf="i" srcoff="3" dstbuf="o" dstoff="3" cnt="1"',
        'type="rrc" srcbuf="i" srcoff="2" dstbuf="o" dstoff="2" cnt="2"', "matching send")
    # two tbs of gpu 0 send to gpu 1 on channel 0
    text = base.replace('<tb id="0" send="1" recv="3" chan="0">\n',
                        '<tb id="0" send="1" recv="3" chan="0">\n', 1)
    g0_end = text.index("</gpu>")
    extra = ('    <tb id="1" send="1" recv="-1" chan="0">\n'
             '      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>\n'
             '    </tb>\n  ')
    text = text[:g0_end] + extra + text[g0_end:]
    out.append(("two_tbs.xml", text, line_of(text, '<tb id="1" send="1"'), "two threadblocks"))
    # a send to a gpu that has no receive on that channel at all: gpu 0
    # gains a threadblock on channel 1 sending to gpu 1, which has none
    # there (issue 39: a checker weakened to let it through ran "verified"
    # with the send dropped)
    text = base.replace('nchannels="1"', 'nchannels="2"', 1)
    g0_end = text.index("</gpu>")
    extra = ('    <tb id="1" send="1" recv="-1" chan="1">\n'
             '      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>\n'
             '    </tb>\n  ')
    text = text[:g0_end] + extra + text[g0_end:]
    out.append(("send_no_receiver.xml", text, line_of(text, '<tb id="1" send="1" recv="-1" chan="1">') + 1,
                "to gpu 1 on channel 1, which receives only 0 from gpu 0 on that channel: no matching receive"))
    # a cycle: gpu 0's first step waits on its own last one
    sub("cycle.xml", '<step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1"',
        '<step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="0" deps="11"',
        "dependency cycle")
    out.append(in_flight())
    return out


def in_flight():
    """gpu 0 posts chunk i0 to gpu 1 in round 1 and overwrites it in round 1
    (a receive on channel 1), but gpu 1 can take it only in round 2 (its
    receive waits, through a local step, on another receive)."""
    a = Algo("in_flight", "allreduce", 2, True, nchannels=3)
    g0 = a.gpu(0, 2, 2)
    t = Tb(0, 1, -1, 0)
    t.step("s", "i", 0, "i", 0)
    g0.append(t)
    t = Tb(1, -1, 1, 1)
    t.step("r", "i", 1, "i", 0)
    g0.append(t)
    t = Tb(2, 1, -1, 2)
    t.step("s", "i", 1, "s", 0)
    g0.append(t)
    g1 = a.gpu(1, 2, 2, 2)
    late = Tb(0, -1, 0, 0)
    late.step("r", "i", 0, "s", 1, depid=2, deps=0)
    g1.append(late)
    t = Tb(1, 0, -1, 1)
    t.step("s", "i", 1, "i", 0)
    g1.append(t)
    t = Tb(2)
    t.step("cpy", "s", 0, "s", 0, depid=3, deps=0)
    g1.append(t)
    t = Tb(3, -1, 0, 2)
    t.step("r", "i", 1, "s", 0)
    g1.append(t)
    text = a.xml()
    return ("in_flight.xml", text, line_of(text, '<step s="0" type="s"'), "lockstep rounds")


# The benchmark's files: 8 ranks x 16 chunks per block = 128 chunks per loop,
# a ring all_reduce on 16 channels (one lane of chunks each: 14 rounds) and
# on one channel (the lanes one after another: 16 x 14 rounds).
BENCH = {
    "ring_allreduce_8_128chunks_16ch.xml": lambda: ring_allreduce(8, 16, parts=16, inplace=True,
                                                                  name="ring_allreduce_8_128chunks_16ch"),
    "ring_allreduce_8_128chunks_1ch.xml": lambda: ring_allreduce(8, 1, parts=16, inplace=True,
                                                                 name="ring_allreduce_8_128chunks_1ch"),
}


def main():
    for d in ("good", "bad", "bench"):
        os.makedirs(os.path.join(HERE, d), exist_ok=True)
    for name, make in BENCH.items():
        with open(os.path.join(HERE, "bench", name), "w") as f:
            f.write(make().xml())
    for name, make in GOOD.items():
        with open(os.path.join(HERE, "good", name), "w") as f:
            f.write(make().xml())
    expect = []
    for name, text, line, words in bad_files():
        with open(os.path.join(HERE, "bad", name), "w") as f:
            f.write(text)
        expect.append(f"{name}\t{line}\t{words}")
    with open(os.path.join(HERE, "bad", "expect.txt"), "w") as f:
        f.write("\n".join(expect) + "\n")


if __name__ == "__main__":
    main()
