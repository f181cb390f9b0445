// The stream work of the stand-in NCCL's fused groups (see nccl_ops.h).
// Every rank sends its contribution to each rank that needs it and
// computes its own output from what it receives; a reduction combines the
// ranks' contributions in rank order. Each message carries the call's
// op, count, type, reduce op, root and place among the communicator's
// collectives, and the receiver checks them against its own call: two ranks
// that disagree (a count convention misread on one side, ops in another
// order) make an asynchronous ncclInvalidUsage that names both, and the op
// hangs until ncclCommAbort, as a device would.
#include <signal.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "tests/standin/elements.h"
#include "tests/standin/nccl_ops.h"

namespace collviz::standin {
namespace {

bool rooted(OpKind k) {
  return k == OpKind::broadcast || k == OpKind::reduce || k == OpKind::gather || k == OpKind::scatter;
}
bool reducing(OpKind k) {
  return k == OpKind::all_reduce || k == OpKind::reduce || k == OpKind::reduce_scatter;
}

std::string describe(const Header& h) {
  std::string s = std::string(opName(OpKind(h.op))) + "(count " + std::to_string(h.count) + ", type " +
                  std::to_string(h.dtype);
  if (reducing(OpKind(h.op))) s += ", op " + std::to_string(h.redop);
  if (rooted(OpKind(h.op))) s += ", root " + std::to_string(h.root);
  if (OpKind(h.op) != OpKind::send) s += ", collective #" + std::to_string(h.index);
  return s + ")";
}

class Group {
 public:
  Group(Comm& c) : c_(c), me_(c.rank), n_(c.nranks) {}

  // false: aborted (or hung until aborted)
  bool post(Op& op, std::vector<char>& mine) {
    const std::size_t bytes = op.count * typeSize(op.dtype);
    Header h{kMagic, kData, op.index, std::int32_t(op.kind), op.dtype, op.redop, op.root, op.count, bytes};
    auto keep = [&](const void* p) { mine.assign(static_cast<const char*>(p), static_cast<const char*>(p) + bytes); };
    auto to = [&](int p, const void* data) { return c_.send(p, h, data) || c_.hangUntilAbort(); };
    auto block = [&](int p) { return static_cast<const char*>(op.send) + std::size_t(p) * bytes; };
    switch (op.kind) {
      case OpKind::all_reduce:
      case OpKind::all_gather:
        keep(op.send);
        for (int p = 0; p < n_; ++p)
          if (p != me_ && !to(p, op.send)) return false;
        return true;
      case OpKind::reduce:
      case OpKind::gather:
        if (me_ == op.root) keep(op.send);
        else return to(op.root, op.send);
        return true;
      case OpKind::broadcast:
        if (me_ != op.root) return true;
        keep(op.send);
        for (int p = 0; p < n_; ++p)
          if (p != me_ && !to(p, op.send)) return false;
        return true;
      case OpKind::reduce_scatter:
      case OpKind::all_to_all:
        for (int p = 0; p < n_; ++p) {
          if (p == me_) keep(block(p));
          else if (!to(p, block(p))) return false;
        }
        return true;
      case OpKind::scatter:
        if (me_ != op.root) return true;
        for (int p = 0; p < n_; ++p) {
          if (p == me_) keep(block(p));
          else if (!to(p, block(p))) return false;
        }
        return true;
      case OpKind::send:
        h.index = 0;
        if (op.peer == me_) {
          Message m{h, {}};
          m.data.assign(static_cast<const char*>(op.send), static_cast<const char*>(op.send) + bytes);
          self_.push_back(std::move(m));
          return true;
        }
        ++c_.p2p_sent[std::size_t(op.peer)];
        return to(op.peer, op.send);
      case OpKind::recv:
        return true;
    }
    return true;
  }

  bool finish(Op& op, std::vector<char>& mine) {
    const std::size_t es = typeSize(op.dtype), bytes = op.count * es;
    std::vector<char> from;
    // Contribution of rank p: this rank's own copy, or its message.
    auto get = [&](int p) -> const char* {
      if (p == me_) return mine.data();
      Message m;
      if (!c_.receive(p, &m) || !matches(op, p, m)) return nullptr;
      from = std::move(m.data);
      return from.data();
    };
    auto reduceInto = [&](char* out, std::vector<int> order) -> bool {
      std::vector<char> acc, x;
      for (int p : order) {
        const char* c = get(p);
        if (!c) return false;
        x.assign(c, c + bytes);
        if (op.redop == ncclAvg && isFloatType(op.dtype)) avgPremultiply(op.dtype, x.data(), op.count, n_);
        if (acc.empty()) acc = x;
        else combine(op.dtype, op.redop == ncclAvg ? int(ncclSum) : op.redop, acc.data(), x.data(), op.count);
      }
      if (op.redop == ncclAvg && !isFloatType(op.dtype)) avgDivide(op.dtype, acc.data(), op.count, n_);
      std::memcpy(out, acc.data(), bytes);
      return true;
    };
    std::vector<int> all;
    for (int p = 0; p < n_; ++p) all.push_back(p);
    char* out = static_cast<char*>(op.recv);
    switch (op.kind) {
      case OpKind::all_reduce:
      case OpKind::reduce_scatter:
        return reduceInto(out, all);
      case OpKind::reduce:
        return me_ != op.root || reduceInto(out, all);
      case OpKind::broadcast:
      case OpKind::scatter: {
        const char* c = get(op.root);
        if (!c) return false;
        std::memmove(out, c, bytes);
        return true;
      }
      case OpKind::all_gather:
      case OpKind::all_to_all:
        for (int p = 0; p < n_; ++p) {
          const char* c = get(p);
          if (!c) return false;
          std::memmove(out + std::size_t(p) * bytes, c, bytes);
        }
        return true;
      case OpKind::gather:
        if (me_ != op.root) return true;
        for (int p = 0; p < n_; ++p) {
          const char* c = get(p);
          if (!c) return false;
          std::memmove(out + std::size_t(p) * bytes, c, bytes);
        }
        return true;
      case OpKind::send:
        return true;
      case OpKind::recv: {
        Message m;
        if (op.peer == me_) {
          if (self_.empty()) {
            c_.setAsync(ncclInvalidUsage, "stand-in NCCL: rank " + std::to_string(me_) +
                                              ": ncclRecv from itself with no ncclSend to itself before it in the group");
            return c_.hangUntilAbort();
          }
          m = std::move(self_.front());
          self_.erase(self_.begin());
        } else if (!c_.receive(op.peer, &m)) {
          return false;
        }
        if (!matches(op, op.peer, m)) return false;
        std::memcpy(out, m.data.data(), bytes);
        if (op.peer != me_) {
          const Header ack{kMagic, kAck, 0, 0, 0, 0, 0, 0, 0};
          if (!c_.send(op.peer, ack, nullptr)) return c_.hangUntilAbort();
        }
        return true;
      }
    }
    return true;
  }

 private:
  // Does the peer's message belong to this call? Else an asynchronous
  // ncclInvalidUsage naming both calls, and a hang until the abort.
  bool matches(const Op& op, int p, const Message& m) {
    const std::size_t bytes = op.count * typeSize(op.dtype);
    Header want{kMagic, kData, op.index, std::int32_t(op.kind), op.dtype, op.redop, op.root, op.count, bytes};
    if (op.kind == OpKind::recv) want.op = std::int32_t(OpKind::send), want.index = 0, want.root = 0, want.redop = 0;
    const Header& h = m.h;
    bool same = h.type == kData && h.index == want.index && h.op == want.op && h.dtype == want.dtype &&
                h.count == want.count && h.bytes == want.bytes && m.data.size() == bytes;
    if (reducing(op.kind)) same = same && h.redop == want.redop;
    if (rooted(op.kind)) same = same && h.root == want.root;
    if (same) return true;
    Header mine = want;
    if (op.kind == OpKind::recv) mine.op = std::int32_t(OpKind::recv);
    c_.setAsync(ncclInvalidUsage, "stand-in NCCL: calls that do not match: rank " + std::to_string(me_) + " called " +
                                      describe(mine) + ", and the message from rank " + std::to_string(p) +
                                      " is its " + describe(h) +
                                      " (NCCL needs the same op, count, type, reduce op and root on every rank, "
                                      "and a send's count and type on its receive)");
    return c_.hangUntilAbort();
  }

  Comm& c_;
  const int me_, n_;
  std::vector<Message> self_;  // sends to itself, in order
};

}  // namespace

void execute(Comm& c, std::vector<Op>& ops, std::uint64_t group) {
  struct Done {
    Comm& c;
    std::uint64_t g;
    ~Done() { c.finish(g); }
  } done{c, group};
  if (!c.waitTurn(group)) return;
  for (const Op& op : ops) {
    if (op.fault.kind == Fault::Kind::stall) {
      say(std::string(opName(op.kind)) + " stalls on the stream until ncclCommAbort (" + op.fault.rule + ")");
      c.hangUntilAbort();
      return;
    }
    if (op.fault.kind == Fault::Kind::delay) {
      say(std::string(opName(op.kind)) + " takes " + std::to_string(op.fault.code) + " ms longer (" + op.fault.rule + ")");
      std::this_thread::sleep_for(std::chrono::milliseconds(op.fault.code));
    }
    if (op.fault.kind == Fault::Kind::kill) {
      say(std::string(opName(op.kind)) + ": the process ends with SIGKILL, as told (" + op.fault.rule + ")");
      ::raise(SIGKILL);
    }
    if (op.fault.kind == Fault::Kind::async_error) {
      c.setAsync(ncclResult_t(op.fault.code), "stand-in NCCL: injected asynchronous error in " +
                                                  std::string(opName(op.kind)) + " (" + op.fault.rule + ")");
      c.hangUntilAbort();
      return;
    }
  }
  Group g(c);
  std::vector<std::vector<char>> mine(ops.size());
  const std::vector<std::uint64_t> acks_before = c.p2p_sent;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].count == 0 && ops[i].kind != OpKind::send && ops[i].kind != OpKind::recv) continue;
    if (!g.post(ops[i], mine[i])) return;
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].count == 0 && ops[i].kind != OpKind::send && ops[i].kind != OpKind::recv) continue;
    if (!g.finish(ops[i], mine[i])) return;
  }
  for (int p = 0; p < c.nranks; ++p)
    if (c.p2p_sent[std::size_t(p)] > acks_before[std::size_t(p)] && !c.waitAcks(p, c.p2p_sent[std::size_t(p)]))
      return;
}

}  // namespace collviz::standin
