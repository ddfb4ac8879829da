#pragma once
// The memory-budget planner: chooses which forward values the backward keeps and which it
// recomputes so that the rewritten program's activation peak by the liveness model
// (MemoryModel.h: peak less resident inputs and parameters) fits a budget at the least
// recompute cost (CostModel.h). Method: a min cut on an op/value network whose cut pays
// saved bytes + λ·recompute cost, swept over λ (parametric min cut, LEMON Preflow); every
// candidate is rewritten and measured by the real memory model, and the answer is the
// cheapest measured plan that fits. An exact mode enumerates every recompute set of small
// programs. Reference plans (seed, PyTorch-style, full checkpointing, no recompute) are
// measured the same way. Random and side-effecting ops are never recomputed; no plan above
// the original program's peak is ever returned.
//
// Not thread-safe: one planner per thread (the explorer runs it on a worker).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "algorithms/Analysis.h"
#include "algorithms/MemoryModel.h"
#include "algorithms/Plan.h"
#include "algorithms/planner/CostModel.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

namespace rx::planner {

// One measured plan.
struct BudgetPlan {
    std::string source = "budget";        // budget | exact | seed | pytorch-style | full-checkpoint | no-recompute
    std::optional<int64_t> budgetBytes;   // the budget it answers (none for reference plans)
    std::optional<double> budgetFraction; // PyTorch-style: its activation_memory_budget
    std::vector<OpId> recomputeOps;       // forward ops cloned into the backward, program order
    std::vector<ValueId> savedValues;     // non-resident forward values the backward keeps, by name
    std::vector<ValueId> recomputedValues;// forward values the backward reads from clones, by name
    int64_t peakBytes = 0;                // rewritten program, liveness model
    int64_t activationPeakBytes = 0;      // peakBytes less resident bytes
    double recomputeFlops = 0;            // FLOPs of the clones (type-based estimate)
    double recomputeCost = 0;             // what the planner minimised (FLOPs, or ms with a profile)
    Plan plan;                            // for partitionJointGraph (recompute ops, mid-hold, inputs)
};

// A value that sits on a different side in two plans, and what that moves.
struct SideChange {
    ValueId value = kNoId;
    ValueSide referenceSide = ValueSide::Neither;  // in the reference (the seed's plan)
    ValueSide side = ValueSide::Neither;           // in the plan explained
    int64_t bytes = 0;   // bytes the backward holds more (+) or less (-) for this value
    double flops = 0;    // recompute FLOPs more (+) or less (-) for its defining op
};

// What is alive at a plan's peak, by the liveness model on its rewritten program.
struct PeakBreakdown {
    uint32_t peakOpIndex = 0;        // in the rewritten program's global block
    std::string peakOpName;
    bool inBackward = false;         // the peak op comes after the forward
    int64_t outputs = 0;             // backward values fetched (parameter gradients, loss)
    int64_t backwardTemporaries = 0; // other backward values (activation gradients)
    int64_t forwardValues = 0;       // forward originals still alive (saved, or in forward use)
    int64_t recomputed = 0;          // clone results
    int64_t activation() const { return outputs + backwardTemporaries + forwardValues + recomputed; }
};

struct PlannerOptions {
    int gridSteps = 14;          // λ grid: natural scale × 2^k, k = -gridSteps..gridSteps step 2
    int refineSteps = 6;         // bisection steps between the two grid plans around a budget
    size_t coarseGridAbove = 10000;  // candidate ops above which the grid takes k step 4
    size_t maxExactOps = 16;     // exact mode: largest number of candidate ops enumerated
    size_t exactBelow = 12;      // planForBudget enumerates exactly up to this many candidate ops
};

class BudgetPlanner {
public:
    BudgetPlanner(std::shared_ptr<const Program> program, RecomputeSpec spec,
                  RecomputeConfig config = RecomputeConfig::seedDefaults(), CostModel costs = {},
                  PlannerOptions options = {});

    const Program& program() const { return *program_; }
    const Analysis& analysis() const { return *analysis_; }
    const CostModel& costs() const { return costs_; }
    const MemoryProfile& originalMemory() const { return original_; }
    int64_t originalActivationPeak() const { return original_.peakBytes - original_.residentBytes; }
    double totalFlops() const { return totalFlops_; }  // whole original program
    size_t candidateOpCount() const { return candidates_.size(); }  // recomputable ops that matter

    // The smallest activation peak among the plans this planner can reach (explores the λ grid).
    int64_t minimumActivationPeak();
    // A lower bound on the activation peak of every plan that recomputes candidate ops only
    // once each, as the rewriter does (the planner's plans, exact mode's too): at each op of
    // the original program, backward values (their live ranges no plan moves), forward values
    // to their last use no plan redirects, values no plan may recompute, and recomputable
    // values from their first redirected backward use to their last (one clone per op).
    int64_t activationLowerBound() const;
    // What is alive at `plan`'s peak (rewrites it); throws rx::Error when the rewrite fails.
    PeakBreakdown peakBreakdown(const BudgetPlan& plan) const;
    // Bytes for a fraction 0-1 between minimumActivationPeak() and the original's.
    int64_t budgetFromFraction(double fraction);

    // The cheapest plan found whose activation peak fits `budgetBytes`. Throws rx::Error when
    // no plan fits, giving the smallest feasible activation peak.
    BudgetPlan planForBudget(int64_t budgetBytes);
    // The same by exhaustive enumeration of recompute sets (programs with at most
    // options.maxExactOps candidate ops; rx::Error otherwise).
    BudgetPlan exactPlanForBudget(int64_t budgetBytes);
    // Every distinct cheapest plan for `points` budgets evenly spaced from the smallest
    // feasible activation peak to the original's: activation peak strictly falling as
    // recompute cost rises.
    // Reference plans given are measured into the search too (and their activation peaks
    // become budgets), so the frontier is never above them at equal or lower cost.
    std::vector<BudgetPlan> frontier(int points, const std::vector<BudgetPlan>& references = {});
    // Adds a plan's recompute set to the candidates the search chooses from (ignored when it
    // recomputes an op the planner may not, e.g. a seed plan on an inplace op).
    void consider(const BudgetPlan& plan);
    // Exhaustive Pareto frontier (small programs only).
    std::vector<BudgetPlan> exactFrontier();

    // Reference plans on the same axes. seedPlan() throws rx::Error when the seed fails.
    BudgetPlan seedPlan();
    BudgetPlan pytorchStylePlan(double memoryBudgetFraction);
    // The price pytorchStylePlan's cuts pay to save each value (by ValueId), as PyTorch's
    // get_node_weight: bytes × 1.1^clamp(dist_from_bw, 1, 100), × 2 when not materialised.
    std::vector<int64_t> pytorchValueWeights() const;
    BudgetPlan fullCheckpointPlan();
    BudgetPlan noRecomputePlan();
    // The peak of `plan`'s rewritten program the way the planner measures it (simulated).
    int64_t simulatedPeakOf(const BudgetPlan& plan) const;
    // Values full checkpointing keeps: the inputs of the layers algorithms/Layers.h finds
    // (forward values defined before a layer and read inside it), by name.
    const std::vector<ValueId>& layerInputs() { findLayerInputs(); return layerInputs_; }

    // The rewritten program of a plan (partitionJointGraph); throws rx::Error on failure.
    std::shared_ptr<Program> rewrite(const BudgetPlan& plan) const;
    // Values on different sides in `plan` and `reference`, largest byte moves first.
    std::vector<SideChange> explain(const BudgetPlan& plan, const BudgetPlan& reference) const;

private:
    struct Network;
    struct Evaluated {
        std::vector<uint8_t> inR;   // by candidate index
        int64_t peak = 0, activation = 0;
        double cost = 0;
        uint64_t hash = 0;
    };

    void buildCandidates();
    std::shared_ptr<Network> buildNetwork(const std::vector<uint8_t>* banned) const;
    void findLayerInputs();
    // Recompute set of a min cut with op costs λ·cost (bans ∞); valueExtra adds to value
    // capacities (full checkpointing).
    std::vector<uint8_t> cutRecomputeSet(double lambda, const std::vector<uint8_t>* banned,
                                         const std::vector<int64_t>* valueCaps);
    // Closes a wanted set under "needed by the backward or by another recomputed op" and
    // drops ops the rewriter could not place; returns the set actually recomputed.
    std::vector<uint8_t> normalise(const std::vector<uint8_t>& wanted) const;
    const Evaluated& evaluate(const std::vector<uint8_t>& inR, bool exact = false);
    // Peak of the rewritten program by the liveness model without building it: the
    // rewriter's placement and redirection replayed on positions (equal to
    // profileMemory(partitionJointGraph(...)); tests check it).
    int64_t simulatePeak(const std::vector<uint8_t>& inR) const;
    void prepareSimulation();
    const Evaluated& evaluateLambda(double lambda);
    void exploreGrid();
    void refineAround(int64_t budget);
    BudgetPlan makePlan(const std::vector<uint8_t>& inR, const std::string& source);
    Plan rxPlan(const std::vector<uint8_t>& inR) const;
    const Evaluated* bestFitting(int64_t budget, bool exactPool) const;
    void improveGreedy(int64_t budget);
    std::vector<uint8_t> bansForPyTorch(bool allowlist) const;
    int64_t savedBytes(const std::vector<uint8_t>& inR) const;
    void runExact();

    std::shared_ptr<const Program> program_;
    RecomputeSpec spec_;
    RecomputeConfig config_;
    CostModel costs_;
    PlannerOptions options_;
    std::shared_ptr<const Analysis> analysis_;
    std::shared_ptr<Network> net_;  // LEMON graph, capacities reset per cut
    MemoryProfile original_;
    double totalFlops_ = 0;

    std::vector<uint8_t> resident_;          // by ValueId
    std::vector<uint8_t> neededByBackward_;  // by ValueId: forward value read at/after bwd_start
    std::vector<uint8_t> recomputable_;      // by OpId
    std::vector<OpId> candidates_;           // recomputable cone ops, program order
    std::vector<uint32_t> candidateIndex_;   // by OpId, kNoId if not a candidate
    std::vector<int64_t> resultBytes_;        // by candidate: bytes of its results
    std::vector<OpId> coneOps_;              // forward ops some needed value depends on
    std::vector<ValueId> layerInputs_;
    std::vector<uint8_t> inLayer_;           // by candidate: its op lies in a detected layer
    bool layersDone_ = false;
    double lambdaScale_ = 1;

    // Simulation tables (by ValueId / candidate index), see simulatePeak.
    std::vector<uint32_t> lastUse_;            // original program, global index
    std::vector<int64_t> ownedBytes_;          // by ValueId: storage it allocates (exec/Liveness.h)
    std::vector<uint32_t> lastFixedUse_;       // uses the rewriter never redirects
    std::vector<uint32_t> lastRedirectedUse_;  // top-level backward uses, kNoId if none
    std::vector<uint32_t> firstBackwardUse_;   // by candidate: of its first result, kNoId if none
    std::vector<uint32_t> defIndex_;           // by ValueId: global index of the defining op, kNoId

    std::map<double, uint64_t> lambdaPlans_;             // λ -> plan hash
    std::unordered_map<uint64_t, Evaluated> pool_;       // heuristic's measured plans
    std::unordered_map<uint64_t, Evaluated> exactPool_;  // exact mode's
    bool gridDone_ = false, exactDone_ = false;
};

}  // namespace rx::planner
