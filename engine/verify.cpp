#include "engine/verify.h"

#include <bit>
#include <cmath>
#include <map>
#include <sstream>

#include "engine/collectives.h"
#include "engine/dtype.h"
#include "engine/verify_fast.h"

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

// Label one buffer's blocks against the refs it should hold; count elements
// whose decoded provenance or value disagrees. Returns mismatching values.
struct BufferCheck {
  int64_t mismatches = 0;
  int64_t undecodable = 0;
  std::string first;
};

// Expected blocks, computed once per distinct BlockRef (all_reduce's N ranks
// share the same N refs).
class ExpectedCache {
 public:
  // The inputs as doubles are made on first use: blocks that pass the
  // whole-block check never need them.
  explicit ExpectedCache(const StepResult& step) : step_(step) {}
  const std::vector<double>& get(const BlockRef& ref) {
    if (!have_inputs_) inputs_ = inputsAsDoubles(step_), have_inputs_ = true;
    auto key = std::make_pair(ref.ranks, ref.block);
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, expectedBlock(step_.spec, ref, inputs_)).first;
    return it->second;
  }

 private:
  const StepResult& step_;
  bool have_inputs_ = false;
  std::vector<std::vector<double>> inputs_;
  std::map<std::pair<uint32_t, int>, std::vector<double>> cache_;
};

// `s`: the pattern's spec (decoding, labels); `vs`: the step's spec (values).
BufferCheck checkBuffer(const OpSpec& s, const OpSpec& vs, const Pattern& p, int rank,
                        const char* what,
                        BufferView& buf, const std::vector<BlockRef>& refs,
                        const std::vector<BlockRef>* value_refs, ExpectedCache* expected) {
  BufferCheck c;
  const int64_t e = s.elems;
  buf.labels.clear();
  const bool decodes = p.kind != Pattern::Kind::plain;
  for (std::size_t j = 0; j < refs.size(); ++j) {
    const BlockRef& ref = refs[j];
    BlockLabel label = labelFrom(s, ref, decodes);
    // Whole block at memory speed first; element by element only where that
    // finds a difference (or the pattern has no closed form).
    const bool same_values = !value_refs || (vs == s && (*value_refs)[j] == ref);
    const FastBlockCheck fast = same_values ? checkBlockFast(s, p, ref, buf.bytes.data() +
                                                  j * std::size_t(e) * dtypeSize(s.dtype), e)
                                            : FastBlockCheck{};
    const std::vector<double>* want =
        expected && !fast.ok ? &expected->get((*value_refs)[j]) : nullptr;
    uint32_t seen = fast.seen;
    bool first_ok = true;
    for (int64_t i = 0; i < (fast.ok ? 0 : e); ++i) {
      const std::size_t idx = j * std::size_t(e) + std::size_t(i);
      const double got = buf.value(idx, s.dtype);
      bool bad = false;
      if (want && !valuesMatch(vs, got, (*want)[std::size_t(i)])) {
        bad = true;
        if (c.mismatches++ == 0 && c.first.empty()) {
          std::ostringstream os;
          os << "rank " << rank << " " << what << " block " << j << " element " << i
             << ": got " << got << ", want " << (*want)[std::size_t(i)];
          c.first = os.str();
        }
      }
      if (decodes) {
        const int64_t code = int64_t(ref.block) * e + i;
        const DecodedElement d = decodeValue(s, p, got, code, ref.reduced);
        // prod values carry no position; sum_bits carry it (mod K unless full).
        const int64_t want_code = p.kind == Pattern::Kind::prod_bits ? d.code
                                  : p.full ? code
                                           : code % p.modulus;
        const bool minmax = ref.reduced && (s.redop == RedOp::min || s.redop == RedOp::max);
        const bool ranks_ok = minmax ? (std::popcount(d.ranks) == 1 && (d.ranks & ref.ranks))
                                     : d.ranks == ref.ranks;
        if (!d.ok || !ranks_ok || d.code != want_code) {
          if (!bad && c.first.empty()) {
            std::ostringstream os;
            os << "rank " << rank << " " << what << " block " << j << " element " << i
               << ": value " << got << " does not decode to the data this op allows there";
            c.first = os.str();
          }
          ++c.undecodable;
          bad = true;
          if (i == 0) first_ok = false;
        } else {
          seen |= d.ranks;
        }
      }
      if (bad) ++label.bad;
    }
    if (decodes) {
      if (!first_ok && label.bad == e) label.kind = BlockLabel::Kind::unknown;
      label.contributors = seen;
      if (label.kind == BlockLabel::Kind::source && seen && std::has_single_bit(seen) &&
          collective(s.op).letters == Lettering::rank)
        label.letter = std::countr_zero(seen);
    }
    buf.labels.push_back(label);
  }
  return c;
}

}  // namespace

void fillInputs(StepResult& step, const Pattern& p) {
  const OpSpec& s = step.spec;
  for (int r = 0; r < s.ranks; ++r) {
    BufferView& in = step.ranks[r].input;
    const int blocks = inputBlocks(s.op, s.ranks, r, s.root);
    in.present = blocks > 0;
    in.bytes.assign(inputBytes(s, r), std::byte{0});
    for (int b = 0; b < blocks; ++b)
      for (int64_t i = 0; i < s.elems; ++i)
        writeElement(in.bytes.data(), s.dtype, std::size_t(b * s.elems + i),
                     patternValue(s, p, r, b, i));
  }
}

std::vector<std::vector<double>> inputsAsDoubles(const StepResult& step) {
  const OpSpec& s = step.spec;
  std::vector<std::vector<double>> out(s.ranks);
  for (int r = 0; r < s.ranks; ++r) {
    const BufferView& in = step.ranks[r].input;
    const std::size_t n = in.present ? in.count(s.dtype) : 0;
    out[r].resize(n);
    for (std::size_t i = 0; i < n; ++i) out[r][i] = in.value(i, s.dtype);
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
  const OpSpec& s = step.spec;
  const OpSpec& ps = prov.pattern_spec;
  ExpectedCache cache(step);
  Verification v;
  v.mode = p.describe();
  for (int r = 0; r < s.ranks; ++r) {
    RankResult& rr = step.ranks[r];
    if (rr.input.present)
      checkBuffer(ps, s, p, r, "input", rr.input, prov.in_refs[r], nullptr, nullptr);
    if (!rr.output.present) continue;
    const auto value_refs = expectedOutputRefs(s, r);
    BufferCheck c = checkBuffer(ps, s, p, r, "output", rr.output, prov.out_refs[r], &value_refs,
                                &cache);
    v.mismatches += c.mismatches;
    v.undecodable += c.undecodable;
    if (v.first_problem.empty()) v.first_problem = c.first;
  }
  v.verified = v.mismatches == 0 && v.undecodable == 0;
  step.verify = v;
}

}  // namespace collviz
