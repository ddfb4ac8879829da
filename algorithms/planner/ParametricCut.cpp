// The parametric min cut: the op/value network solved on the shared, checked min cut
// (algorithms/MinCut.h) for saved bytes + λ·recompute cost.
#include "algorithms/planner/BudgetPlanner.h"

#include "algorithms/LemonSmartGraph.h"

#include <lemon/elevator.h>
#include <lemon/preflow.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <list>

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

namespace {
using Graph = lemon::SmartDigraph;
using CapacityMap = Graph::ArcMap<int64_t>;
using LinkedPreflow = lemon::Preflow<Graph, CapacityMap>::SetStandardElevator<
    lemon::LinkedElevator<Graph, Graph::Node>>::Create;

// A stored flow as the map Preflow::init reads.
struct StoredFlow {
    const std::vector<int64_t>& flow;
    int64_t operator[](Graph::Arc a) const { return flow[size_t(Graph::id(a))]; }
};
}  // namespace

// The λ cuts of the network without bans, on one graph built once: only the source → op arcs
// change with λ (λ·cost, capped by the op's result bytes, so never falling as λ rises), and
// a maximum preflow for a smaller λ is a preflow for a larger one. Each cut starts from the
// stored flow of the largest smaller λ (warm start) instead of from zero. The cut is the same
// as solveMinCut's (networkx's): the nodes that reach the sink in the residual graph of a
// maximum preflow, which does not depend on the preflow found, nor on the ∞ arcs' sentinel
// while it exceeds every finite cut. The cut is checked against the flow value as there.
struct BudgetPlanner::Network::LambdaCuts {
    Graph graph;
    CapacityMap capacity{graph};
    Graph::ArcMap<int64_t> flow{graph};
    std::vector<uint32_t> sourceArc;       // by candidate: graph arc, kNoId when banned
    std::vector<uint8_t> infinite;         // by graph arc
    std::vector<uint32_t> inOff, outOff, inArcs, outArcs;  // residual search lists (CSR)
    std::vector<uint32_t> tail, head;      // by graph arc
    LinkedPreflow preflow{graph, capacity, graph.nodeFromId(FlowNetwork::kSource),
                          graph.nodeFromId(FlowNetwork::kSink)};
    // Maximum flows of recent λ's (most recent first), to warm-start from.
    static constexpr size_t kStoredFlows = 4;
    std::list<std::pair<double, std::vector<int64_t>>> stored;
    std::vector<uint8_t> reaches;          // by node, scratch
    std::vector<uint32_t> queue;           // scratch
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
    std::vector<uint32_t> graphArc(f.arcs.size(), kNoId);
    c.graph.reserveNode(int(nodes));
    for (size_t i = 0; i < nodes; ++i) c.graph.addNode();
    for (uint32_t a = 0; a < f.arcs.size(); ++a) {
        const FlowNetwork::Arc& arc = f.arcs[a];
        // Arcs into source or out of sink carry no flow; fixed zero arcs never carry any.
        if (arc.to == FlowNetwork::kSource || arc.from == FlowNetwork::kSink || arc.from == arc.to) continue;
        if (!arc.infinite && !isSourceArc[a] && fixed[a] == 0) continue;
        graphArc[a] = uint32_t(c.tail.size());
        c.graph.addArc(c.graph.nodeFromId(int(arc.from)), c.graph.nodeFromId(int(arc.to)));
        c.infinite.push_back(arc.infinite);
        c.tail.push_back(arc.from);
        c.head.push_back(arc.to);
    }
    const size_t arcs = c.tail.size();
    for (uint32_t a = 0; a < f.arcs.size(); ++a)
        if (graphArc[a] != kNoId)
            c.capacity[c.graph.arcFromId(int(graphArc[a]))] = f.arcs[a].infinite ? sentinel : fixed[a];
    c.sourceArc.assign(candidates_.size(), kNoId);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (n.sourceArc[k] != kNoId) c.sourceArc[k] = graphArc[n.sourceArc[k]];
    c.inOff.assign(nodes + 1, 0);
    c.outOff.assign(nodes + 1, 0);
    for (size_t a = 0; a < arcs; ++a) { ++c.inOff[c.head[a] + 1]; ++c.outOff[c.tail[a] + 1]; }
    for (size_t i = 0; i < nodes; ++i) { c.inOff[i + 1] += c.inOff[i]; c.outOff[i + 1] += c.outOff[i]; }
    c.inArcs.resize(arcs);
    c.outArcs.resize(arcs);
    {
        std::vector<uint32_t> fi(c.inOff.begin(), c.inOff.end() - 1), fo(c.outOff.begin(), c.outOff.end() - 1);
        for (uint32_t a = 0; a < arcs; ++a) { c.inArcs[fi[c.head[a]]++] = a; c.outArcs[fo[c.tail[a]]++] = a; }
    }
    c.preflow.flowMap(c.flow);
    n.lambdaCuts = std::move(lc);
    return true;
}

const std::vector<uint8_t>& BudgetPlanner::lambdaSinkSide(double lambda) const {
    Network::LambdaCuts& c = *net_->lambdaCuts;
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (c.sourceArc[k] != kNoId) c.capacity[c.graph.arcFromId(int(c.sourceArc[k]))] = lambdaCapacity(lambda, k);
    // Warm start: the stored flow of the largest smaller λ (capacities only grew since).
    auto from = c.stored.end();
    for (auto it = c.stored.begin(); it != c.stored.end(); ++it)
        if (it->first <= lambda && (from == c.stored.end() || it->first > from->first)) from = it;
    const bool warm = from != c.stored.end() && c.preflow.init(StoredFlow{from->second});
    if (!warm) c.preflow.init();
    c.preflow.startFirstPhase();
    const int64_t value = c.preflow.flowValue();
    const size_t nodes = size_t(c.graph.maxNodeId()) + 1, arcs = c.tail.size();
    auto cap = [&](uint32_t a) { return c.capacity[c.graph.arcFromId(int(a))]; };
    auto flow = [&](uint32_t a) { return c.flow[c.graph.arcFromId(int(a))]; };
    // networkx's cut: the nodes that reach the sink in the residual graph.
    c.reaches.assign(nodes, 0);
    c.queue.clear();
    c.queue.push_back(FlowNetwork::kSink);
    c.reaches[FlowNetwork::kSink] = 1;
    for (size_t q = 0; q < c.queue.size(); ++q) {
        const uint32_t w = c.queue[q];
        for (uint32_t i = c.inOff[w]; i < c.inOff[w + 1]; ++i) {  // x -> w with spare capacity
            const uint32_t a = c.inArcs[i];
            const uint32_t x = c.tail[a];
            if (!c.reaches[x] && flow(a) < cap(a)) { c.reaches[x] = 1; c.queue.push_back(x); }
        }
        for (uint32_t i = c.outOff[w]; i < c.outOff[w + 1]; ++i) {  // w -> x carrying flow
            const uint32_t a = c.outArcs[i];
            const uint32_t x = c.head[a];
            if (!c.reaches[x] && flow(a) > 0) { c.reaches[x] = 1; c.queue.push_back(x); }
        }
    }
    // The checked cut: no ∞ arc crosses it and its capacity is the flow's value.
    int64_t cutSum = 0;
    bool infiniteCut = false;
    for (uint32_t a = 0; a < arcs; ++a)
        if (!c.reaches[c.tail[a]] && c.reaches[c.head[a]]) {
            if (c.infinite[a]) infiniteCut = true;
            else cutSum += cap(a);
        }
    if (infiniteCut || cutSum != value)
        throw Error("the budget planner's min cut (λ = " + std::to_string(lambda) + ") failed: internal error: the cut (" +
                    std::to_string(cutSum) + ") does not match the flow value (" + std::to_string(value) + ")");
    // Store this λ's maximum flow (the oldest goes). A flow, not the first phase's preflow:
    // excess left at nodes cut off from the sink would be activated by the next warm start
    // at LEMON's top level, where the linked elevator's lists are not kept up.
    c.preflow.startSecondPhase();
    std::vector<int64_t> kept;
    if (c.stored.size() >= Network::LambdaCuts::kStoredFlows) {
        kept = std::move(c.stored.back().second);
        c.stored.pop_back();
    }
    kept.resize(arcs);
    for (size_t a = 0; a < arcs; ++a) kept[a] = c.flow[c.graph.arcFromId(int(a))];
    c.stored.emplace_front(lambda, std::move(kept));
    return c.reaches;
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
    FlowNetwork f = n.flow;  // capacities for this λ on a copy
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        if (n.sourceArc[k] == kNoId) continue;
        f.arcs[n.sourceArc[k]].capacity = lambdaCapacity(lambda, k);
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
