#include "app/cli/cli_algo_file.h"

#include <memory>

#include "engine/algo/msccl.h"

namespace collviz {

void addAlgoFileOption(CLI::App* cmd, std::string& path) {
  cmd->add_option("--algo-file", path,
                  "An MSCCL algorithm file (XML from msccl-tools): checked, lowered to rounds "
                  "and run like --algo; the op and ranks come from the file");
}

Result<std::string> useAlgoFile(const std::string& path, CLI::App* cmd, SpecArgs& a) {
  auto given = [&](const char* name) { return cmd->get_option(name)->count() > 0; };
  if (given("--algo") && cmd->get_option("--algo")->as<std::string>() != "native")
    return Error{"--algo and --algo-file both name an algorithm; give one"};
  auto file = algo::readMscclFile(path, given("--ranks") ? a.ranks : 0, a.root);
  if (!file) return file.error();
  const std::string op(name(file->op));
  if (given("--op") && a.op != op)
    return Error{path + ": the file is " + op + " (coll=\"" + file->coll + "\"), not --op " + a.op +
                 "; allowed: --op " + op + " or no --op"};
  a.op = op;
  a.ranks = file->ngpus;
  if (!given("--elems")) a.elems = ((a.elems + file->parts - 1) / file->parts) * file->parts;
  else if (a.elems % file->parts != 0)
    return Error{"--elems " + std::to_string(a.elems) + " does not split into " + path + "'s " +
                 std::to_string(file->parts) + " chunks per block; allowed: a multiple of " +
                 std::to_string(file->parts)};
  const std::string algo_name = algo::mscclAlgoName(*file);
  algo::registerMscclFile(std::make_shared<algo::MscclAlgo>(std::move(*file)));
  return algo_name;
}

}  // namespace collviz
