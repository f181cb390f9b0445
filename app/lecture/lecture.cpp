// Reading a lecture script with toml++ (Debian's libtomlplusplus-dev), which
// keeps every value's line, so each message names file:line and the field.
#include "app/lecture/lecture.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "app/lecture/script_input.h"
#include "app/view/round_model.h"
#include "engine/algo/algorithms.h"
#include "engine/algo/msccl/msccl.h"
#include "engine/group/memory_budget.h"

namespace collviz::lecture {

namespace {

struct Where {
  const std::string& path;
  std::string at(const toml::node& n) const {
    return path + ":" + std::to_string(n.source().begin.line);
  }
  Error fail(const toml::node& n, const collviz::Text& what) const { return Error{say("{0}: {1}", at(n), what)}; }
};

collviz::Text typeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return say("a string");
    case toml::node_type::integer: return say("an integer");
    case toml::node_type::floating_point: return say("a number");
    case toml::node_type::boolean: return lit("true/false");
    case toml::node_type::table: return say("a table");
    case toml::node_type::array: return say("an array");
    default: return say("a date or time");
  }
}

// A text field: a string, or a table of language variants.
Result<Text> readText(const Where& w, const std::string& field, const toml::node& n) {
  Text t;
  if (const auto* s = n.as_string()) {
    t.en = s->get();
    return t;
  }
  const auto* tbl = n.as_table();
  if (!tbl)
    return w.fail(n, say("{0}: must be a string, or language variants ({0}.en, {0}.zh); got {1}", field, typeName(n)));
  for (auto&& [key, v] : *tbl) {
    const auto* s = v.as_string();
    auto lang = parseLang(key.str());
    if (!lang)
      return w.fail(v, say("{0}.{1}: unknown language; allowed: {2}", field, key.str(), kAllowedLangs));
    if (!s) return w.fail(v, say("{0}.{1}: must be a string; got {2}", field, key.str(), typeName(v)));
    (*lang == Lang::zh ? t.zh : t.en) = s->get();
  }
  return t;
}

// `allowed`: a list of names (a literal) or a message.
Result<std::string> readString(const Where& w, const std::string& field, const toml::node& n,
                               const collviz::Text& allowed) {
  if (const auto* s = n.as_string()) return s->get();
  return w.fail(n, say("{0}: must be a string ({1}); got {2}", field, allowed, typeName(n)));
}

Result<int64_t> readInt(const Where& w, const std::string& field, const toml::node& n, int64_t lo,
                        int64_t hi, const collviz::Text& allowed) {
  const auto* i = n.as_integer();
  if (!i) return w.fail(n, say("{0}: must be an integer ({1}); got {2}", field, allowed, typeName(n)));
  if (i->get() < lo || i->get() > hi)
    return w.fail(n, say("{0} = {1} is out of range; allowed: {2}", field, i->get(), allowed));
  return i->get();
}

// Sets one field of `s` from `v`; a step starts as a copy of the one before.
// Which of the step's own fields were given (the rest carry over).
struct Given {
  bool state = false, algo = false, round = false;
  std::string algo_named;  // the step's own `algo` key, when it has one
  bool algo_file = false;
};

Status readField(const Where& w, std::string_view key, const toml::node& v, Step& s, Given& given) {
  const std::string f(key);
  auto bad = [&](const std::string& got, const collviz::Text& allowed) {
    return Status(w.fail(v, say("{0} = \"{1}\" is not allowed; allowed: {2}", f, got, allowed)));
  };
  if (key == "op") {
    const std::string ops = allowedOps() + ", " + std::string(name(Program::all_reduce_decomposed));
    auto r = readString(w, f, v, lit(ops));
    if (!r) return r.error();
    if (*r == name(Program::all_reduce_decomposed)) {
      s.program = Program::all_reduce_decomposed;
      s.spec.op = Op::all_reduce;
    } else if (auto op = parseOp(*r)) {
      s.program = Program::single;
      s.spec.op = *op;
    } else {
      return bad(*r, lit(ops));
    }
  } else if (key == "ranks") {
    const collviz::Text allowed = say("{0} to {1}", kMinRanks, kMaxRanks);
    auto r = readInt(w, f, v, kMinRanks, kMaxRanks, allowed);
    if (!r) return r.error();
    s.spec.ranks = int(*r);
  } else if (key == "elems") {
    auto r = readInt(w, f, v, 1, int64_t(1) << 30, say("1 to 2^30 elements per block"));
    if (!r) return r.error();
    s.spec.elems = *r;
  } else if (key == "root") {
    auto r = readInt(w, f, v, 0, kMaxRanks - 1, say("0 to ranks - 1"));
    if (!r) return r.error();
    s.spec.root = int(*r);
  } else if (key == "dtype") {
    auto r = readString(w, f, v, lit(allowedDTypes()));
    if (!r) return r.error();
    auto d = parseDType(*r);
    if (!d) return bad(*r, lit(allowedDTypes()));
    s.spec.dtype = *d;
  } else if (key == "redop") {
    auto r = readString(w, f, v, lit(allowedRedOps()));
    if (!r) return r.error();
    auto d = parseRedOp(*r);
    if (!d) return bad(*r, lit(allowedRedOps()));
    s.spec.redop = *d;
  } else if (key == "backend") {
    auto r = readString(w, f, v, lit("auto, gloo, nccl, mpi"));
    if (!r) return r.error();
    auto b = parseBackend(*r);
    if (!b) return bad(*r, lit("auto, gloo, nccl, mpi"));
    s.backend = *b;
  } else if (key == "trace") {
    if (const auto* str = v.as_string()) {
      if (str->get() != "all") return bad(str->get(), say("\"all\" or a rank number"));
      s.trace_rank = -1;
    } else {
      auto r = readInt(w, f, v, 0, kMaxRanks - 1, say("\"all\" or a rank 0 to ranks - 1"));
      if (!r) return r.error();
      s.trace_rank = int(*r);
    }
  } else if (key == "trace_by") {
    auto r = readString(w, f, v, lit("destination, source"));
    if (!r) return r.error();
    if (*r == "destination") s.trace_mode = ui::TraceMode::reaches;
    else if (*r == "source") s.trace_mode = ui::TraceMode::goes;
    else return bad(*r, lit("destination, source"));
  } else if (key == "state") {
    auto r = readInt(w, f, v, 0, 2, say("0 (input), 1 (after reduce-scatter), 2 (after all-gather)"));
    if (!r) return r.error();
    s.state = int(*r);
    given.state = true;
  } else if (key == "caption" || key == "notes") {
    auto r = readText(w, f, v);
    if (!r) return r.error();
    (key == "caption" ? s.caption : s.notes) = *r;
  } else if (key == "algo") {
    auto r = readString(w, f, v, say("native or an algorithm for the op"));
    if (!r) return r.error();
    if (given.algo_file && *r != algo::kNative)
      return w.fail(v, say("algo = \"{0}\" and algo_file both name an algorithm; give one", algo::mscclShown(*r)));
    s.algo = *r;
    given.algo = true;
    given.algo_named = *r;
  } else if (key == "algo_file") {
    // An MSCCL algorithm file, relative to the script: the step shows its
    // rounds, on its op and ranks.
    auto r = readString(w, f, v, say("an MSCCL algorithm file, relative to this script"));
    if (!r) return r.error();
    if (r->empty()) return w.fail(v, say("algo_file is empty; allowed: an MSCCL algorithm file, relative to this script"));
    if (!given.algo_named.empty() && given.algo_named != algo::kNative)
      return w.fail(v, say("algo = \"{0}\" and algo_file both name an algorithm; give one",
                           algo::mscclShown(given.algo_named)));
    given.algo_file = true;
    std::filesystem::path p(*r);
    if (p.is_relative()) p = std::filesystem::path(w.path).parent_path() / p;
    auto file = algo::readMscclFile(p.string(), 0, s.spec.root, mscclChunkBudget());
    if (!file) return w.fail(v, say("algo_file = \"{0}\": {1}", algo::mscclShown(*r), file.error().text));
    s.program = Program::single;
    s.spec.op = file->op;
    s.spec.ranks = file->ngpus;
    s.spec.elems = (s.spec.elems + file->parts - 1) / file->parts * file->parts;
    s.algo = algo::mscclAlgoName(*file);
    algo::registerMscclFile(std::make_shared<algo::MscclAlgo>(std::move(*file)));
    given.algo = true;
  } else if (key == "round") {
    auto r = readInt(w, f, v, 0, 1 << 20, say("0 to the algorithm's rounds"));
    if (!r) return r.error();
    s.round = int(*r);
    given.round = true;
  } else {
    return w.fail(v, say("unknown field {0}; allowed: {1}", f, kStepFields));
  }
  return {};
}

// The step after its fields are read: what holds together (root and trace
// within ranks, state only for the decomposition).
Status checkStep(const Where& w, const toml::table& t, const Step& s, const Given& given, int number) {
  const collviz::Text step = say("step {0}", number);
  if (Status st = validate(s.spec); !st) return w.fail(t, say("{0}: {1}", step, st.text()));
  if (s.trace_rank >= s.spec.ranks)
    return w.fail(t, say("{0}: trace = {1} is beyond ranks = {2}; allowed: \"all\" or 0 to {3}", step, s.trace_rank,
                         s.spec.ranks, s.spec.ranks - 1));
  if (given.state && s.program != Program::all_reduce_decomposed)
    return w.fail(t, say("{0}: state applies to op = \"all_reduce_decomposed\" (its three states)", step));
  const toml::node& at_algo = t.get("algo") ? *t.get("algo") : static_cast<const toml::node&>(t);
  const toml::node& at_round = t.get("round") ? *t.get("round") : static_cast<const toml::node&>(t);
  if (s.algo != algo::kNative) {
    if (s.program != Program::single)
      return w.fail(at_algo, say("algo = \"{0}\": all_reduce_decomposed is two native ops; allowed: "
                                 "native (or op = \"all_reduce\" with algo = \"{0}\")",
                                 s.algo));
    if (!ui::isRoundAlgo(s.algo, s.spec.op))
      return w.fail(at_algo, say("algo = \"{0}\" is not allowed for {1}; allowed: {2}", s.algo, name(s.spec.op),
                                 algo::algorithmsFor(s.spec.op)));
    if (Status st = algo::checkAlgorithm(s.algo, s.spec); !st) return w.fail(at_algo, st.text());
  }
  const int rounds = ui::algoRounds(s.algo, s.spec);
  if (given.round && rounds == 0)
    return w.fail(at_round, say("round applies to an algorithm's rounds; set algo (for {0}: {1})", name(s.spec.op),
                                algo::algorithmsFor(s.spec.op)));
  if (s.round > rounds)
    return w.fail(at_round, say("round = {0} is out of range for {1} {2} at N={3}; allowed: 0 to {4} (0 the start, K "
                                "after round K)",
                                s.round, s.algo, name(s.spec.op), s.spec.ranks, rounds));
  return {};
}

// The deck's hosts (issue 33): `hosts = ["a:2", "b:2"]` (or "a:2,b:2") or
// `hostfile` (relative to the script), with map_by, iface and
// launcher_agent, checked as `collviz run --hosts` checks them.
Status readHosts(const Where& w, const toml::table& doc, HostSpec& out) {
  const toml::node* hosts = doc.get("hosts");
  const toml::node* file = doc.get("hostfile");
  if (hosts && file) return w.fail(*file, say("hosts and hostfile both given; allowed: one of them"));
  if (!hosts && !file) {
    for (const char* k : {"map_by", "iface", "launcher_agent"})
      if (const toml::node* n = doc.get(k)) return w.fail(*n, say("{0} needs hosts or hostfile", k));
    return {};
  }
  const collviz::Text list_rule = say("host:slots strings, e.g. [\"a:4\", \"b:4\"] (a bare name is 1 slot)");
  std::vector<Host> got;
  if (hosts) {
    std::vector<const toml::node*> items;
    if (const auto* a = hosts->as_array()) {
      for (const toml::node& n : *a) items.push_back(&n);
      if (items.empty()) return w.fail(*hosts, say("hosts is empty; allowed: {0}, or no hosts key (this machine)", list_rule));
    } else {
      items.push_back(hosts);
    }
    std::string all;
    for (const toml::node* n : items) {
      const auto* str = n->as_string();
      if (!str) return w.fail(*n, say("hosts: must be a list of {0}; got {1}", list_rule, typeName(*n)));
      if (str->get().empty()) return w.fail(*n, say("hosts: a host is empty; allowed: {0}", list_rule));
      if (auto one = parseHostList(str->get()); !one) return w.fail(*n, say("hosts: {0}", one.error().text));
      all += (all.empty() ? "" : ",") + str->get();
    }
    auto parsed = parseHostList(all);
    if (!parsed) return w.fail(*hosts, say("hosts: {0}", parsed.error().text));
    got = std::move(*parsed);
  } else {
    auto r = readString(w, "hostfile", *file, say("Open MPI's hostfile, relative to this script"));
    if (!r) return r.error();
    std::filesystem::path p(*r);
    if (p.is_relative()) p = std::filesystem::path(w.path).parent_path() / p;
    std::error_code ec;
    std::ifstream in(p);
    if (r->empty() || !std::filesystem::is_regular_file(p, ec) || !in)
      return w.fail(*file, say("hostfile = \"{0}\" cannot be read; allowed: a readable file, relative to this script, HOST slots=N a line",
                               *r));
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = parseHostfile(text.str(), *r);
    if (!parsed) return w.fail(*file, say("hostfile: {0}", parsed.error().text));
    got = std::move(*parsed);
  }
  HostSpec spec;
  spec.hosts = std::move(got);
  if (const toml::node* n = doc.get("map_by")) {
    auto r = readString(w, "map_by", *n, lit("slot, node"));
    if (!r) return r.error();
    if (*r != "slot" && *r != "node")
      return w.fail(*n, say("{0} = \"{1}\" is not allowed; allowed: {2}", "map_by", hostShown(*r), lit("slot, node")));
    spec.map_by = *r == "node" ? MapBy::node : MapBy::slot;
  }
  if (const toml::node* n = doc.get("iface")) {
    const collviz::Text rule = say("an interface name (see ip link): 1 to 15 characters without '/', ':' or blanks");
    auto r = readString(w, "iface", *n, rule);
    if (!r) return r.error();
    if (!checkIface(*r)) return w.fail(*n, say("{0} = \"{1}\" is not allowed; allowed: {2}", "iface", hostShown(*r), rule));
    spec.iface = *r;
  }
  if (const toml::node* n = doc.get("launcher_agent")) {
    const collviz::Text rule = say("one line, a command and its arguments, e.g. 'ssh -p 2222'");
    auto r = readString(w, "launcher_agent", *n, rule);
    if (!r) return r.error();
    if (!checkAgent(*r)) return w.fail(*n, say("launcher_agent: not a command; allowed: {0}", rule));
    spec.agent = *r;
  }
  out = std::move(spec);
  return {};
}

// A step's ranks on the deck's hosts: they fit there.
Status checkStepHosts(const Where& w, const toml::table& t, const Step& s, const HostSpec& hosts, int number) {
  if (hosts.empty()) return {};
  const collviz::Text step = say("step {0}", number);
  if (auto fits = placeOnHosts(hosts, s.spec.ranks); !fits) return w.fail(t, say("{0}: {1}", step, fits.error().text));
  return {};
}

// Every key and string of the script, before any is read or echoed: no
// control characters (they would reach the terminal, the SVG and index.md
// raw). The pre-scan (checkNesting) bounds the recursion.
Status checkText(const Where& w, const toml::node& n, const std::string& field) {
  if (const auto* s = n.as_string()) {
    if (std::string bad = controlCharacter(s->get(), true); !bad.empty())
      return w.fail(n, say("{0}: control character {1}; allowed: printable text, tabs and line breaks",
                           field.empty() ? say("a value") : lit(field), bad));
    return {};
  }
  auto key = [&](const toml::key& k, const toml::node& v) -> Status {
    if (std::string bad = controlCharacter(k.str(), false); !bad.empty()) {
      const auto line = k.source().begin.line ? k.source().begin.line : v.source().begin.line;
      return Error{field.empty() ? say("{0}:{1}: a key holds control character {2}; allowed: printable text", w.path,
                                       line, bad)
                                 : say("{0}:{1}: a key in {2} holds control character {3}; allowed: printable text",
                                       w.path, line, field, bad)};
    }
    return checkText(w, v, (field.empty() ? "" : field + ".") + std::string(k.str()));
  };
  if (const auto* t = n.as_table()) {
    for (auto&& [k, v] : *t)
      if (Status st = key(k, v); !st) return st;
  } else if (const auto* a = n.as_array()) {
    for (const toml::node& v : *a)
      if (Status st = checkText(w, v, field); !st) return st;
  }
  return {};
}

}  // namespace

const std::string& Text::in(Lang lang) const {
  const std::string& want = lang == Lang::zh ? zh : en;
  if (!want.empty()) return want;
  return en.empty() ? zh : en;
}

Result<Lecture> parseLecture(std::string_view text, const std::string& path) {
  if (Status st = checkNesting(text, path); !st) return st.error();
  toml::table doc;
  try {
    doc = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Error{say("{0}:{1}: not valid TOML: {2}", path, e.source().begin.line, std::string(e.description()))};
  }
  const Where w{path};
  if (Status st = checkText(w, doc, ""); !st) return st.error();
  Lecture lec;
  lec.path = path;
  for (auto&& [key, v] : doc) {
    if (key.str() == "title" || key.str() == "author" || key.str() == "date") {
      auto t = readText(w, std::string(key.str()), v);
      if (!t) return t.error();
      (key.str() == "title" ? lec.title : key.str() == "author" ? lec.author : lec.date) = *t;
    } else if (key.str() != "step" && key.str() != "hosts" && key.str() != "hostfile" && key.str() != "map_by" &&
               key.str() != "iface" && key.str() != "launcher_agent") {
      return w.fail(v, say("unknown field {0}; allowed: {1} (each step is a [[step]] table)", key.str(), kTopFields));
    }
  }
  if (Status st = readHosts(w, doc, lec.hosts); !st) return st.error();
  const toml::node* steps = doc.get("step");
  const toml::array* arr = steps ? steps->as_array() : nullptr;
  if (steps && (!arr || !arr->is_array_of_tables()))
    return w.fail(*steps, say("step: must be a list of [[step]] tables; got {0}", typeName(*steps)));
  if (!arr || arr->empty()) return Error{say("{0}:1: no steps; add at least one [[step]] table", path)};
  Step s;  // the article's defaults; each step starts from the one before
  int number = 0;
  for (const toml::node& n : *arr) {
    const toml::table& t = *n.as_table();
    ++number;
    s.line = int(t.source().begin.line);
    s.caption = {};
    s.notes = {};
    const Step before = s;
    Given given;
    for (auto&& [key, v] : t)
      if (Status st = readField(w, key.str(), v, s, given); !st) return st.error();
    // An algorithm carried over to an op it does not run leaves the
    // algorithm view; a new op, algorithm or size starts at round 0.
    if (!given.algo && !ui::isRoundAlgo(s.algo, s.spec.op)) s.algo = std::string(algo::kNative);
    if (!given.algo && s.program != Program::single) s.algo = std::string(algo::kNative);
    const bool moved = s.program != before.program || s.spec.op != before.spec.op ||
                       s.spec.ranks != before.spec.ranks || s.algo != before.algo;
    if (!given.round && moved) s.round = 0;
    if (Status st = checkStep(w, t, s, given, number); !st) return st.error();
    if (Status st = checkStepHosts(w, t, s, lec.hosts, number); !st) return st.error();
    lec.steps.push_back(s);
  }
  return lec;
}

Result<Lecture> loadLecture(const std::string& path) {
  auto text = readScriptFile(path);
  if (!text) return text.error();
  return parseLecture(*text, path);
}

}  // namespace collviz::lecture
