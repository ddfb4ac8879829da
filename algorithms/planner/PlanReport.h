#pragma once
// Budget plans as FORMATS.md's JSON ("Budget plans": the solve report's budget keys and the
// pareto report) and CSV, written through a temporary file renamed into place.
#include <string>
#include <vector>

#include "algorithms/planner/BudgetPlanner.h"

namespace rx::planner {

struct ReportContext {
    std::string programPath, specSource, costsSource;
};

// `pareto`: {"original": {...}, "plans": [...]}; every plan row carries its changes against
// `seed` when one is given. Rows are summaries (figures, set sizes, change totals) unless
// `sets`: then also the saved, recomputed and changed values and the recomputed ops (on a
// 1M-op program hundreds of MB, `pareto --sets`).
std::string paretoJson(const BudgetPlanner& planner, const std::vector<BudgetPlan>& plans,
                       const BudgetPlan* seed, const ReportContext& context, bool sets = false);
// The same rows as CSV: saved_count, and with `sets` the saved values (space-separated).
std::string paretoCsv(const BudgetPlanner& planner, const std::vector<BudgetPlan>& plans, bool sets = false);

// `solve --budget`: the budget keys plus the plan's values and its changes against the seed.
std::string budgetSolveJson(const BudgetPlanner& planner, const BudgetPlan& plan, const BudgetPlan* seed,
                            const ReportContext& context);

// Writes `text` to `path` via a temporary file in the same folder and a rename, so a failed
// write never leaves a half-written report. Throws rx::Error naming the path.
void writeFileReplacing(const std::string& path, const std::string& text);

}  // namespace rx::planner
