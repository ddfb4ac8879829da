#pragma once
// Helpers the planner's source files share (not part of its interface): which ops never run
// twice, list membership, and the capacity that marks "rather not save this".
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/OpTraits.h"

namespace rx::planner::detail {

// Full checkpointing: the price of saving a value it would rather recompute.
constexpr int64_t kAvoid = int64_t(1) << 36;


// Ops that must never run twice: random draws, state updates, I/O (model/OpTraits).
inline bool sideEffecting(std::string_view name) { return hasOpTrait(name, OpTrait::SideEffecting); }


inline bool contains(const std::vector<std::string>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace rx::planner::detail
