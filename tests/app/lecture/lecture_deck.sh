#!/bin/bash
# `collviz lecture FILE --export DIR` for every shipped script in English and
# Chinese: one PNG and one SVG per step and an index.md; the Chinese SVGs
# hold the Chinese captions, and the Chinese PNGs differ from the English
# ones in the caption area (CJK glyphs drawn, not boxes or blanks). Every
# slide must show a verified result (the export exits 1 otherwise, and no
# SVG may carry a ✗); a deck whose ring rounds are broken on purpose
# (COLLVIZ_FAULT=round_corrupt:2) is written and exits 1 naming the steps.
#   usage: lecture_deck.sh path/to/collviz source-dir output-dir
set -u
BIN=$1
SRC=$2
OUT=$3
rm -rf "$OUT" && mkdir -p "$OUT"
for tool in compare convert; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not found (imagemagick)"; exit 77; }
done
fail() { echo "FAIL: $*"; exit 1; }
for script in "$SRC"/assets/lectures/*.toml; do
  name=$(basename "$script" .toml)
  for lang in en zh; do
    dir="$OUT/$name.$lang"
    "$BIN" lecture "$script" --lang $lang --export "$dir" >"$OUT/$name.$lang.log" 2>&1 ||
      fail "$name --lang $lang: exit $? ($(tail -3 "$OUT/$name.$lang.log"))"
    steps=$(grep -c '^\[\[step\]\]' "$script")
    # One slide per step and the title slide.
    [ "$(ls "$dir"/*.png | wc -l)" -eq $((steps + 1)) ] || fail "$name $lang: $(ls "$dir"/*.png | wc -l) PNGs for $steps steps and a title"
    [ "$(ls "$dir"/*.svg | wc -l)" -eq $((steps + 1)) ] || fail "$name $lang: SVGs missing"
    [ -s "$dir/index.md" ] || fail "$name $lang: no index.md"
    ! grep -l "✗" "$dir"/*.svg || fail "$name $lang: a slide shows ✗ (not verified)"
  done
  grep -q "Reduce-scatter" "$OUT/$name.en/index.md" || fail "$name: the English index has no captions"
  grep -q "每处" "$OUT/$name.zh/"*.svg || fail "$name: no Chinese caption in the Chinese SVGs"
  grep -q "每处" "$OUT/$name.en/"*.svg && fail "$name: Chinese text in the English SVGs"
  for png in "$OUT/$name.zh/"*.png; do
    f=$(basename "$png")
    [ "$f" = step00_title.png ] && continue  # no caption on the title slide
    # The caption sits at the bottom of the slide (no status block unless --status).
    convert "$png" -gravity South -crop 1600x180+0+0 +repage "$OUT/zh_caption.png"
    convert "$OUT/$name.en/$f" -gravity South -crop 1600x180+0+0 +repage "$OUT/en_caption.png"
    d=$(compare -metric AE "$OUT/zh_caption.png" "$OUT/en_caption.png" null: 2>&1 | cut -d' ' -f1 | awk '{ printf "%d", $1 }')
    [ "$d" -gt 1000 ] || fail "$name/$f: the Chinese caption area differs by only $d pixels from the English"
  done
  echo "ok: $name exports in en and zh ($(ls "$OUT/$name.zh/"*.png | wc -l) steps each)"
done

# Honest exit: rounds broken on purpose are written, and the exit says so.
# A round fault acts on algorithm runs only (on a native step it is refused,
# exit 2): the deck is ring all-reduce's rounds.
script="$OUT/ring_rounds.toml"
cat >"$script" <<'TOML'
title.en = "Ring all-reduce, round by round"
[[step]]
op = "all_reduce"
ranks = 4
elems = 4
algo = "ring"
round = 1
caption.en = "Ring all-reduce, round 1."
[[step]]
round = 3
caption.en = "Round 3: the second round of reduce-scatter is behind us."
TOML
dir="$OUT/broken"
rc=0
COLLVIZ_FAULT=round_corrupt:2 "$BIN" lecture "$script" --lang en --format svg --export "$dir" \
  >"$OUT/broken.log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "a deck with a broken round exited $rc, not 1 ($(tail -3 "$OUT/broken.log"))"
[ -s "$dir/index.md" ] || fail "the broken deck was not written"
grep -q "step(s) not verified" "$OUT/broken.log" || fail "the exit names no unverified step: $(tail -5 "$OUT/broken.log")"
grep -q "round 2/6 (reduce-scatter 2/3): " "$OUT/broken.log" ||
  fail "the unverified steps do not name round 2: $(tail -5 "$OUT/broken.log")"
echo "ok: a deck with round 2 broken exits 1 and names it ($(grep -c 'round 2/6' "$OUT/broken.log") step(s))"
exit 0
