// Plain data (plain.h): look-ups, and JSON read into the same tree through
// nlohmann's SAX interface (no DOM: a dump of 20 000 entries is one pass).
#include "engine/job/plain.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace collviz::job {

const std::vector<std::uint32_t>& Plain::children(std::uint32_t n) const {
  static const std::vector<std::uint32_t> kNone;
  const Node& x = nodes[n];
  return x.kind == Kind::list || x.kind == Kind::tuple || x.kind == Kind::dict ? items[x.ref] : kNone;
}

bool Plain::find(std::uint32_t dict, std::string_view key, std::uint32_t& value) const {
  if (!isDict(dict)) return false;
  const auto& kv = items[nodes[dict].ref];
  bool found = false;
  for (std::size_t i = 0; i + 1 < kv.size(); i += 2)
    if (str(kv[i]) == key && isStr(kv[i])) value = kv[i + 1], found = true;  // the last wins, as in Python
  return found;
}

bool Plain::integer(std::uint32_t n, std::int64_t& out) const {
  const Node& x = nodes[n];
  switch (x.kind) {
    case Kind::integer: case Kind::boolean: out = x.i; return true;
    case Kind::real:
      if (std::isfinite(x.f) && x.f == std::floor(x.f) && std::fabs(x.f) < 9.0e18) return out = std::int64_t(x.f), true;
      return false;
    case Kind::str: {
      const std::string_view s = strs[x.ref];
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
      return ec == std::errc() && end == s.data() + s.size() && !s.empty();
    }
    default: return false;
  }
}

bool Plain::real(std::uint32_t n, double& out) const {
  const Node& x = nodes[n];
  if (x.kind == Kind::real) return out = x.f, true;
  if (x.kind == Kind::integer) return out = double(x.i), true;
  return false;
}

void Plain::clear() {
  used = 0;
  nodes.clear();
  containers = 0;  // items kept, with their room
  strs.clear();
  owned.clear();
  root = 0;
}

std::uint32_t Plain::addContainer(Kind k, const std::uint32_t* first, std::size_t n) {
  const std::uint32_t x = add(k);
  if (containers == items.size()) items.emplace_back();
  auto& v = items[containers];
  v.assign(first, first + n);
  nodes[x].ref = std::uint32_t(containers++);
  return x;
}

std::uint32_t Plain::add(Kind k) {
  nodes.emplace_back();
  nodes.back().kind = k;
  return std::uint32_t(nodes.size() - 1);
}

namespace {

// Builds a Plain from nlohmann's SAX events.
class JsonToPlain : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit JsonToPlain(Plain& p) : p_(p) {}
  bool null() override { return value(Plain::Kind::none); }
  bool boolean(bool v) override { return value(Plain::Kind::boolean, v ? 1 : 0); }
  bool number_integer(std::int64_t v) override { return value(Plain::Kind::integer, v); }
  bool number_unsigned(std::uint64_t v) override {
    return v > std::uint64_t(INT64_MAX) ? value(Plain::Kind::big) : value(Plain::Kind::integer, std::int64_t(v));
  }
  bool number_float(double v, const std::string&) override {
    if (!value(Plain::Kind::real)) return false;
    p_.nodes.back().f = v;
    return true;
  }
  bool string(std::string& s) override {
    if (!value(Plain::Kind::str)) return false;
    p_.used += sizeof(std::string_view) + sizeof(std::string) + (s.size() > 15 ? s.size() + 1 : 0);
    p_.nodes.back().ref = std::uint32_t(p_.strs.size());
    p_.owned.push_back(std::move(s));
    p_.strs.push_back(p_.owned.back());
    return true;
  }
  bool binary(binary_t&) override { return value(Plain::Kind::none); }
  bool start_object(std::size_t) override { return open(Plain::Kind::dict); }
  // A dict's key: one node for each distinct key (the first 4096), not one
  // for every dict that has it ("rank" in each of a million ranks).
  bool key(std::string& k) override {
    if (auto it = keys_.find(k); it != keys_.end()) {
      p_.used += 8;
      p_.items[p_.nodes[open_.back()].ref].push_back(it->second);
      return true;
    }
    if (keys_.size() < 4096) keys_.emplace(k, std::uint32_t(p_.nodes.size()));
    return string(k);
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(Plain::Kind::list); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& e) override {
    error = say("not JSON at byte {0}: {1}", std::int64_t(pos), std::string(e.what()));
    return false;
  }
  Text error;

 private:
  bool value(Plain::Kind k, std::int64_t i = 0) {
    if (p_.nodes.size() >= kMaxPlainValues) {
      error = say("more than {0} values: not read (a Flight Recorder dump holds far fewer)", std::int64_t(kMaxPlainValues));
      return false;
    }
    p_.used += sizeof(Plain::Node) + 8;  // the node, its place in its list (grown by doubling)
    if (p_.used > p_.budget) {
      error = overBudget(p_.budget);
      return false;
    }
    const std::uint32_t x = p_.add(k);
    p_.nodes[x].i = i;
    if (open_.empty()) p_.root = x;
    else p_.items[p_.nodes[open_.back()].ref].push_back(x);
    return true;
  }
  bool open(Plain::Kind k) {
    if (open_.size() >= kMaxPlainDepth) {
      error = say("nested deeper than {0}: not read", std::int64_t(kMaxPlainDepth));
      return false;
    }
    if (p_.nodes.size() >= kMaxPlainValues) {
      error = say("more than {0} values: not read (a Flight Recorder dump holds far fewer)", std::int64_t(kMaxPlainValues));
      return false;
    }
    p_.used += sizeof(Plain::Node) + sizeof(std::vector<std::uint32_t>) + 16 + 8 + 4;  // node, list, its allocation, place, open_
    if (p_.used > p_.budget) {
      error = overBudget(p_.budget);
      return false;
    }
    const std::uint32_t x = p_.addContainer(k);
    if (open_.empty()) p_.root = x;
    else p_.items[p_.nodes[open_.back()].ref].push_back(x);
    open_.push_back(x);
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }
  Plain& p_;
  std::vector<std::uint32_t> open_;
  std::unordered_map<std::string, std::uint32_t> keys_;
};

// nlohmann's DOM, counted (json.hpp's basic_json: 16 bytes a value; an
// object's member a map node of about 80 bytes with its key; an array's
// element 16 bytes, grown by doubling; a string past 15 characters its
// own allocation).
class DomSize : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit DomSize(std::size_t budget) : budget_(budget) {}
  bool null() override { return add(16); }
  bool boolean(bool) override { return add(16); }
  bool number_integer(std::int64_t) override { return add(16); }
  bool number_unsigned(std::uint64_t) override { return add(16); }
  bool number_float(double, const std::string&) override { return add(16); }
  bool string(std::string& s) override { return add(16 + 32 + (s.size() > 15 ? s.size() + 1 : 0)); }
  bool binary(binary_t&) override { return add(16); }
  bool start_object(std::size_t) override { return add(16 + 48); }
  bool key(std::string& k) override { return add(80 + (k.size() > 15 ? k.size() + 1 : 0)); }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return add(16 + 24); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  bool over() const { return used_ > budget_; }

 private:
  bool add(std::size_t n) {
    used_ += n + 16;  // and its place in an array, grown by doubling
    return used_ <= budget_;
  }
  std::size_t budget_, used_ = 0;
};

}  // namespace

Text overBudget(std::size_t budget) {
  return say("would take more than {0} MiB of memory to read ({1} times its size plus {2} MiB, at most {3} MiB: docs/jobs.md): not read",
             std::int64_t(budget >> 20), std::int64_t(kPlainFactor), std::int64_t(kPlainSlack >> 20), std::int64_t(kMaxPlainBytes >> 20));
}

bool jsonDomFits(std::string_view bytes, std::size_t budget) {
  DomSize sax(budget);
  (void)nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &sax, nlohmann::json::input_format_t::json, true, true);
  return !sax.over();
}

Status readJsonPlain(std::string_view bytes, Plain& p) {
  p.clear();
  p.budget = plainBudget(bytes.size());
  // Room that never grows (as readPickle): a value is counted 24 bytes at least, a container 68, a string 72.
  p.nodes.reserve(std::min({bytes.size(), p.budget / 24, kMaxPlainValues}) + 16);
  p.items.reserve(std::min(bytes.size() / 2, p.budget / 68) + 16);
  p.strs.reserve(std::min(bytes.size() / 2, p.budget / 72) + 16);
  JsonToPlain sax(p);
  const bool ok = nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &sax, nlohmann::json::input_format_t::json, true, true);
  if (!ok) return Error(sax.error.empty() ? say("not JSON") : sax.error);
  if (p.nodes.empty()) return Error(say("not JSON"));
  return Status::Ok();
}

Result<Plain> readJsonPlain(std::string_view bytes) {
  Plain p;
  if (Status st = readJsonPlain(bytes, p); !st) return st.error();
  return p;
}

}  // namespace collviz::job
