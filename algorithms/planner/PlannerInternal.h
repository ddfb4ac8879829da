#pragma once
// Helpers the planner's source files share (not part of its interface): which ops never run
// twice, list membership, and the capacity that marks "rather not save this".
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rx::planner::detail {

// Full checkpointing: the price of saving a value it would rather recompute.
constexpr int64_t kAvoid = int64_t(1) << 36;


// Ops that must never run twice: random draws, state updates, I/O.
inline bool sideEffecting(std::string_view name) {
    static const std::string_view kNames[] = {
        "pd_op.data", "pd_op.feed", "pd_op.fetch", "builtin.parameter", "builtin.set_parameter",
        "builtin.shadow_output", "pd_op.print", "pd_op.share_data_", "pd_op.assign_out_",
        "pd_op.gaussian", "pd_op.uniform", "pd_op.randint", "pd_op.dropout", "pd_op.bernoulli",
        "pd_op.randperm", "pd_op.multinomial", "pd_op.truncated_gaussian_random", "pd_op.rand",
        "pd_op.randn", "pd_op.uniform_random", "pd_op.gaussian_random", "pd_op.fused_dropout_add",
        "pd_op.class_center_sample", "pd_op.rrelu"};
    if (std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames)) return true;
    // In-place ops ("relu_", "batch_norm_") update their operands; collectives ("c_*", "*_reduce_").
    return name.ends_with("_") || name.find(".c_") != std::string_view::npos || name.starts_with("cf.");
}


inline bool contains(const std::vector<std::string>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace rx::planner::detail
