// Verification, spec, device and bench messages: the Chinese of every message id (engine/text.h) made in engine/verify*.cpp, spec.cpp, devices.cpp, bench*.cpp and the like.
// The id is the English template; {0}, {1}, ... keep their places (the
// Chinese may move them). Terms as in docs/glossary.md.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableChecks() {
  static constexpr Translation kTable[] = {
      {"{0} ({1})", "{0}（{1}）"},
  };
  return kTable;
}

}  // namespace collviz
