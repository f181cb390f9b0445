#include "app/lecture/player.h"

#include <algorithm>

#include "app/view/round_model.h"

namespace collviz::lecture {

ui::RunKey runKeyOf(const Step& s) {
  OpSpec spec = s.spec;
  if (s.program == Program::all_reduce_decomposed) spec.op = Op::all_reduce;
  const bool rounds = s.program == Program::single && ui::isRoundAlgo(s.algo, spec.op);
  return {s.program, spec, s.backend, {}, rounds ? s.algo : "native"};
}

std::string stepCounter(int index, int count) {
  return std::to_string(index + 1) + " / " + std::to_string(count);
}

bool Player::go(int i) {
  if (i < 0 || i >= count()) return false;
  if (i != index_) ++revision_;
  index_ = i;
  return true;
}

void Player::cancelJump() {
  jumping_ = false;
  jump_.clear();
}

bool Player::key(ui::LectureKey k) {
  using ui::LectureKey;
  if (jumping_ && k != LectureKey::confirm && k != LectureKey::go_to) cancelJump();
  switch (k) {
    case LectureKey::next_op:
    case LectureKey::step_forward:
    case LectureKey::rerun:  // Space
      go(index_ + 1);
      return true;
    case LectureKey::prev_op:
    case LectureKey::step_back:
      go(index_ - 1);
      return true;
    case LectureKey::first: go(0); return true;
    case LectureKey::last: go(count() - 1); return true;
    case LectureKey::go_to:
      jumping_ = true;
      jump_.clear();
      return true;
    case LectureKey::confirm:
      if (jumping_ && !jump_.empty()) go(std::stoi(jump_) - 1);
      cancelJump();
      return true;
    default:
      return false;
  }
}

bool Player::typed(unsigned c) {
  if (!jumping_) return false;
  if (c >= '0' && c <= '9') {
    if (jump_.size() < 4) jump_ += char(c);
    // A number that cannot grow into another step's number jumps at once.
    if (std::stoi(jump_) * 10 > count()) {
      go(std::stoi(jump_) - 1);
      cancelJump();
    }
    return true;
  }
  if (c == 8 && !jump_.empty()) jump_.pop_back();  // backspace
  return true;  // while typing a jump, other characters do nothing
}

void Player::apply(ui::AppState& s) const {
  const Step& st = current();
  s.entry = st.program == Program::all_reduce_decomposed ? ui::kDecompositionEntry : int(st.spec.op);
  s.spec = st.spec;
  s.backend = st.backend;
  s.view.trace_rank = st.trace_rank;
  s.view.trace_mode = st.trace_mode;
  s.view.stage = st.program == Program::all_reduce_decomposed ? st.state : 2;
  s.view.algo = st.algo;
  s.rounds = st.program == Program::single ? ui::algoRounds(st.algo, s.runSpec()) : 0;
  s.view.round = std::clamp(st.round, 0, s.rounds);
  s.view.tween = 0;
  s.playing = false;
  s.play_clock = 0;
}

std::vector<ui::RunKey> Player::aheadKeys() const {
  std::vector<ui::RunKey> keys;
  auto add = [&](int i) {
    if (i < 0 || i >= count()) return;
    ui::RunKey k = runKeyOf(lecture_.steps[i]);
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  for (int d = 1; d < count(); ++d) {
    add(index_ + d);
    add(index_ - d);
  }
  return keys;
}

}  // namespace collviz::lecture
