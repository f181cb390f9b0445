#include "engine/verify/verify.h"

#include <bit>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "engine/collectives.h"
#include "engine/dtype.h"
#include "engine/verify/poison.h"
#include "engine/verify/verify_fast.h"

namespace collviz {
namespace {

bool valuesMatch(const OpSpec& s, double got, double want) {
  if (got == want) return true;
  if (std::isnan(got) || std::isnan(want)) return false;
  if (!(reduces(s.op) && s.redop == RedOp::avg)) return false;
  // avg: a backend may divide before or after summing; allow a few ulps.
  const double rel = s.dtype == DType::f16 ? 2e-3 : s.dtype == DType::bf16 ? 1.6e-2
                   : s.dtype == DType::f32 ? 1e-6 : 1e-14;
  return std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want));
}

BlockLabel labelFrom(const OpSpec& s, const BlockRef& ref, bool decoded) {
  BlockLabel l;
  l.kind = ref.reduced ? BlockLabel::Kind::reduced : BlockLabel::Kind::source;
  l.letter = blockLetter(s.op, ref);
  l.shard = blockShard(s, ref);
  l.contributors = ref.ranks;
  l.decoded = decoded;
  return l;
}

// Label one buffer's blocks from what its bytes hold; count the elements
// that fail any check (each once).
struct BufferCheck {
  int64_t wrong = 0, mismatches = 0, undecodable = 0, unwritten = 0;
  Text first;
  std::vector<Text> bad_blocks;
  std::vector<uint8_t> closed;  // per block: equal to the pattern's closed form
};

// Expected blocks, computed once per distinct BlockRef (all_reduce's N ranks
// share the same N refs).
class ExpectedCache {
 public:
  // The inputs as doubles are made on first use: blocks that pass the
  // whole-block check never need them.
  ExpectedCache(const OpSpec& s, const StepBytes& bytes) : spec_(s), bytes_(bytes) {}
  const std::vector<double>& get(const BlockRef& ref) {
    if (!have_inputs_) inputs_ = inputsAsDoubles(spec_, bytes_), have_inputs_ = true;
    auto key = std::make_pair(ref.ranks, ref.block);
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, expectedBlock(spec_, ref, inputs_)).first;
    return it->second;
  }

 private:
  const OpSpec& spec_;
  const StepBytes& bytes_;
  bool have_inputs_ = false;
  std::vector<std::vector<double>> inputs_;
  std::map<std::pair<uint32_t, int>, std::vector<double>> cache_;
};

// What one block's elements decode to, whatever the oracle expects there.
struct BlockRead {
  uint32_t seen = 0;   // contributors named by the decodable elements
  int block = -1;      // input block of the first decodable element (full pattern)
  int64_t decodable = 0, poison = 0, out_of_place = 0;
};

bool isMinMax(const OpSpec& s) { return s.redop == RedOp::min || s.redop == RedOp::max; }

// The label the bytes earn. Where the pattern does not carry a part of it
// (the block index when not full, everything when plain), that part is the
// oracle's and the label says so (decoded = false).
BlockLabel labelFromBytes(const OpSpec& s, const Pattern& p, const BlockRef& ref,
                          const BlockRead& read, int64_t elems) {
  BlockLabel l = labelFrom(s, ref, false);
  if (read.poison == elems || (p.kind != Pattern::Kind::plain && read.decodable == 0)) {
    l.kind = BlockLabel::Kind::unknown;  // nothing there names any source
    l.letter = l.shard = -1;
    l.contributors = 0;
    l.decoded = true;
    return l;
  }
  if (p.kind == Pattern::Kind::plain) return l;
  const bool full = p.kind == Pattern::Kind::sum_bits && p.full;
  const int block = full ? read.block : ref.block;
  const bool reduced =
      std::popcount(read.seen) > 1 || (ref.reduced && (isMinMax(s) || read.seen == ref.ranks));
  const BlockRef got{read.seen, block, reduced};
  l.kind = reduced ? BlockLabel::Kind::reduced : BlockLabel::Kind::source;
  l.contributors = read.seen;
  l.letter = blockLetter(s.op, got);
  l.shard = blockShard(s, got);
  const bool names_block =
      l.shard >= 0 || (!reduced && collective(s.op).letters == Lettering::root_piece);
  l.decoded = full || !names_block;
  return l;
}

Text badBlockLine(const OpSpec& s, int rank, const Text& what, int j, const BlockLabel& got,
                  const BlockRef& ref, const BlockRead& read, int64_t elems) {
  const std::string want = labelFrom(s, ref, true).text(s.redop);
  Text found = read.poison == elems ? say("not written (still the poison) where {0} belongs", want)
               : got.text(s.redop) != want ? say("{0} where {1} belongs", got.text(s.redop), want)
                                           : lit(want);
  if (read.out_of_place && read.poison != elems)
    return say("rank {0} {1} block {2}: {3}, elements out of place ({4} of {5} elements wrong)",
               rank, what, j, found, got.bad, elems);
  return say("rank {0} {1} block {2}: {3} ({4} of {5} elements wrong)", rank, what, j, found,
             got.bad, elems);
}

// A value as the checks print it: every digit that reads back.
std::string valueText(double v) {
  std::ostringstream os;
  os << std::setprecision(17) << v;
  return os.str();
}

// Is the input block a copy takes its values from (value ref, one rank, not
// reduced) the pattern's closed form of `ref`? Then an output block equal
// to that closed form equals its source too, so its values are right. The
// decomposition's all-gather copies the reduce-scatter's Σ blocks: its
// blocks are checked at memory speed this way. Answers are kept per block.
class SourceCheck {
 public:
  SourceCheck(const OpSpec& s, const Pattern& p, const Provenance& prov, const StepBytes& bytes)
      : s_(s), p_(p), prov_(prov), bytes_(bytes) {}
  bool closed(const BlockRef& value_ref, const BlockRef& ref) {
    if (value_ref.reduced || std::popcount(value_ref.ranks) != 1) return false;
    const int src = std::countr_zero(value_ref.ranks), blk = value_ref.block;
    if (src >= int(prov_.in_refs.size()) || blk < 0 || blk >= int(prov_.in_refs[src].size()) ||
        !(prov_.in_refs[src][blk] == ref) || src >= int(bytes_.in.size()) || !bytes_.in[src].data)
      return false;
    const std::size_t block_bytes = std::size_t(s_.elems) * dtypeSize(s_.dtype);
    if (bytes_.in[src].size < (std::size_t(blk) + 1) * block_bytes) return false;
    const auto key = std::make_pair(src, blk);
    auto it = known_.find(key);
    if (it == known_.end())
      it = known_.emplace(key, checkBlockFast(s_, p_, ref, bytes_.in[src].data + blk * block_bytes,
                                              s_.elems).ok).first;
    return it->second;
  }

 private:
  const OpSpec& s_;
  const Pattern& p_;
  const Provenance& prov_;
  const StepBytes& bytes_;
  std::map<std::pair<int, int>, bool> known_;
};

// `s`: the pattern's spec (decoding, labels); `vs`: the step's spec (values).
// Reads `data`; writes the labels of `buf`.
BufferCheck checkBuffer(const OpSpec& s, const OpSpec& vs, const Pattern& p, int rank,
                        const Text& what, BufferView& buf, const std::byte* data,
                        const std::vector<BlockRef>& refs,
                        const std::vector<BlockRef>* value_refs, ExpectedCache* expected,
                        SourceCheck* sources = nullptr) {
  BufferCheck c;
  const int64_t e = s.elems;
  buf.labels.clear();
  const bool decodes = p.kind != Pattern::Kind::plain;
  for (std::size_t j = 0; j < refs.size(); ++j) {
    const BlockRef& ref = refs[j];
    // Whole block at memory speed first: a block equal to the pattern's
    // closed form everywhere reads exactly as the element-by-element path
    // would label it. Element by element only where that finds a difference
    // (or the pattern has no closed form), to name and locate each problem.
    const bool same_values =
        !value_refs || (vs == s && (*value_refs)[j] == ref) ||
        (sources && vs.elems == s.elems && vs.dtype == s.dtype && !reduces(vs.op) &&
         sources->closed((*value_refs)[j], ref));
    const FastBlockCheck fast =
        same_values ? checkBlockFast(s, p, ref, data + j * std::size_t(e) * dtypeSize(s.dtype), e)
                    : FastBlockCheck{};
    c.closed.push_back(fast.ok ? 1 : 0);
    if (fast.ok) {
      BlockRead read;
      read.seen = fast.seen;
      read.block = ref.block;
      read.decodable = e;
      buf.labels.push_back(labelFromBytes(s, p, ref, read, e));
      continue;
    }
    const std::vector<double>* want =
        expected ? &expected->get((*value_refs)[j]) : nullptr;
    BlockRead read;
    int bad = 0;
    for (int64_t i = 0; i < e; ++i) {
      const std::size_t idx = j * std::size_t(e) + std::size_t(i);
      const double got = readElement(data, s.dtype, idx);
      const bool poison = isPoison(data, s.dtype, idx);
      Text why;
      if (poison) {
        ++read.poison;
        ++c.unwritten;
        why = say("still holds the poison (the backend did not write it)");
      }
      if (want && !valuesMatch(vs, got, (*want)[std::size_t(i)])) {
        ++c.mismatches;
        if (why.empty()) why = say("got {0}, want {1}", valueText(got), valueText((*want)[std::size_t(i)]));
      }
      if (decodes) {
        const int64_t code = int64_t(ref.block) * e + i;
        const DecodedElement d = decodeValue(s, p, got, code, ref.reduced);
        // prod values carry no position; sum_bits carry it (mod K unless full).
        const int64_t want_code = p.kind == Pattern::Kind::prod_bits ? d.code
                                  : p.full ? code
                                           : code % p.modulus;
        const bool ranks_ok = ref.reduced && isMinMax(s)
                                  ? (std::popcount(d.ranks) == 1 && (d.ranks & ref.ranks))
                                  : d.ranks == ref.ranks;
        if (d.ok) {
          read.seen |= d.ranks;
          if (read.decodable++ == 0 && p.full) read.block = int(d.code / e);
          if (p.full && (d.code % e != i || d.code / e != read.block)) ++read.out_of_place;
        }
        if (!d.ok || !ranks_ok || d.code != want_code) {
          ++c.undecodable;
          if (why.empty())
            why = say("value {0} does not decode to the data this op allows there", valueText(got));
        }
      }
      if (why.empty()) continue;
      ++bad;
      ++c.wrong;
      if (c.first.empty())
        c.first = say("rank {0} {1} block {2} element {3}: {4}", rank, what, j, i, why);
    }
    BlockLabel label = labelFromBytes(s, p, ref, read, e);
    label.bad = bad;
    if (bad) c.bad_blocks.push_back(badBlockLine(s, rank, what, int(j), label, ref, read, e));
    buf.labels.push_back(label);
  }
  return c;
}

}  // namespace

void writeInputs(const OpSpec& s, const Pattern& p, int rank, std::byte* data) {
  const std::size_t block_bytes = std::size_t(s.elems) * dtypeSize(s.dtype);
  const auto refs = inputRefs(s, rank);
  for (std::size_t b = 0; b < refs.size(); ++b) {
    std::byte* at = data + b * block_bytes;
    if (writeClosedForm(s, p, refs[b], at, s.elems)) continue;
    for (int64_t i = 0; i < s.elems; ++i)
      writeElement(at, s.dtype, std::size_t(i), patternValue(s, p, rank, int(b), i));
  }
}

void fillInputs(StepResult& step, const Pattern& p) {
  const OpSpec& s = step.spec;
  for (int r = 0; r < s.ranks; ++r) {
    BufferView& in = step.ranks[r].input;
    in = BufferView{};
    in.present = inputBlocks(s.op, s.ranks, r, s.root) > 0;
    in.bytes.resize(inputBytes(s, r));
    writeInputs(s, p, r, in.bytes.data());
  }
}

StepBytes bytesOf(const StepResult& step) {
  StepBytes b;
  for (const RankResult& rr : step.ranks) {
    b.in.push_back({rr.input.bytes.data(), rr.input.bytes.size()});
    b.out.push_back({rr.output.bytes.data(), rr.output.bytes.size()});
  }
  return b;
}

std::vector<std::vector<double>> inputsAsDoubles(const StepResult& step) {
  return inputsAsDoubles(step.spec, bytesOf(step));
}

std::vector<std::vector<double>> inputsAsDoubles(const OpSpec& s, const StepBytes& bytes) {
  std::vector<std::vector<double>> out(s.ranks);
  for (int r = 0; r < s.ranks && r < int(bytes.in.size()); ++r) {
    const ByteSpan& in = bytes.in[r];
    const std::size_t n = in.data ? in.size / dtypeSize(s.dtype) : 0;
    out[r].resize(n);
    for (std::size_t i = 0; i < n; ++i) out[r][i] = readElement(in.data, s.dtype, i);
  }
  return out;
}

Provenance opProvenance(const OpSpec& s) {
  Provenance p;
  p.pattern_spec = s;
  for (int r = 0; r < s.ranks; ++r) {
    p.in_refs.push_back(inputRefs(s, r));
    p.out_refs.push_back(expectedOutputRefs(s, r));
  }
  return p;
}

Provenance allGatherAfterReduceScatter(const OpSpec& rs) {
  Provenance p;
  p.pattern_spec = rs;
  for (int r = 0; r < rs.ranks; ++r) p.in_refs.push_back(expectedOutputRefs(rs, r));
  for (int r = 0; r < rs.ranks; ++r) {
    std::vector<BlockRef> out;
    for (int j = 0; j < rs.ranks; ++j) out.push_back(p.in_refs[j][0]);
    p.out_refs.push_back(out);
  }
  return p;
}

void labelAndVerify(StepResult& step, const Pattern& p, const Provenance& prov) {
  labelAndVerify(step, p, prov, bytesOf(step), CheckControl{}, nullptr);
}

bool labelAndVerify(StepResult& step, const Pattern& p, const Provenance& prov,
                    const StepBytes& bytes, const CheckControl& ctl, ClosedBlocks* closed) {
  const OpSpec& s = step.spec;
  const OpSpec& ps = prov.pattern_spec;
  ExpectedCache cache(s, bytes);
  SourceCheck sources(ps, p, prov, bytes);
  Verification v;
  v.mode = p.describe();
  double total = 0, done = 0;
  for (int r = 0; r < s.ranks; ++r)
    total += double(bytes.in[r].size) + double(bytes.out[r].size);
  auto advance = [&](std::size_t n) {
    done += double(n);
    if (ctl.progress && total > 0) ctl.progress(done / total);
    return !(ctl.stop && ctl.stop->load());
  };
  if (closed) {
    closed->in.assign(std::size_t(s.ranks), {});
    closed->out.assign(std::size_t(s.ranks), {});
  }
  for (int r = 0; r < s.ranks; ++r) {
    RankResult& rr = step.ranks[r];
    if (rr.input.present) {
      BufferCheck c = checkBuffer(ps, s, p, r, say("input"), rr.input, bytes.in[r].data,
                                  prov.in_refs[r], nullptr, nullptr);
      if (closed) closed->in[r] = std::move(c.closed);
    }
    if (!advance(bytes.in[r].size)) return false;
    if (!rr.output.present) continue;
    const auto value_refs = expectedOutputRefs(s, r);
    BufferCheck c = checkBuffer(ps, s, p, r, say("output"), rr.output, bytes.out[r].data,
                                prov.out_refs[r], &value_refs, &cache, &sources);
    if (closed) closed->out[r] = c.closed;
    v.wrong += c.wrong;
    v.mismatches += c.mismatches;
    v.undecodable += c.undecodable;
    v.unwritten += c.unwritten;
    if (v.first_problem.empty()) v.first_problem = c.first;
    v.bad_blocks.insert(v.bad_blocks.end(), c.bad_blocks.begin(), c.bad_blocks.end());
    if (!advance(bytes.out[r].size)) return false;
  }
  v.verified = v.wrong == 0;
  step.verify = v;
  return true;
}

}  // namespace collviz
