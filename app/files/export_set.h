// What `collviz export` writes: one view, or the article's whole set (the
// eight ops, all-to-all with each trace choice, the decomposition's three
// states), with predictable file names and an index page. Pure.
#pragma once

#include <string>
#include <vector>

#include "app/view/diagram_layout.h"
#include "engine/spec.h"

namespace collviz::ui {

struct ExportItem {
  Program program = Program::single;
  OpSpec spec;
  ViewSettings view;  // trace, trace mode, decomposition stage
  std::string file;       // file name (no directory)
  std::string caption;    // "08 All-to-all — exchange by column · trace: what reaches R2"
};

// "01_broadcast", "08_all_to_all_trace_r2", "08_all_to_all_trace_from_r2",
// "09_all_reduce_decomposed_step1"; then "." + ext.
std::string exportFileName(Program program, Op op, const ViewSettings& view,
                           const std::string& ext);
std::string exportCaption(Program program, Op op, int ranks, const ViewSettings& view);
// The decomposition's three states as the captions name them (through tr()).
inline constexpr const char* kDecompositionStates[] = {
    "input", "after reduce-scatter: one shard each", "after all-gather: a full copy each"};

// The article's set for `base` (ranks, elems, dtype, redop, root), in order.
std::vector<ExportItem> articleSet(const OpSpec& base, TraceMode trace_mode,
                                   const std::string& ext);

// index.md: a heading, the settings, and each figure in order.
std::string indexMarkdown(const std::vector<ExportItem>& items, const std::string& settings);

}  // namespace collviz::ui
