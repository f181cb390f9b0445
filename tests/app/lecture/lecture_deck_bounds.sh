#!/bin/bash
# A deck's promises beyond its pictures:
# - the same script exported twice as PDF gives the same bytes (the
#   document's date is SOURCE_DATE_EPOCH, else the script's own time; never
#   the time of the export);
# - a PDF deck's memory does not grow with its pages (pages are streamed
#   into deck.pdf, not held): peak RSS of 80 steps within 40 MB of 20 steps
#   (held pages grew 6.5 MB a page at 1600x1000);
# - a deck that cannot be finished (a full disk; Ctrl-C) leaves nothing:
#   no slides written so far, no lone deck.pdf, no empty folder it made;
# - --size with more than five digits is "out of range", as in export;
#   a newline in the folder's name is printed escaped, never raw.
#   usage: lecture_deck_bounds.sh path/to/collviz output-dir
set -u
BIN=$1
OUT=$2
rm -rf "$OUT" && mkdir -p "$OUT"
fail() { echo "FAIL: $*"; exit 1; }
steps() {  # steps N > FILE: N one-line all-reduce steps
  echo 'title.en = "bounds"'
  for i in $(seq "$1"); do
    printf '[[step]]\nop = "all_reduce"\nranks = 2\nelems = 2\nbackend = "gloo"\ncaption.en = "step %d"\n' "$i"
  done
}
steps 20 >"$OUT/s20.toml"
steps 80 >"$OUT/s80.toml"
"$BIN" lecture "$OUT/s20.toml" --export "$OUT/a" --format pdf --size 800x500 >"$OUT/a.log" 2>&1 || fail "pdf: exit $? ($(tail -2 "$OUT/a.log"))"
grep -q "built without cairo" "$OUT/a.log" && { echo "SKIP: built without cairo"; exit 77; }
sleep 1.1  # a date taken from the clock would now differ by a second
"$BIN" lecture "$OUT/s20.toml" --export "$OUT/b" --format pdf --size 800x500 >/dev/null 2>&1 || fail "pdf again: exit $?"
cmp -s "$OUT/a/deck.pdf" "$OUT/b/deck.pdf" || fail "the same deck exported twice differs: $(cmp "$OUT/a/deck.pdf" "$OUT/b/deck.pdf")"
SOURCE_DATE_EPOCH=86400 "$BIN" lecture "$OUT/s20.toml" --export "$OUT/c" --format pdf --size 800x500 >/dev/null 2>&1 || fail "pdf with SOURCE_DATE_EPOCH: exit $?"
grep -aq "CreationDate (19700102000000" "$OUT/c/deck.pdf" || fail "SOURCE_DATE_EPOCH=86400 is not the PDF's CreationDate: $(grep -a CreationDate "$OUT/c/deck.pdf")"
echo "ok: the same PDF deck twice is byte-identical; SOURCE_DATE_EPOCH sets its date"

peak() {  # peak RSS in KB of the command
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
p20=$(peak "$BIN" lecture "$OUT/s20.toml" --export "$OUT/m20" --format pdf --size 1600x1000) || fail "20 steps"
p80=$(peak "$BIN" lecture "$OUT/s80.toml" --export "$OUT/m80" --format pdf --size 1600x1000) || fail "80 steps"
echo "figure: peak RSS of a PDF deck at 1600x1000: 20 steps $((p20 / 1024)) MB, 80 steps $((p80 / 1024)) MB"
[ $((p80 - p20)) -lt 40960 ] || fail "memory grows with the pages: $((p20 / 1024)) MB for 20 steps, $((p80 / 1024)) MB for 80"
[ "$(grep -c '^\[\[step\]\]' "$OUT/s80.toml")" -eq 80 ] || fail "the 80-step script"
rm -rf "$OUT"/m20 "$OUT"/m80

out=$("$BIN" lecture "$OUT/s20.toml" --export "$OUT/x" --size 100000x100000 2>&1)
[ $? -eq 2 ] || fail "--size 100000x100000: not exit 2"
echo "$out" | grep -q "out of range" || fail "--size 100000x100000 says: $out"
echo "$out" | grep -q "not WIDTHxHEIGHT" && fail "--size 100000x100000 is called malformed: $out"
nl_dir="$OUT/two
lines"
"$BIN" lecture "$OUT/s20.toml" --export "$nl_dir" --format svg --size 800x500 >"$OUT/nl.log" 2>&1 || fail "a folder with a newline: exit $?"
grep -q '^lines/' "$OUT/nl.log" && fail "a newline in the folder's name reaches the terminal raw: $(head -2 "$OUT/nl.log")"
grep -qF 'two\x0alines/index.md' "$OUT/nl.log" || fail "the folder's name is not shown escaped: $(tail -1 "$OUT/nl.log")"
rm -rf "$nl_dir"
echo "ok: --size out of range is named so; a newline in a name is printed escaped"

# Ctrl-C part way through a PNG deck: nothing of it stays.
"$BIN" lecture "$OUT/s80.toml" --export "$OUT/int/deck" --format png --size 1600x1000 >"$OUT/int.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ -n "$(ls "$OUT/int/deck" 2>/dev/null | grep png)" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
[ $rc -eq 130 ] || [ $rc -eq 0 ] || fail "Ctrl-C: exit $rc ($(tail -2 "$OUT/int.log"))"
if [ $rc -eq 130 ]; then
  [ -e "$OUT/int/deck" ] && fail "Ctrl-C left $(ls -A "$OUT/int/deck" | head -3 | tr '\n' ' ')"
  [ -e "$OUT/int" ] && fail "Ctrl-C left the folder it made: $OUT/int"
  echo "ok: Ctrl-C part way through a deck leaves no slide and no folder"
fi

# A full disk (a 1 MiB tmpfs, as root): the deck fails, exit 2, and leaves nothing.
mnt="$OUT/full"
mkdir -p "$mnt"
if mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
  trap 'umount "$mnt" 2>/dev/null' EXIT
  for fmt in png pdf; do
    "$BIN" lecture "$OUT/s20.toml" --export "$mnt/deck" --format $fmt --size 1600x1000 >"$OUT/full.$fmt.log" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "a full disk ($fmt): exit $rc ($(tail -2 "$OUT/full.$fmt.log"))"
    grep -q "No space left" "$OUT/full.$fmt.log" || fail "a full disk ($fmt) is not named: $(tail -2 "$OUT/full.$fmt.log")"
    [ -z "$(ls -A "$mnt")" ] || fail "a full disk ($fmt) left: $(ls -A "$mnt" "$mnt"/* 2>/dev/null | head -5 | tr '\n' ' ')"
  done
  umount "$mnt"
  trap - EXIT
  echo "ok: a deck into a full disk exits 2 naming it and leaves nothing"
else
  echo "note: no tmpfs could be mounted here (not root?): the full-disk case did not run"
fi
exit 0
