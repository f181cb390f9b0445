// A text for a person, as a message id and its arguments: the engine says
// what happened, app/lang says it in the reader's language. The id is the
// English template ("rank {0} timed out after {1} s", the gettext way: the
// English text is the key), so english() needs no table and JSON, logs and
// tests keep the English they always had. An argument is a Text too: a
// nested message (translated in its turn) or a literal (a number, a name, a
// path, a library's own error string), which is never translated.
// Errors (Error, Result, Status) are made of Texts and live here too.
// Pure: no UI headers; app/lang/lang.h renders a Text in Chinese.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace collviz {

struct Text {
  std::string id;          // the English template; a literal's value
  std::vector<Text> args;  // {0}, {1}, ... in id
  bool literal = false;

  bool empty() const { return id.empty(); }
  // The English: id with its arguments in place.
  std::string english() const;
  // Put `fn(arg)` for each {k} of `tmpl` (the id or its translation).
  template <typename Fn>
  static std::string fill(const std::string& tmpl, const std::vector<Text>& args, Fn fn);
};

std::string formatNumber(double v);  // shortest %g that reads back: "0.5", "1e+06"

// A literal: shown as it is in every language.
Text lit(std::string value);
Text lit(const char* value);
template <typename N>
  requires std::is_arithmetic_v<N>
Text lit(N n) {
  if constexpr (std::is_same_v<N, bool>) return lit(n ? "true" : "false");
  else if constexpr (std::is_floating_point_v<N>) return lit(formatNumber(double(n)));
  else return lit(std::to_string(n));
}

// A person's text where a string always was (Snapshot::error, notice,
// problem, ...): the string is the English (what JSON, logs and tests read,
// so every string use still works) and `text` the message it was made from.
// Assigned a plain string, it has no text, and is shown as it is; changed as
// a string after (+=), its text no longer matches and is not used
// (app/lang's render checks), so a reader never sees a stale translation.
struct Said : std::string {
  Text text;
  Said() = default;
  Said(Text t) : std::string(t.english()), text(std::move(t)) {}  // NOLINT: implicit by design
  Said(std::string english) : std::string(std::move(english)) {}  // NOLINT
  Said(const char* english) : std::string(english) {}             // NOLINT
  // The message, when it still is what the string says.
  const Text* current() const { return !text.empty() && text.english() == *this ? &text : nullptr; }
};

// The English of each (for JSON).
inline std::vector<std::string> english(const std::vector<Said>& v) { return {v.begin(), v.end()}; }

namespace text_detail {
inline Text arg(Text t) { return t; }
inline Text arg(const Said& s) { return s.current() ? *s.current() : lit(std::string(s)); }
inline Text arg(const std::string& s) { return lit(s); }
inline Text arg(const char* s) { return lit(s); }
inline Text arg(std::string_view s) { return lit(std::string(s)); }
template <typename N>
  requires std::is_arithmetic_v<N>
Text arg(N n) { return lit(n); }
}  // namespace text_detail

// A message: say("rank {0} timed out after {1} s", rank, secs). Strings and
// numbers are literals; pass say("input") for a word that is translated.
template <typename... A>
Text say(const char* id, A&&... args) {
  Text t;
  t.id = id;
  (t.args.push_back(text_detail::arg(std::forward<A>(args))), ...);
  return t;
}

// Texts joined by "; " (English) or the reader's separator: "a; b; c".
Text joined(std::vector<Text> parts);

template <typename Fn>
std::string Text::fill(const std::string& tmpl, const std::vector<Text>& args, Fn fn) {
  std::string out;
  out.reserve(tmpl.size());
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '{' && i + 2 < tmpl.size()) {
      std::size_t j = i + 1;
      std::size_t k = 0;
      bool digits = false;
      while (j < tmpl.size() && tmpl[j] >= '0' && tmpl[j] <= '9') k = k * 10 + std::size_t(tmpl[j++] - '0'), digits = true;
      if (digits && j < tmpl.size() && tmpl[j] == '}' && k < args.size()) {
        out += fn(args[k]);
        i = j;
        continue;
      }
    }
    out += tmpl[i];
  }
  return out;
}

// ---- Errors: values up to the point where a person sees them. ----

// What went wrong, for a person: `text` is the message id and its
// arguments (app/lang renders it in the reader's language), `message` its
// English, made from it (what JSON, logs and tests read). An Error built from
// a bare string has a literal text: shown as it is, in every language.
struct Error {
  std::string message;
  Text text;
  Error() = default;
  Error(std::string english) : message(std::move(english)), text(lit(message)) {}  // NOLINT
  Error(const char* english) : Error(std::string(english)) {}                       // NOLINT
  Error(Text t) : message(t.english()), text(std::move(t)) {}                       // NOLINT
};

// Result<T>: a T or an Error. Small on purpose; std::expected is C++23.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}           // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}       // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Status: success or an Error.
class Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)) {}  // NOLINT
  static Status Ok() { return Status(); }
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string& message() const {
    static const std::string kEmpty;
    return error_ ? error_->message : kEmpty;
  }
  const Text& text() const {
    static const Text kEmpty;
    return error_ ? error_->text : kEmpty;
  }
  Error error() const { return error_.value_or(Error{}); }

 private:
  std::optional<Error> error_;
};

}  // namespace collviz
