// The plugin built alone, for its tests (libcollviz-nccl-profiler-solo.so,
// never installed): where the NCCL tap's library holds the plugin, the tap
// defines profilerWriter() and owns the capture; here the plugin opens a
// capture file of its own in COLLVIZ_TAP_OUT at its first use, with its
// header's rank -1 (no tap to say it) and only profile records in it.
#include <stdlib.h>

#include <mutex>

#include "tap/nccl/profiler.h"

namespace collviz::tap::nccl {

CaptureWriter* profilerWriter() {
  static CaptureWriter* writer = [] {
    auto* w = new CaptureWriter;
    WriterOptions o;
    o.dir = getenv("COLLVIZ_TAP_OUT");
    o.library = Library::nccl;
    o.bytes_limit = 0;
    if (!o.dir || !w->open(o)) {
      delete w;
      return static_cast<CaptureWriter*>(nullptr);
    }
    return w;
  }();
  return writer;
}

}  // namespace collviz::tap::nccl
