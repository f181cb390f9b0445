#include "app/panels/algo_file_dialog.h"


#include <memory>

#include "app/lang/lang.h"
#include "app/gl/wrapped_text.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/group/memory_budget.h"

namespace collviz::ui {

Status openAlgoFile(AppState& s, const std::string& path) {
  auto file = algo::readMscclFile(path, 0, s.runSpec().root, mscclChunkBudget());
  if (!file) return file.error();
  s.entry = int(file->op);
  s.spec.ranks = file->ngpus;
  s.spec.elems = (s.spec.elems + file->parts - 1) / file->parts * file->parts;
  s.view.algo = algo::mscclAlgoName(*file);
  s.view.round = 0;
  algo::registerMscclFile(std::make_shared<algo::MscclAlgo>(std::move(*file)));
  return {};
}

void AlgoFileDialog::Draw(AppState& s, bool open_now) {
  dialog_.Draw("open_algorithm", tr("Open algorithm"),
               tr("An MSCCL algorithm file (XML from msccl-tools): it is checked, "
                  "run round by round and listed with the algorithms."),
               open_now, [&s](const std::string& path) { return openAlgoFile(s, path); });
}

}  // namespace collviz::ui
