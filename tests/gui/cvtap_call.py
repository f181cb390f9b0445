#!/usr/bin/env python3
"""One call of a capture, read from its .cvtap files by this reader of our
own (tap/capture_format.h's layout restated, not collviz's reader): each
member's input and output bytes as kept, in hex, one JSON object by rank.

cvtap_call.py CAPTURE_DIR COMM_ID SEQ
"""
import glob
import json
import struct
import sys

HEADER = 4096
COMMITTED = 592  # FileHeader::committed: after magic..reserved (8+4*6+8+8+64+96+128+256)


def pad8(n):
    return (n + 7) & ~7


def calls(path):
    data = open(path, "rb").read()
    assert data[:8] == b"CVZTAP\x01\n", path + ": not a capture file"
    rank = struct.unpack_from("<i", data, 20)[0]
    committed = struct.unpack_from("<Q", data, COMMITTED)[0]
    ids = {}
    at, end = HEADER, HEADER + committed
    while at + 8 <= end:
        kind, _sub, _flags, size = struct.unpack_from("<BBHI", data, at)
        if size < 8 or at + size > end:
            break
        if kind == 1:  # comm
            num = struct.unpack_from("<I", data, at + 8)[0]
            ids[num] = struct.unpack_from("<Q", data, at + 32)[0]
        elif kind == 3:  # call
            comm, seq = struct.unpack_from("<II", data, at + 8)
            in_kept, out_kept = struct.unpack_from("<II", data, at + 36)
            t_exit = struct.unpack_from("<Q", data, at + 56)[0]
            body = at + 64
            out = data[body + pad8(in_kept):body + pad8(in_kept) + out_kept] if t_exit else b""
            yield rank, ids.get(comm), seq, data[body:body + in_kept], out
        at += size


def main():
    folder, comm, seq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    found = {}
    for path in sorted(glob.glob(folder + "/tap-*.cvtap")):
        for rank, c, s, i, o in calls(path):
            if c == comm and s == seq:
                found[str(rank)] = {"in": i.hex(), "out": o.hex()}
    print(json.dumps(found, sort_keys=True))


if __name__ == "__main__":
    main()
