#include "engine/text.h"

#include <cstdio>
#include <cstdlib>

namespace collviz {

std::string Text::english() const {
  if (literal || args.empty()) return id;
  return fill(id, args, [](const Text& a) { return a.english(); });
}

Text lit(std::string value) {
  Text t;
  t.id = std::move(value);
  t.literal = true;
  return t;
}

Text lit(const char* value) { return lit(std::string(value ? value : "")); }

std::string formatNumber(double v) {
  char buf[32];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

Text joined(std::vector<Text> parts) {
  std::vector<Text> kept;
  for (Text& p : parts)
    if (!p.empty()) kept.push_back(std::move(p));
  if (kept.empty()) return {};
  Text t = std::move(kept[0]);
  for (std::size_t i = 1; i < kept.size(); ++i) t = say("{0}; {1}", std::move(t), std::move(kept[i]));
  return t;
}

}  // namespace collviz
