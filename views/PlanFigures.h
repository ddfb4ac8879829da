#pragma once
// Qt-free figures the explorer draws about a plan: every value's lifetime by the memory
// model's rules (algorithms/MemoryModel.h), its role (resident, held for the backward,
// recomputed clone, gradient, temporary), the values live at an op, and a FLOP estimate
// of the clones.
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/MemoryModel.h"
#include "model/Program.h"

namespace rx {

enum class MemoryRole : uint8_t { Resident, HeldForBackward, RecomputedClone, Gradient, Temporary };
inline constexpr int kMemoryRoleCount = 5;
const char* memoryRoleName(MemoryRole role);

// One global-block result that takes memory: live while ops [begin, end] run (inclusive).
struct ValueLifetime {
    ValueId value = kNoId;
    uint32_t begin = 0, end = 0;
    int64_t bytes = 0;
    MemoryRole role = MemoryRole::Temporary;
    int32_t element = -1;  // a vector value's element (one band each, e.g. pd_op.split's parts); -1: not a vector
};

struct LifetimeOptions {
    std::span<const ValueId> resident;  // spec inputs; builtin.parameter results are added
    int64_t fwdOpEndIdx = -1;           // forward's last op (global-block index)
    std::span<const OpId> clones;       // clone ops of a rewritten program (may be empty)
};

struct ProgramLifetimes {
    std::vector<ValueLifetime> values;  // in definition order; resident values left out
    int64_t residentBytes = 0;
    // (global index defining it, bytes) of each resident value: counted from there on
    // (exec/Liveness.h conventions).
    std::vector<std::pair<uint32_t, int64_t>> residentDefs;
    uint32_t opCount = 0;
    // Resident plus every lifetime covering `op`: equals MemoryProfile::liveBytes[op].
    int64_t liveBytesAt(uint32_t op) const;
    // Lifetimes covering `op`, largest first.
    std::vector<ValueLifetime> liveAt(uint32_t op) const;
};

// The two peaks of a plan, before and after its rewrite: the whole peak (resident values
// included) and the activation peak (MemoryProfile::activationPeakBytes, what the Memory
// Budget planner budgets). The Summary and the Memory Budget dock both show these figures.
struct PlanPeaks {
    bool known = false;  // false when a profile's figures do not fit in 64 bits
    int64_t peakBefore = 0, peakAfter = 0;
    int64_t activationBefore = 0, activationAfter = 0;
};
PlanPeaks planPeaks(const MemoryProfile& original, const MemoryProfile& rewritten);

ProgramLifetimes computeLifetimes(const Program& program, const LifetimeOptions& options);

// Rough arithmetic of one op: 2·M·N·K for matmul-like ops, else one per output element
// (reductions: one per input element). For comparing plans, not a profiler.
double estimateOpFlops(const Program& program, OpId op);
double estimateFlops(const Program& program, std::span<const OpId> ops);

}  // namespace rx
