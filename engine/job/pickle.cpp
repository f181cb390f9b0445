// The restricted pickle reader (plain.h): a stack machine over the opcodes
// that build plain data (protocols 2 to 5: PROTO, FRAME, MARK, the ints,
// BINFLOAT, the unicode strings, None, bools, lists, tuples, dicts, the
// memo), and nothing else. Every other opcode -- GLOBAL, STACK_GLOBAL,
// REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID, EXT*, bytes, sets, buffers --
// refuses the file, naming the opcode and its offset, before anything after
// it is read. Nothing is ever looked up, imported or called: the reader has
// no way to, whatever the bytes say.
#include <algorithm>
#include <cstring>

#include "engine/job/plain.h"

namespace collviz::job {
namespace {

struct OpName {
  unsigned char op;
  const char* name;
};
constexpr OpName kOpNames[] = {
    {'(', "MARK"},          {'.', "STOP"},          {'0', "POP"},           {'1', "POP_MARK"},
    {'2', "DUP"},           {'F', "FLOAT"},         {'I', "INT"},           {'J', "BININT"},
    {'K', "BININT1"},       {'L', "LONG"},          {'M', "BININT2"},       {'N', "NONE"},
    {'P', "PERSID"},        {'Q', "BINPERSID"},     {'R', "REDUCE"},        {'S', "STRING"},
    {'T', "BINSTRING"},     {'U', "SHORT_BINSTRING"}, {'V', "UNICODE"},     {'X', "BINUNICODE"},
    {'a', "APPEND"},        {'b', "BUILD"},         {'c', "GLOBAL"},        {'d', "DICT"},
    {'}', "EMPTY_DICT"},    {'e', "APPENDS"},       {'g', "GET"},           {'h', "BINGET"},
    {'i', "INST"},          {'j', "LONG_BINGET"},   {'l', "LIST"},          {']', "EMPTY_LIST"},
    {'o', "OBJ"},           {'p', "PUT"},           {'q', "BINPUT"},        {'r', "LONG_BINPUT"},
    {'s', "SETITEM"},       {'t', "TUPLE"},         {')', "EMPTY_TUPLE"},   {'u', "SETITEMS"},
    {'G', "BINFLOAT"},      {0x80, "PROTO"},        {0x81, "NEWOBJ"},       {0x82, "EXT1"},
    {0x83, "EXT2"},         {0x84, "EXT4"},         {0x85, "TUPLE1"},       {0x86, "TUPLE2"},
    {0x87, "TUPLE3"},       {0x88, "NEWTRUE"},      {0x89, "NEWFALSE"},     {0x8a, "LONG1"},
    {0x8b, "LONG4"},        {'B', "BINBYTES"},      {'C', "SHORT_BINBYTES"}, {0x8c, "SHORT_BINUNICODE"},
    {0x8d, "BINUNICODE8"},  {0x8e, "BINBYTES8"},    {0x8f, "EMPTY_SET"},    {0x90, "ADDITEMS"},
    {0x91, "FROZENSET"},    {0x92, "NEWOBJ_EX"},    {0x93, "STACK_GLOBAL"}, {0x94, "MEMOIZE"},
    {0x95, "FRAME"},        {0x96, "BYTEARRAY8"},   {0x97, "NEXT_BUFFER"},  {0x98, "READONLY_BUFFER"},
};

std::string hexByte(unsigned char b) {
  const char* d = "0123456789abcdef";
  return std::string("0x") + d[b >> 4] + d[b & 15];
}

class Machine {
 public:
  Machine(std::string_view b, Plain& p) : b_(b), p_(p) {
    p_.clear();
    p_.budget = plainBudget(b.size());
    std::fill(std::begin(small_), std::end(small_), kUnset);
    // Room for what the bytes can make (untouched room costs no memory):
    // no growth, no copy, no fresh pages as the values come.
    // Room for as many as the bytes and the bound allow (a node is counted
    // 16 bytes, a container 40, a string 32): these never grow, so never
    // hold an old and a new copy at once past the bound.
    p_.nodes.reserve(std::min({b.size(), p_.budget / 16, kMaxPlainValues}) + 16);
    p_.strs.reserve(std::min(b.size() / 2, p_.budget / 32) + 16);
    p_.items.reserve(std::min(b.size(), p_.budget / 40) + 16);
  }

  Status run() {
    while (true) {
      if (at_ >= b_.size()) return truncated();
      const std::size_t where = at_;
      const unsigned char op = static_cast<unsigned char>(b_[at_++]);
      if (p_.nodes.size() > kMaxPlainValues)
        return Error(say("more than {0} values: not read (a Flight Recorder dump holds far fewer)", std::int64_t(kMaxPlainValues)));
      // What is kept, and the machine's own stacks and memo (their room).
      if (p_.used + stack_.capacity() * 4 + memo_.capacity() * 4 + marks_.capacity() * sizeof(std::size_t) > p_.budget)
        return Error(overBudget(p_.budget));
      switch (op) {
        case 0x80: {  // PROTO
          std::uint64_t v;
          if (!le(1, v)) return truncated();
          if (v < 2 || v > 5) return Error(say("pickle protocol {0}: only protocols 2 to 5 are read", std::int64_t(v)));
          break;
        }
        case 0x95: {  // FRAME: a length, the frame's opcodes follow as usual
          std::uint64_t v;
          if (!le(8, v)) return truncated();
          break;
        }
        case '(': marks_.push_back(stack_.size()); break;
        case '.':
          if (stack_.size() != 1 || !marks_.empty())
            return Error(say("a broken pickle: {0} values left at its STOP (byte {1}), one expected", std::int64_t(stack_.size()), std::int64_t(where)));
          p_.root = stack_.back();
          return Status::Ok();
        case '0':
          if (stack_.empty()) return underflow(op, where);
          stack_.pop_back();
          break;
        case '1': {
          std::size_t m;
          if (!popMark(m)) return underflow(op, where);
          stack_.resize(m);
          break;
        }
        case '2':
          if (stack_.empty()) return underflow(op, where);
          stack_.push_back(stack_.back());
          break;
        case 'N': shared(Plain::Kind::none, 0, none_); break;
        case 0x88: shared(Plain::Kind::boolean, 1, true_); break;
        case 0x89: shared(Plain::Kind::boolean, 0, false_); break;
        case 'K': case 'M': case 'J': {
          const int n = op == 'K' ? 1 : op == 'M' ? 2 : 4;
          std::uint64_t v;
          if (!le(n, v)) return truncated();
          if (op == 'K') shared(Plain::Kind::integer, std::int64_t(v), small_[v]);
          else push(Plain::Kind::integer, op == 'J' ? std::int64_t(std::int32_t(std::uint32_t(v))) : std::int64_t(v));
          break;
        }
        case 0x8a: case 0x8b: {  // LONG1, LONG4: little-endian two's complement
          std::uint64_t n;
          if (!le(op == 0x8a ? 1 : 4, n)) return truncated();
          if (op == 0x8b && (n & 0x80000000u)) return Error(say("a broken pickle: LONG4 of negative length at byte {0}", std::int64_t(where)));
          if (n > b_.size() - at_) return truncated();
          if (n <= 8) {
            std::uint64_t v = 0;
            for (std::uint64_t k = 0; k < n; ++k) v |= std::uint64_t(static_cast<unsigned char>(b_[at_ + k])) << (8 * k);
            if (n > 0 && n < 8 && (b_[at_ + n - 1] & 0x80)) v |= ~std::uint64_t(0) << (8 * n);  // sign-extend
            push(Plain::Kind::integer, std::int64_t(v));
          } else {
            push(Plain::Kind::big);  // too large for 64 bits: kept as "a big integer", its value not read
          }
          at_ += n;
          break;
        }
        case 'G': {
          if (b_.size() - at_ < 8) return truncated();
          std::uint64_t v = 0;
          for (int k = 0; k < 8; ++k) v = (v << 8) | static_cast<unsigned char>(b_[at_ + k]);
          at_ += 8;
          double d;
          std::memcpy(&d, &v, 8);
          const std::uint32_t x = push(Plain::Kind::real);
          p_.nodes[x].f = d;
          break;
        }
        case 'X': case 0x8c: case 0x8d: {
          std::uint64_t n;
          if (!le(op == 0x8c ? 1 : op == 'X' ? 4 : 8, n)) return truncated();
          if (n > b_.size() - at_) return truncated();
          const std::uint32_t x = push(Plain::Kind::str);
          p_.nodes[x].ref = std::uint32_t(p_.strs.size());
          p_.strs.push_back(b_.substr(at_, n));
          p_.used += sizeof(std::string_view);
          at_ += n;
          break;
        }
        case ']': container(Plain::Kind::list, nullptr, 0); break;
        case '}': container(Plain::Kind::dict, nullptr, 0); break;
        case ')': container(Plain::Kind::tuple, nullptr, 0); break;
        case 'l': case 'd': case 't': {  // LIST, DICT, TUPLE: the values since the mark
          std::size_t m;
          if (!popMark(m)) return underflow(op, where);
          if (op == 'd' && (stack_.size() - m) % 2) return Error(say("a broken pickle: DICT of an odd number of values at byte {0}", std::int64_t(where)));
          const Plain::Kind k = op == 'l' ? Plain::Kind::list : op == 'd' ? Plain::Kind::dict : Plain::Kind::tuple;
          container(k, stack_.data() + m, stack_.size() - m, m);
          break;
        }
        case 0x85: case 0x86: case 0x87: {
          const std::size_t n = std::size_t(op - 0x84);
          if (stack_.size() < n) return underflow(op, where);
          container(Plain::Kind::tuple, stack_.data() + stack_.size() - n, n, stack_.size() - n);
          break;
        }
        case 'a': case 's': case 'e': case 'u': {  // APPEND, SETITEM, APPENDS, SETITEMS
          std::size_t from;
          if (op == 'a' || op == 's') {
            const std::size_t n = op == 'a' ? 1 : 2;
            if (stack_.size() < n + 1) return underflow(op, where);
            from = stack_.size() - n;
          } else if (!popMark(from) || from == 0) {
            return underflow(op, where);
          }
          const std::uint32_t target = stack_[from - 1];
          const bool dict = op == 's' || op == 'u';
          if (p_.nodes[target].kind != (dict ? Plain::Kind::dict : Plain::Kind::list))
            return Error(say("a broken pickle: {0} at byte {1} adds to a value that is not a {2}", pickleOpcodeName(op), std::int64_t(where),
                             dict ? "dict" : "list"));
          if (dict && (stack_.size() - from) % 2) return Error(say("a broken pickle: DICT of an odd number of values at byte {0}", std::int64_t(where)));
          auto& items = p_.items[p_.nodes[target].ref];
          const std::size_t had = items.capacity();
          items.insert(items.end(), stack_.begin() + std::ptrdiff_t(from), stack_.end());
          p_.used += 4 * (items.capacity() - had) + (had == 0 ? 16 : 0);  // its room (grown by doubling), its allocation
          stack_.resize(from);
          break;
        }
        case 0x94:  // MEMOIZE
          if (stack_.empty()) return underflow(op, where);
          memo_.push_back(stack_.back());
          break;
        case 'q': case 'r': {
          std::uint64_t i;
          if (!le(op == 'q' ? 1 : 4, i)) return truncated();
          if (stack_.empty()) return underflow(op, where);
          if (i > memo_.size() + 256) return Error(say("a broken pickle: memo index {0} at byte {1} is far past the {2} values kept", std::int64_t(i), std::int64_t(where), std::int64_t(memo_.size())));
          if (i >= memo_.size()) memo_.resize(std::size_t(i) + 1, kUnset);
          memo_[std::size_t(i)] = stack_.back();
          break;
        }
        case 'h': case 'j': {
          std::uint64_t i;
          if (!le(op == 'h' ? 1 : 4, i)) return truncated();
          if (i >= memo_.size() || memo_[std::size_t(i)] == kUnset)
            return Error(say("a broken pickle: memo index {0} at byte {1} was never set", std::int64_t(i), std::int64_t(where)));
          stack_.push_back(memo_[std::size_t(i)]);
          break;
        }
        default: {
          const std::string_view name = pickleOpcodeName(op);
          if (name.empty())
            return Error(say("byte {0} at offset {1} is not a pickle opcode (a broken or not a pickle file)", hexByte(op), std::int64_t(where)));
          return Error(say("refused: pickle opcode {0} ({1}) at byte {2}; only plain data is read (dicts, lists, tuples, strings, numbers, bools, None), nothing is ever run",
                           name, hexByte(op), std::int64_t(where)));
        }
      }
    }
  }

 private:
  static constexpr std::uint32_t kUnset = 0xffffffffu;

  std::uint32_t push(Plain::Kind k, std::int64_t i = 0) {
    p_.used += sizeof(Plain::Node);
    const std::uint32_t x = p_.add(k);
    p_.nodes[x].i = i;
    stack_.push_back(x);
    return x;
  }
  // None, a bool, a small int: one node each, pushed again wherever it
  // comes (values are never changed once made): a dump's many None and
  // small numbers take a place in their list, not a node each.
  void shared(Plain::Kind k, std::int64_t i, std::uint32_t& node) {
    if (node == kUnset) node = push(k, i);
    else stack_.push_back(node);
  }
  // A container of the n values at `first` (on the stack, from `keep` on: popped first).
  void container(Plain::Kind k, const std::uint32_t* first, std::size_t n, std::size_t keep = std::size_t(-1)) {
    p_.used += sizeof(Plain::Node) + sizeof(std::vector<std::uint32_t>) + (n > 0 ? 16 + 4 * n : 0);  // node, list, its items
    const std::uint32_t x = p_.addContainer(k, first, n);
    if (keep != std::size_t(-1)) stack_.resize(keep);
    stack_.push_back(x);
  }
  bool le(int n, std::uint64_t& v) {
    if (b_.size() - at_ < std::size_t(n)) return false;
    v = 0;
    for (int k = 0; k < n; ++k) v |= std::uint64_t(static_cast<unsigned char>(b_[at_ + std::size_t(k)])) << (8 * k);
    at_ += std::size_t(n);
    return true;
  }
  bool popMark(std::size_t& m) {
    if (marks_.empty() || marks_.back() > stack_.size()) return false;
    m = marks_.back();
    marks_.pop_back();
    return true;
  }
  Error truncated() const {
    return Error(say("truncated: the pickle ends at byte {0} before its STOP", std::int64_t(b_.size())));
  }
  Error underflow(unsigned char op, std::size_t where) const {
    return Error(say("a broken pickle: {0} at byte {1} finds too few values before it", pickleOpcodeName(op), std::int64_t(where)));
  }

  std::string_view b_;
  std::size_t at_ = 0;
  Plain& p_;
  std::vector<std::uint32_t> stack_, memo_;
  std::uint32_t none_ = kUnset, true_ = kUnset, false_ = kUnset, small_[256];
  std::vector<std::size_t> marks_;
};

}  // namespace

std::string_view pickleOpcodeName(unsigned char op) {
  for (const OpName& o : kOpNames)
    if (o.op == op) return o.name;
  return {};
}

Status readPickle(std::string_view bytes, Plain& into) { return Machine(bytes, into).run(); }

Result<Plain> readPickle(std::string_view bytes) {
  Plain p;
  if (Status st = readPickle(bytes, p); !st) return st.error();
  return p;
}

}  // namespace collviz::job
