// The UI's languages: English (the source text) and Chinese. Every string a
// person reads goes through tr(), which looks the English text up in one
// table (translations.cpp). English comes back unchanged, byte for byte, so
// English output does not depend on this layer. Pure: no UI headers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text.h"

namespace collviz {

enum class Lang : uint8_t { en, zh };

// The language of everything drawn or printed for people; English until set.
Lang language();
void setLanguage(Lang lang);

std::string_view langName(Lang lang);  // "en", "zh"
std::optional<Lang> parseLang(std::string_view s);
inline constexpr std::string_view kAllowedLangs = "en, zh";
// The default from the locale variables (LC_ALL, LC_MESSAGES, LANG, in
// POSIX order): zh_CN.UTF-8, zh_TW... -> zh; anything else -> en.
Lang langFromLocale();

// The text in the current language. Strings not in the table (names, numbers)
// come back unchanged.
const char* tr(const char* english);
std::string tr(const std::string& english);
// tr, then "{0}", "{1}", ... replaced by args: trf("what reaches {0}", {"R2"}).
std::string trf(const char* english, std::initializer_list<std::string> args);

// An engine message (engine/text.h) in the current language: its id looked
// up like tr(), its arguments rendered in their turn (literals as they are).
// In English this is t.english(), byte for byte.
std::string render(const Text& t);
// An error as its reader sees it: its text, else its English message.
std::string render(const Error& e);
std::string render(const Status& s);
// A Said (a string with its message): its text while it still matches.
std::string render(const Said& s);
std::vector<std::string> render(const std::vector<Said>& v);

// The table (every part of app/lang/tables.h), for the test that walks it
// and for building glyph ranges.
struct Translation {
  std::string_view en, zh;
};
std::span<const Translation> translations();

}  // namespace collviz
