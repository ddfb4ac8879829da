#pragma once
// A budget plan in the shape every explorer view reads (SolveResult): the seed's network and
// per-value reasons kept, sides, recompute set, rewritten program and memory replaced by the
// plan's, so that applying a frontier point redraws the graph, text, diff and memory views.
#include <memory>

#include "algorithms/Solver.h"
#include "algorithms/planner/BudgetPlanner.h"

namespace rx::planner {

// `seed`: a successful solve of the same program, spec and config (its network and value
// facts are reused). Throws rx::Error when the plan cannot be rewritten.
std::shared_ptr<SolveResult> solveResultFor(const BudgetPlanner& planner, const BudgetPlan& plan,
                                            const SolveResult& seed);

}  // namespace rx::planner
