#pragma once
// Recompute cost per op: FLOPs estimated from the op's types (matmul 2·M·N·K, conv by filter
// size, elementwise and reductions by elements) and bytes moved, optionally replaced by
// measured per-op times from a profile report (FORMATS.md "Profile report").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/Program.h"

namespace rx::planner {

struct OpCost {
    double flops = 0;        // floating point operations of one run of the op
    int64_t bytesMoved = 0;  // operand bytes read + result bytes written
};

// The estimate for one op of `program` (any op; ops with regions count their own types only).
OpCost estimateOpCost(const Program& program, OpId op);

// Costs of every op of a program. cost() is what the planner minimises: FLOPs by default,
// milliseconds once a profile is loaded; flops() is always the type-based estimate (reports
// show it as recompute_flops).
// The largest per-op time a profile may give: a year in milliseconds. Sums over a
// million such ops stay far inside a double's range (1e308 ms overflowed to infinity).
inline constexpr double kMaxProfileMs = 3.2e10;
inline constexpr const char* kMaxProfileMsText = "3.2e10 (a year)";

class CostModel {
public:
    CostModel() = default;
    static CostModel fromTypes(const Program& program);

    // Reads `original.ops[]` (index, name, ms) of a profile report. Ops the profile does not
    // list get their FLOPs times the profile's measured ms per FLOP. Throws rx::Error naming
    // the JSON path (and the op index and name) of anything that does not match the program.
    void loadProfile(const std::string& path, const Program& program);
    void loadProfileJson(std::string_view json, const std::string& fileName, const Program& program);

    double flops(OpId op) const { return op < ops_.size() ? ops_[op].flops : 0; }
    int64_t bytesMoved(OpId op) const { return op < ops_.size() ? ops_[op].bytesMoved : 0; }
    double cost(OpId op) const;
    bool measured() const { return !ms_.empty(); }
    std::string_view unit() const { return measured() ? "ms" : "FLOP"; }
    const std::string& source() const { return source_; }  // profile path, empty for types
    // Global ops the profile does not list (their times estimated from FLOPs at its rate).
    size_t estimatedOps() const { return estimatedOps_; }

private:
    std::vector<OpCost> ops_;  // by OpId
    std::vector<double> ms_;   // by OpId when measured
    std::string source_;
    size_t estimatedOps_ = 0;
};

}  // namespace rx::planner
