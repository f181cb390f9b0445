#include "engine/verify/value_summary.h"

#include <algorithm>
#include <charconv>

namespace collviz {

std::optional<ValueLimit> parseValueLimit(const std::string& s, std::string* error) {
  Said said;
  auto limit = parseValueLimit(s, error ? &said : nullptr);
  if (error && !limit) *error = said;
  return limit;
}

std::optional<ValueLimit> parseValueLimit(const std::string& s, Said* error) {
  if (s == "all") return ValueLimit::all();
  if (s == "none") return ValueLimit{0, 0, true};
  int64_t n = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc{} || end != s.data() + s.size() || n < 0) {
    if (error)
      *error = say("--values: '{0}' is not allowed; use all, none, or a count of values "
                   "(buffers with more are summarised: the first and last few of each block)",
                   s);
    return std::nullopt;
  }
  return ValueLimit{n, 3, false};
}

bool summarised(const ValueLimit& l, std::size_t count) {
  return !l.none && l.max >= 0 && count > std::size_t(l.max);
}

std::size_t forEachShown(const ValueLimit& l, std::size_t count, std::size_t elems,
                         const std::function<void(std::size_t, std::size_t, std::size_t)>& shown,
                         const std::function<void(std::size_t, std::size_t)>& gap) {
  if (l.none || count == 0) return 0;
  elems = std::max<std::size_t>(elems, 1);
  const bool summary = summarised(l, count);
  const std::size_t edge = std::size_t(std::max<int64_t>(l.edge, 1));
  std::size_t total = 0;
  for (std::size_t first = 0, b = 0; first < count; first += elems, ++b) {
    const std::size_t last = std::min(count, first + elems);
    if (!summary || last - first <= 2 * edge) {
      shown(b, first, last);
      total += last - first;
      continue;
    }
    shown(b, first, first + edge);
    gap(b, last - first - 2 * edge);
    shown(b, last - edge, last);
    total += 2 * edge;
  }
  return total;
}

}  // namespace collviz
