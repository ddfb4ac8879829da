#pragma once
// The memory-budget planner: chooses which forward values the backward keeps and which it
// recomputes so that the rewritten program's activation peak by the liveness model
// (MemoryModel.h: peak less resident inputs and parameters) fits a budget at the least
// recompute cost (CostModel.h). Method: a min cut on an op/value network whose cut pays
// saved bytes + λ·recompute cost, swept over λ (parametric min cut on the shared, checked
// algorithms/MinCut.h); every candidate is rewritten and measured by the real memory model,
// and the answer is the cheapest measured plan that fits. An exact mode enumerates every
// recompute set of small programs. Reference plans (seed, PyTorch-style, full checkpointing,
// no recompute) are measured the same way. Random and side-effecting ops are never
// recomputed; no plan above the original program's peak is ever returned.
//
// Planning is a pure function of (problem, budget, options): every answer is chosen from a
// pool built for that call alone (the λ grid, the reference plans, and the call's own
// refinement and local search), keyed by the recompute set itself. What the planner keeps
// between calls are memos of pure functions (a set's measured peak, a λ's cut), so asking
// in any order gives the same plans. The sources: BudgetPlanner.cpp (the problem and its
// simulation), ParametricCut.cpp, PlannerSearch.cpp, ExactPlanner.cpp, ReferencePlans.cpp,
// PlanExplain.cpp.
//
// Not thread-safe: one caller at a time (the explorer serialises its workers on one planner).
#include <array>
#include <cstdint>
#include <future>
#include <map>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <span>
#include <vector>

#include "algorithms/Analysis.h"
#include "algorithms/MemoryModel.h"
#include "algorithms/Plan.h"
#include "algorithms/planner/CostModel.h"
#include "model/RandomRecompute.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

struct glp_prob;  // GLPK's problem (the exact mode's MILP, MilpCertificate.cpp)
namespace rx::exec { struct Liveness; }
namespace rx { struct SolveResult; }

namespace rx::planner {

struct SearchLimits;  // BranchAndBound.h

// How far a plan is from the cheapest plan of the saved-set family that fits its budget.
struct OptimalityBound {
    std::string method;         // "enumeration" | "milp" | "lp" (the relaxation's bound only)
    double costLowerBound = 0;  // no plan of the family fitting the budget costs less
    double gap = 0;             // (recomputeCost - costLowerBound) / recomputeCost; 0 when optimal
    bool optimal = false;       // proven the cheapest fitting plan
    int solves = 0;             // MILP / LP solves it took
    bool lowestPeak = false;    // proven: no plan of the family has an activation peak lower by
                                // more than a millionth (GLPK's tolerances are relative)
};

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
    std::optional<OptimalityBound> bound; // exact mode: proof of optimality or the gap
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

// Exact mode beyond enumeration (ExactPlanner.cpp): a MILP over the recompute sets whose
// liveness rows bound every set's activation peak from below, solved with GLPK, with no-good
// cuts for sets whose real (simulated) peak misses the budget.
struct ExactOptions {
    double timeLimitSeconds = 60;    // the whole frontier's (or one budget's) MILP time
    size_t milpMaxCandidates = 1000; // above: the LP relaxation's bound only
    size_t lpMaxCandidates = 20000;  // above: the lazy relaxation's bound only (LazyLpBound.cpp)
    // The LP bounds (boundFrontier; the relaxations under the MILP) stop on work, not time, so
    // a bound is a function of the program, the budget and these options alone: each simplex
    // run at most this many iterations per row and column of its LP (programs' LPs take a few)...
    double lpIterationsPerRowAndColumn = 20;
    // ...and the lazy relaxation at most this many row-adding rounds per budget.
    int lazyLpRounds = 400;
    // boundFrontier's wall clock, a safety net only (the work limits end it first): where it
    // fires, a point gets no bound rather than a smaller one, and boundFrontier counts it.
    double boundSafetySeconds = 300;
    // The search below the lowest frontier point (for a plan with a smaller peak, or the proof
    // that none exists) gives up after this many sets the model admits and the replay rejects:
    // the model undercounts between ops, so below the floor it can admit sets one after the
    // other (transformer_layer.aten: 105 in its whole minute, every point long proven).
    size_t floorRejectedSets = 12;
    // Frontier points certified at once, each MILP on a thread of its own (GLPK is reentrant,
    // one problem per thread); 0: one per hardware thread.
    unsigned threads = 0;
    // CBC's threads in one point's search (its tree's nodes in parallel). certifiedFrontier
    // raises it where fewer points than threads are left and for the search below the lowest
    // point, a single budget's certificate to every thread: on a 4-layer transformer point
    // CBC alone took 267 s with one thread, 139 s with two.
    unsigned searchThreads = 1;
    // Before each branch-and-bound: the relaxation's optimum rounded and improved by the local
    // search at that budget; a cheaper fitting set becomes the incumbent (a tighter cut-off).
    bool roundRelaxation = true;
    // Then, where the relaxation's bound is more than `neighbourhoodGap` (a share of the
    // incumbent's cost) below it, within this part of the point's time left: the MILP with
    // every candidate fixed where the relaxation's optimum and the incumbent agree (RINS); a
    // cheaper fitting set it finds becomes the incumbent. 0: none.
    double neighbourhoodShare = 0.5;
    double neighbourhoodGap = 0.1;
    // Each point's branch-and-bound where no plan is known yet (below the frontier): GLPK's
    // for this part of its time, then CBC's (BranchAndBound.h: they close different points).
    // Where one is, CBC's alone, started from it; but GLPK's alone where a few candidates are
    // dear against the gap (dearOpShareOfGap, dearOpsMax; false: CBC's there too), whose
    // relaxation blends fractions of them (an RNN's time steps' matmuls): its many cheap nodes
    // close those where CBC's bound stays near the root's. A frontier round's last point, left
    // to run alone, takes CBC's on every thread (detail::roundPointOptions).
    double glpkShare = 0.25;
    bool glpkWhereFewDear = true;
    // Where a plan is known and the point has two search threads or more (one budget's
    // certificate; a frontier's points take one engine, detail::roundPointOptions): both
    // searches at once, GLPK's on one thread and CBC's on the others, the first to decide
    // stopping the other (searchWithEither), in place of the choice above.
    bool bothEngines = true;
    // Once per point, between GLPK's search and CBC's: cost-level rounding cuts
    // (addCostLevelCuts), within this part of the time left.
    bool costLevelCuts = true;
    double costLevelCutShare = 0.2;
    // First of all, where the relaxation's bound is more than `neighbourhoodGap` below the
    // incumbent and at least `dearOpsMinSeconds` are left, within this part of them: the MILP
    // with only its dearest candidates integral (those costing at least `dearOpShareOfGap` of
    // the gap, at most `dearOpsMax` of them), the others relaxed. It is a relaxation, so its
    // optimum bounds every plan, and its solution rounded starts the local search; the
    // relaxation's weakness at an LSTM's low points is in the dear ops alone (README "Exact
    // mode", session 26). Its nodes are slow (~3 s on a 177-candidate LSTM): cut short, its
    // bound is little above the root's, so with less time the other searches get it all.
    // Before those: where at most `dearSubsetsMax` subsets of the dear ops (as above) cost
    // less than the cut-off and are not refuted by their relaxations (the levels below), each
    // subset fixed and refuted or searched in turn (GLPK's search),
    // least relaxation bound first (MilpCertificate.cpp, provenByDearSubsets): a first pass within this part
    // of the time left, then all of it where that pass closed most subsets. 0: never. (At 0.5
    // and 0.6 the 4-step GRU's frontier had 9-10 of 12 points proven in 60 s, at 1.0 11. At
    // 128 subsets a 2-layer LLaMA point of 60, 44 closed, took the time its whole MILP's search
    // proves it in: 13-14 of 17 proven against 15-16.)
    size_t dearSubsetsMax = 48;
    double dearSubsetsShare = 1.0;
    // The subsets are checked level by level (those of no dear op, of one, ...), each fixed and
    // its relaxation solved under the cut-off, within this part of the time left; each
    // relaxation's dual multipliers bound every other subset at once (lagrangianBound: the
    // fixed columns' reduced costs summed), so most are refuted without a solve. Where not
    // every level fits in `dearLevelSubsetsMax` subsets, or more than dearSubsetsMax stay open,
    // the levels are checked where refuting them all would break the relaxation's optimum:
    // every plan then recomputes at least as many dear ops as the first level with an open
    // subset, a row for the searches after. (A 1-layer LSTM at 292.25 KiB: no plan below the
    // cut-off recomputes fewer than 2 of its 16 matmuls; with the row the bound is 146.05
    // KFLOP, at the root 43.90, under a 147.07 KFLOP plan. Its 137 subsets: 25 solves.)
    double dearSubsetsLevelsShare = 0.75;
    size_t dearLevelSubsetsMax = 4096;
    double dearOpsShare = 0.6;
    double dearOpsMinSeconds = 90;
    double dearOpShareOfGap = 0.25;
    size_t dearOpsMax = 48;
    // false: no branch-and-bound, each point's bound its relaxation's (with the cuts above).
    bool branchAndBound = true;
    // The rows the model implies for every set (MilpCertificate.cpp, impliedRows), in place of
    // those they tighten: RNN relaxations several times higher (an 8-step GRU point's 10.75 ->
    // 48.1 KFLOP; its frontier 7/20 proven, 6 without), but other optima to round, and at an
    // 8-step LSTM's low points the frontier's plans there were dearer (278-415 KFLOP where
    // 147-283 without). Off by default; `--exact-implied-rows` on `solve` and `pareto`.
    bool impliedRows = false;
    // Asked between budgets (a caller whose answer is no longer wanted: the explorer's dock
    // after a new program): true leaves the remaining points unbounded, as the safety net does.
    std::function<bool()> stop = {};
};

struct PlannerOptions {
    int gridSteps = 14;          // λ grid: natural scale × 2^k, k = -gridSteps..gridSteps step 2
    int refineSteps = 6;         // bisection steps between the two grid plans around a budget
    size_t coarseGridAbove = 10000;  // candidate ops above which the grid takes k step 4
    size_t maxExactOps = 16;     // exact mode: largest number of candidate ops enumerated
    size_t exactBelow = 12;      // planForBudget enumerates exactly up to this many candidate ops
    // Local search: up to this many candidate ops every single flip each round, and pairs of
    // flips within localSearchWork (evaluations × replayed positions) per budget.
    size_t thoroughSearchUpTo = 400;
    double localSearchWork = 2e7;
    // frontier(): above 0 (and up to thoroughSearchUpTo candidates), budgets are bisected
    // until two with different answers lie at most this fraction apart (0.01: every budget
    // has a frontier point within 1% above it as cheap as its own answer); more points, so
    // off by default (the LP bounds of the default frontier share a fixed time).
    double frontierResolution = 0;
    // Up to thoroughSearchUpTo candidate ops, planForBudget(b) answers no dearer than any plan
    // of the frontier of this many points (frontier(answerGridPoints)'s searches) that fits b:
    // a budget solve or the dock's slider never costs more than a frontier point at a lower
    // peak (the local search alone once gave 116.7 KFLOP at a budget where a lower-peak
    // frontier point cost 59.4). With frontierResolution above 0 the grid bisects by its own
    // searches, which a frontier's bisection (by the answers) can split elsewhere: the
    // guarantee is then for the grid's plans. 0: each budget's own search alone.
    int answerGridPoints = 20;
    // Up to this many candidate ops (0: never) each budget's local search also starts from
    // the LP relaxation's optimum at that budget, its recompute values rounded at a few
    // thresholds: a descent that the min cut's plans do not reach (a 4-layer transformer at
    // 886 KiB: 116.7 KFLOP from the cuts, under 70 from the relaxation).
    size_t relaxationGuidedUpTo = 400;
    // ...while that relaxation has at most this many rows and columns (the generated 4-layer
    // transformer's: 20k; a sequence-64 one with its dropouts recomputable: 38k, each solve
    // 0.3-8 s), each budget's solve at most this many simplex iterations (none guided past).
    size_t relaxationGuideMaxSize = 25000;
    double relaxationGuideIterations = 5000;
    int sharedBudgets = 20;      // budgets whose search results every search starts from
    // Up to thoroughSearchUpTo candidate ops, each budget searched a second time with fan moves
    // too (an op with the ops reading its results: an RNN's input slices), the cheaper answer
    // kept (1-layer GRU, sequence 8, under 227.4 KiB: 156.93 KFLOP -> 8.96).
    bool fanMoves = true;
    // Up to thoroughSearchUpTo candidate ops, each budget also repaired: from the cheapest plan
    // of its pool that misses it by at most 1% (and is cheaper than any that fits), moves taken
    // by the least cost per byte they lower the peak until it fits, then the same descent. The
    // other descents start from a fitting plan and cannot give back the time steps' matmuls
    // the λ cuts recompute (1-layer LSTM, sequence 8, at 293.25 KiB: 144.90 KFLOP -> 12.54, the
    // optimum; 1-layer GRU at 227.25 KiB: 110.59 -> 8.96).
    bool repairDescent = true;
    size_t sharedBudgetsUpTo = 5000;  // candidate ops above which there are none (one budget's cost)
    // --recompute-random: random ops the planner may recompute (model/RandomRecompute.h):
    // Off (the default, as the seed) none; Mask: dropout outputs, rebuilt from their saved
    // masks; Seed: ops that carry a fixed seed, run again.
    RandomRecompute randomRecompute = RandomRecompute::Off;
};

// A basis of the exact mode's LP relaxation: GLPK's row and column statuses (1-based).
struct LpBasis {
    std::vector<int> rowStat, colStat;
};

class BudgetPlanner {
public:
    BudgetPlanner(std::shared_ptr<const Program> program, RecomputeSpec spec,
                  RecomputeConfig config = RecomputeConfig::seedDefaults(), CostModel costs = {},
                  PlannerOptions options = {});
    ~BudgetPlanner();  // waits for the reference cuts' thread (startReferenceSets) if it runs

    const Program& program() const { return *program_; }
    const Analysis& analysis() const { return *analysis_; }
    const CostModel& costs() const { return costs_; }
    const MemoryProfile& originalMemory() const { return original_; }
    int64_t originalActivationPeak() const { return original_.peakBytes - original_.residentBytes; }
    double totalFlops() const { return totalFlops_; }  // whole original program
    size_t candidateOpCount() const { return candidates_.size(); }  // recomputable ops that matter
    RandomRecompute randomRecompute() const { return options_.randomRecompute; }  // --recompute-random

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
    // The same read off the rewritten program's liveness (peakBreakdown replays the planner's
    // own plans on positions instead; tests check both agree).
    PeakBreakdown rewrittenPeakBreakdown(const BudgetPlan& plan) const;
    // Bytes for a fraction 0-1 between minimumActivationPeak() and the original's.
    int64_t budgetFromFraction(double fraction);

    // The cheapest plan found whose activation peak fits `budgetBytes`: its own search's and
    // the answer grid's (options.answerGridPoints). Throws rx::Error when no plan fits, giving
    // the smallest feasible activation peak.
    BudgetPlan planForBudget(int64_t budgetBytes);
    // The same by exhaustive enumeration of recompute sets (programs with at most
    // options.maxExactOps candidate ops; rx::Error otherwise).
    BudgetPlan exactPlanForBudget(int64_t budgetBytes);
    // Every distinct cheapest plan for `points` budgets evenly spaced from the smallest
    // feasible activation peak to the original's, and the reference plans' peaks: each is
    // planForBudget(its budget), kept when its activation peak strictly falls as recompute
    // cost rises. The reference plans are in every search's pool, so the frontier is never
    // above them at equal or lower cost.
    std::vector<BudgetPlan> frontier(int points);
    // Exhaustive Pareto frontier (small programs only).
    std::vector<BudgetPlan> exactFrontier();
    // The frontier with a proof per point: exhaustive for up to options.maxExactOps
    // candidates; otherwise the heuristic frontier, each point certified (or improved) by
    // the MILP within the time limit, else given the relaxation's bound as its gap.
    std::vector<BudgetPlan> certifiedFrontier(int points, const ExactOptions& exact = {});
    // An LP bound on each plan's cost at its own activation peak (plans are not changed): the
    // full model's relaxation and the lazy one (LazyLpBound.cpp), the lazy one alone above
    // exact.lpMaxCandidates; the gap the default frontier shows.
    // Returns how many points the safety net (exact.boundSafetySeconds) left without a bound
    // (0 but on a machine stalled for minutes); the bounds do not depend on exact.timeLimitSeconds.
    size_t boundFrontier(std::vector<BudgetPlan>& plans, const ExactOptions& exact = {});
    // One budget's certified plan (the same method).
    BudgetPlan certifiedPlanForBudget(int64_t budgetBytes, const ExactOptions& exact = {});
    // The exact mode's MILP at `budgetBytes` as MPS text for any MILP solver (fixed format:
    // CBC 2.10 rejects GLPK's free one): binary columns r<op> (op recomputed), continuous ones
    // for anchors, aliveness and loads, the objective the recompute cost divided by
    // milpCostScale(). Its optimum bounds the cost of every plan that fits
    // (MilpCertificate.cpp). Throws rx::Error where GLPK cannot write it.
    std::string milpAsMps(int64_t budgetBytes, bool withImpliedRows = false);
    double milpCostScale();
    // The exact mode's model of `plan`'s activation peak (its rows with the plan's recompute
    // set fixed): never above the real one, and equal to it wherever the rewritten program
    // peaks at an original op rather than at a clone. -1 when the plan is not one of the
    // planner's normalised sets.
    int64_t milpModelActivationPeak(const BudgetPlan& plan);
    // The normalised set of these candidate ops: the exact mode's model of its activation
    // peak and the replay's, over every position and at the original ops alone (the tests
    // compare them on sets the heuristics never try).
    struct ModelledPeaks {
        int64_t model = 0, replayed = 0, modelAtOriginalOps = 0, replayedAtOriginalOps = 0;
    };
    ModelledPeaks milpModelAndReplayedActivationPeak(const std::vector<OpId>& recomputeOps);
    // The exact mode's model peak of these candidate ops exactly as given (not normalised):
    // none where the model admits no solution with them, as for an op recomputed that the
    // rewriter could not place (no backward use of its first result, no placed consumer).
    std::optional<int64_t> milpModelActivationPeakAsGiven(const std::vector<OpId>& recomputeOps);
    // The exact mode's primal heuristic alone at `budget` (solveMilp's first step): the full
    // model's relaxation solved, its optimum rounded and improved by the local search; the
    // cheapest fitting plan that gives, if any.
    // `from`: plans (found at other budgets) the local search also starts from, as the
    // certified frontier's points do from the plans found at the points above them.
    std::optional<BudgetPlan> relaxationRoundedPlan(int64_t budget, const ExactOptions& limits = {},
                                                    std::span<const BudgetPlan> from = {});
    // The full model's LP relaxation bound at each budget (infinity: nothing fits; NaN: the
    // safety clock stopped it; 0 where the work limit did), warm-started on one problem as boundFrontier does, or (false)
    // a fresh problem per budget; for tests that the two agree.
    std::vector<double> lpRelaxationLowerBounds(const std::vector<int64_t>& budgets, bool warmStart,
                                                const ExactOptions& limits = {});
    // By budget, a lower bound on the cost of every plan whose activation peak fits it, from a
    // relaxation that scales (one row per original op, added lazily: LazyLpBound.cpp) within
    // `limits`' work limits (lpIterationsPerRowAndColumn, lazyLpRounds); NaN for a budget
    // `seconds` of wall clock (a safety net) cut short or did not reach, infinity where
    // nothing fits.
    std::vector<double> lazyLpLowerBounds(const std::vector<int64_t>& budgets, double seconds,
                                          const ExactOptions& limits = {});

    // Reference plans on the same axes. seedPlan() throws rx::Error when the seed fails.
    BudgetPlan seedPlan();
    BudgetPlan pytorchStylePlan(double memoryBudgetFraction);
    // The reference plans every report and view shows, assembled once: the seed's (when it
    // succeeds), PyTorch-style at budgets 0, 0.5 and 1 (repeats dropped), full checkpointing,
    // no recompute. `seedError` says why there is no seed plan.
    struct ReferencePlans {
        std::vector<BudgetPlan> plans;
        const BudgetPlan* seed = nullptr;  // into plans; null when the seed failed
        std::string seedError;
    };
    const ReferencePlans& referencePlans();
    // The price pytorchStylePlan's cuts pay to save each value (by ValueId), as PyTorch's
    // get_node_weight: bytes × 1.1^clamp(dist_from_bw, 1, 100), × 2 when not materialised.
    std::vector<int64_t> pytorchValueWeights() const;
    BudgetPlan fullCheckpointPlan();
    BudgetPlan noRecomputePlan();
    // The peak of `plan`'s rewritten program the way the planner measures it (simulated).
    int64_t simulatedPeakOf(const BudgetPlan& plan) const;
    // The normalised recompute set of these candidate ops: its replayed peak and its rewritten
    // program's peak by the memory model (-1 when the rewrite fails).
    std::pair<int64_t, int64_t> replayedAndRewrittenPeak(const std::vector<OpId>& recomputeOps);
    const std::vector<OpId>& candidateOps() const { return candidates_; }
    // Values full checkpointing keeps: the inputs of the layers algorithms/Layers.h finds
    // (forward values defined before a layer and read inside it), by name.
    const std::vector<ValueId>& layerInputs() { findLayerInputs(); return layerInputs_; }

    // The rewritten program of a plan (partitionJointGraph); throws rx::Error on failure.
    std::shared_ptr<Program> rewrite(const BudgetPlan& plan) const;
    // Values on different sides in `plan` and `reference`, largest byte moves first.
    std::vector<SideChange> explain(const BudgetPlan& plan, const BudgetPlan& reference) const;

private:
    struct Network;
    // A recompute set (by candidate index, 1 = cloned into the backward), normalised.
    using RecomputeSet = std::vector<uint8_t>;
    struct SetHash {
        size_t operator()(const RecomputeSet& s) const noexcept {
            return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(s.data()), s.size()));
        }
    };
    struct Evaluated {
        RecomputeSet inR;
        int64_t peak = 0, activation = 0;
        double cost = 0;
        uint32_t peakPositions = 0;  // positions at the peak (the local search's tie-break)
    };
    // The plans one search chooses from, keyed by the set itself (never a hash of it).
    struct Pool {
        std::unordered_set<const Evaluated*> members;
        std::vector<const Evaluated*> order;  // insertion order (iteration is deterministic)
        void add(const Evaluated& e) {
            if (members.insert(&e).second) order.push_back(&e);
        }
    };

    void buildCandidates();
    std::shared_ptr<Network> buildNetwork(const std::vector<uint8_t>* banned) const;
    void findLayerInputs();
    // Recompute set of a min cut with op costs λ·cost (bans ∞); valueCaps replaces value
    // capacities (full checkpointing, PyTorch's weights).
    RecomputeSet cutRecomputeSet(double lambda, const std::vector<uint8_t>* banned,
                                 const std::vector<int64_t>* valueCaps) const;
    // The source → op arc's capacity of candidate k at λ.
    int64_t lambdaCapacity(double lambda, uint32_t k) const;
    // The unbanned network's λ cuts, component by component (ComponentMinCut.h): false
    // when its capacities could overflow (the general min cut then decides and reports).
    bool prepareLambdaCuts() const;
    const std::vector<uint8_t>& lambdaSinkSide(double lambda) const;  // by network node
    // Closes a wanted set under "needed by the backward or by another recomputed op" and
    // drops ops the rewriter could not place; returns the set actually recomputed.
    RecomputeSet normalise(const RecomputeSet& wanted) const;
    // The set's measured figures (memoised: a pure function of the set).
    const Evaluated& evaluate(const RecomputeSet& inR);
    // Its recompute cost alone (evaluate's, without the replay).
    double recomputeCostOf(const RecomputeSet& inR) const;
    // Peak of the rewritten program by the liveness model without building it: the
    // rewriter's placement and redirection replayed on positions (equal to
    // profileMemory(partitionJointGraph(...)); tests check it).
    // `peakPositions`, when given, receives how many positions reach the peak.
    int64_t simulatePeak(const RecomputeSet& inR, uint32_t* peakPositions = nullptr) const;
    // The live ranges simulatePeak sums (defined in BudgetPlanner.cpp, its only callers' file).
    enum class RangeKind { Clone, Original, Resident };
    template <class Emit>
    size_t replayLiveRanges(const RecomputeSet& inR, bool residents, Emit&& emit, std::vector<OpId>* opAt) const;
    // peakBreakdown by the same replay (no rewritten program).
    PeakBreakdown simulatedBreakdown(const RecomputeSet& inR) const;
    void prepareSimulation(const exec::Liveness& liveness);
    // The λ cut's measured set (memoised).
    const Evaluated& evaluateLambda(double lambda);
    // The pool every search starts from: no recompute, the λ grid, the reference plans.
    const Pool& basePool();
    // basePool searched on with fan moves (improveGreedy's `fans`): where the second search
    // of each budget starts.
    const Pool& fannedBasePool();
    // The refinement and local search of evenly spaced budgets (options.sharedBudgets), in a
    // fixed order, each adding to `pool` what it found.
    void searchSharedBudgets(Pool& pool, bool fans);
    bool fits(const Evaluated& e, int64_t budget) const {
        return e.activation <= budget && e.peak <= original_.peakBytes;
    }
    void refineAround(int64_t budget, Pool& pool);
    // planForBudget's search: the cheapest fitting set of the base pool, refined and improved
    // around `budget`; null when none fits.
    const Evaluated* searchBudget(int64_t budget);  // memoised in searched_
    const Evaluated* searchBudgetFromScratch(int64_t budget);
    // One budget's answer: searchBudget's and the answer grid's cheapest that fits (its own
    // search alone past thoroughSearchUpTo or with answerGridPoints 0); null when none fits.
    const Evaluated* answerBudget(int64_t budget);
    struct FrontierAnswer {
        const Evaluated* set;
        int64_t budget;
    };
    // frontier(points)'s budgets, descending: `points` evenly spaced from the floor to the
    // original's activation peak, and the reference plans' peaks between.
    std::vector<int64_t> frontierBudgets(int points);
    // Each budget's answer by `answerOf` (none where it gives null), then (frontierResolution)
    // the bisections between.
    std::vector<FrontierAnswer> searchFrontier(const std::vector<int64_t>& budgets, int points,
                                               const std::function<const Evaluated*(int64_t)>& answerOf);
    // searchFrontier of answerGridPoints by searchBudget alone (built once).
    const std::vector<FrontierAnswer>& answerGrid();
    // `fans`: fan moves too (an op with the ops reading its results), tried where no other
    // move helps.
    // `repair`: from the pool's cheapest plan within 1% above the budget that is cheaper than
    // any that fits (improveGreedy's start otherwise: the cheapest fitting), reaching the
    // budget by the move that costs least per byte it lowers the peak
    // (PlannerOptions::repairDescent).
    void improveGreedy(int64_t budget, Pool& pool, bool fans = false, bool repair = false);
    // The cheapest fitting plan of `pool`; ties by lower activation, then by the set.
    const Evaluated* bestFitting(const Pool& pool, int64_t budget) const;
    // The lowest activation peak of the pool's plans within the original peak (the original's
    // activation peak at most).
    int64_t lowestActivation(const Pool& pool) const;
    BudgetPlan makePlan(const RecomputeSet& inR, const std::string& source);
    Plan rxPlan(const RecomputeSet& inR) const;
    // The recompute set of a plan over this planner's candidates; nullopt when it recomputes
    // an op the planner may not (e.g. a seed plan on an inplace op) or is not normalised.
    std::optional<RecomputeSet> candidateSet(const BudgetPlan& plan) const;
    // The set recomputing these ops (those that are candidates), as given: not normalised.
    RecomputeSet setOfCandidateOps(const std::vector<OpId>& ops) const;
    int64_t milpModelActivationPeak(const RecomputeSet& inR, bool originalOpsOnly = false);
    std::optional<int64_t> milpModelActivationPeakIfAdmitted(const RecomputeSet& inR, bool originalOpsOnly);
    int64_t replayedActivationPeakAtOriginalOps(const RecomputeSet& inR) const;
    // The set whose rxPlan rewrites exactly as `plan` does (same clones, redirected values
    // and clone inputs), so that simulatePeak measures it; nullopt otherwise.
    std::optional<RecomputeSet> replayableSet(const Plan& plan) const;
    std::vector<uint8_t> bansForPyTorch(bool allowlist) const;
    // The reference plans in two steps: their recompute sets (the seed's solve and the other
    // references' cuts: functions of the problem alone), then the plans (measured, memoised).
    // The cuts run on a second thread from startReferenceSets (called by referencePlans at
    // the latest) until referencePlans joins them; meanwhile only this thread's λ cuts and
    // measurements may run.
    static constexpr std::array<double, 3> kPyTorchBudgets{0.0, 0.5, 1.0};
    struct ReferenceSets {
        std::vector<RecomputeSet> pytorch;  // by kPyTorchBudgets
        RecomputeSet fullCheckpoint;
    };
    void startReferenceSets();
    SolveResult solveSeed() const;  // throws rx::Error when the seed fails
    BudgetPlan seedPlanFrom(const SolveResult& seed);
    RecomputeSet pytorchStyleSet(double memoryBudgetFraction);
    RecomputeSet fullCheckpointSet();
    int64_t savedBytes(const std::vector<uint8_t>& inR) const;
    const Pool& runExact();
    struct MilpModel;
    const MilpModel& milpModel(bool withImpliedRows = false);
    struct OpRowRelaxation;
    // The candidates' costs divided by the largest (LP coefficients near 1, GLPK's tolerances
    // being absolute), and that scale: both relaxations' objective.
    std::pair<std::vector<double>, double> scaledCandidateCosts() const;
    // Every set's cost is a multiple of costGranule() (0: costs not whole numbers), so a lower
    // bound rounds up to one.
    double costGranule();
    double roundUpToCostGranule(double lower);
    // A lower bound proves a set of cost `incumbent` optimal: no whole granule below it (or,
    // costs not whole numbers, none below it beyond GLPK's relative tolerance).
    bool provesIncumbent(double lower, double incumbent);
    double costGranule_ = -1;
    const OpRowRelaxation& opRowRelaxation();
    // The MILP loop at `budget` for sets cheaper than `incumbentCost` (infinity: any set):
    // `found` a fitting set cheaper than the incumbent (the MILP's optimum, or the best one
    // the search had when time ran out); `proven`: `found` is optimal, or without it, no set
    // cheaper than the incumbent fits; `lower` bounds the cost of every fitting set (after a
    // time out, or lpOnly, the tree's or the relaxation's bound).
    struct MilpOutcome {
        std::optional<RecomputeSet> found;
        bool proven = false;
        double lower = 0;
        int solves = 0;
        bool timedOut = false;  // lpOnly: the LP stopped on `seconds` (lower is then 0)
        std::shared_ptr<const LpBasis> basis;  // lpRelaxations: the relaxation's optimal basis here
    };
    // `maxRejected`: give up (nothing found, nothing proven) after that many sets the model
    // admits and the replay rejects (each one only cut off by itself). `warm`: a basis of the
    // relaxation to start its simplex from (lpRelaxations' at this budget: no iterations).
    MilpOutcome solveMilp(int64_t budget, double incumbentCost, double seconds, bool lpOnly,
                          const ExactOptions& limits, size_t maxRejected = std::numeric_limits<size_t>::max(),
                          const LpBasis* warm = nullptr, const RecomputeSet* incumbent = nullptr,
                          std::span<const RecomputeSet> starts = {});
    // The LP relaxation alone at each budget (as solveMilp(..., lpOnly)), on one problem: only
    // the peak rows' bounds differ between budgets, so after the first solve each one starts
    // from the last optimal basis (dual simplex, largest budget first). Same values, a
    // fraction of the iterations.
    // `keepBases`: each outcome keeps its optimal basis (for the MILP at that budget to start from).
    std::vector<MilpOutcome> lpRelaxations(const std::vector<int64_t>& budgets, double seconds, const ExactOptions& limits,
                                           bool keepBases = false);
    // `plan` with the bound an outcome proves (`lpOnly`: the relaxation's; a time-out: none).
    BudgetPlan withBound(BudgetPlan plan, const MilpOutcome& o, bool lpOnly);
    // Whether the MILP's answer is what the replay says of it: the rewritten program's
    // activation and whole peaks by the memory model equal the replay's.
    bool replayMatchesRewrite(const RecomputeSet& inR);
    // From the relaxation's optimum `relaxed` (by candidate): its roundings at a few
    // thresholds, each improved by the local search at `budget`; the cheapest fitting set
    // cheaper than `cheaperThan` whose rewrite the replay matches, if any. Takes the memo lock.
    // `starts`: more sets to search from, each on its own (the plans other budgets found):
    // the two with the lowest peaks among those cheaper than `cheaperThan`.
    std::optional<RecomputeSet> roundedRelaxation(const std::vector<double>& relaxed, int64_t budget, double cheaperThan,
                                                  std::span<const RecomputeSet> starts = {});
    // The local search at `budget` from each of the two lowest `starts` cheaper than
    // `cheaperThan` that do not fit it, on its own: the fitting plans cheaper than that it
    // reaches. The memo lock held.
    std::vector<const Evaluated*> descentsFrom(std::span<const RecomputeSet> starts, int64_t budget, double cheaperThan);
    // A rounding over `budget` taken down to it at the least cost per byte: each step flips
    // the candidate whose flip lowers the activation peak for the least cost per byte freed
    // (a saving counts as negative cost), among those `relaxed` leaves fractional, then among
    // all where none of those lowers it. The fitting plan it reaches, or null. Memo lock held.
    const Evaluated* repairedToBudget(const Evaluated& start, const std::vector<double>& relaxed, int64_t budget);
    // The MILP `lp` with every candidate whose `relaxed` value is `incumbent`'s fixed to it,
    // searched within `search` (GLPK's branch-and-bound): the set it finds if it fits `budget`,
    // costs less than `cheaperThan` and the replay matches its rewrite. Takes the memo lock.
    std::optional<RecomputeSet> neighbourhoodSearch(glp_prob* lp, const std::vector<double>& relaxed,
                                                    const RecomputeSet& incumbent, int64_t budget, double cheaperThan,
                                                    const SearchLimits& search);
    // Proves `plan` the cheapest at `budget`, or replaces it by a cheaper fitting plan the
    // MILP finds, or bounds its gap; `lpOnly`: the LP relaxation's bound alone.
    BudgetPlan certify(BudgetPlan plan, int64_t budget, double seconds, bool lpOnly, const ExactOptions& limits,
                       const LpBasis* warm = nullptr, std::span<const RecomputeSet> starts = {});

    std::shared_ptr<const Program> program_;
    RecomputeSpec spec_;
    RecomputeConfig config_;
    CostModel costs_;
    PlannerOptions options_;
    std::shared_ptr<const Analysis> analysis_;
    std::shared_ptr<Network> net_;  // the cut network without bans (capacities set per cut)
    MemoryProfile original_;
    double totalFlops_ = 0;

    std::vector<uint8_t> resident_;          // by ValueId
    std::vector<uint8_t> neededByBackward_;  // by ValueId: forward value read at/after bwd_start
    std::vector<uint8_t> recomputable_;      // by OpId
    std::vector<OpId> candidates_;           // recomputable cone ops, program order
    std::vector<uint32_t> candidateIndex_;   // by OpId, kNoId if not a candidate
    std::vector<int64_t> resultBytes_;        // by candidate: bytes of its results
    std::vector<OpId> coneOps_;              // forward ops some needed value depends on
    // --recompute-random mask: the mask a candidate's clone reads instead of recomputing it
    // (by candidate, kNoId for every other op), and those masks by ValueId: results of a
    // candidate that its clone does not redefine (saved; read by the clone).
    std::vector<ValueId> cloneMask_;
    std::vector<uint8_t> maskValue_;
    std::vector<ValueId> layerInputs_;
    std::vector<uint8_t> inLayer_;           // by candidate: its op lies in a detected layer
    bool layersDone_ = false;
    // The values candidate k's clone defines (every result but a saved mask), and reads.
    template <class F> void forCloneResults(uint32_t k, F&& f) const {
        for (ValueId r : program_->op(candidates_[k]).results)
            if (!maskValue_[r]) f(r);
    }
    template <class F> void forCloneOperands(uint32_t k, F&& f) const {
        for (ValueId x : program_->op(candidates_[k]).operands) f(x);
        if (cloneMask_[k] != kNoId) f(cloneMask_[k]);
    }
    double lambdaScale_ = 1;

    // Simulation tables (by ValueId / candidate index), see simulatePeak.
    std::vector<int64_t> ownedBytes_;          // by ValueId: storage it allocates (exec/Liveness.h)
    std::vector<uint32_t> lastRedirectedUse_;  // top-level backward uses, kNoId if none
    std::vector<uint32_t> firstBackwardUse_;   // by candidate: of its first result, kNoId if none
    // normalise's graph by candidate, flat (it runs per cut and per local-search move): a
    // clone result the backward reads; the candidates defining its op's operands; the
    // candidates whose ops read its non-mask results.
    std::vector<uint8_t> cloneNeeded_;
    std::vector<uint32_t> operandCandidateOff_, operandCandidates_;
    std::vector<uint32_t> consumerCandidateOff_, consumerCandidates_;
    std::vector<uint32_t> defIndex_;           // by ValueId: global index of the defining op, kNoId
    // replayLiveRanges' storage: by ValueId its own last use (original program, global index)
    // and its last use the rewriter never redirects, neither extended by aliases (the replay
    // follows buffers itself), and from exec/Liveness the buffers: who allocated each, its
    // bytes, whether resident, and by ValueId those it refers to (flat).
    std::vector<uint32_t> valueLastUse_, valueLastFixedUse_;
    std::vector<ValueId> bufferOwner_;
    std::vector<int64_t> bufferBytes_;
    std::vector<uint8_t> bufferResident_;
    std::vector<uint32_t> valueBufferOff_, valueBuffers_;
    std::span<const uint32_t> valueBuffers(ValueId v) const {
        return std::span<const uint32_t>(valueBuffers_).subspan(valueBufferOff_[v], valueBufferOff_[v + 1] - valueBufferOff_[v]);
    }
    // The same read the other way: by buffer, the non-resident values of global ops referring to
    // it (its owner and aliases), flat; the lower bound's and the MILP's reading of storage.
    struct BufferReferrers {
        std::vector<uint32_t> offset;  // by buffer, into values
        std::vector<ValueId> values;
        std::span<const ValueId> of(uint32_t b) const {
            return std::span<const ValueId>(values).subspan(offset[b], offset[b + 1] - offset[b]);
        }
    };
    BufferReferrers bufferReferrers() const;
    // replayLiveRanges' reads of the program, flat (it runs once per measured set): by ValueId
    // the candidate whose clone redefines it (kNoId for others and for saved masks), and every
    // result of a global op with its op's index and candidate, in program order.
    std::vector<uint32_t> cloneCandidateOf_;
    struct GlobalResult {
        uint32_t index;      // the defining op's global index
        ValueId value;
        uint32_t candidate;  // the defining op's candidate index, kNoId if none
    };
    std::vector<GlobalResult> globalResults_;

    // Memos of pure functions; node-based maps keep Evaluated addresses stable.
    std::unordered_map<RecomputeSet, Evaluated, SetHash> measured_;  // set -> figures
    // Held where the exact mode's point threads measure sets or assemble plans (the memos above).
    std::unique_ptr<std::mutex> memoMutex_ = std::make_unique<std::mutex>();
    std::map<double, const Evaluated*> lambdaPlans_;                  // λ -> its cut's set
    std::vector<double> gridLambdas_;                                 // ascending
    std::optional<Pool> basePool_;
    std::optional<Pool> fannedBasePool_;
    std::map<int64_t, const Evaluated*> searched_;        // budget -> searchBudget's (null: none fits)
    std::optional<std::vector<FrontierAnswer>> answerGrid_;
    std::optional<ReferencePlans> references_;
    std::future<ReferenceSets> referenceSets_;  // startReferenceSets' thread until referencePlans
    // pytorchStylePlan's budget-independent part: PyTorch's weights and aggressive bans, and
    // the runtime-optimised cut (default bans).
    struct PyTorchCuts {
        std::vector<uint8_t> banAggressive, runtimeOptimized;
        std::vector<int64_t> weights;
    };
    std::optional<PyTorchCuts> pytorchCuts_;
    std::optional<Pool> exactPool_;  // every normalised set (small programs)
    std::shared_ptr<MilpModel> milp_;
    std::shared_ptr<MilpModel> milpImplied_;  // milp_ with its implied rows (ExactOptions::impliedRows)
    // The LP relaxation the local search is guided by (built on first use; MilpCertificate.cpp).
    // relaxationRoundings' starts: the relaxation's optimal bases on a ladder of budgets,
    // by rung (0: midway between guideReferenceFloor_ and the original activation peak, ±k:
    // k sixteenths of that range above or below), each rung solved from the basis of its
    // neighbour towards rung 0, rung 0 from the all-slack basis (a rung that does not solve
    // keeps its neighbour's basis; empty: none solved). Built as budgets ask for them.
    std::map<int, std::shared_ptr<const LpBasis>> guideRungs_;
    int64_t guideReferenceFloor_ = 0;  // set by basePool() before the relaxation is first asked
    // The relaxation's optimum at `budget` rounded at a few thresholds (none where nothing fits
    // or the simplex stops on its work limit): the same sets whatever was asked before, since
    // every budget is solved from its nearest rung's basis, a function of the problem (from
    // one basis for all, a 125-candidate LLaMA's budgets took 1000-1700 pivots each).
    std::vector<RecomputeSet> relaxationRoundings(int64_t budget);
    // Those roundings, normalised and evaluated: a pool for a local search of its own.
    Pool roundingsPool(int64_t budget);
    // Whether searches are guided by it (options and the relaxation's size; decided once).
    bool relaxationGuides();
    std::optional<bool> relaxationGuides_;
    std::shared_ptr<OpRowRelaxation> opRows_;
};

}  // namespace rx::planner
