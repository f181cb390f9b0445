#!/usr/bin/env bash
# collviz's licence, said in every place a reader or a packager looks:
#  - LICENSE at the top of the source: the MIT licence, "Copyright (c) 2026
#    the collviz authors";
#  - the Debian copyright file (packaging/copyright, or the one given, e.g.
#    from an unpacked .deb) in the machine-readable format (DEP-5): a header
#    paragraph whose first field is Format: (the 1.0 URI), a Files: *
#    paragraph with Copyright: and License: MIT, and a stand-alone
#    License: MIT paragraph with the licence's text, continuation lines
#    starting with a space and empty ones written " .";
#  - README.md's last line names the licence and LICENSE.
#   usage: copyright_test.sh SOURCE_DIR [COPYRIGHT_FILE]
set -u
root=$(cd "${1:?usage: copyright_test.sh SOURCE_DIR [COPYRIGHT_FILE]}" && pwd)
file=${2:-$root/packaging/copyright}
failed=0
fail() { echo "FAIL: $*"; failed=1; }

lic=$root/LICENSE
if [ ! -f "$lic" ]; then
  fail "no LICENSE at the top of the source ($lic)"
else
  head -1 "$lic" | grep -qx 'MIT License' || fail "LICENSE does not start with 'MIT License': $(head -1 "$lic")"
  grep -qx 'Copyright (c) 2026 the collviz authors' "$lic" || fail "LICENSE lacks 'Copyright (c) 2026 the collviz authors'"
  grep -q 'Permission is hereby granted, free of charge' "$lic" || fail "LICENSE lacks the MIT permission text"
fi

# DEP-5: paragraphs separated by empty lines; "Field: value" lines, and
# continuation lines starting with a space or tab. Each paragraph as one
# line of "\x1f"-separated "Field=value" (continuations dropped).
[ -f "$file" ] || { echo "FAIL: no copyright file $file"; exit 1; }
bad=$(awk '/^$/ { next } /^[ \t]/ { next } /^[A-Za-z][A-Za-z0-9-]*:/ { next } { print NR ": " $0 }' "$file")
[ -z "$bad" ] || fail "$file: lines that are neither a field nor a continuation: $bad"
paras=$(awk 'BEGIN { RS = ""; FS = "\n" } {
  out = ""
  for (i = 1; i <= NF; i++) if ($i ~ /^[A-Za-z]/) {
    k = $i; sub(/:.*/, "", k); v = $i; sub(/^[^:]*:[ \t]*/, "", v); out = out k "=" v "\x1f" }
  print out }' "$file")
header=$(sed -n 1p <<<"$paras")
case "$header" in
  Format=https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/*) ;;
  *) fail "$file: the first paragraph does not open with Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ;;
esac
grep -q $'Upstream-Name=collviz\x1f' <<<"$header" || fail "$file: the header has no Upstream-Name: collviz"
files=$(grep $'^Files=\\*\x1f' <<<"$paras")
[ -n "$files" ] || fail "$file: no 'Files: *' paragraph"
grep -q $'\x1fCopyright=[^\x1f]*2026 the collviz authors\x1f' <<<"$files" ||
  fail "$file: the Files: * paragraph has no Copyright: ... 2026 the collviz authors"
grep -q $'\x1fLicense=MIT\x1f' <<<"$files" || fail "$file: the Files: * paragraph's License is not MIT: $(tr '\037' ' ' <<<"$files")"
# The licence's text: a stand-alone "License: MIT" paragraph, or the text
# under the Files paragraph's own License field.
text=$(awk 'BEGIN { RS = ""; FS = "\n" } $1 == "License: MIT" || ($1 == "Files: *") { print }' "$file")
grep -q '^ Permission is hereby granted, free of charge' <<<"$text" ||
  fail "$file: no License: MIT paragraph with the licence's text"
awk '/^ *$/ { next } /^[ \t]/ && /^[ \t]+$/ { print }' "$file" | grep -q . &&
  fail "$file: a continuation line of only spaces (an empty line in a text is written ' .')"

readme_last=$(tail -n 1 "$root/README.md")
case "$readme_last" in
  *MIT*LICENSE*) ;;
  *) fail "README.md's last line does not say the licence (MIT, LICENSE): $readme_last" ;;
esac

[ $failed -eq 0 ] && echo "PASS: LICENSE, $file (DEP-5, License: MIT) and README.md's last line"
exit $failed
