#!/usr/bin/env bash
# The Debian package: cpack -G DEB, then its control fields (Depends names the
# package of every library collviz and collviz-rank need, nothing of CUDA or
# NCCL; Recommends the fonts; a description), the files, desktop-file-validate
# on the menu entry, the installed copyright file (DEP-5, License: MIT:
# copyright_test.sh), lintian (errors fail, and so does any tag about the
# copyright or the licence; other warnings are printed), and the unpacked
# tree (dpkg-deb -x) run like an installed one (check_tree.sh).
#   usage: deb_test.sh SOURCE_DIR BUILD_DIR
# Exit 77 (skipped) with the reason when a tool is missing.
set -u
root=$(cd "${1:?usage: deb_test.sh SOURCE_DIR BUILD_DIR}" && pwd)
build=$(cd "${2:?usage: deb_test.sh SOURCE_DIR BUILD_DIR}" && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
for t in cpack:cmake dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev desktop-file-validate:desktop-file-utils \
         lintian:lintian; do
  command -v "${t%%:*}" >/dev/null || skip "${t%%:*} is not installed (Debian: apt-get install ${t#*:})"
done
[ -n "${DISPLAY:-}" ] || command -v xvfb-run >/dev/null ||
  skip "export needs a display: DISPLAY is unset and xvfb-run is missing (Debian: xvfb)"

WORK=$(mktemp -d /tmp/collviz-deb-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
(cd "$build" && cpack -G DEB -B "$WORK/pkg") > "$WORK/cpack.log" 2>&1 ||
  { cat "$WORK/cpack.log"; echo "FAIL: cpack -G DEB failed"; exit 1; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
deb=$WORK/pkg/collviz_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { ls "$WORK/pkg"; echo "FAIL: no $deb"; exit 1; }
echo "$(basename "$deb"): $(stat -c %s "$deb") bytes"
dpkg-deb -f "$deb" | sed 's/^/  /'

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = collviz ] || fail "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', want $version"
depends=$(field Depends)
[ -n "$depends" ] || fail "no Depends"
echo "$depends" | grep -Eiq 'nccl|cuda' && fail "Depends names CUDA or NCCL: $depends"
for f in Recommends Suggests; do field "$f" | grep -Eiq 'nccl|cuda' && fail "$f names CUDA or NCCL"; done
for p in fonts-noto-cjk fonts-dejavu-core; do
  field Recommends | grep -q "$p" || fail "Recommends lacks $p"
done
[ "$(field Description | wc -l)" -ge 3 ] || fail "the Description has no long text"
# Issue 38: the description names every backend and deck format, and Open MPI is suggested.
for w in "Open MPI" PDF; do field Description | grep -q "$w" || fail "the Description does not mention $w"; done
field Suggests | grep -q openmpi-bin || fail "Suggests lacks openmpi-bin"
# The package of every library the two executables name (NEEDED) is in Depends.
owner() {  # the package that installed a library, tried by each name it has (merged /usr)
  local p f
  [ -n "$1" ] || return
  for f in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
    p=$(dpkg -S "$f" 2>/dev/null | head -1 | cut -d: -f1)
    [ -n "$p" ] && { echo "$p"; return; }
  done
}
deps=" $(echo "$depends" | sed 's/([^)]*)//g; s/[|,]/ /g') "
for e in collviz collviz-rank; do
  paths=$(ldd "$build/bin/$e")
  for soname in $(readelf -d "$build/bin/$e" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    lib=$(echo "$paths" | awk -v s="$soname" '$1 == s {print $3}')
    [ -n "$lib" ] || lib=$(echo "$paths" | awk -v s="/$soname" 'substr($1, length($1) - length(s) + 1) == s {print $1}')
    pkg=$(owner "$lib")
    [ -n "$pkg" ] || { fail "$e needs $soname ($lib), which no Debian package owns"; continue; }
    case "$deps" in *" $pkg "*) ;; *) fail "$e needs $soname ($pkg), not in Depends" ;; esac
  done
done
echo "Depends covers every library collviz and collviz-rank name (NEEDED)"

dpkg-deb -x "$deb" "$WORK/root"
desktop-file-validate "$WORK/root/usr/share/applications/collviz.desktop" > "$WORK/desktop.log" 2>&1 ||
  fail "desktop-file-validate: $(cat "$WORK/desktop.log")"
grep -q '^Categories=Education;Science;$' "$WORK/root/usr/share/applications/collviz.desktop" ||
  fail "the desktop entry's Categories are not Education;Science;"
"$(dirname "$0")/copyright_test.sh" "$root" "$WORK/root/usr/share/doc/collviz/copyright" ||
  fail "the installed usr/share/doc/collviz/copyright does not say the MIT licence (above)"

lintian --tag-display-limit 0 "$deb" > "$WORK/lintian.log" 2>&1
echo "lintian:"; sed 's/^/  /' "$WORK/lintian.log"
grep -q '^E: ' "$WORK/lintian.log" && fail "lintian reports errors"
grep -Ei '^[EWI]: [^ ]+ [^ ]*(copyright|licen[cs]e)' "$WORK/lintian.log" &&
  fail "lintian reports a tag about the copyright file or the licence (above)"

WANT_VERSION=$("$build/bin/collviz" --version)
TREE=$WORK/root/usr
HIDE="$build $root"
. "$(dirname "$0")/check_tree.sh"
check_tree
[ $failed -eq 0 ] && echo PASS
exit $failed
