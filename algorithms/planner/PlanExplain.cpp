// Explaining plans: what is alive at a plan's peak, its rewritten program, and the values
// that changed side against a reference plan.
#include "algorithms/planner/BudgetPlanner.h"

#include <algorithm>
#include <cstdlib>

#include "algorithms/MemoryModel.h"
#include "algorithms/Rewriter.h"
#include "exec/Liveness.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"

namespace rx::planner {

PeakBreakdown BudgetPlanner::peakBreakdown(const BudgetPlan& plan) const {
    // The planner's own plans by the replay (a 1M-op program's copy and liveness cost more
    // than the rest of a frontier); any other plan from its rewritten program.
    if (const std::optional<RecomputeSet> inR = replayableSet(plan.plan)) return simulatedBreakdown(*inR);
    return rewrittenPeakBreakdown(plan);
}

PeakBreakdown BudgetPlanner::rewrittenPeakBreakdown(const BudgetPlan& plan) const {
    const RewriteResult rw = partitionJointGraph(*analysis_, plan.plan);
    if (!rw.ok()) throw Error("rewriting the " + plan.source + " plan failed: " + rw.error);
    const Program& q = *rw.program;
    const std::vector<uint8_t> resident = exec::residentValuesOf(q, spec_.inputs);
    const exec::Liveness liveness = exec::analyzeLiveness(q, resident);  // one analysis for both
    const MemoryProfile m = profileMemoryFrom(q, liveness, spec_.fwdOpEndIdx);
    if (!m.ok()) throw Error(m.error);
    const auto& gops = q.globalBlock().ops;
    PeakBreakdown out;
    out.peakOpIndex = m.peakOpIndex;
    if (m.peakOpIndex < gops.size()) out.peakOpName = std::string(q.opName(gops[m.peakOpIndex]));
    out.inBackward = int64_t(m.peakOpIndex) > rw.fwdOpEndIdx;
    std::vector<uint8_t> fetched(q.values().size(), 0), clone(q.ops().size(), 0);
    for (OpId op : gops)
        if (isFetchOp(q.opName(op)))
            for (ValueId x : q.op(op).operands)
                if (x != kNoId && x < fetched.size()) fetched[x] = 1;
    for (OpId c : rw.clones) clone[c] = 1;
    // The buffers alive at the peak (exec/Liveness.h, what profileMemory summed), by owner.
    for (const exec::Liveness::Buffer& b : liveness.buffers) {
        if (b.death == exec::Liveness::kNever || b.birth > m.peakOpIndex || b.death < m.peakOpIndex) continue;
        const size_t j = b.birth;
        if (clone[gops[j]]) out.recomputed += b.bytes;
        else if (int64_t(j) <= rw.fwdOpEndIdx) out.forwardValues += b.bytes;
        else if (fetched[b.owner]) out.outputs += b.bytes;
        else out.backwardTemporaries += b.bytes;
    }
    return out;
}

std::shared_ptr<Program> BudgetPlanner::rewrite(const BudgetPlan& plan) const {
    RewriteResult rw = partitionJointGraph(*analysis_, plan.plan);
    if (!rw.ok()) throw Error("rewriting the " + plan.source + " plan failed: " + rw.error);
    return rw.program;
}

std::vector<SideChange> BudgetPlanner::explain(const BudgetPlan& plan, const BudgetPlan& reference) const {
    const Program& p = *program_;
    auto sides = [&](const BudgetPlan& b, std::vector<uint8_t>& inR) {
        std::vector<ValueSide> s(p.values().size(), ValueSide::Neither);
        inR.assign(p.ops().size(), 0);
        for (ValueId v : b.savedValues) s[v] = ValueSide::Saved;
        for (OpId op : b.recomputeOps) {
            inR[op] = 1;
            for (ValueId r : p.op(op).results)
                if (!maskValue_[r]) s[r] = ValueSide::Recomputed;  // a mask a clone reads stays saved
        }
        return s;
    };
    std::vector<uint8_t> rPlan, rRef;
    const auto a = sides(plan, rPlan), b = sides(reference, rRef);
    std::vector<SideChange> out;
    std::vector<uint8_t> opCounted(p.ops().size(), 0);
    for (ValueId v = 0; v < p.values().size(); ++v) {
        if (a[v] == b[v]) continue;
        SideChange c;
        c.value = v;
        c.referenceSide = b[v];
        c.side = a[v];
        const int64_t size = p.valueBytes(v);
        c.bytes = (a[v] == ValueSide::Saved ? size : 0) - (b[v] == ValueSide::Saved ? size : 0);
        const OpId d = p.value(v).definingOp;
        if (d != kNoId && rPlan[d] != rRef[d] && !opCounted[d]) {
            opCounted[d] = 1;
            c.flops = (rPlan[d] ? 1.0 : -1.0) * costs_.flops(d);
        }
        out.push_back(c);
    }
    std::stable_sort(out.begin(), out.end(), [](const SideChange& x, const SideChange& y) {
        return std::llabs(x.bytes) > std::llabs(y.bytes);
    });
    return out;
}

}  // namespace rx::planner
