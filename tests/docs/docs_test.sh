#!/bin/bash
# The docs stay true. In README.md and every docs/*.md:
#  - every ```toml example loads as a lecture script and exports (as SVG);
#  - every `collviz …` command line quoted in a code block that does not open
#    a window runs, each under a short timeout, and exits 0 (1 where the line
#    sets COLLVIZ_FAULT: a fault on purpose must fail).
# Lines with placeholders ([options], FILE, DIR, a|b) are not commands to run;
# lines that need NCCL run only where NCCL is available, PNG and GIF only where
# a display or xvfb-run is.
# Usage: docs_test.sh COLLVIZ SOURCE_DIR WORK_DIR
set -u
BIN=$(realpath "$1") SRC=$(realpath "$2") OUT=$3
TIMEOUT=${DOCS_TEST_TIMEOUT:-120}
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
docs=("$SRC/README.md" "$SRC"/docs/*.md)
fails=0 ran=0 skipped=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

nccl=0
"$BIN" devices 2>/dev/null | grep -q '^nccl *available' && nccl=1
png=0
{ [ -n "${DISPLAY:-}" ] || command -v xvfb-run >/dev/null; } && png=1

# 1. TOML examples: each block into a file of its own, then loaded.
n=0
for doc in "${docs[@]}"; do
  base=$(basename "$doc" .md)
  awk -v out="$OUT/toml_$base" '
    /^```toml/ { n++; f = out "_" n ".toml"; inb = 1; next }
    /^```/ { if (inb) { inb = 0; close(f) } next }
    inb { print > f }' "$doc"
done
for f in "$OUT"/toml_*.toml; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  deck="$OUT/deck_$(basename "$f" .toml)"
  if timeout "$TIMEOUT" "$BIN" lecture "$f" --export "$deck" --format svg >"$deck.log" 2>&1; then
    ran=$((ran + 1))
    ls "$deck"/*.svg >/dev/null 2>&1 || bad "$f: loaded but drew no slide"
  else
    bad "$f (a TOML example) does not load and export: $(tail -3 "$deck.log")"
  fi
done
[ "$n" -ge 1 ] || bad "no \`\`\`toml example found in the docs"

# 2. Command lines in code blocks, continuation lines joined.
lines="$OUT/commands.txt"
for doc in "${docs[@]}"; do
  awk -v doc="$(basename "$doc")" '
    /^```/ { inb = !inb; next }
    !inb { next }
    { line = (cont ? cont " " : "") $0; cont = "" }
    line ~ /\\$/ { sub(/[ \t]*\\$/, "", line); cont = line; next }
    { print doc "\t" line }' "$doc"
done >"$lines"

i=0
while IFS=$'\t' read -r doc line; do
  cmd=${line#\$ }
  cmd=${cmd#time }
  cmd=$(sed -E 's/[[:space:]]+#.*$//; s/^[[:space:]]+//' <<<"$cmd")
  envs=()
  while [[ $cmd =~ ^([A-Z_][A-Z0-9_]*=[^[:space:]]*)[[:space:]]+(.*)$ ]]; do
    envs+=("${BASH_REMATCH[1]}")
    cmd=${BASH_REMATCH[2]}
  done
  case "$cmd" in
    collviz|build/bin/collviz) continue ;;  # the window
    "collviz "*) args=${cmd#collviz } ;;
    "build/bin/collviz "*) args=${cmd#build/bin/collviz } ;;
    *) continue ;;
  esac
  # Placeholders and synopses ("collviz run     [options]   what it does") are not commands to run.
  if [[ $args =~ ^[[:space:]] || $args =~ [[:space:]]{2} || $args =~ \[|\||FILE|\ DIR|ALGO|\ OP\ |…|\.\.\.|\ F$ ]]; then skipped=$((skipped + 1)); continue; fi
  # A command's output quoted in a block ("collviz watch: a hang: …"), not a command.
  if [[ $args =~ ^[a-z-]+: ]]; then skipped=$((skipped + 1)); continue; fi
  # collviz watch runs a program of the reader's (tests/watch runs real ones: LAMMPS, mpi4py, Fortran).
  if [[ $args == watch\ * ]]; then
    echo "skip (runs the reader's own program; tests/watch runs real ones): $cmd"; skipped=$((skipped + 1)); continue
  fi
  # A lecture without --export opens the window.
  if [[ $args == lecture* && $args != *--export* ]]; then skipped=$((skipped + 1)); continue; fi
  if [[ $args == *"--backend nccl"* && $nccl == 0 ]]; then
    echo "skip (no NCCL here): $cmd"; skipped=$((skipped + 1)); continue
  fi
  # Hosts of the reader's own (a, b, hosts.txt): the emulated hosts run these (tests/hosts).
  if [[ $args == *"--hosts "* || $args == *"--hostfile "* ]]; then
    echo "skip (needs the reader's hosts; tests/hosts runs them on emulated hosts): $cmd"; skipped=$((skipped + 1)); continue
  fi
  if [[ $png == 0 ]] && { [[ $args == export* && $args != *.svg* && $args != *"--format svg"* ]] ||
                          [[ $args == lecture* && $args != *"--format svg"* ]]; }; then
    echo "skip (no display, no xvfb-run): $cmd"; skipped=$((skipped + 1)); continue
  fi
  i=$((i + 1))
  dir="$OUT/cmd_$i"
  mkdir -p "$dir" && ln -sfn "$SRC/assets" "$dir/assets" && mkdir -p "$dir/tests/engine/algo" && ln -sfn "$SRC/tests/engine/algo/msccl" "$dir/tests/engine/algo/msccl"
  want=0
  for e in "${envs[@]}"; do [[ $e == COLLVIZ_FAULT=?* ]] && want=1; done
  eval "set -- $args"
  (cd "$dir" && timeout "$TIMEOUT" env "${envs[@]}" "$BIN" "$@") >"$dir.log" 2>&1
  rc=$?
  ran=$((ran + 1))
  if [ "$rc" -ne "$want" ]; then
    bad "$doc: \`$line\` exited $rc (expected $want): $(tail -3 "$dir.log")"
  else
    echo "ok ($rc): $doc: $cmd"
  fi
done <"$lines"

echo "docs: $ran examples and commands ran, $skipped skipped, $fails failed"
[ "$i" -ge 10 ] || bad "only $i command lines found: the extraction is broken"
[ "$fails" -eq 0 ]
