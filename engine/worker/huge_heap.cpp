#include "engine/worker/huge_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace collviz {

// The block below the first huge page, kept for the process's life (a
// global: a block nobody reads might otherwise be left out by the compiler).
void* g_huge_heap_pad = nullptr;

namespace {
constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
constexpr int kDefaultTopPad = 128 * 1024;  // glibc's DEFAULT_TOP_PAD

char* alignUp(char* p) {
  return reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1));
}
}  // namespace

bool keepScratchInHugeHeap(std::size_t bytes) {
  (void)::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  (void)::mallopt(M_TRIM_THRESHOLD, 256 << 20);
  if (bytes < kHugePage || bytes > (std::size_t(128) << 20)) return false;
  // One growth of the heap: a block bigger than the free space at its top
  // (keepcost) makes glibc ask sbrk for it plus M_TOP_PAD, and write only
  // the headers. Everything from the old break up is untouched.
  char* const old_break = static_cast<char*>(::sbrk(0));
  (void)::mallopt(M_TOP_PAD, int(bytes));
  void* probe = std::malloc(::mallinfo2().keepcost + (64 << 10));
  (void)::mallopt(M_TOP_PAD, kDefaultTopPad);
  if (!probe) return false;
  char* const top = static_cast<char*>(::sbrk(0));
  char* const block = static_cast<char*>(probe);
  char* const block_end = block + ::malloc_usable_size(probe);
  // Only glibc's own heap grows the break; a sanitizer's allocator (or a
  // block served by mmap) lies elsewhere.
  const bool grown = old_break != reinterpret_cast<char*>(-1) && block < old_break && old_break < block_end &&
                     block_end < top;
  // The next chunk's header follows the block: the huge pages start past it.
  char* const from = grown ? alignUp(block_end + 4096) : nullptr;
  if (!grown || from + kHugePage > top || ::madvise(from, std::size_t(top - from), MADV_HUGEPAGE) != 0) {
    std::free(probe);
    return false;
  }
  const std::size_t head = std::size_t(from - block);
  std::free(probe);  // back into the top, which starts where it did
  // Below `from` a block of its own, kept: glibc's chunk of a request of n
  // bytes spans n + 8 rounded up to 16, so asking head - 8 puts the next
  // chunk's user memory at `from`.
  g_huge_heap_pad = std::malloc(head - 8);
  return true;
}

}  // namespace collviz
