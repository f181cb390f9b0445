#include "app/lang/lang.h"

#include <vector>

#include "app/lang/tables.h"

#include <atomic>
#include <cstdlib>
#include <unordered_map>

namespace collviz {

namespace {
std::atomic<Lang> g_lang{Lang::en};

const std::unordered_map<std::string_view, std::string_view>& chinese() {
  static const auto* table = [] {
    auto* m = new std::unordered_map<std::string_view, std::string_view>;
    for (const Translation& t : translations()) m->emplace(t.en, t.zh);
    return m;
  }();
  return *table;
}

// The translated text; its bytes live in the table (string literals), so a
// const char* is safe to hand out.
const char* lookup(std::string_view english) {
  if (g_lang.load(std::memory_order_relaxed) == Lang::en) return nullptr;
  auto it = chinese().find(english);
  return it == chinese().end() ? nullptr : it->second.data();
}
}  // namespace

std::span<const Translation> translations() {
  static const auto* all = [] {
    auto* v = new std::vector<Translation>;
    for (auto part : {tableApp(), tableEngine(), tableChecks(), tableWorker(), tableAlgo(), tableCli(), tableHosts(), tableJob(), tableWatch(), tableCall()})
      v->insert(v->end(), part.begin(), part.end());
    return v;
  }();
  return *all;
}

std::string render(const Text& t) {
  if (t.literal) return t.id;
  if (t.args.empty()) return tr(t.id);
  return Text::fill(tr(t.id), t.args, [](const Text& a) { return render(a); });
}

std::string render(const Error& e) { return e.text.empty() ? e.message : render(e.text); }

std::string render(const Status& s) { return s.ok() ? std::string() : render(s.error()); }

std::string render(const Said& s) {
  const Text* t = s.current();
  return t ? render(*t) : std::string(s);
}

std::vector<std::string> render(const std::vector<Said>& v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const Said& s : v) out.push_back(render(s));
  return out;
}

Lang language() { return g_lang.load(std::memory_order_relaxed); }
void setLanguage(Lang lang) { g_lang.store(lang, std::memory_order_relaxed); }

std::string_view langName(Lang lang) { return lang == Lang::zh ? "zh" : "en"; }

std::optional<Lang> parseLang(std::string_view s) {
  if (s == "en") return Lang::en;
  if (s == "zh") return Lang::zh;
  return std::nullopt;
}

Lang langFromLocale() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    return std::string_view(v).starts_with("zh") ? Lang::zh : Lang::en;
  }
  return Lang::en;
}

const char* tr(const char* english) {
  const char* t = lookup(english);
  return t ? t : english;
}

std::string tr(const std::string& english) {
  const char* t = lookup(english);
  return t ? std::string(t) : english;
}

std::string trf(const char* english, std::initializer_list<std::string> args) {
  std::string s = tr(english);
  int i = 0;
  for (const std::string& a : args) {
    const std::string mark = "{" + std::to_string(i++) + "}";
    for (size_t at = s.find(mark); at != std::string::npos; at = s.find(mark, at + a.size()))
      s.replace(at, mark.size(), a);
  }
  return s;
}

}  // namespace collviz
