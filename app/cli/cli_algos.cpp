#include "app/cli/cli_algos.h"

#include <cstdio>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/cli_algo_file.h"
#include "app/cli/cli_commands.h"
#include "app/cli/cli_input.h"
#include "app/lang/backend_line.h"
#include "app/lang/lang.h"
#include "app/lang/line_break.h"
#include "engine/algo/algorithms.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/verify/report.h"

namespace collviz {
namespace {

std::string labelRow(const BufferView& b, RedOp r) {
  if (!b.present) return "—";
  std::string out;
  for (const auto& l : b.labels) out += (out.empty() ? "" : " ") + l.text(r) + (l.bad ? "!" : "");
  return out;
}

std::string bytesText(double b) {
  char buf[64];
  if (b >= 1 << 20) std::snprintf(buf, sizeof buf, "%.2f MiB", b / double(1 << 20));
  else if (b >= 1 << 10) std::snprintf(buf, sizeof buf, "%.2f KiB", b / 1024.0);
  else std::snprintf(buf, sizeof buf, "%.0f B", b);
  return buf;
}

void printRounds(const Snapshot& s) {
  const OpSpec& sp = s.spec;
  std::printf("collviz run: %s --algo %s  ranks=%d elems=%lld dtype=%s%s root=%d\n",
              std::string(name(sp.op)).c_str(), s.algo.c_str(), sp.ranks,
              static_cast<long long>(sp.elems), std::string(name(sp.dtype)).c_str(),
              redopField(s.program, sp).c_str(), sp.root);
  std::printf("%s\n", trf("backend: {0}", {backendLine(s.backend).text()}).c_str());
  if (!s.notice.empty()) std::printf("%s\n", trf("notice: {0}", {render(s.notice)}).c_str());
  std::printf("%s\n", trf("formula: {0}", {render(s.formula.text)}).c_str());
  // With local steps (no message) the steps are counted apart from rounds.
  std::size_t messages = 0;
  for (const StepResult& st : s.steps) messages += !st.transfers.empty() || st.local.empty();
  const bool rounds_only = messages == s.steps.size();
  auto slots = [](const std::vector<int>& v) {
    std::string out;
    for (int x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
    return out;
  };
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const StepResult& st = s.steps[k];
    char us[32];
    std::snprintf(us, sizeof us, "%.1f", st.time_us);
    const bool local = st.transfers.empty() && !st.local.empty();
    std::printf("\n%s\n", trf(rounds_only ? (local ? "round {0}/{1}: local: {2}  ({3} us, slowest rank)"
                                                    : "round {0}/{1}: {2}  ({3} us, slowest rank)")
                                          : (local ? "step {0}/{1}: local: {2}  ({3} us, slowest rank)"
                                                   : "step {0}/{1}: {2}  ({3} us, slowest rank)"),
                               {std::to_string(k + 1), std::to_string(s.steps.size()), render(st.name), us})
                               .c_str());
    for (const Transfer& t : st.transfers)
      std::printf("  R%d → R%d  %s%s%s\n", t.from, t.to,
                  trf(t.src_slots.size() > 1 ? (t.reduce ? "slots {0} → {1} ({2} B, reduce)" : "slots {0} → {1} ({2} B, copy)")
                                             : (t.reduce ? "slot {0} → {1} ({2} B, reduce)" : "slot {0} → {1} ({2} B, copy)"),
                      {slots(t.src_slots), slots(t.dst_slots), std::to_string(t.bytes)})
                      .c_str(),
                  t.attrs.empty() ? "" : " · ", t.attrs.c_str());
    for (const LocalMove& m : st.local)
      std::printf("  R%d %s\n", m.rank,
                  trf(m.reduce ? "local  slots {0} → {1} (reduce)" : "local  slots {0} → {1}",
                      {slots(m.from), slots(m.to)})
                      .c_str());
    for (const auto& r : st.ranks)
      std::printf("  R%-2d %s\n", r.rank, labelRow(r.output, sp.redop).c_str());
    std::printf("  %s\n", trf(st.verify.verified ? "matches the reference: {0} mismatches, {1} undecodable"
                                                 : "DIFFERS FROM THE REFERENCE: {0} mismatches, {1} undecodable",
                              {std::to_string(st.verify.mismatches), std::to_string(st.verify.undecodable)})
                              .c_str());
    if (!st.verify.first_problem.empty())
      std::printf("  %s\n", trf("first problem: {0}", {render(st.verify.first_problem)}).c_str());
  }
  std::printf("\n%s\n", trf(rounds_only ? "output after {0} rounds:" : "output after {0} steps:",
                           {std::to_string(s.steps.size())})
                           .c_str());
  for (const auto& r : s.final_ranks)
    std::printf("  R%-2d %s\n", r.rank, labelRow(r.output, sp.redop).c_str());
  if (s.final_compared)
    std::printf("%s\n", trf(s.final_diffs == 0
                               ? "equals the native {0} on the same inputs byte for byte ({1} elements differ)"
                               : "DIFFERS FROM the native {0} on the same inputs byte for byte ({1} elements differ)",
                           {std::string(name(sp.op)), std::to_string(s.final_diffs)})
                           .c_str());
  for (const Said& d : s.final_diff_places) std::printf("  %s\n", render(d).c_str());
  uint64_t busiest = 0;
  std::printf("%s", tr("bytes sent per rank:"));
  for (std::size_t r = 0; r < s.bytes_sent.size(); ++r) {
    std::printf(" R%zu %llu", r, static_cast<unsigned long long>(s.bytes_sent[r]));
    busiest = std::max(busiest, s.bytes_sent[r]);
  }
  std::printf("\n%s\n", trf("formula: {0} rounds, {1} from the busiest rank{2}; counted: {3} message rounds, {4}",
                            {std::to_string(s.formula.rounds), bytesText(s.formula.bytes),
                             s.formula.exact ? "" : tr(" (textbook, power-of-two N)"), std::to_string(messages),
                             bytesText(double(busiest))})
                            .c_str());
  char op_us[32], engine_us[32];
  std::snprintf(op_us, sizeof op_us, "%.1f", s.time_us);
  std::snprintf(engine_us, sizeof engine_us, "%.1f", s.engine_us);
  std::printf("\n%s · %s\n", tr(s.verified ? "verified" : "NOT VERIFIED"),
              trf(rounds_only ? "{0} rounds · op time {1} us · engine {2} us" : "{0} steps · op time {1} us · engine {2} us",
                  {std::to_string(s.steps.size()), op_us, engine_us})
                  .c_str());
  if (!s.problem.empty()) std::printf("%s\n", trf("first wrong: {0}", {render(s.problem)}).c_str());
}

// The summary as it concerns `op`: a note in parentheses for one op,
// "(broadcast: a pipelined chain)", stays under that op only.
std::string summaryFor(std::string summary, Op op) {
  for (std::size_t open = summary.find(" ("); open != std::string::npos; open = summary.find(" (", open + 1)) {
    const std::size_t close = summary.find(')', open);
    const std::size_t colon = summary.find(": ", open);
    if (close == std::string::npos || colon == std::string::npos || colon > close) continue;
    const std::string key = summary.substr(open + 2, colon - open - 2);
    if (!parseOp(key)) continue;  // not an op's note
    if (key == name(op)) continue;
    summary.erase(open, close + 1 - open);
    open = open == 0 ? 0 : open - 1;
  }
  return summary;
}

// `text` after `lead` (padded to `indent` columns), wrapped at kColumns
// terminal columns (app/lang/line_break: Chinese breaks between characters)
// with every further line indented as much.
constexpr float kColumns = 100;
void printWrapped(const std::string& lead, const std::string& text, std::size_t indent) {
  const std::size_t lead_cols = std::size_t(terminalColumns(lead));
  const std::string first = lead + std::string(indent > lead_cols ? indent - lead_cols : 1, ' ');
  WrapParams p;
  p.width = kColumns - terminalColumns(first);
  p.measure = terminalColumns;
  const std::vector<std::string> lines = wrapText(text, p);
  for (std::size_t i = 0; i < lines.size(); ++i)
    std::printf("%s%s\n", i == 0 ? first.c_str() : std::string(indent, ' ').c_str(), lines[i].c_str());
  if (lines.empty()) std::printf("%s\n", first.c_str());
}

// Every op's algorithms; with `only` (an algorithm file's op) that op's
// alone, the file's algorithm after the built-in ones.
void printAlgos(int ranks, bool as_json, std::optional<Op> only = std::nullopt) {
  nlohmann::json out = nlohmann::json::array();
  if (!as_json)
    std::printf("%s\n", trf("Algorithms (rounds at N = {0}; b = one block, S = the op's buffer)", {std::to_string(ranks)}).c_str());
  for (int k = 0; k < kOpCount; ++k) {
    const Op op = Op(k);
    if (only && op != *only) continue;
    if (!as_json) std::printf("\n%s\n", std::string(name(op)).c_str());
    for (const algo::Algorithm& a : algo::algorithms()) {
      if (!algo::serves(a, op)) continue;
      OpSpec s;
      s.op = op;
      s.ranks = ranks;
      s.elems = 1;
      const algo::Figures f = algo::figuresFor(a.name, s);
      const bool native = a.build == nullptr;
      if (as_json) {
        out.push_back({{"op", name(op)}, {"algo", a.name}, {"summary", a.summary},
                       {"formula", native ? "" : f.text},
                       {"rounds", native ? nlohmann::json(nullptr) : nlohmann::json(f.rounds)},
                       {"ranks", ranks}});
        continue;
      }
      constexpr std::size_t kIndent = 22;
      // The summary's notes are picked in English (the ids), then translated.
      printWrapped("  " + std::string(a.name), tr(summaryFor(std::string(a.summary), op)), kIndent);
      if (!native)
        printWrapped("",
                     trf(f.rounds == 1 ? "{0} round at N = {1} · {2}" : "{0} rounds at N = {1} · {2}",
                         {std::to_string(f.rounds), std::to_string(ranks), render(f.text)}),
                     kIndent);
    }
    for (const auto& f : algo::mscclFiles()) {  // files read with --algo-file
      if (f->op != op || f->ngpus != ranks) continue;
      OpSpec s;
      s.op = op;
      s.ranks = ranks;
      s.elems = f->parts;
      s.root = f->root;
      const algo::Figures fig = algo::figuresFor(algo::mscclAlgoName(*f), s);
      const std::string summary =
          trf("MSCCL file {0}: {1} channels, {2} chunks per block, protocol {3}",
              {algo::mscclShown(f->path), std::to_string(f->nchannels), std::to_string(f->parts), algo::mscclShown(f->proto)});
      if (as_json) {
        out.push_back({{"op", name(op)}, {"algo", algo::mscclAlgoName(*f)}, {"summary", summary},
                       {"formula", fig.text}, {"rounds", fig.rounds}, {"ranks", ranks}, {"file", algo::mscclShown(f->path)}});
        continue;
      }
      printWrapped("  " + algo::mscclAlgoName(*f), summary, 22);
      printWrapped("", trf(fig.rounds == 1 ? "{0} round at N = {1} · {2}" : "{0} rounds at N = {1} · {2}",
                           {std::to_string(fig.rounds), std::to_string(ranks), render(fig.text)}),
                   22);
    }
  }
  if (as_json) std::cout << nlohmann::json{{"algorithms", out}}.dump(2) << "\n";
}

}  // namespace

int runWithAlgorithm(const ParsedSpec& p, const std::string& algo, bool as_json,
                     int deadline_ms, const PlacementOptions& placement, const HostSpec& hosts) {
  if (p.program != Program::single)
    return fail("run",
                Error{say("--algo {0} runs one op; all_reduce_decomposed is two ops of the backend "
                          "(use --op all_reduce --algo ring)",
                          algo)},
                kExitUsage);
  if (Status st = algo::checkAlgorithm(algo, p.spec); !st) return fail("run", Error{say("--{0}", st.text())}, kExitUsage);
  installInterruptHandler();
  EngineOptions eo;
  eo.deadline = std::chrono::milliseconds(deadline_ms);
  eo.placement = placement;
  eo.hosts = hosts;
  Engine engine(eo);
  Request r;
  r.spec = p.spec;
  r.backend = p.backend;
  r.algo = algo;
  auto snap = waitInterruptible(engine, engine.submit(r));
  if (!snap) return fail("run", "interrupted", interruptedExitCode());
  // The notice once: in the printout, or on stderr when stdout is JSON or
  // there is no printout.
  if (!snap->notice.empty() && (as_json || !snap->error.empty()))
    std::fprintf(stderr, "collviz: %s\n", snap->notice.c_str());
  if (!snap->error.empty())
    return failWithReport("run", toJson(*snap), snap->error, snap->rejected ? kExitUsage : kExitFailed);
  if (as_json) std::cout << toJson(*snap).dump(2) << "\n";
  if (!as_json) printRounds(*snap);
  return snap->verified ? kExitOk : kExitFailed;
}

void addAlgosCommand(CLI::App& app, std::function<int()>& action) {
  auto as_json = std::make_shared<bool>(false);
  auto ranks = std::make_shared<int>(8);
  CLI::App* cmd = app.add_subcommand(
      "algos", "List the algorithms per op with their rounds and bytes-per-rank formulas");
  cmd->add_flag("--json", *as_json, "Print one JSON document on stdout");
  cmd->add_option("--ranks,-N", *ranks, "Rank count the round counts are given for")
      ->capture_default_str();
  auto algo_file = std::make_shared<std::string>();
  cmd->add_option("--algo-file", *algo_file,
                  "An MSCCL algorithm file: its op's algorithms with the file's beside them (rounds at the file's ranks)");
  cmd->callback([&action, cmd, as_json, ranks, algo_file] {
    action = [cmd, as_json, ranks, algo_file]() -> int {
      std::optional<Op> only;
      if (cmd->count("--algo-file") > 0) {
        auto use = registerAlgoFile(*algo_file, "", cmd->count("--ranks") > 0 ? *ranks : 0, 0);
        if (!use) return fail("algos", use.error(), kExitUsage);
        only = use->op;
        *ranks = use->ranks;
      }
      if (*ranks < kMinRanks || *ranks > kMaxRanks)
        return fail("algos", "--ranks " + std::to_string(*ranks) + " is out of range; allowed: " +
                                 std::to_string(kMinRanks) + " to " + std::to_string(kMaxRanks),
                    kExitUsage);
      printAlgos(*ranks, *as_json, only);
      return kExitOk;
    };
  });
}

}  // namespace collviz
