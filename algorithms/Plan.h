#pragma once
// The outcome of one solve before rewriting: which forward values are saved (the cut), which
// the backward holds and must get recomputed (mid-hold, §7), the recompute subgraph, and per
// value the reasons the explorer and the report show.
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/FlowNetwork.h"
#include "algorithms/MinCut.h"
#include "model/RandomRecompute.h"

namespace rx {

enum class ValueSide : uint8_t { Neither, Saved, Recomputed };
std::string_view valueSideName(ValueSide s);  // "saved", "recomputed", "neither"
// The one rule for a value's side: saved if the cut saves it, recomputed if its producer is
// cloned, else neither. Every plan (a solve's, a budget plan's) assigns sides with it, so two
// plans compare value by value.
inline ValueSide valueSideOf(bool saved, bool producerRecomputed) {
    return saved ? ValueSide::Saved : producerRecomputed ? ValueSide::Recomputed : ValueSide::Neither;
}

// Why a value ended where it did.
struct ValueReason {
    ValueClass valueClass = ValueClass::Other;
    bool inNetwork = false;
    SkipReason skip = SkipReason::NotGraphValue;
    int64_t distance = Analysis::kNoDistance;
    int64_t size = 0;
    int64_t weightUnits = 0;          // exact weight × scale; see Plan::weightText
    bool materialized = false;
    bool materializedBackwards = false;
    bool fusionLoop = false;
    bool banned = false;
    BanRule banRule = BanRule::None;
    std::string banText;              // banRuleText(banRule) with the numbers filled in
    ValueSide side = ValueSide::Neither;
    bool midHold = false;
    ValueFacts::Pin pin = ValueFacts::Pin::None;
};

struct Plan {
    int64_t scale = 1;                       // weights/cut are in units of 1/scale
    int64_t cutValueUnits = 0;
    std::vector<ValueId> savedValues;        // sorted by file name order (numeric ids first)
    std::vector<ValueId> midHoldValues;      // sorted likewise
    std::vector<OpId> recomputeOps;          // originals to clone, program order
    std::vector<ValueId> subgraphInputs;     // saved/data/parameter values the clones read
    int64_t memorySavedBytes = 0;            // sum of mid-hold sizes
    size_t maxRecomputeDepth = 0;            // longest recompute path walked (explicit stack)
    std::vector<ValueReason> reasons;        // by ValueId
    std::vector<std::string> warnings;       // informational
    std::vector<std::string> hazards;        // seed behaviour worth flagging (see ALGORITHM.md §8)
    // How recomputed random ops are cloned (model/RandomRecompute.h); Off everywhere but the
    // budget planner's plans under --recompute-random (the seed never recomputes them).
    RandomRecompute randomRecompute = RandomRecompute::Off;

    std::string cutValueText() const { return FlowNetwork::unitsText(cutValueUnits, scale); }
    std::string weightText(ValueId v) const { return FlowNetwork::unitsText(reasons[v].weightUnits, scale); }
};

// Builds the plan from a solved cut (§6 saved values, §7 mid-hold values and the recompute
// subgraph). Returns the seed's errors (zero-input op on a recompute path) in `error`.
Plan buildPlan(const Analysis& analysis, const RecomputeConfig& config, const OpClasses& classes,
               const FlowNetwork& network, const MinCutResult& cut, std::string& error);

// Sorts values the way reports print them: "%N" numerically, then other names.
void sortValuesByName(const Program& program, std::vector<ValueId>& values);

}  // namespace rx
