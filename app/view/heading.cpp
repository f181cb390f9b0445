#include "app/view/heading.h"
#include "app/lang/lang.h"

namespace collviz::ui {

Heading headingFor(Program program, Op op) {
  if (program == Program::all_reduce_decomposed)
    return {"=", "All-reduce = Reduce-scatter + All-gather", tr("the same result, in two steps")};
  return {numberText(opNumber(op)), std::string(opTitle(op)), tr(std::string(opPhrase(op)))};
}

Heading listHeadingFor(Program program, Op op) {
  if (program == Program::all_reduce_decomposed)
    return {"=", "All-reduce =", "Reduce-scatter + All-gather"};
  return headingFor(program, op);
}

std::string fileStem(Program program, Op op) {
  const std::string n = numberText(programNumber(program, op));
  if (program == Program::all_reduce_decomposed) return n + "_" + std::string(name(program));
  return n + "_" + std::string(name(op));
}

}  // namespace collviz::ui
