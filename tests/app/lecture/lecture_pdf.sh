#!/bin/bash
# `collviz lecture FILE --export DIR --format pdf`: one PDF of the whole
# deck. Its page count is the steps plus the title slide; the captions are
# text (pdftotext finds them); every page, rasterized, is its own slide's
# PNG within a small tolerance (the PDF sets the text with cairo, the PNG
# draws it with the window's fonts) and closer to it than to any other slide
# (so pages reordered or repeated fail).
#   usage: lecture_pdf.sh path/to/collviz source-dir output-dir
set -u
BIN=$1
SRC=$2
OUT=$3
rm -rf "$OUT" && mkdir -p "$OUT"
for tool in pdftotext pdftoppm pdfinfo compare convert; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not found (poppler-utils, imagemagick)"; exit 77; }
done
fail() { echo "FAIL: $*"; exit 1; }
script="$SRC/assets/lectures/article_tour.toml"
steps=$(grep -c '^\[\[step\]\]' "$script")
"$BIN" lecture "$script" --lang en --export "$OUT/pdf" --format pdf --size 1920x1080 >"$OUT/pdf.log" 2>&1 ||
  fail "--format pdf: exit $? ($(tail -3 "$OUT/pdf.log"))"
grep -q "built without cairo" "$OUT/pdf.log" && { echo "SKIP: built without cairo"; exit 77; }
[ -s "$OUT/pdf/deck.pdf" ] || fail "no deck.pdf"
pages=$(pdfinfo "$OUT/pdf/deck.pdf" | awk '/^Pages:/ { print $2 }')
[ "$pages" -eq $((steps + 1)) ] || fail "$pages pages for $steps steps and a title slide"
pdftotext -layout "$OUT/pdf/deck.pdf" "$OUT/deck.txt"
for phrase in "the article's tour" "whole tensor" "exchange by column" ; do
  grep -q "$phrase" "$OUT/deck.txt" || fail "'$phrase' is not text in the PDF"
done
echo "ok: deck.pdf has $pages pages (title + $steps steps); captions extract as text"
# As the live lecture: each step's counter beside its caption ("3 / 15").
for n in 1 $steps; do
  grep -q "$n / $steps" "$OUT/deck.txt" || fail "no step counter '$n / $steps' in the PDF"
done
# index.md links only what the deck wrote (it linked PNGs never written).
links=$(grep -o '](\([^)]*\))' "$OUT/pdf/index.md" | sed -E 's/^]\(//; s/\)$//; s/#.*//' | sort -u)
[ -n "$links" ] || fail "index.md links nothing"
for l in $links; do
  [ -e "$OUT/pdf/$l" ] || fail "index.md links $l, which the deck did not write"
done
echo "ok: step counters in the PDF; index.md links only $(echo $links)"

"$BIN" lecture "$script" --lang en --export "$OUT/png" --format png --size 1920x1080 >"$OUT/png.log" 2>&1 ||
  fail "--format png: exit $?"
pdftoppm -r 72 -png "$OUT/pdf/deck.pdf" "$OUT/page"
mapfile -t pdf_pages < <(ls "$OUT"/page*.png | sort -V)
mapfile -t slides < <(ls "$OUT"/png/step*.png | sort)
[ "${#pdf_pages[@]}" -eq "$pages" ] || fail "pdftoppm made ${#pdf_pages[@]} pages of $pages"
[ "${#slides[@]}" -eq "$pages" ] || fail "${#slides[@]} slide PNGs for $pages PDF pages"
page=${pdf_pages[0]}
[ "$(identify -format %wx%h "$page")" = "1920x1080" ] || fail "page 1 rasterizes to $(identify -format %wx%h "$page")"
# Per 24-pixel cell (glyph edges differ between the two rasterizers; a line
# out of place does not): the mean error of the cells.
rmse() { compare -metric RMSE "$1" "$2" null: 2>&1 | sed -E 's/.*\((.*)\)/\1/'; }
for i in "${!slides[@]}"; do
  convert "${pdf_pages[$i]}" -scale 1.25% "$OUT/pdf_small_$i.png"
  convert "${slides[$i]}" -scale 1.25% "$OUT/png_small_$i.png"
done
# Every page against every slide: page k must match slide k within the
# tolerance, and better than it matches any other slide (a page reordered or
# repeated matches another slide best).
worst=0
for i in "${!slides[@]}"; do
  own=$(rmse "$OUT/pdf_small_$i.png" "$OUT/png_small_$i.png")
  name=$(basename "${slides[$i]}")
  awk -v e="$own" 'BEGIN { exit !(e < 0.02) }' ||
    fail "PDF page $((i + 1)) differs from its slide $name (RMSE $own)"
  worst=$(awk -v a="$worst" -v b="$own" 'BEGIN { print (b > a ? b : a) }')
  for j in "${!slides[@]}"; do
    [ "$j" -eq "$i" ] && continue
    other=$(rmse "$OUT/pdf_small_$i.png" "$OUT/png_small_$j.png")
    awk -v o="$other" -v e="$own" 'BEGIN { exit !(o > e) }' ||
      fail "PDF page $((i + 1)) matches slide $(basename "${slides[$j]}") (RMSE $other) as well as its own $name (RMSE $own): pages out of order or repeated"
  done
done
echo "figure: each of $pages pages against its slide PNG, worst RMSE of 24-px cells $worst"
# The title is not an empty page: it differs from a blank slide.
convert -size 24x14 "xc:#fbfaf7" "$OUT/blank.png"
blank=$(rmse "$OUT/png_small_0.png" "$OUT/blank.png")
awk -v e="$blank" 'BEGIN { exit !(e > 0.005) }' || fail "the title slide is blank (RMSE $blank against the background)"
echo "ok: every page of the PDF matches its own slide, in order"
exit 0
