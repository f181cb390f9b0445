// Is a font file one ImGui can load? ImGui (stb_truetype) asserts, and so
// aborts the process, on bytes that are not a font, and reads whatever it is
// given whole (/dev/zero never ends). A file is used only when it is a
// regular file of sane size whose TrueType/OpenType table directory (of face
// `face` in a collection) lies inside the file and holds the tables a font
// needs; else the caller falls back, with the reason in its notice.
#pragma once

#include <string>

namespace collviz::ui {

// DejaVu Sans's two files, in the folder findFontDir() answers.
inline constexpr const char* kDejaVuRegular = "DejaVuSans.ttf";
inline constexpr const char* kDejaVuBold = "DejaVuSans-Bold.ttf";

// Where DejaVu Sans is looked for; COLLVIZ_FONT_DIR overrides. "" when not found.
std::string findFontDir();
// A CJK font file and its face number; "" when none. COLLVIZ_CJK_FONT overrides.
// Only a file fontFileProblem passes (ImGui aborts on a bad one).
std::string findCjkFont(bool bold, int* face);

// Fonts are at most a few tens of MiB (Noto Sans CJK: about 20).
inline constexpr long long kMaxFontBytes = 64ll << 20;

// "" when usable, else why not ("is empty", "is not a TrueType or OpenType
// font", ...). Answers are cached per path, size and modification time.
std::string fontFileProblem(const std::string& path, int face);

}  // namespace collviz::ui
