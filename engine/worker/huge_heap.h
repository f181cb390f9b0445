// The rank's heap made ready for big scratch blocks in huge pages.
//
// Gloo allocates its scratch at every call (all_reduce: two segments of up
// to 1 MiB each) and frees it after; the worker keeps freed blocks in the
// heap (mallopt in the Gloo communicator), so only the first call touches
// new pages. On a VM that shadows the guest's page tables (this project's
// 2-core one) each first touch of a 4 KiB page costs 5-11 us: 512 faults a
// rank, 5-6 ms of CPU, inside the warm-up call of a 16 MiB all_reduce. In
// 2 MiB pages the same scratch is one or two faults.
#pragma once

#include <cstddef>

namespace collviz {

// Blocks up to 32 MiB (glibc's most) served by the heap, which keeps what
// was freed (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD 256 MiB): by default a big
// block is a fresh mmap every call, and the next from a grown heap, so two
// calls in a row paid a page fault per 4 KiB of Gloo's scratch (the timed
// call of a one-shot 16 MiB all_reduce 50 ms where a warm one takes 25).
// Then the heap grown by about `bytes` (untouched: no memory is used until
// a block is written), the new part marked MADV_HUGEPAGE, so that blocks
// allocated from it fault in 2 MiB pages. The heap's free top below the
// new part's first 2 MiB boundary is taken by a block kept for the
// process's life (address space the heap had, and at most 2 MiB more), so
// that the next allocations start on that boundary. Fails open: where the
// allocator is not glibc's heap (a sanitizer's), or the kernel refuses,
// the pages stay small. Returns whether the heap was marked.
bool keepScratchInHugeHeap(std::size_t bytes);

}  // namespace collviz
