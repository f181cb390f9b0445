// Whole-block checks at memory speed. The provenance pattern makes every
// expected element a closed form of (contributors, block, element): a block
// whose bytes equal that form everywhere decodes to exactly the label the
// element-by-element path would give, so only blocks that fail here need the
// slow path (which then finds and locates each problem).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/verify/oracle.h"
#include "engine/verify/provenance.h"
#include "engine/spec.h"

namespace collviz {

struct FastBlockCheck {
  bool ok = false;    // every element equals the closed form: nothing to report
  uint32_t seen = 0;  // when ok: the contributors the elements decode to
};

// Check block `ref` of the pattern `p` made for spec `s`: `elems` elements of
// s.dtype at `data`. ok = false when an element differs or the pattern has no
// closed form here (plain values): the caller then checks element by element.
FastBlockCheck checkBlockFast(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                              const std::byte* data, int64_t elems);

// Do elements [from, to) of block `ref` equal the closed form? False when
// the pattern has none (plain values).
bool rangeMatchesFast(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                      const std::byte* data, int64_t elems, int64_t from, int64_t to);

// The expected elements [first, first + count) of block `ref`, as doubles
// (tests and benchmarks make correct outputs with it).
std::vector<double> closedFormValues(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                                     int64_t first, int64_t count);

// The elements of [from, to) of a block equal to the closed form of `ref`
// (`elems` elements) among which its smallest and largest values lie: the
// closed form rises with the code between two wraps of the code (mod K), and
// prod's depends on the code mod N only. Empty when there is no closed form.
std::vector<int64_t> closedFormExtremes(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                                        int64_t elems, int64_t from, int64_t to);

// Write block `ref` of the pattern's closed form: `elems` elements of s.dtype
// at `data`, in chunks at memory speed (the pattern's inputs). False, and
// nothing written, when the pattern has none (plain values).
bool writeClosedForm(const OpSpec& s, const Pattern& p, const BlockRef& ref, std::byte* data,
                     int64_t elems);

// Off: every block goes element by element (tests compare the two paths,
// benchmarks time them). On by default; process-wide.
void useFastVerify(bool on);

// Threads the whole-block checks use (the machine's cores, at most 16).
int verifyThreads();

}  // namespace collviz
