#include "app/view/round_play.h"

#include <algorithm>

#include "engine/algo/algorithms.h"
#include "engine/algo/msccl/msccl.h"

namespace collviz::ui {

std::vector<std::string> algoChoices(Op op) {
  std::vector<std::string> out{std::string(algo::kNative)};
  for (const algo::Algorithm& a : algo::algorithms())
    if (a.build && algo::serves(a, op)) out.emplace_back(a.name);
  for (const auto& f : algo::mscclFiles())  // files opened this session
    if (f->op == op) out.push_back(algo::mscclAlgoName(*f));
  return out;
}

std::vector<std::string> algoChoices(const AppState& s) {
  if (s.program() != Program::single) return {std::string(algo::kNative)};
  return algoChoices(s.runSpec().op);
}

void stepRound(AppState& s, int delta) {
  s.playing = false;
  s.play_clock = 0;
  s.view.tween = 0;
  s.view.round = std::clamp(s.view.round + delta, 0, s.rounds);
}

void togglePlay(AppState& s) {
  if (s.rounds <= 0) return;
  s.playing = !s.playing;
  s.play_clock = 0;
  if (s.playing && s.view.round >= s.rounds) s.view.round = 0;  // again from the start
  if (!s.playing) s.view.tween = 0;
}

bool applyRoundKey(AppState& s, LectureKey key) {
  if (key == LectureKey::next_algo) {
    const std::vector<std::string> c = algoChoices(s);
    auto it = std::find(c.begin(), c.end(), s.view.algo);
    s.view.algo = it == c.end() || it + 1 == c.end() ? c.front() : *(it + 1);
    s.view.round = 0;
    s.view.tween = 0;
    s.playing = false;
    return true;
  }
  if (s.rounds <= 0) return false;
  switch (key) {
    case LectureKey::step_forward: stepRound(s, +1); return true;
    case LectureKey::step_back: stepRound(s, -1); return true;
    case LectureKey::first: stepRound(s, -s.rounds); return true;
    case LectureKey::last: stepRound(s, s.rounds); return true;
    case LectureKey::play: togglePlay(s); return true;
    default: return false;
  }
}

void advancePlay(AppState& s, float dt) {
  if (!s.playing) return;
  if (s.rounds <= 0) {
    s.playing = false;
    return;
  }
  s.play_clock += dt * std::max(0.1f, s.play_speed);
  if (s.view.tween > 0) {  // the blocks are on their way into this round
    s.view.tween = std::min(1.0f, s.play_clock / kPlayMove);
    if (s.play_clock >= kPlayMove) {
      s.view.tween = 0;
      s.play_clock = 0;
      if (s.view.round >= s.rounds) s.playing = false;
    }
    return;
  }
  if (s.play_clock < 1.0f - kPlayMove) return;  // resting on the round
  if (s.view.round >= s.rounds) {
    s.playing = false;
    return;
  }
  ++s.view.round;
  s.play_clock = 0;
  s.view.tween = 0.001f;
}

}  // namespace collviz::ui
