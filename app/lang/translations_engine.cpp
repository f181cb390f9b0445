// Engine messages: the Chinese of every message id (engine/text.h) made in engine/*.cpp.
// The id is the English template; {0}, {1}, ... keep their places (the
// Chinese may move them). Terms as in docs/glossary.md.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableEngine() {
  static constexpr Translation kTable[] = {
      {"{0}; {1}", "{0}；{1}"},
      {"starting {0}: rank {1}: {2}", "启动 {0}：rank {1}：{2}"},
      {"rank {0} output element {1}: {2} here, {3} from the native op", "rank {0} 输出第 {1} 个元素：此处为 {2}，原生操作为 {3}"},
      {"starting {0}: {1}; rank {2}: {3}", "启动 {0}：{1}；rank {2}：{3}"},
  };
  return kTable;
}

}  // namespace collviz
