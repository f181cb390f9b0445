// Every character a string of collviz can show is in the window's font
// atlas: each translation table's English and Chinese, character by
// character, against the glyphs the atlas holds (the one `Fonts::load`
// builds for the window in 中文, DejaVu Sans with the CJK font merged in).
// A character missing there is drawn as "?" (the 中文 Compare panel read
// "2·?log2 N? 轮" when the atlas lacked ⌈ ⌉). ImGui without a window or GL:
// the atlas is built on the CPU.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "app/gl/fonts.h"
#include "app/lang/lang.h"
#include "app/view/text.h"

namespace collviz::test {
namespace {

struct ImGuiContextScope {
  ImGuiContextScope() { ImGui::CreateContext(); }
  ~ImGuiContextScope() { ImGui::DestroyContext(); }
};

std::string codePoint(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", unsigned(c));
  return buf;
}

TEST(Atlas, EveryCharacterOfEveryTranslationTableIsInTheAtlas) {
  ImGuiContextScope imgui;
  ui::Fonts fonts;
  // As the window builds it in 中文 (AppUi::glyphText without a lecture).
  fonts.load(1.0f, std::string("语言中文") + ui::uiChineseText());
  if (!fonts.unicode) GTEST_SKIP() << "DejaVu Sans not found (fonts-dejavu-core): the window draws ASCII only";
  if (fonts.cjk_missing) GTEST_SKIP() << "no CJK font (fonts-noto-cjk or fonts-wqy-microhei): the window shows English";
  ASSERT_TRUE(fonts.regular && fonts.bold && fonts.heading);
  // Per missing character, the first text that shows it.
  std::map<char32_t, std::string> missing;
  std::size_t checked = 0;
  std::set<char32_t> seen;
  for (const Translation& t : translations())
    for (std::string_view text : {t.en, t.zh})
      for (char32_t c : ui::toCodePoints(text)) {
        if (c < 0x20) continue;  // "\n", "\t": laid out, never drawn
        if (!seen.insert(c).second) continue;
        ++checked;
        for (ImFont* f : {fonts.regular, fonts.bold, fonts.heading})
          if (!f->FindGlyphNoFallback(ImWchar(c))) missing.emplace(c, std::string(text));
      }
  std::string list;
  for (const auto& [c, text] : missing) list += "\n  " + codePoint(c) + " in \"" + text + "\"";
  EXPECT_TRUE(missing.empty()) << missing.size() << " of " << checked
                               << " characters of the translation tables are not in the window's atlas "
                                  "(app/gl/fonts.cpp's ranges; drawn as '?'):"
                               << list;
  EXPECT_GT(checked, 500u) << "the tables' characters were not all read";
}

}  // namespace
}  // namespace collviz::test
