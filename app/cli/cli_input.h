// What the command line takes from the user and says back: numbers parsed as
// given (out of range, empty or not a number, each named as such), user text
// echoed escaped and cut, and errors as one JSON document under --json.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "engine/text.h"

namespace collviz {

// `text` fit to echo: control characters and non-ASCII bytes as \xNN,
// backslashes escaped, at most `max` characters then "...".
std::string shown(std::string_view text, std::size_t max = 60);

// `text` (a path, a name from a file) whole, fit for a terminal line: valid
// UTF-8 kept (中文 names stay readable), control characters and stray bytes
// as \xNN, so a newline or an escape in a name cannot forge a line.
std::string printable(std::string_view text);

// Terminal columns of UTF-8 text: CJK and full-width characters take two.
std::size_t columns(std::string_view text);
// `text` padded with spaces to `width` columns.
std::string padColumns(const std::string& text, std::size_t width);

// "--op is empty" or "--op nope is not <what>" (the value shown(); `what`
// a message id: "a collective", translated with the rest).
Text notA(std::string_view flag, std::string_view value, const char* what);

// A whole number as given: "--elems is empty", "--ranks two is not a whole
// number", "--elems 99999999999999999999999 is out of range" (beyond
// min..max, the type's limits; the command checks its own range later).
Result<long long> parseWhole(std::string_view flag, std::string_view text, long long min,
                             long long max);
Result<double> parseDecimal(std::string_view flag, std::string_view text);

// "--elems" from "--elems,-E": the long name, as messages call it.
std::string optionName(const std::string& names);

// A CLI11 validation error that keeps its message (cli.cpp prints it rendered).
struct TextError : CLI::ValidationError {
  collviz::Error error;  // (plain Error here names CLI11's base class)
  explicit TextError(collviz::Error e) : CLI::ValidationError(e.message), error(std::move(e)) {}
};

// A CLI11 option for a whole number that parses with parseWhole (int or long long).
template <typename T>
CLI::Option* addWholeOption(CLI::App* cmd, const std::string& names, T& target,
                            const std::string& description) {
  const std::string flag = optionName(names);
  auto* o = cmd->add_option_function<std::string>(
      names,
      [&target, flag](const std::string& v) {
        auto r = parseWhole(flag, v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
        if (!r) throw TextError(r.error());
        target = static_cast<T>(*r);
      },
      description);
  o->type_name("INT");
  o->default_str(std::to_string(target));
  return o;
}

// Errors: "collviz <command>: <message>" on stderr and, when --json was
// given anywhere on the command line, {"error": message, "exit_code": code}
// on stdout. Returns `code`. stderr gets the error in the reader's language
// (app/lang render()), the JSON its English.
void setJsonErrors(bool on);
bool jsonErrors();
int fail(std::string_view command, const Error& error, int code);
// The error the last fail() said (the window's File → Watch a program… shows it).
const Error& lastFailure();
// The same for a failure that has a report (a run's snapshot as JSON): under
// --json the report is printed with "error" and "exit_code" set.
int failWithReport(std::string_view command, nlohmann::json report, const Error& error, int code);
// An engine field (Snapshot::error, ...) as an Error that keeps its message.
Error errorOf(const Said& said);
// After a command: anything written to stdout that did not reach it (a full
// disk, a closed pipe, > /dev/full) is an error with a message; returns the
// exit code to use (1 when `code` was 0).
int checkStdout(std::string_view command, int code);

}  // namespace collviz
