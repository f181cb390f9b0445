// Reading an MSCCL algorithm file (pugixml) and the checks that need no
// rounds: the attributes, the ranks, the collective, the chunk counts, the
// buffers and offsets, the dependencies and the send/receive matching. The
// dependency cycle check is the lowering's (msccl_lower.cpp), run here too.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/algo/msccl/msccl.h"
#include "engine/algo/msccl/graph.h"
#include "engine/algo/reference.h"

namespace collviz::algo {
namespace {

struct Coll {
  std::string_view name;
  Op op;
};
constexpr Coll kColls[] = {
    {"allreduce", Op::all_reduce}, {"allgather", Op::all_gather},
    {"reduce_scatter", Op::reduce_scatter}, {"reducescatter", Op::reduce_scatter},
    {"alltoall", Op::all_to_all},  {"broadcast", Op::broadcast},
    {"reduce", Op::reduce},        {"gather", Op::gather},
    {"scatter", Op::scatter},
};
constexpr std::string_view kCollNames =
    "allreduce, allgather, reduce_scatter, alltoall, broadcast, reduce, gather, scatter";

struct TypeName {
  std::string_view name;
  MscclType type;
};
constexpr TypeName kTypes[] = {
    {"s", MscclType::s},     {"r", MscclType::r},       {"rcs", MscclType::rcs},
    {"rrs", MscclType::rrs}, {"rrc", MscclType::rrc},   {"rrcs", MscclType::rrcs},
    {"cpy", MscclType::cpy}, {"re", MscclType::re},     {"nop", MscclType::nop},
};

class Reader {
 public:
  Reader(const std::string& path, const std::string& text) : path_(path) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(i + 1);
  }
  int lineAt(std::ptrdiff_t offset) const {
    if (offset < 0) return 1;
    return int(std::upper_bound(starts_.begin(), starts_.end(), std::size_t(offset)) -
               starts_.begin());
  }
  int line(const pugi::xml_node& n) const { return lineAt(n.offset_debug()); }
  Error at(int line, const Text& what) const { return Error{say("{0}:{1}: {2}", path_, line, what)}; }
  // An integer attribute; `fallback` when absent and optional.
  Result<int> integer(const pugi::xml_node& n, const char* attr, std::optional<int> fallback = {}) const {
    const pugi::xml_attribute a = n.attribute(attr);
    if (!a) {
      if (fallback) return *fallback;
      return at(line(n), say("<{0}> has no attribute {1}", n.name(), attr));
    }
    const std::string v = a.value();
    int out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size() || v.empty())
      return at(line(n), say("<{0}> {1}=\"{2}\" is not an integer", n.name(), attr, v));
    return out;
  }

 private:
  std::string path_;
  std::vector<std::size_t> starts_;
};

#define TRY_INT(var, expr)        \
  int var = 0;                    \
  {                               \
    auto r_ = (expr);             \
    if (!r_) return r_.error();   \
    var = *r_;                    \
  }

Result<MscclStep> readStep(const Reader& rd, const pugi::xml_node& n) {
  MscclStep st;
  st.line = rd.line(n);
  TRY_INT(s, rd.integer(n, "s"));
  TRY_INT(srcoff, rd.integer(n, "srcoff"));
  TRY_INT(dstoff, rd.integer(n, "dstoff"));
  TRY_INT(cnt, rd.integer(n, "cnt", 1));
  TRY_INT(depid, rd.integer(n, "depid", -1));
  TRY_INT(deps, rd.integer(n, "deps", -1));
  TRY_INT(hasdep, rd.integer(n, "hasdep", 0));
  st.s = s, st.srcoff = srcoff, st.dstoff = dstoff, st.cnt = cnt;
  st.depid = depid, st.deps = deps, st.hasdep = hasdep != 0;
  const std::string type = n.attribute("type").value();
  auto t = std::find_if(std::begin(kTypes), std::end(kTypes),
                        [&](const TypeName& x) { return x.name == type; });
  if (t == std::end(kTypes))
    return rd.at(st.line, say("step type \"{0}\" is not a step type; allowed: s, r, rcs, rrs, rrc, rrcs, cpy, re, nop", type));
  st.type = t->type;
  for (const char* attr : {"srcbuf", "dstbuf"}) {
    const std::string b = n.attribute(attr).value();
    if (b != "i" && b != "o" && b != "s")
      return rd.at(st.line, say("{0}=\"{1}\" is not a buffer; allowed: i (input), o (output), s (scratch)", attr, b));
    (attr[0] == 's' && attr[1] == 'r' ? st.srcbuf : st.dstbuf) = b[0];
  }
  return st;
}

Result<MscclAlgo> readTree(const Reader& rd, const pugi::xml_node& root, MscclAlgo a) {
  a.line = rd.line(root);
  a.name = root.attribute("name").value();
  a.proto = root.attribute("proto").as_string("Simple");
  a.coll = root.attribute("coll").value();
  TRY_INT(nchannels, rd.integer(root, "nchannels", 1));
  TRY_INT(nchunks, rd.integer(root, "nchunksperloop"));
  TRY_INT(ngpus, rd.integer(root, "ngpus"));
  TRY_INT(inplace, rd.integer(root, "inplace", 0));
  a.nchannels = nchannels, a.nchunksperloop = nchunks, a.ngpus = ngpus, a.inplace = inplace != 0;
  for (pugi::xml_node g : root.children()) {
    if (g.type() != pugi::node_element) continue;
    if (std::string(g.name()) != "gpu")
      return rd.at(rd.line(g), say("<{0}> inside <algo>; allowed: <gpu>", g.name()));
    MscclGpu gpu;
    gpu.line = rd.line(g);
    TRY_INT(id, rd.integer(g, "id"));
    TRY_INT(ic, rd.integer(g, "i_chunks"));
    TRY_INT(oc, rd.integer(g, "o_chunks"));
    TRY_INT(sc, rd.integer(g, "s_chunks", 0));
    gpu.id = id, gpu.i_chunks = ic, gpu.o_chunks = oc, gpu.s_chunks = sc;
    for (pugi::xml_node t : g.children()) {
      if (t.type() != pugi::node_element) continue;
      if (std::string(t.name()) != "tb")
        return rd.at(rd.line(t), say("<{0}> inside <gpu>; allowed: <tb>", t.name()));
      MscclTb tb;
      tb.line = rd.line(t);
      TRY_INT(tid, rd.integer(t, "id"));
      TRY_INT(send, rd.integer(t, "send"));
      TRY_INT(recv, rd.integer(t, "recv"));
      TRY_INT(chan, rd.integer(t, "chan", 0));
      tb.id = tid, tb.send = send, tb.recv = recv, tb.chan = chan;
      for (pugi::xml_node s : t.children()) {
        if (s.type() != pugi::node_element) continue;
        if (std::string(s.name()) != "step")
          return rd.at(rd.line(s), say("<{0}> inside <tb>; allowed: <step>", s.name()));
        auto st = readStep(rd, s);
        if (!st) return st.error();
        tb.steps.push_back(*st);
      }
      gpu.tbs.push_back(std::move(tb));
    }
    a.gpus.push_back(std::move(gpu));
  }
  return a;
}

// Every attribute value a file supplies is echoed in messages, names and
// figures: it must be printable (no ESC, BEL, newline, ... even as &#27;).
Status checkPrintable(const Reader& rd, const pugi::xml_node& top) {
  std::vector<pugi::xml_node> todo{top};
  while (!todo.empty()) {
    const pugi::xml_node n = todo.back();
    todo.pop_back();
    for (const pugi::xml_attribute& at : n.attributes())
      if (!mscclPrintable(at.value()))
        return rd.at(rd.line(n), say("<{0}> {1}=\"{2}\" holds a control character; allowed: printable text",
                                     n.name(), at.name(), mscclShown(at.value())));
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) todo.push_back(c);
  }
  return {};
}

}  // namespace

Result<MscclAlgo> parseMscclText(const std::string& path, const std::string& text, int ranks,
                                 int root, std::int64_t max_chunks) {
  if (Status st = checkMscclBytes(path, text); !st) return st.error();
  const Reader rd(path, text);
  pugi::xml_document doc;
  const pugi::xml_parse_result pr =
      doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!pr) return rd.at(rd.lineAt(pr.offset), say("not well-formed XML: {0}", pr.description()));
  const pugi::xml_node top = doc.document_element();
  if (!top || std::string(top.name()) != "algo")
    return rd.at(top ? rd.line(top) : 1,
                 say("the top element is <{0}>; an MSCCL algorithm file starts with <algo>", top.name()));
  if (Status st = checkPrintable(rd, top); !st) return st.error();
  MscclAlgo a;
  a.path = path;
  auto read = readTree(rd, top, std::move(a));
  if (!read) return read.error();
  if (Status st = checkMscclFile(*read, ranks, root, [&](int line, const Text& what) {
        return rd.at(line, what);
      }, max_chunks);
      !st)
    return st.error();
  // The lowering's own check (data in flight across rounds), at reading
  // time, so a file that cannot run is refused before anything runs.
  OpSpec s;
  s.op = read->op;
  s.ranks = read->ngpus;
  s.elems = read->parts;
  s.root = read->root;
  auto lowered = lowerMscclFile(*read, s);
  if (!lowered) return lowered.error();
  // A file that does not compute its collective is the file's error.
  if (Status st = matchesOracle(*lowered, simulate(*lowered)); !st)
    return rd.at(read->line, say("the file does not compute {0} (coll=\"{1}\"): {2}", name(read->op), read->coll,
                                 st.text()));
  return read;
}

Result<MscclAlgo> readMscclFile(const std::string& path, int ranks, int root, std::int64_t max_chunks) {
  auto text = readAlgoText(path);
  if (!text) return text.error();
  return parseMscclText(mscclShown(path), *text, ranks, root, max_chunks);
}

std::string mscclAlgoName(const MscclAlgo& a) {
  return "msccl:" + (a.name.empty() ? std::string("unnamed") : a.name);
}

std::optional<Op> mscclOp(std::string_view coll) {
  for (const Coll& c : kColls)
    if (c.name == coll) return c.op;
  return std::nullopt;
}
std::string_view mscclCollNames() { return kCollNames; }

}  // namespace collviz::algo
