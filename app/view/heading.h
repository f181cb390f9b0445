// How an op is named on screen, in figures and in file names: the one place
// that writes its number ("07") and heading.
#pragma once

#include <string>

#include "engine/spec.h"

namespace collviz::ui {

// The diagram's heading, e.g. "07", "All-reduce", "everyone gets the total".
struct Heading {
  std::string number, title, phrase;
};
Heading headingFor(Program program, Op op);
// The op list's entry: the same for an op; two short lines for the
// decomposition ("All-reduce =", "Reduce-scatter + All-gather").
Heading listHeadingFor(Program program, Op op);
// "07_all_reduce", "09_all_reduce_decomposed" (file names, without step or trace).
std::string fileStem(Program program, Op op);

}  // namespace collviz::ui
