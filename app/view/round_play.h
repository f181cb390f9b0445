// The algorithm view's state changes, pure (tested without a window): the
// algorithms offered for an op, stepping through rounds, and play, which
// moves each round's blocks along their arrows and then rests on the round.
#pragma once

#include <string>
#include <vector>

#include "app/view/app_state.h"
#include "app/view/keys.h"

namespace collviz::ui {

// "native" first, then every engine algorithm that runs `op` (table order).
std::vector<std::string> algoChoices(Op op);
// The entry's choices: the decomposition is two native ops, so only native.
std::vector<std::string> algoChoices(const AppState& s);

// Keys of the algorithm view (s.rounds > 0): ↑/↓ step a round, Home/End the
// first/last round, P play/pause; L picks the next algorithm in any view.
// Returns true when the key was taken.
bool applyRoundKey(AppState& s, LectureKey key);
void stepRound(AppState& s, int delta);
void togglePlay(AppState& s);
// Once per frame while playing: `dt` seconds of play at s.play_speed rounds
// per second. Stops on the last round.
void advancePlay(AppState& s, float dt);

// The part of a round a move takes while playing (the rest it rests).
inline constexpr float kPlayMove = 0.6f;

}  // namespace collviz::ui
