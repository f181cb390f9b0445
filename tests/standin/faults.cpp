// Fault injection for the stand-in CUDA runtime, NCCL and NVML (tests only).
//
//   COLLVIZ_STANDIN_FAULT="RULE[,RULE...]"
//   RULE   = [rR/]CALL[#N]=ACTION
//   CALL   = an entry point's name (cudaMalloc, ncclAllReduce, nvmlInit_v2, ...)
//   #N     = only its N-th call in this process (1 = the first); without it, every call
//   rR/    = only in the process that joined an NCCL communicator as rank R
//            (calls made before that never match)
//   ACTION = an error name (cudaErrorMemoryAllocation, ncclSystemError,
//            NVML_ERROR_UNKNOWN) or number: the call returns it;
//            hang: the call never returns;
//            stall: (NCCL ops) the op's stream work waits until ncclCommAbort;
//            async:ncclX: (NCCL ops) its stream work sets the communicator's
//              asynchronous error to ncclX, then waits until ncclCommAbort;
//            kill: (NCCL ops) the process ends with SIGKILL inside the op's
//              stream work, before its sends (a peer lost mid-op);
//            delay:MS: (NCCL ops) the op's stream work takes MS milliseconds
//              longer (a slow link: the op is healthy, only slow).
// A rule the stand-in cannot read ends the process with the reason.
// COLLVIZ_STANDIN_TRACE=1 says every call and its count on stderr (to
// write a rule).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/standin/runtime.h"

namespace collviz::standin {

int cudaErrorByName(const std::string& name);  // runtime_errors.cpp; -1: unknown

namespace {

struct Rule {
  int rank = -1;
  std::string call;
  long nth = 0;  // 0: every call
  Fault action;
};

int ncclByName(const std::string& n) {
  static const char* const names[] = {"ncclSuccess",       "ncclUnhandledCudaError", "ncclSystemError",
                                      "ncclInternalError", "ncclInvalidArgument",    "ncclInvalidUsage",
                                      "ncclRemoteError",   "ncclInProgress"};
  for (int i = 0; i < 8; ++i)
    if (n == names[i]) return i;
  return -1;
}

int nvmlByName(const std::string& n) {
  static const std::pair<const char*, int> names[] = {
      {"NVML_ERROR_UNINITIALIZED", 1}, {"NVML_ERROR_INVALID_ARGUMENT", 2}, {"NVML_ERROR_NOT_SUPPORTED", 3},
      {"NVML_ERROR_NOT_FOUND", 6},     {"NVML_ERROR_DRIVER_NOT_LOADED", 9}, {"NVML_ERROR_LIBRARY_NOT_FOUND", 12},
      {"NVML_ERROR_UNKNOWN", 999}};
  for (auto [name, v] : names)
    if (n == name) return v;
  return -1;
}

[[noreturn]] void unreadable(const std::string& rule, const std::string& why) {
  std::fprintf(stderr,
               "collviz stand-in: COLLVIZ_STANDIN_FAULT: cannot read \"%s\": %s; allowed: "
               "[rR/]CALL[#N]=ERROR|hang|stall|async:ncclX|kill|delay:MS, comma-separated\n",
               rule.c_str(), why.c_str());
  std::abort();
}

int codeOf(const std::string& rule, const std::string& s) {
  int v = cudaErrorByName(s);
  if (v < 0) v = ncclByName(s);
  if (v < 0) v = nvmlByName(s);
  if (v < 0 && !s.empty() && s.find_first_not_of("0123456789") == std::string::npos) v = std::atoi(s.c_str());
  if (v < 0) unreadable(rule, "\"" + s + "\" is not a CUDA, NCCL or NVML error name or a number");
  return v;
}

Rule parse(const std::string& text) {
  Rule r;
  std::string s = text;
  if (s.size() > 2 && s[0] == 'r' && std::isdigit(static_cast<unsigned char>(s[1]))) {
    const auto slash = s.find('/');
    if (slash == std::string::npos) unreadable(text, "a rank needs a '/' after it");
    r.rank = std::atoi(s.substr(1, slash - 1).c_str());
    s = s.substr(slash + 1);
  }
  const auto eq = s.find('=');
  if (eq == std::string::npos) unreadable(text, "no '=ACTION'");
  std::string call = s.substr(0, eq), act = s.substr(eq + 1);
  if (const auto hash = call.find('#'); hash != std::string::npos) {
    r.nth = std::atol(call.substr(hash + 1).c_str());
    if (r.nth < 1) unreadable(text, "#N counts from 1");
    call = call.substr(0, hash);
  }
  if (call.empty()) unreadable(text, "no call named");
  r.call = call;
  r.action.rule = text;
  if (act == "hang") r.action.kind = Fault::Kind::hang;
  else if (act == "stall") r.action.kind = Fault::Kind::stall;
  else if (act == "kill") r.action.kind = Fault::Kind::kill;
  else if (act.rfind("delay:", 0) == 0) {
    r.action.kind = Fault::Kind::delay;
    r.action.code = std::atoi(act.substr(6).c_str());
    if (r.action.code <= 0) unreadable(text, "delay:MS needs a number of milliseconds above 0");
  }
  else if (act.rfind("async:", 0) == 0) {
    r.action.kind = Fault::Kind::async_error;
    r.action.code = codeOf(text, act.substr(6));
  } else {
    r.action.kind = Fault::Kind::error;
    r.action.code = codeOf(text, act);
  }
  return r;
}

struct Faults {
  std::vector<Rule> rules;
  std::mutex mu;
  std::map<std::string, long> counts;
};

Faults& faults() {
  static Faults* f = [] {
    auto* x = new Faults;
    if (const char* env = std::getenv("COLLVIZ_STANDIN_FAULT")) {
      std::string all = env, item;
      for (std::size_t i = 0; i <= all.size(); ++i) {
        if (i == all.size() || all[i] == ',') {
          if (!item.empty()) x->rules.push_back(parse(item));
          item.clear();
        } else {
          item += all[i];
        }
      }
    }
    return x;
  }();
  return *f;
}

std::atomic<int> g_rank{-1};

}  // namespace

void setFaultRank(int rank) { g_rank = rank; }

Fault takeFault(const char* call) {
  Faults& f = faults();
  static const bool trace = std::getenv("COLLVIZ_STANDIN_TRACE") != nullptr;
  if (trace) {
    long n;
    {
      std::lock_guard<std::mutex> lock(f.mu);
      n = ++f.counts[call];
    }
    say("call " + std::string(call) + "#" + std::to_string(n) + " (rank " + std::to_string(g_rank.load()) + ")");
    for (const Rule& r : f.rules)
      if (r.call == call && (r.rank < 0 || r.rank == g_rank.load()) && (r.nth == 0 || r.nth == n)) {
        say("fault injected: " + std::string(call) + " call " + std::to_string(n) + " (rule \"" + r.action.rule + "\")");
        return r.action;
      }
    return {};
  }
  if (f.rules.empty()) return {};
  long n = 0;
  {
    std::lock_guard<std::mutex> lock(f.mu);
    n = ++f.counts[call];
  }
  for (const Rule& r : f.rules) {
    if (r.call != call) continue;
    if (r.rank >= 0 && r.rank != g_rank.load()) continue;
    if (r.nth != 0 && r.nth != n) continue;
    say("fault injected: " + std::string(call) + " call " + std::to_string(n) + " (rule \"" +
        r.action.rule + "\")");
    return r.action;
  }
  return {};
}

[[noreturn]] void hangForever(const char* call) {
  say(std::string(call) + " hangs as told (it never returns)");
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

void say(const std::string& line) {
  std::fprintf(stderr, "collviz stand-in (pid %d): %s\n", int(::getpid()), line.c_str());
}

}  // namespace collviz::standin
