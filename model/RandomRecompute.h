#pragma once
// How a random op may be recomputed (`--recompute-random mask|seed`): the one provider the
// planner, the rewriter and the executors' generator key ask. The seed never recomputes a
// random op; with this opt-in, a dropout output is rebuilt from its saved mask (mask), or a
// random op that carries a fixed seed is run again and draws the same numbers (seed).
#include <optional>
#include <string_view>

#include "model/Program.h"

namespace rx {

enum class RandomRecompute : uint8_t { Off, Mask, Seed };
// "mask" | "seed" (and "off"); nullopt for anything else.
std::optional<RandomRecompute> parseRandomRecompute(std::string_view text);
std::string_view randomRecomputeName(RandomRecompute mode);  // "off", "mask", "seed"

// Paddle's fix_seed: the op's draws depend on its `seed` attribute alone (a bool attribute
// fix_seed that is true), so running it again draws the same numbers.
bool carriesFixedSeed(const Program& program, OpId op);

// How a clone recomputes random op `op` under `mode`:
//  - Never: it may not be recomputed;
//  - Rerun: the clone is the op itself (a fixed seed, or dropout with is_test, which draws nothing);
//  - ApplyMask: pd_op.dropout's output rebuilt as pd_op.dropout_grad(mask, x[, p]) with the
//    op's attributes: the saved mask times the input times the scale, computed by the
//    same expression as the forward kernel (exec/cpu/KernelsRandom.cpp), so bitwise equal.
enum class RandomCloneForm : uint8_t { Never, Rerun, ApplyMask };
RandomCloneForm randomCloneForm(const Program& program, OpId op, RandomRecompute mode);

// ApplyMask: the operands of the substitute pd_op.dropout_grad, in its order (mask, x, p);
// p is kNoId when the dropout takes p as an attribute only.
struct MaskApplication {
    ValueId mask = kNoId, x = kNoId, p = kNoId;
};
MaskApplication maskApplication(const Program& program, OpId dropout);

}  // namespace rx
