// Budget plans as SolveResults for the explorer's views.
#include "algorithms/planner/PlanResult.h"

#include "algorithms/Rewriter.h"
#include "model/Diagnostic.h"

namespace rx::planner {

std::shared_ptr<SolveResult> solveResultFor(const BudgetPlanner& planner, const BudgetPlan& plan,
                                            const SolveResult& seed) {
    auto r = std::make_shared<SolveResult>(seed);
    const Program& p = planner.program();
    r->unchanged = false;
    r->plan.savedValues = plan.savedValues;
    r->plan.midHoldValues = plan.recomputedValues;
    r->plan.recomputeOps = plan.recomputeOps;
    r->plan.subgraphInputs = plan.plan.subgraphInputs;
    r->plan.memorySavedBytes = plan.plan.memorySavedBytes;
    r->plan.warnings.push_back("showing the " + plan.source + " plan of the memory-budget planner (activation peak " +
                               std::to_string(plan.activationPeakBytes) + " bytes)");
    if (r->plan.reasons.size() < p.values().size()) r->plan.reasons.resize(p.values().size());
    // Sides by the solver's own rule (buildPlan): a value whose producer is cloned is
    // recomputed, mid-hold or not, so this plan and the seed's differ only where they differ.
    std::vector<uint8_t> saved(p.values().size(), 0), cloned(p.ops().size(), 0);
    for (ValueId v : plan.savedValues) saved[v] = 1;
    for (OpId op : plan.recomputeOps) cloned[op] = 1;
    for (ValueId v = 0; v < r->plan.reasons.size(); ++v) {
        const OpId def = v < p.values().size() ? p.value(v).definingOp : kNoId;
        r->plan.reasons[v].side = valueSideOf(v < saved.size() && saved[v], def != kNoId && def < cloned.size() && cloned[def]);
        r->plan.reasons[v].midHold = false;
    }
    for (ValueId v : plan.recomputedValues) r->plan.reasons[v].midHold = true;
    RewriteResult rw = partitionJointGraph(planner.analysis(), plan.plan);
    if (!rw.ok()) throw Error("rewriting the " + plan.source + " plan failed: " + rw.error);
    r->rewrittenMemory = profileMemory(*rw.program, planner.analysis().spec().inputs, planner.analysis().fwdEnd());
    r->clones = std::move(rw.clones);
    r->cloneOf = std::move(rw.cloneOf);
    r->rewritten = std::move(rw.program);
    return r;
}

}  // namespace rx::planner
