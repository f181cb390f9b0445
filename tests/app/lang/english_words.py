#!/usr/bin/env python3
"""Latin words a Chinese reader would see that are not on the allow list.

english_words.py [--svg] FILE...   (FILE '-' reads standard input)

Prints each word left over with the line it stood in, and exits 1 when
there is one. Not words: tokens holding a digit, an underscore between
letters of an identifier on the list, a path or flag (/, --, =, .),
single capital letters (block names A, B, ...) and R0-style rank names.
With --svg, reads the text of <text> and <tspan> elements only.
"""
import html
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def allowed():
    words = set()
    with open(os.path.join(HERE, "allowed_english.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                words.add(line)
    return words


def svg_lines(text):
    out = []
    for m in re.finditer(r"<text\b[^>]*>(.*?)</text>", text, re.S):
        inner = re.sub(r"<[^>]+>", "", m.group(1))
        out.append(html.unescape(inner))
    return out


TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_\-']*(?:\.[A-Za-z0-9_]+)*")


def leftovers(line, ok):
    bad = []
    line = line.replace("\u2010", "-").replace("\u2011", "-")
    # ImGui ids (label###id), printf specs (%d, %.1f), code in backticks.
    line = re.sub(r"###\S*", " ", line)
    line = re.sub(r"%[-+ #0-9.]*[a-zA-Z]", " ", line)
    line = re.sub(r"`[^`]*`", " ", line)
    # key=value settings (ranks=4 dtype=f32) name options: identifiers.
    line = re.sub(r"\b[a-z_]+=\S*", " ", line)
    # A script's fields as written there: trace = 3, algo_file = "x".
    line = re.sub(r"(?<![\w-])[a-z_]+ = ", " ", line)
    # A quoted value ("all") is what the reader types.
    line = re.sub(r'"[^"]*"', " ", line)
    # Flags, paths, env settings and file names are identifiers.
    cleaned = re.sub(r"((?<![\w-])--?[a-z][\w-]*(=\S*)?|\S*/\S*|[A-Z_]{3,}=\S*|\S+\.(png|svg|pdf|gif|json|toml|xml|md)\b)", " ", line)
    for m in TOKEN.finditer(cleaned):
        w = m.group(0).rstrip("-'")
        if not w or w in ok:
            continue
        if any(c.isdigit() for c in w):  # R0, float32, 2x, H200
            continue
        if "." in w:  # a file or a dotted name
            continue
        if len(w) == 1 and w.isupper():  # block names A, B, C
            continue
        if all(len(part) == 1 for part in w.split("-")):  # N-p, r-s: variables
            continue
        if re.fullmatch(r"[A-Z][A-Z_]+", w) and "_" in w:  # COLLVIZ_FAULT
            continue
        bad.append(w)
    return bad


def main(argv):
    svg = False
    files = []
    for a in argv:
        if a == "--svg":
            svg = True
        else:
            files.append(a)
    ok = allowed()
    found = 0
    for path in files:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
        lines = svg_lines(text) if svg else text.splitlines()
        for line in lines:
            bad = leftovers(line, ok)
            if bad:
                found += len(bad)
                print(f"{path}: {', '.join(bad)}  <- {line.strip()[:160]}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
