// The parametric min cut: the op/value network solved on the shared, checked min cut
// (algorithms/MinCut.h) for saved bytes + λ·recompute cost.
#include "algorithms/planner/BudgetPlanner.h"

#include <algorithm>
#include <cmath>

#include "algorithms/MinCut.h"
#include "model/Diagnostic.h"

namespace rx::planner {



// The op/value flow network on FlowNetwork's nodes: an op is the In node of its first result,
// a value its Out node. Arcs: source → op (λ·cost), op → result (its bytes: the price of
// saving it), value → consumer op (∞), needed value → sink (∞). The sink side of the cut is
// recomputed; values entering it from the source side are saved. Ops that may not be
// recomputed are merged into the source (their results hang off it directly): no ∞ arcs
// leave the source. Capacities are set per cut on a copy of `arcs`.
struct BudgetPlanner::Network {
    FlowNetwork flow;
    std::vector<uint32_t> sourceArc;  // by candidate: arc index, kNoId when banned
    std::vector<uint32_t> opNode;     // by candidate: node, kNoId when banned
    std::vector<std::pair<uint32_t, ValueId>> valueArcs;  // arcs priced by a value's bytes
};

std::shared_ptr<BudgetPlanner::Network> BudgetPlanner::buildNetwork(const std::vector<uint8_t>* banned) const {
    const Program& p = *program_;
    auto net = std::make_shared<Network>();
    Network& n = *net;
    FlowNetwork& f = n.flow;
    f.resizeValues(p.values().size());
    n.sourceArc.assign(candidates_.size(), kNoId);
    n.opNode.assign(candidates_.size(), kNoId);
    std::vector<uint32_t> valueNode(p.values().size(), kNoId);
    auto freeOp = [&](OpId op) {
        const uint32_t k = candidateIndex_[op];
        return k != kNoId && !(banned && (*banned)[k]);
    };
    for (OpId op : coneOps_) {
        const uint32_t k = candidateIndex_[op];
        uint32_t from = FlowNetwork::kSource;
        if (freeOp(op)) {
            n.opNode[k] = f.ensureIn(p.op(op).results[0]);
            n.sourceArc[k] = uint32_t(f.arcs.size());
            f.addArc(FlowNetwork::kSource, n.opNode[k], 0, false, FlowNetwork::Weight);
            from = n.opNode[k];
            for (ValueId x : p.op(op).operands)
                if (x != kNoId && x < valueNode.size() && valueNode[x] != kNoId)
                    f.addArc(valueNode[x], n.opNode[k], 0, true, FlowNetwork::User);
        }
        for (ValueId r : p.op(op).results) {
            if (resident_[r]) continue;
            valueNode[r] = f.ensureOut(r);
            n.valueArcs.push_back({uint32_t(f.arcs.size()), r});
            // A mask the clone reads (--recompute-random mask) is never recomputed: it hangs
            // off the source like a banned op's result, and the op's clone consumes it.
            f.addArc(maskValue_[r] ? FlowNetwork::kSource : from, valueNode[r], 0, false, FlowNetwork::Weight);
            if (neededByBackward_[r]) f.addArc(valueNode[r], FlowNetwork::kSink, 0, true, FlowNetwork::BackwardSink);
        }
        if (k != kNoId && n.opNode[k] != kNoId && cloneMask_[k] != kNoId && valueNode[cloneMask_[k]] != kNoId)
            f.addArc(valueNode[cloneMask_[k]], n.opNode[k], 0, true, FlowNetwork::User);
    }
    return net;
}

BudgetPlanner::RecomputeSet BudgetPlanner::cutRecomputeSet(double lambda, const std::vector<uint8_t>* banned,
                                                           const std::vector<int64_t>* valueCaps) const {
    const Program& p = *program_;
    std::shared_ptr<Network> own = banned ? buildNetwork(banned) : net_;
    const Network& n = *own;
    RecomputeSet wanted(candidates_.size(), 0);
    if (!n.flow.hasSink()) return normalise(wanted);  // the backward needs nothing from the forward
    FlowNetwork f = n.flow;  // capacities for this λ on a copy
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        if (n.sourceArc[k] == kNoId) continue;
        // Above the bytes of its results, recomputing an op never beats saving them: capping
        // there keeps the cut and bounds every capacity by a value's bytes (no overflow).
        const double x = std::min(lambda * costs_.cost(candidates_[k]), double(resultBytes_[k]) + 1);
        f.arcs[n.sourceArc[k]].capacity = int64_t(std::llround(std::max(0.0, x)));
    }
    for (const auto& [arc, v] : n.valueArcs) {
        const int64_t c = valueCaps ? (*valueCaps)[v] : p.valueBytes(v);
        if (c < 0) throw Error("internal error: negative capacity " + std::to_string(c) + " for " + p.value(v).name);
        f.arcs[arc].capacity = c;
    }
    MinCutOptions options;
    options.linkedElevator = true;
    const MinCutResult cut = solveMinCut(f, p, options);
    // The checked cut: overflow, unbounded flow and cut ≠ flow are errors, never a wrong plan.
    if (!cut.ok()) throw Error("the budget planner's min cut (λ = " + std::to_string(lambda) + ") failed: " + cut.error);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        wanted[k] = n.opNode[k] != kNoId && cut.sinkSide[n.opNode[k]];
    return normalise(wanted);
}

}  // namespace rx::planner
