// A lecture script is input from anyone (a file from the web, a colleague's
// deck): read only a regular file of bounded size, never block on a FIFO or
// a device, refuse nesting deep enough to exhaust the parser's stack, and
// refuse control characters (ESC, BEL, NUL...) before they reach a
// terminal, an SVG or index.md. Every refusal names file:line and what is
// allowed.
#pragma once

#include <string>
#include <string_view>

#include "engine/text.h"

namespace collviz::lecture {

// Scripts are a few KiB; 1 MiB leaves room for long notes in two languages.
inline constexpr std::size_t kMaxScriptBytes = std::size_t(1) << 20;
// Keys and tables a script uses nest 2 deep ([[step]], caption.zh).
inline constexpr int kMaxNesting = 16;

// The whole file, if it is a regular file of at most kMaxScriptBytes.
Result<std::string> readScriptFile(const std::string& path);

// Before parsing, in one pass: dotted keys, table headers, arrays and inline
// tables nested more than kMaxNesting levels.
Status checkNesting(std::string_view text, const std::string& path);

// "" if `s` holds no control character other than tab and line breaks (C0,
// DEL, C1); else what the first one is and where ("U+001B at character 5").
std::string controlCharacter(std::string_view s, bool line_breaks_allowed);

}  // namespace collviz::lecture
