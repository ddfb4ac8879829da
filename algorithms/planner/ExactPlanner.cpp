// Exact mode: every normalised recompute set of a small program enumerated and measured.
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/PlannerInternal.h"

#include <algorithm>
#include <limits>

#include "algorithms/planner/Budget.h"
#include "model/Diagnostic.h"

namespace rx::planner {


const BudgetPlanner::Pool& BudgetPlanner::runExact() {
    if (exactPool_) return *exactPool_;
    const size_t n = candidates_.size();
    if (n > options_.maxExactOps)
        throw Error("exact mode enumerates at most " + std::to_string(options_.maxExactOps) +
                    " candidate ops; this program has " + std::to_string(n));
    Pool pool;
    RecomputeSet wanted(n, 0);
    for (uint64_t mask = 0; mask < (uint64_t(1) << n); ++mask) {
        for (size_t k = 0; k < n; ++k) wanted[k] = (mask >> k) & 1;
        pool.add(evaluate(normalise(wanted)));
    }
    exactPool_ = std::move(pool);
    return *exactPool_;
}

BudgetPlan BudgetPlanner::exactPlanForBudget(int64_t budgetBytes) {
    const Pool& pool = runExact();
    const Evaluated* best = bestFitting(pool, budgetBytes);
    if (!best) {
        int64_t lo = std::numeric_limits<int64_t>::max();
        for (const Evaluated* e : pool.order)
            if (e->peak <= original_.peakBytes) lo = std::min(lo, e->activation);
        detail::throwBudgetUnmet(budgetBytes, lo);
    }
    BudgetPlan plan = makePlan(best->inR, "exact");
    plan.budgetBytes = budgetBytes;
    return plan;
}

std::vector<BudgetPlan> BudgetPlanner::exactFrontier() {
    std::vector<const Evaluated*> all;
    for (const Evaluated* e : runExact().order)
        if (e->peak <= original_.peakBytes) all.push_back(e);
    // Peak strictly falling as cost rises; among equal figures the smallest set.
    std::sort(all.begin(), all.end(), [](const Evaluated* x, const Evaluated* y) {
        if (x->cost != y->cost) return x->cost < y->cost;
        if (x->activation != y->activation) return x->activation < y->activation;
        return x->inR < y->inR;
    });
    std::vector<BudgetPlan> out;
    int64_t last = std::numeric_limits<int64_t>::max();
    for (const Evaluated* e : all) {
        if (e->activation >= last) continue;
        last = e->activation;
        BudgetPlan plan = makePlan(e->inR, "exact");
        plan.budgetBytes = e->activation;
        out.push_back(std::move(plan));
    }
    return out;
}

}  // namespace rx::planner
