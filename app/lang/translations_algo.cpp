// Algorithm messages: the Chinese of every message id (engine/text.h) made in engine/algo/ (schedules, formulas, MSCCL files).
// The id is the English template; {0}, {1}, ... keep their places (the
// Chinese may move them). Terms as in docs/glossary.md.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableAlgo() {
  static constexpr Translation kTable[] = {
      {"round", "轮"},
  };
  return kTable;
}

}  // namespace collviz
