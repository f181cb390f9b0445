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

// The table, for the test that walks it and for building glyph ranges.
struct Translation {
  std::string_view en, zh;
};
std::span<const Translation> translations();

}  // namespace collviz
