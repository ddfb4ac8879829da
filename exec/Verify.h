#pragma once
// Equivalence by execution: run the original and the rewritten program on the same seeded
// inputs and compare every fetched value. The CPU executor is deterministic and a rewrite
// only clones ops, so the default demands identical bits; a tolerance can be stated for
// backends (or programs) where that cannot hold.
#include <memory>
#include <atomic>
#include <optional>
#include <string>

#include "exec/Executor.h"

namespace rx::exec {

struct VerifyOptions {
    uint64_t seed = 0;
    // 0 and 0: bitwise. Else |a-b| <= atol + rtol*|b| per element (NaN == NaN).
    double rtol = 0.0;
    double atol = 0.0;
    // Resident values for both runs' memory figures (e.g. the spec's inputs); default: every
    // data/parameter value. Value ids of the original survive in the rewritten program.
    std::optional<std::vector<ValueId>> residentValues;
    // Set from another thread to stop between ops (verifyPrograms then throws "verify cancelled").
    const std::atomic<bool>* cancel = nullptr;
    // When set, verifyPrograms stores its stage: 1 running the original, 2 the rewritten, 3 comparing.
    std::atomic<int>* stage = nullptr;
};

struct ValueDifference {
    std::string valueName;    // name in the original program
    std::string fetchName;
    int64_t index = -1;       // first differing element (-1: shape or dtype differs)
    double original = 0, rewritten = 0;
    std::string reason;       // "shape", "dtype", "value", "missing"
};

struct VerifyReport {
    bool equivalent = false;
    int compared = 0;                  // fetched values compared
    int bitwiseEqual = 0;              // of those, identical bits
    double maxAbsDifference = 0;
    std::optional<ValueDifference> firstDifference;
    int64_t originalPeakBytes = 0, rewrittenPeakBytes = 0;
    double originalMs = 0, rewrittenMs = 0;
    std::string summary() const;       // one paragraph for the CLI / a status bar
};

// Compares two runs' fetches in order (fetch i of one against fetch i of the other), then
// the captured values (RunResult::values) present in both, by name.
VerifyReport compareRuns(const RunResult& original, const RunResult& rewritten, const VerifyOptions& options);

// Runs both programs with `executor` (CPU when null). Throws rx::Error if either cannot run.
// A program without pd_op.fetch is compared on its sinks (values nobody reads), by name.
VerifyReport verifyPrograms(const Program& original, const Program& rewritten, const VerifyOptions& options,
                            Executor* executor = nullptr);

}  // namespace rx::exec
