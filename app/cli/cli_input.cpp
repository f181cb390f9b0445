#include "app/cli/cli_input.h"
#include "app/cli/cli_common.h"

#include <cerrno>
#include <cstring>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/lang/lang.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/group/hosts.h"

namespace collviz {

namespace {
bool g_json = false;
}  // namespace

std::string shown(std::string_view text, std::size_t max) { return hostShown(text, max); }

std::string printable(std::string_view text) { return algo::mscclShown(text); }

std::size_t columns(std::string_view text) {
  std::size_t w = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    w += c >= 0xE3 ? 2 : 1;            // U+3000 on: CJK, kana, full-width forms
  }
  return w;
}

std::string padColumns(const std::string& text, std::size_t width) {
  const std::size_t w = columns(text);
  return text + std::string(w < width ? width - w : 0, ' ');
}

Text notA(std::string_view flag, std::string_view value, const char* what) {
  if (value.empty()) return say("{0} is empty", flag);
  return say("{0} {1} is not {2}", flag, shown(value), say(what));
}

Result<long long> parseWhole(std::string_view flag, std::string_view text, long long min,
                             long long max) {
  if (text.empty()) return Error{say("{0} is empty; allowed: a whole number", flag)};
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool digits = end == text.data() + text.size();
  if (ec == std::errc::result_out_of_range && digits)
    return Error{say("{0} {1} is out of range", flag, shown(text))};
  if (ec != std::errc() || !digits)
    return Error{notA(flag, text, "a whole number")};
  if (v < min || v > max) return Error{say("{0} {1} is out of range", flag, shown(text))};
  return v;
}

Result<double> parseDecimal(std::string_view flag, std::string_view text) {
  const std::string t(text);
  if (t.empty()) return Error{say("{0} is empty; allowed: a number", flag)};
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || std::isnan(v)) return Error{notA(flag, text, "a number")};
  if (errno == ERANGE || std::isinf(v)) return Error{say("{0} {1} is out of range", flag, shown(text))};
  return v;
}

std::string optionName(const std::string& names) {
  std::size_t start = names.find("--");
  if (start == std::string::npos) start = 0;
  return names.substr(start, names.find(',', start) - start);
}

void setJsonErrors(bool on) { g_json = on; }
bool jsonErrors() { return g_json; }

int fail(std::string_view command, const Error& error, int code) {
  return failWithReport(command, nlohmann::json::object(), error, code);
}

namespace {
Error g_lastFailure;
}  // namespace

const Error& lastFailure() { return g_lastFailure; }

int failWithReport(std::string_view command, nlohmann::json report, const Error& given, int code) {
  Error error = given;
  g_lastFailure = given;
  if (code != interruptedExitCode() && settleInterrupt(given.message)) {
    error = Error{say("interrupted")};
    code = interruptedExitCode();
    if (report.is_object()) report["interrupted"] = true;
  }
  std::fprintf(stderr, "collviz%s%s: %s\n", command.empty() ? "" : " ",
               std::string(command).c_str(), render(error).c_str());
  if (g_json) {
    if (!report.is_object()) report = nlohmann::json::object();
    report["error"] = error.message;
    report["exit_code"] = code;
    std::cout << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    std::cout.flush();
  }
  return code;
}

Error errorOf(const Said& said) {
  if (const Text* t = said.current()) return Error{*t};
  return Error{std::string(said)};
}

int checkStdout(std::string_view command, int code) {
  std::cout.flush();
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout.good();
  if (!failed) return code;
  const int err = errno;
  const Text why = err ? say("cannot write the output to stdout: {0}", std::strerror(err))
                       : say("cannot write the output to stdout");
  std::fprintf(stderr, "collviz%s%s: %s\n", command.empty() ? "" : " ",
               std::string(command).c_str(), render(why).c_str());
  return code == 0 ? 1 : code;
}

}  // namespace collviz
