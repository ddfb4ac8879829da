#pragma once
// The one table of op traits every layer asks (planner, analysis, executors, CUDA fusion):
// which ops are inputs, parameters, fetches, random, side-effecting, in place, views, take a
// vector operand, are collectives or control flow, are fusible elementwise ops. The recompute config's op lists (the
// seed's recomputable / random / compute-intensive / view ops) are not here: a config
// overrides those, and only those; these traits are facts about the ops themselves.
#include <cstdint>
#include <string_view>
#include <vector>

namespace rx {

enum class OpTrait : uint32_t {
    Input = 1u << 0,          // fed by the caller: pd_op.data, pd_op.feed, builtin.parameter
    Parameter = 1u << 1,      // a trained parameter (builtin.parameter)
    Fetch = 1u << 2,          // hands a value out of the program: pd_op.fetch, builtin.shadow_output
    Random = 1u << 3,         // draws random numbers (a second run draws others)
    SideEffecting = 1u << 4,  // must never run twice: inputs, fetches, I/O, random, in place, c_*, cf.*
    InPlace = 1u << 5,        // updates an operand ("relu_", "batch_norm_")
    View = 1u << 6,           // its result holds the operand's elements unchanged (reshape, builtin.split ...); storage sharing is exec/Liveness's aliasKindOf
    VectorOperand = 1u << 7,  // operand 0 is a vector (builtin.combine's result)
    Collective = 1u << 8,     // communication between ranks (identity on one rank)
    ControlFlow = 1u << 9,    // cf.* and the region-holding ops (pd_op.if, pd_op.while)
    Fusible = 1u << 10,       // an elementwise op Paddle's compiler fuses with its neighbours (the seed's recomputable elementwise ops); cuda/Fusion groups runs of them
};

// Every trait of op `name` (a bit set of OpTrait).
uint32_t opTraits(std::string_view name);
inline bool hasOpTrait(std::string_view name, OpTrait t) { return (opTraits(name) & static_cast<uint32_t>(t)) != 0; }
// The names the table lists with trait `t` (rules such as "ends with _" list no names), sorted.
std::vector<std::string_view> opsWithTrait(OpTrait t);

inline bool isInputOp(std::string_view name) { return hasOpTrait(name, OpTrait::Input); }
inline bool isFetchOp(std::string_view name) { return hasOpTrait(name, OpTrait::Fetch); }

}  // namespace rx
