#!/bin/bash
# `collviz lecture FILE --export DIR --format pdf`: one PDF of the whole
# deck. Its page count is the steps plus the title slide; the captions are
# text (pdftotext finds them); its first page, rasterized, is the title
# slide's PNG within a small tolerance (the PDF sets the title as text with
# cairo, the PNG draws it with the window's fonts).
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

"$BIN" lecture "$script" --lang en --export "$OUT/png" --format png --size 1920x1080 >"$OUT/png.log" 2>&1 ||
  fail "--format png: exit $?"
pdftoppm -r 72 -f 1 -l 1 -png "$OUT/pdf/deck.pdf" "$OUT/page"
page=$(ls "$OUT"/page*.png | head -1)
[ "$(identify -format %wx%h "$page")" = "1920x1080" ] || fail "page 1 rasterizes to $(identify -format %wx%h "$page")"
# Per 24-pixel cell (glyph edges differ between the two rasterizers; a line
# out of place does not): the mean error of the cells.
convert "$page" -scale 1.25% "$OUT/pdf_small.png"
convert "$OUT/png/step00_title.png" -scale 1.25% "$OUT/png_small.png"
err=$(compare -metric RMSE "$OUT/pdf_small.png" "$OUT/png_small.png" null: 2>&1 | sed -E 's/.*\((.*)\)/\1/')
echo "figure: title page against step00_title.png, RMSE of 24-px cells $err"
awk -v e="$err" 'BEGIN { exit !(e < 0.02) }' || fail "the PDF's title page differs from the title PNG (RMSE $err)"
# The title is not an empty page: it differs from a blank slide.
convert -size 24x14 "xc:#fbfaf7" "$OUT/blank.png"
blank=$(compare -metric RMSE "$OUT/png_small.png" "$OUT/blank.png" null: 2>&1 | sed -E 's/.*\((.*)\)/\1/')
awk -v e="$blank" 'BEGIN { exit !(e > 0.005) }' || fail "the title slide is blank (RMSE $blank against the background)"
echo "ok: the PDF's first page matches the title slide"
exit 0
