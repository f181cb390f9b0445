// The words the analysis, `collviz job` and the figure share (job.h).
#include <algorithm>

#include "engine/job/readers.h"

namespace collviz::job {

Text rankList(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty()) return lit("—");
  if (ranks.size() == 1) return lit("rank " + std::to_string(ranks[0]));  // "rank" is kept in every language
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (j - i >= 2) {
      parts.push_back(std::to_string(ranks[i]) + "–" + std::to_string(ranks[j]));
    } else {
      for (std::size_t k = i; k <= j; ++k) parts.push_back(std::to_string(ranks[k]));
    }
    i = j + 1;
  }
  if (parts.size() == 1) return say("ranks {0}", parts[0]);
  constexpr std::size_t kShown = 12;
  if (parts.size() > kShown) {
    std::string head;
    for (std::size_t k = 0; k < kShown; ++k) head += (k ? ", " : "") + parts[k];
    return say("ranks {0} and {1} more", head, std::int64_t(parts.size() - kShown));
  }
  std::string head;
  for (std::size_t k = 0; k + 1 < parts.size(); ++k) head += (k ? ", " : "") + parts[k];
  return say("ranks {0} and {1}", head, parts.back());
}

std::string groupName(const Job& job, int group) {
  if (group < 0 || std::size_t(group) >= job.groups.size()) return "?";
  const Group& g = job.groups[std::size_t(group)];
  return g.desc.empty() || g.desc == g.id ? g.id : g.desc + " (" + g.id + ")";
}

std::string healthWord(Health h) {
  switch (h) {
    case Health::unknown: return "?";
    case Health::ok: return "OK";
    case Health::incomplete: return "INCOMPLETE";
    case Health::dead: return "DEAD";
    case Health::mismatch: return "MISMATCH";
    case Health::unresponsive: return "UNRESPONSIVE";
    case Health::error: return "ERROR";
  }
  return "?";
}

Text hangText(const Job& job, const Finding& f, const Call&, const std::vector<int>& unknown) {
  const std::string op(job.str(f.op));
  const std::string group = groupName(job, f.group);
  const Text wait = f.waiting.size() == 1 ? say("1 rank waits there") : say("{0} ranks wait there", std::int64_t(f.waiting.size()));
  std::vector<Text> parts;
  if (!f.ranks.empty())
    parts.push_back(say("{0} never entered {1} #{2} of {3}; {4}", rankList(f.ranks), op, f.seq, group, wait));
  else if (f.waiting.size() == 1)
    parts.push_back(say("{0} waits in {1} #{2} of {3}", rankList(f.waiting), op, f.seq, group));
  else
    parts.push_back(say("{0} wait in {1} #{2} of {3}", rankList(f.waiting), op, f.seq, group));
  if (unknown.size() == 1) parts.push_back(say("no dump of {0}: whether it entered is not known", rankList(unknown)));
  else if (!unknown.empty()) parts.push_back(say("no dump of {0}: whether they entered is not known", rankList(unknown)));
  return parts.size() == 1 ? parts[0] : joined(parts);
}

}  // namespace collviz::job
