// Command-line output: the Chinese of every message id (engine/text.h) printed by collviz run, algos, bench and devices (app/cli/).
// The id is the English template; {0}, {1}, ... keep their places (the
// Chinese may move them). Terms as in docs/glossary.md.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableCli() {
  static constexpr Translation kTable[] = {
      {"in :", "输入："},
      {"{0} wrong elements", "{0} 个元素错误"},
  };
  return kTable;
}

}  // namespace collviz
