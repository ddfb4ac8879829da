// The op-traits table: named ops with their traits, plus the naming rules Paddle follows
// (a trailing "_" is an in-place variant, "c_" ops are collectives, "cf." is control flow).
#include "model/OpTraits.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace rx {

namespace {

constexpr uint32_t bit(OpTrait t) { return static_cast<uint32_t>(t); }

constexpr uint32_t kInput = bit(OpTrait::Input) | bit(OpTrait::SideEffecting);
constexpr uint32_t kRandom = bit(OpTrait::Random) | bit(OpTrait::SideEffecting);
constexpr uint32_t kFetch = bit(OpTrait::Fetch) | bit(OpTrait::SideEffecting);
constexpr uint32_t kFusible = bit(OpTrait::Fusible);

struct Entry {
    std::string_view name;
    uint32_t traits;
};

// Named ops. Rules below add InPlace / Collective / ControlFlow / SideEffecting by name.
constexpr Entry kTable[] = {
    {"pd_op.data", kInput},
    {"pd_op.feed", kInput},
    {"builtin.parameter", kInput | bit(OpTrait::Parameter)},
    {"builtin.set_parameter", bit(OpTrait::SideEffecting)},
    {"pd_op.fetch", kFetch | bit(OpTrait::View)},
    {"builtin.shadow_output", kFetch},
    {"pd_op.print", bit(OpTrait::SideEffecting)},
    {"pd_op.share_data_", bit(OpTrait::SideEffecting)},
    {"pd_op.assign_out_", bit(OpTrait::SideEffecting)},
    // Random draws.
    {"pd_op.gaussian", kRandom},
    {"pd_op.uniform", kRandom},
    {"pd_op.randint", kRandom},
    {"pd_op.dropout", kRandom},
    {"pd_op.bernoulli", kRandom},
    {"pd_op.randperm", kRandom},
    {"pd_op.multinomial", kRandom},
    {"pd_op.truncated_gaussian_random", kRandom},
    {"pd_op.rand", kRandom},
    {"pd_op.randn", kRandom},
    {"pd_op.uniform_random", kRandom},
    {"pd_op.gaussian_random", kRandom},
    {"pd_op.fused_dropout_add", kRandom},
    {"pd_op.class_center_sample", kRandom},
    {"pd_op.rrelu", kRandom},
    // Views: the result holds the operand's elements unchanged (regrouped or reshaped). Whether
    // it also shares their storage is exec/Liveness's aliasKindOf (the memory model's rule).
    {"builtin.combine", bit(OpTrait::View)},
    {"builtin.split", bit(OpTrait::View) | bit(OpTrait::VectorOperand)},
    {"builtin.slice", bit(OpTrait::View) | bit(OpTrait::VectorOperand)},
    {"pd_op.assign", bit(OpTrait::View)},
    {"pd_op.reshape", bit(OpTrait::View)},
    {"pd_op.view_shape", bit(OpTrait::View)},
    {"pd_op.squeeze", bit(OpTrait::View)},
    {"pd_op.unsqueeze", bit(OpTrait::View)},
    {"pd_op.flatten", bit(OpTrait::View)},
    // Vector operand 0.
    {"pd_op.concat", bit(OpTrait::VectorOperand)},
    {"pd_op.stack", bit(OpTrait::VectorOperand)},
    {"pd_op.add_n", bit(OpTrait::VectorOperand)},
    {"pd_op.concat_grad", bit(OpTrait::VectorOperand)},
    {"pd_op.split_grad", bit(OpTrait::VectorOperand)},
    {"pd_op.stack_grad", bit(OpTrait::VectorOperand)},
    {"pd_op.meshgrid", bit(OpTrait::VectorOperand)},
    {"pd_op.unbind_grad", bit(OpTrait::VectorOperand)},
    // Collectives (the in-place and c_ ones are side-effecting by the rules below).
    {"pd_op.all_reduce", bit(OpTrait::Collective)},
    {"pd_op.all_reduce_", bit(OpTrait::Collective)},
    {"pd_op.reduce_", bit(OpTrait::Collective)},
    {"pd_op.c_broadcast_", bit(OpTrait::Collective)},
    {"pd_op.c_allreduce_sum", bit(OpTrait::Collective)},
    {"pd_op.c_allreduce_sum_", bit(OpTrait::Collective)},
    // Fusible: each result element a function of the same (broadcast) elements of the
    // operands, and fused by Paddle's compiler (RecomputeConfig::seedDefaults' recomputable
    // ops, those that are elementwise). Shape ops, reductions and gathers are not here.
    {"pd_op.add", kFusible}, {"pd_op.subtract", kFusible}, {"pd_op.multiply", kFusible}, {"pd_op.divide", kFusible},
    {"pd_op.elementwise_pow", kFusible}, {"pd_op.pow", kFusible}, {"pd_op.scale", kFusible}, {"pd_op.cast", kFusible},
    {"pd_op.where", kFusible}, {"pd_op.logical_and", kFusible}, {"pd_op.logical_not", kFusible},
    {"pd_op.equal", kFusible}, {"pd_op.not_equal", kFusible}, {"pd_op.less_than", kFusible}, {"pd_op.less_equal", kFusible},
    {"pd_op.greater_than", kFusible}, {"pd_op.greater_equal", kFusible}, {"pd_op.bitwise_and", kFusible},
    {"pd_op.bitwise_or", kFusible}, {"pd_op.bitwise_xor", kFusible}, {"pd_op.bitwise_not", kFusible},
    {"pd_op.exp", kFusible}, {"pd_op.expm1", kFusible}, {"pd_op.log", kFusible}, {"pd_op.log1p", kFusible},
    {"pd_op.logit", kFusible}, {"pd_op.rsqrt", kFusible}, {"pd_op.sigmoid", kFusible}, {"pd_op.sin", kFusible},
    {"pd_op.cos", kFusible}, {"pd_op.tanh", kFusible}, {"pd_op.atan", kFusible}, {"pd_op.atanh", kFusible},
    {"pd_op.sinh", kFusible}, {"pd_op.asin", kFusible}, {"pd_op.asinh", kFusible}, {"pd_op.cosh", kFusible},
    {"pd_op.acos", kFusible}, {"pd_op.acosh", kFusible}, {"pd_op.abs", kFusible}, {"pd_op.sign", kFusible},
    {"pd_op.erf", kFusible}, {"pd_op.erfinv", kFusible}, {"pd_op.ceil", kFusible}, {"pd_op.floor", kFusible},
    {"pd_op.frac", kFusible}, {"pd_op.round", kFusible}, {"pd_op.trunc", kFusible}, {"pd_op.isinf", kFusible},
    {"pd_op.isnan", kFusible}, {"pd_op.angle", kFusible}, {"pd_op.real", kFusible}, {"pd_op.imag", kFusible},
    {"pd_op.conj", kFusible}, {"pd_op.complex", kFusible},
    // Region holders.
    {"pd_op.if", bit(OpTrait::ControlFlow)},
    {"pd_op.while", bit(OpTrait::ControlFlow)},
};

const std::unordered_map<std::string_view, uint32_t>& table() {
    static const std::unordered_map<std::string_view, uint32_t> t = [] {
        std::unordered_map<std::string_view, uint32_t> m;
        for (const Entry& e : kTable) m[e.name] |= e.traits;
        return m;
    }();
    return t;
}

}  // namespace

uint32_t opTraits(std::string_view name) {
    auto it = table().find(name);
    uint32_t t = it == table().end() ? 0 : it->second;
    // Paddle's in-place variants ("relu_", "batch_norm_") update their operands.
    if (name.ends_with("_")) t |= bit(OpTrait::InPlace) | bit(OpTrait::SideEffecting);
    // "pd_op.c_allreduce_sum", "pd_op.c_identity" ...: communication.
    if (name.find(".c_") != std::string_view::npos) t |= bit(OpTrait::Collective) | bit(OpTrait::SideEffecting);
    if (name.starts_with("cf.")) t |= bit(OpTrait::ControlFlow) | bit(OpTrait::SideEffecting);
    return t;
}

std::vector<std::string_view> opsWithTrait(OpTrait trait) {
    std::vector<std::string_view> names;
    for (const Entry& e : kTable)
        if (opTraits(e.name) & bit(trait)) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

}  // namespace rx
