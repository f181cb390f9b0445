// A real job's files (issue 48): the Chinese of the messages of engine/job/
// (Flight Recorder dumps, NCCL RAS, Inspector, profiler traces, nccl-tests
// output, the analysis and its verdict) and of `collviz job`. The formats'
// and tools' own words (field names, NCCL's statuses) stay as they are, in
// backticks where they are code. Terms as in docs/glossary.md.
#include "app/lang/tables.h"

namespace collviz {

std::span<const Translation> tableJob() {
  static constexpr Translation kTable[] = {
      // What each file was (engine/job/job.cpp formatText).
      {"PyTorch Flight Recorder dump (pickle)", "PyTorch Flight Recorder 转储（pickle）"},
      {"PyTorch Flight Recorder dump (JSON)", "PyTorch Flight Recorder 转储（JSON）"},
      {"NCCL RAS report (text)", "NCCL RAS 报告（文本）"},
      {"NCCL RAS report (JSON)", "NCCL RAS 报告（JSON）"},
      {"NCCL RAS monitor event", "NCCL RAS 监视事件"},
      {"NCCL Inspector records", "NCCL Inspector 记录"},
      {"NCCL profiler trace (Chrome trace)", "NCCL profiler 跟踪（Chrome trace）"},
      {"NCCL profiler trace (JSON lines)", "NCCL profiler 跟踪（JSON 行）"},
      {"nccl-tests output", "nccl-tests 输出"},
      {"NCCL log (NCCL_DEBUG=INFO)", "NCCL 日志（NCCL_DEBUG=INFO）"},
      {"{0}: not a job trace (skipped)", "{0}：不是作业跟踪文件（已跳过）"},
  };
  return kTable;
}

}  // namespace collviz
