#include "app/cli/cli_algo_file.h"

#include <memory>

#include "engine/algo/msccl/msccl.h"
#include "engine/group/memory_budget.h"

namespace collviz {

void addAlgoFileOption(CLI::App* cmd, std::string& path) {
  cmd->add_option("--algo-file", path,
                  "An MSCCL algorithm file (XML from msccl-tools): checked, lowered to rounds "
                  "and run like --algo; the op and ranks come from the file");
}

Result<std::string> useAlgoFile(const std::string& path, CLI::App* cmd, SpecArgs& a) {
  auto given = [&](const char* name) { return cmd->get_option(name)->count() > 0; };
  if (given("--algo") && cmd->get_option("--algo")->as<std::string>() != "native")
    return Error{say("--algo and --algo-file both name an algorithm; give one")};
  auto file = algo::readMscclFile(path, given("--ranks") ? a.ranks : 0, a.root, mscclChunkBudget());
  if (!file && file.error().text.id == algo::kMscclRootOutOfRange && file.error().text.args.size() == 3)
    return Error{say("--root = {0} is out of range; allowed: 0 to {1} (the file's ngpus = {2})",
                     file.error().text.args[0], file.error().text.args[1], file.error().text.args[2])};
  if (!file) return file.error();
  const std::string op(name(file->op));
  if (given("--op") && a.op != op)
    return Error{say("{0}: the file is {1} (coll=\"{2}\"), not --op {3}; allowed: --op {1} or no --op", algo::mscclShown(path), op,
                     file->coll, a.op)};
  a.op = op;
  a.ranks = file->ngpus;
  if (!given("--elems")) a.elems = ((a.elems + file->parts - 1) / file->parts) * file->parts;
  else if (a.elems % file->parts != 0)
    return Error{say("--elems {0} does not split into {1}'s {2} chunks per block; allowed: a multiple of {2}",
                     a.elems, algo::mscclShown(path), file->parts)};
  const std::string algo_name = algo::mscclAlgoName(*file);
  algo::registerMscclFile(std::make_shared<algo::MscclAlgo>(std::move(*file)));
  return algo_name;
}

Result<AlgoFileUse> registerAlgoFile(const std::string& path, const std::string& op, int ranks, int root) {
  auto file = algo::readMscclFile(path, ranks, root, mscclChunkBudget());
  if (!file) return file.error();
  const std::string coll(name(file->op));
  if (!op.empty() && op != "all" && op != coll)
    return Error{say("{0}: the file is {1} (coll=\"{2}\"), not --op {3}; allowed: --op {1} or no --op",
                     algo::mscclShown(path), coll, file->coll, op)};
  AlgoFileUse use{algo::mscclAlgoName(*file), file->op, file->ngpus, file->parts};
  algo::registerMscclFile(std::make_shared<algo::MscclAlgo>(std::move(*file)));
  return use;
}

}  // namespace collviz
