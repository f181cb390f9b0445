// keepScratchInHugeHeap (engine/worker/huge_heap.h): the blocks allocated after
// it lie in memory marked for huge pages and fault in 2 MiB at a time.
// Alone in its process (one test): the heap is the process's.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/worker/huge_heap.h"

namespace collviz {
namespace {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

std::string slurp(const char* path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

long vmstat(const std::string& key) {
  std::istringstream in(slurp("/proc/vmstat"));
  std::string k;
  long v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return -1;
}

// The VmFlags of the mapping that holds `p` (/proc/self/smaps).
std::string flagsAt(const void* p) {
  std::istringstream in(slurp("/proc/self/smaps"));
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') inside = lo <= at && at < hi;
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

long minorFaults() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

TEST(HugeHeap, ABlockAfterItIsInHugePageMemoryAndFaultsOncePer2MiB) {
  if (kSanitized) GTEST_SKIP() << "a sanitizer's allocator is not glibc's heap: keepScratchInHugeHeap leaves it alone";
  const std::string thp = slurp("/sys/kernel/mm/transparent_hugepage/enabled");
  if (thp.empty() || thp.find("[never]") != std::string::npos)
    GTEST_SKIP() << "transparent huge pages are off in this kernel (" << thp << ")";
  ASSERT_TRUE(keepScratchInHugeHeap(std::size_t(64) << 20));
  constexpr std::size_t kBlock = std::size_t(2) << 20;  // Gloo's all_reduce scratch: two 1 MiB segments
  auto* block = static_cast<char*>(std::malloc(kBlock));
  ASSERT_NE(block, nullptr);
  EXPECT_NE(flagsAt(block).find(" hg"), std::string::npos) << flagsAt(block);
  const long fallback = vmstat("thp_fault_fallback"), before = minorFaults();
  std::memset(block, 1, kBlock);
  const long faults = minorFaults() - before;
  if (vmstat("thp_fault_fallback") > fallback)
    GTEST_SKIP() << "the kernel had no free huge page (thp_fault_fallback rose): " << faults << " faults";
  // At most the two huge pages the block spans, and a small page or two of
  // the allocator's own; 4 KiB pages would be 512.
  EXPECT_LE(faults, 4) << "faults writing a 2 MiB block";
  std::free(block);
}

}  // namespace
}  // namespace collviz
