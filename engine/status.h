// Errors are values up to the point where a person sees them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "engine/text.h"

namespace collviz {

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
