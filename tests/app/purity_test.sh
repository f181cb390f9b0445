#!/usr/bin/env bash
# The app's pure folders (app/purity.cmake: lang/, view/, files/, lecture/,
# cli/) hold on the tree, and the check fails, naming the file and the rule,
# when an include of ImGui, GL or a folder above them is planted: the file
# writers including the export commands, the font files including GL code,
# a lecture including a panel, view/ including ImGui.
set -euo pipefail
src=${1:?usage: purity_test.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake -DAPP_DIR="$src/app" -P "$src/app/purity.cmake" >"$tmp/ok.log" 2>&1 ||
  { cat "$tmp/ok.log"; echo "FAIL: the tree's own pure folders include GL or a folder above them"; exit 1; }

plant() {  # FILE INCLUDE LIBRARY
  rm -rf "$tmp/app"; cp -r "$src/app" "$tmp/app"
  printf '#include %s\n' "$2" >>"$tmp/app/$1"
  if cmake -DAPP_DIR="$tmp/app" -P "$src/app/purity.cmake" >"$tmp/bad.log" 2>&1; then
    echo "FAIL: planted $2 in app/$1 and the check passed"; exit 1
  fi
  tr -s " \n" "  " <"$tmp/bad.log" | grep -qF "app/$1: \`#include $2\`: $3 is pure code; it may not include ImGui, GL, GLFW or the app's gl/, panels/ or export/ folders" ||
    { cat "$tmp/bad.log"; echo "FAIL: the error does not name app/$1, its line and $3's rule"; exit 1; }
  echo "refused: app/$1 including $2"
}
plant files/svg_writer.cpp '"app/export/headless_gl.h"' collviz_files
plant files/safe_file.h '"app/export/headless_gl.h"' collviz_files
plant files/font_metrics.cpp '"app/gl/fonts.h"' collviz_files
plant files/font_file.cpp '<imgui.h>' collviz_files
plant lecture/deck.cpp '"app/panels/lecture_panel.h"' collviz_lecture
plant view/caption.cpp '<GLFW/glfw3.h>' collviz_view
plant cli/cli.cpp '"app/export/headless_gl.h"' collviz_cli
echo "the pure folders hold"
