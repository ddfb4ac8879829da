#pragma once
// The facade the CLI and the explorer use: one RecomputeSolver per program + spec (holds the
// Analysis), solve() per config. solve() is const and thread-safe; a re-solve after a knob
// change reuses the analysis and the cached fusion-loop judge. Failures of the seed's
// algorithm (∞ path, missing source/sink, zero-input recompute path, missing distance,
// placement assertion) come back in SolveResult::error, never as exceptions, and so does a
// config the solver cannot represent exactly (e.g. minimum_weight with 7 decimals).
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "algorithms/Analysis.h"
#include "algorithms/FlowNetwork.h"
#include "algorithms/MemoryModel.h"
#include "algorithms/MinCut.h"
#include "algorithms/Plan.h"
#include "algorithms/Rewriter.h"

namespace rx {

struct SolveOptions {
    bool reduced = true;   // contract ∞-reachable nodes before Preflow (false: whole network)
    bool rewrite = true;   // build the rewritten program
    bool memory = true;    // memory profiles of the original and rewritten programs
};

struct SolveTimings {
    double buildMs = 0, solveMs = 0, planMs = 0, rewriteMs = 0, memoryMs = 0, totalMs = 0;
};

struct SolveResult {
    std::string error;                               // empty on success
    bool unchanged = false;                          // the seed returned the program as is
    // Where the seed raises under this config (FlowNetwork.h): the plan below is then the
    // project's own answer, not the seed's, and `extension` is true.
    SeedError seedError;
    bool extension = false;
    std::shared_ptr<const FlowNetwork> network;
    MinCutResult cut;
    Plan plan;
    std::shared_ptr<const Program> rewritten;        // the original when unchanged
    std::vector<OpId> clones;                        // clone ops in `rewritten`
    std::vector<OpId> cloneOf;                       // their originals
    MemoryProfile originalMemory, rewrittenMemory;
    SolveTimings timings;
    bool ok() const { return error.empty(); }
};

// Points in a solve at which a caller may start work on what is final by then (solveInto):
// `planReady` once network, cut, plan and the original's memory profile are set (nothing of
// them changes afterwards), `rewritten` once the rewritten program and its clones are. Called on
// the solving thread; each runs at most once, and not at all when the solve fails before it.
struct SolveStages {
    std::function<void()> planReady;
    std::function<void()> rewritten;
};

class RecomputeSolver {
public:
    RecomputeSolver(std::shared_ptr<const Program> program, RecomputeSpec spec,
                    const NoNeedBufferTable& table = NoNeedBufferTable::builtin());
    // On an analysis already made (the budget planner's, for the seed's plan): no second one.
    explicit RecomputeSolver(std::shared_ptr<const Analysis> analysis);

    SolveResult solve(const RecomputeConfig& config, const SolveOptions& options = {}) const;
    // The same into `out` (a fresh SolveResult), announcing the stages as they end: the CLI
    // writes the report while the program is rewritten. Members already announced are not
    // written again, so other threads may read them while the rest is filled in.
    void solveInto(SolveResult& out, const RecomputeConfig& config, const SolveOptions& options,
                   const SolveStages& stages) const;

    const Analysis& analysis() const { return *analysis_; }
    const Program& program() const { return analysis_->program(); }

private:
    std::shared_ptr<const std::vector<uint8_t>> fusionLoop(const RecomputeConfig& config,
                                                            const OpClasses& classes) const;
    std::shared_ptr<const Analysis> analysis_;
    mutable std::mutex mutex_;
    mutable std::map<std::vector<std::string>, std::shared_ptr<const std::vector<uint8_t>>> fusionCache_;
    mutable std::shared_ptr<const MemoryProfile> originalMemory_;
};

}  // namespace rx
