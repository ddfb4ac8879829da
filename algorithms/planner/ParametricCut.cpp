// The parametric min cut: the op/value network solved on the shared, checked min cut
// (algorithms/MinCut.h) for saved bytes + λ·recompute cost.
#include "algorithms/planner/BudgetPlanner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/ComponentMinCut.h"
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
    struct LambdaCuts;
    std::unique_ptr<LambdaCuts> lambdaCuts;  // the unbanned network's λ cuts (built on first use)
    ~Network();
};

// The λ cuts of the network without bans, on one ComponentMinCut built once: only the source
// → op arcs change with λ. The network contracted (needed values into the sink) falls apart
// into a few nodes per layer and one chain through the layers, each solved on its own. The cut
// is solveMinCut's (networkx's): the nodes that reach the sink in the residual graph of a
// maximum flow, which does not depend on the flow found, nor on the ∞ arcs' sentinel while it
// exceeds every finite cut. The cut is checked against the flow value as there.
struct BudgetPlanner::Network::LambdaCuts {
    std::unique_ptr<ComponentMinCut> cut;
    std::vector<ComponentMinCut::Arc> arcs;  // the network's arcs that may carry flow
    std::vector<int64_t> capacity;           // by arc of `arcs`: fixed ones set once, source arcs per λ
    std::vector<uint32_t> sourceArc;         // by candidate: into `arcs`, kNoId when banned
};

BudgetPlanner::Network::~Network() = default;

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

// The source → op arc's capacity at λ: above the bytes of its results, recomputing an op never
// beats saving them; capping there keeps the cut and bounds every capacity by a value's bytes
// (no overflow).
int64_t BudgetPlanner::lambdaCapacity(double lambda, uint32_t k) const {
    const double x = std::min(lambda * costs_.cost(candidates_[k]), double(resultBytes_[k]) + 1);
    return int64_t(std::llround(std::max(0.0, x)));
}

bool BudgetPlanner::prepareLambdaCuts() const {
    Network& n = *net_;
    if (n.lambdaCuts) return true;
    const Program& p = *program_;
    const FlowNetwork& f = n.flow;
    auto lc = std::make_unique<Network::LambdaCuts>();
    Network::LambdaCuts& c = *lc;
    const size_t nodes = f.nodes.size();
    // Every capacity's ceiling, for the sentinel and the overflow checks: the fixed ones, and
    // each source arc at its cap. Beyond 64 bits the general min cut (and its errors) decide.
    std::vector<uint8_t> isSourceArc(f.arcs.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (n.sourceArc[k] != kNoId) isSourceArc[n.sourceArc[k]] = 1;
    std::vector<int64_t> fixed(f.arcs.size(), 0);
    for (const auto& [arc, v] : n.valueArcs) fixed[arc] = p.valueBytes(v);
    int64_t bound = 0;
    for (uint32_t a = 0; a < f.arcs.size(); ++a) {
        if (f.arcs[a].infinite || isSourceArc[a]) continue;
        if (fixed[a] < 0) return false;  // the general cut reports it
        if (__builtin_add_overflow(bound, fixed[a], &bound)) return false;
    }
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        if (n.sourceArc[k] == kNoId) continue;
        const double ceiling = double(resultBytes_[k]) + 2;  // above llround(resultBytes + 1)
        if (!(ceiling < 9.0e18) || __builtin_add_overflow(bound, int64_t(ceiling), &bound)) return false;
    }
    if (bound >= std::numeric_limits<int64_t>::max() / 2) return false;
    const int64_t sentinel = bound + 1;  // above any finite cut at any λ
    std::vector<uint32_t> keptArc(f.arcs.size(), kNoId);
    for (uint32_t a = 0; a < f.arcs.size(); ++a) {
        const FlowNetwork::Arc& arc = f.arcs[a];
        // Arcs into source or out of sink carry no flow; fixed zero arcs never carry any.
        if (arc.to == FlowNetwork::kSource || arc.from == FlowNetwork::kSink || arc.from == arc.to) continue;
        if (!arc.infinite && !isSourceArc[a] && fixed[a] == 0) continue;
        keptArc[a] = uint32_t(c.arcs.size());
        c.arcs.push_back({arc.from, arc.to, arc.infinite});
        c.capacity.push_back(arc.infinite ? sentinel : fixed[a]);
    }
    c.sourceArc.assign(candidates_.size(), kNoId);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (n.sourceArc[k] != kNoId) c.sourceArc[k] = keptArc[n.sourceArc[k]];
    c.cut = std::make_unique<ComponentMinCut>(nodes, FlowNetwork::kSource, FlowNetwork::kSink, c.arcs, sentinel);
    if (!c.cut->bounded()) return false;  // an ∞ path: the general min cut reports it
    n.lambdaCuts = std::move(lc);
    return true;
}

namespace {
// The cut's check, as solveMinCut's: no ∞ arc crosses it and its capacity is the flow's value.
void checkCut(const std::vector<ComponentMinCut::Arc>& arcs, const std::vector<int64_t>& capacity,
              const std::vector<uint8_t>& sinkSide, int64_t value, double lambda) {
    int64_t cutSum = 0;
    bool infiniteCut = false;
    for (uint32_t a = 0; a < arcs.size(); ++a)
        if (!sinkSide[arcs[a].from] && sinkSide[arcs[a].to]) {
            if (arcs[a].infinite) infiniteCut = true;
            else cutSum += capacity[a];
        }
    if (infiniteCut || cutSum != value)
        throw Error("the budget planner's min cut (λ = " + std::to_string(lambda) + ") failed: internal error: the cut (" +
                    std::to_string(cutSum) + ") does not match the flow value (" + std::to_string(value) + ")");
}
}  // namespace

const std::vector<uint8_t>& BudgetPlanner::lambdaSinkSide(double lambda) const {
    Network::LambdaCuts& c = *net_->lambdaCuts;
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (c.sourceArc[k] != kNoId) c.capacity[c.sourceArc[k]] = lambdaCapacity(lambda, k);
    int64_t value = 0;
    const std::vector<uint8_t>& reaches = c.cut->solve(c.capacity, value);
    checkCut(c.arcs, c.capacity, reaches, value, lambda);
    return reaches;
}

BudgetPlanner::RecomputeSet BudgetPlanner::cutRecomputeSet(double lambda, const std::vector<uint8_t>* banned,
                                                           const std::vector<int64_t>* valueCaps) const {
    const Program& p = *program_;
    std::shared_ptr<Network> own = banned ? buildNetwork(banned) : net_;
    const Network& n = *own;
    RecomputeSet wanted(candidates_.size(), 0);
    if (!n.flow.hasSink()) return normalise(wanted);  // the backward needs nothing from the forward
    if (!banned && !valueCaps && prepareLambdaCuts()) {
        const std::vector<uint8_t>& sinkSide = lambdaSinkSide(lambda);
        for (uint32_t k = 0; k < candidates_.size(); ++k)
            wanted[k] = n.opNode[k] != kNoId && sinkSide[n.opNode[k]];
        return normalise(wanted);
    }
    // Capacities for this λ (every finite arc is an op's source arc or a value's).
    std::vector<int64_t> capacity(n.flow.arcs.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        if (n.sourceArc[k] == kNoId) continue;
        capacity[n.sourceArc[k]] = lambdaCapacity(lambda, k);
    }
    for (const auto& [arc, v] : n.valueArcs) {
        const int64_t c = valueCaps ? (*valueCaps)[v] : p.valueBytes(v);
        if (c < 0) throw Error("internal error: negative capacity " + std::to_string(c) + " for " + p.value(v).name);
        capacity[arc] = c;
    }
    // One solve on ComponentMinCut (solveMinCut's cut, without its Preflow over the whole
    // cone) while the capacities' sum fits; otherwise, or with an ∞ path from source to sink,
    // solveMinCut below decides and reports.
    int64_t finite = 0;
    bool fits = true;
    std::vector<ComponentMinCut::Arc> arcs(n.flow.arcs.size());
    for (uint32_t a = 0; a < arcs.size(); ++a) {
        const FlowNetwork::Arc& arc = n.flow.arcs[a];
        arcs[a] = {arc.from, arc.to, arc.infinite};
        if (!arc.infinite) fits = fits && !__builtin_add_overflow(finite, capacity[a], &finite);
    }
    if (fits && finite < std::numeric_limits<int64_t>::max() / 2) {
        ComponentMinCut cut(n.flow.nodes.size(), FlowNetwork::kSource, FlowNetwork::kSink, arcs, finite + 1);
        if (cut.bounded()) {
            int64_t value = 0;
            const std::vector<uint8_t>& sinkSide = cut.solve(capacity, value);
            checkCut(arcs, capacity, sinkSide, value, lambda);
            for (uint32_t k = 0; k < candidates_.size(); ++k)
                wanted[k] = n.opNode[k] != kNoId && sinkSide[n.opNode[k]];
            return normalise(wanted);
        }
    }
    FlowNetwork f = n.flow;
    for (uint32_t a = 0; a < f.arcs.size(); ++a) f.arcs[a].capacity = capacity[a];
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
