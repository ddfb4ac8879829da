#pragma once
// Helpers the planner's source files share (not part of its interface): which ops never run
// twice, list membership, the capacity that marks "rather not save this", Pareto fronts and
// bounds, and the search threads an exact-mode point gets.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/planner/Budget.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"

namespace rx::planner::detail {

// Full checkpointing: the price of saving a value it would rather recompute.
constexpr int64_t kAvoid = int64_t(1) << 36;

// Ops that must never run twice: random draws, state updates, I/O (model/OpTraits).
inline bool sideEffecting(std::string_view name) { return hasOpTrait(name, OpTrait::SideEffecting); }

inline bool contains(const std::vector<std::string>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

// The Pareto front of a set of plans: by rising cost, a plan stays only when its activation
// peak falls strictly (equal plans once, the first after the sort).
inline std::vector<BudgetPlan> paretoFront(std::vector<BudgetPlan> plans) {
    std::stable_sort(plans.begin(), plans.end(), [](const BudgetPlan& x, const BudgetPlan& y) {
        return x.recomputeCost != y.recomputeCost ? x.recomputeCost < y.recomputeCost
                                                  : x.activationPeakBytes < y.activationPeakBytes;
    });
    std::vector<BudgetPlan> out;
    for (auto& plan : plans)
        if (out.empty() || plan.activationPeakBytes < out.back().activationPeakBytes) out.push_back(std::move(plan));
    return out;
}

// `exact` with its CBC searches on at least `threads` threads.
inline ExactOptions withSearchThreads(const ExactOptions& exact, unsigned threads) {
    ExactOptions more = exact;
    more.searchThreads = std::max(exact.searchThreads, threads);
    return more;
}

// The options a frontier round certifies one of its `openPoints` points with: its CBC
// search on the threads no other point has, one engine (the choice ExactOptions describes;
// not both at once, bothEngines). The round's last point on every thread, and by CBC's search
// where GLPK's (one thread's) would run (ExactOptions::glpkWhereFewDear): the other points
// end before it and their threads would wait. The 4-layer transformer's 842244 B point:
// GLPK's search at 0.04% after its 40 s share, CBC's on two threads proven in 26 s. Both
// engines at once there (GLPK's and CBC's on one thread each) left it at 0.0% (2 of 2
// frontiers, 21/22); CBC's on both threads beside GLPK's, at 20/22 and past the minute.
inline ExactOptions roundPointOptions(const ExactOptions& exact, unsigned threads, size_t openPoints, bool lastOfRound) {
    threads = std::max(1u, threads);
    ExactOptions point =
        withSearchThreads(exact, lastOfRound ? threads : unsigned(threads / std::clamp<size_t>(openPoints, 1, threads)));
    point.bothEngines = false;
    if (lastOfRound && threads > 1) point.glpkWhereFewDear = false;
    return point;
}

// An LP bound on a plan of cost `cost`: the lower bound (capped at the cost) and the gap.
inline OptimalityBound boundFrom(double cost, double lower) {
    OptimalityBound bound;
    bound.method = "lp";
    bound.costLowerBound = std::min(lower, cost);
    bound.gap = cost > 0 ? (cost - bound.costLowerBound) / cost : 0.0;
    bound.optimal = bound.gap <= 1e-9;
    if (bound.optimal) bound.gap = 0;
    return bound;
}

// A plan that fits a peak fits every larger one, so a bound on the cost at a larger peak (for
// the budget its point was solved at, at or above its plan's peak) bounds the cost at a
// smaller one. Each plan `raisable` admits takes the best bound of the plans at or above its
// activation peak where that is higher than its own (or it has none), capped at its cost;
// `proves(lower, cost)`: that bound proves the plan optimal (to a cost granule). The plan's
// own method, solves and lowest-peak proof are kept.
template <class Raisable, class Proves>
void raiseBoundsFromLargerPeaks(std::vector<BudgetPlan>& plans, Raisable raisable, Proves proves) {
    std::vector<std::optional<double>> lower(plans.size());
    for (size_t i = 0; i < plans.size(); ++i) {
        if (!raisable(i) || (plans[i].bound && plans[i].bound->optimal)) continue;
        for (const BudgetPlan& other : plans)
            if (other.bound && other.activationPeakBytes >= plans[i].activationPeakBytes)
                lower[i] = std::max(lower[i].value_or(0.0),
                                    std::min(other.bound->costLowerBound, plans[i].recomputeCost));
    }
    for (size_t i = 0; i < plans.size(); ++i) {
        BudgetPlan& plan = plans[i];
        if (!lower[i] || (plan.bound && !(*lower[i] > plan.bound->costLowerBound))) continue;
        const double cost = plan.recomputeCost;
        OptimalityBound raised = boundFrom(cost, proves(*lower[i], cost) ? cost : *lower[i]);
        if (plan.bound) {
            raised.method = plan.bound->method;
            raised.solves = plan.bound->solves;
            raised.lowestPeak = plan.bound->lowestPeak;
        }
        plan.bound = raised;
    }
}

// A budget no plan meets, with the lowest activation peak that can be met (and, for `--budget 0`
// or `1`, how a fraction is written: those are bytes).
[[noreturn]] inline void throwBudgetUnmet(int64_t budgetBytes, int64_t lowestPeak) {
    throw Error("budget " + humanBytes(budgetBytes) + " (" + std::to_string(budgetBytes) +
                " bytes) cannot be met: the smallest feasible activation peak is " + humanBytes(lowestPeak) + " (" +
                std::to_string(lowestPeak) + " bytes)" +
                (budgetBytes <= 1 ? "; a whole number is bytes: the fraction of the feasible range is written 0.0 or 1.0"
                                  : ""));
}

}  // namespace rx::planner::detail
