// The memory-budget planner: parametric min cut over saved bytes + λ·recompute cost, every
// candidate measured on the rewritten program by the liveness model; exact enumeration for
// small programs; reference plans (seed, PyTorch-style, full checkpointing, no recompute).
#include "algorithms/planner/BudgetPlanner.h"

#include <lemon/smart_graph.h>

namespace lemon {
// LEMON's ArrayMap calls std::allocator::construct, which C++20 removed; node-valued maps
// (the linked elevator's) use VectorMap instead, as LEMON already does for scalars.
template <typename Graph, typename Item>
struct DefaultMapSelector<Graph, Item, SmartDigraphBase::Node> {
    typedef VectorMap<Graph, Item, SmartDigraphBase::Node> Map;
};
}  // namespace lemon

#include <lemon/elevator.h>
#include <lemon/preflow.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "algorithms/LastUse.h"
#include "algorithms/Layers.h"
#include "algorithms/Rewriter.h"
#include "algorithms/Solver.h"
#include "algorithms/planner/Budget.h"
#include "exec/Liveness.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"

namespace rx::planner {

namespace {

constexpr int64_t kInfinite = int64_t(1) << 58;   // above any finite cut
constexpr int64_t kMaxFinite = int64_t(1) << 50;  // clamp of λ·cost
constexpr int64_t kAvoid = int64_t(1) << 36;      // full checkpointing: "rather not save this"

// Ops that must never run twice: random draws, state updates, I/O (model/OpTraits).
bool sideEffecting(std::string_view name) { return hasOpTrait(name, OpTrait::SideEffecting); }

uint64_t hashSet(const std::vector<uint8_t>& inR) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < inR.size(); ++i)
        if (inR[i]) { h ^= i + 0x9e3779b97f4a7c15ull; h *= 1099511628211ull; h ^= h >> 29; }
    return h;
}

bool contains(const std::vector<std::string>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

// The op/value flow network: source → op (λ·cost), op → result (its bytes: the price of
// saving it), value → consumer op (∞), needed value → sink (∞). The sink side of the cut is
// recomputed; values entering it from the source side are saved. Ops that may not be
// recomputed are merged into the source (their results hang off it directly): no ∞ arcs
// leave the source, which keeps Preflow's first phase short.
struct BudgetPlanner::Network {
    lemon::SmartDigraph graph;
    lemon::SmartDigraph::ArcMap<int64_t> cap{graph};
    std::vector<lemon::SmartDigraph::Arc> sourceArc;        // by candidate (invalid when banned)
    std::vector<lemon::SmartDigraph::Node> opNode;           // by candidate (invalid when banned)
    std::vector<std::pair<lemon::SmartDigraph::Arc, ValueId>> valueArcs;  // arcs priced by a value's bytes
    lemon::SmartDigraph::Node source, sink;
};

BudgetPlanner::BudgetPlanner(std::shared_ptr<const Program> program, RecomputeSpec spec, RecomputeConfig config,
                             CostModel costs, PlannerOptions options)
    : program_(std::move(program)), spec_(std::move(spec)), config_(std::move(config)), costs_(std::move(costs)),
      options_(options) {
    const Program& p = *program_;
    if (spec_.fwdOpEndIdx < 0 || spec_.backwardOpStartIdx < 0 ||
        size_t(spec_.fwdOpEndIdx) >= p.globalBlock().ops.size())
        throw Error("the recompute spec has no forward/backward split inside the program (fwd_op_end_idx " +
                    std::to_string(spec_.fwdOpEndIdx) + ", backward_op_start_idx " +
                    std::to_string(spec_.backwardOpStartIdx) + ", " + std::to_string(p.globalBlock().ops.size()) +
                    " ops)");
    RecomputeSpec analysisSpec = spec_;
    analysis_ = std::make_shared<Analysis>(program_, analysisSpec);
    if (costs_.flops(0) == 0 && costs_.bytesMoved(0) == 0 && !costs_.measured()) costs_ = CostModel::fromTypes(p);
    original_ = profileMemory(p, spec_.inputs, spec_.fwdOpEndIdx);
    for (OpId op : p.globalBlock().ops) totalFlops_ += costs_.flops(op);
    buildCandidates();
    prepareSimulation();
}

void BudgetPlanner::prepareSimulation() {
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const size_t nv = p.values().size();
    lastUse_.assign(nv, 0);
    lastFixedUse_.assign(nv, 0);
    lastRedirectedUse_.assign(nv, kNoId);
    defIndex_.assign(nv, kNoId);
    for (OpId op : a.globalOps())
        for (ValueId r : p.op(op).results) defIndex_[r] = a.opIndex(op);
    for (ValueId v = 0; v < nv; ++v) {
        if (defIndex_[v] == kNoId) continue;
        for (const Use& use : p.uses(v)) {
            if (use.ancestor == kNoId) continue;
            const uint32_t i = a.opIndex(use.ancestor);
            if (i == kNoId) continue;
            lastUse_[v] = std::max(lastUse_[v], i);
            if (use.user == use.ancestor && a.isBackwardRangeOp(use.user))
                lastRedirectedUse_[v] = lastRedirectedUse_[v] == kNoId ? i : std::max(lastRedirectedUse_[v], i);
            else
                lastFixedUse_[v] = std::max(lastFixedUse_[v], i);
        }
    }
    // Storage as exec/Liveness.h counts it: an alias (builtin.split, combine, slice, fetch) owns
    // no bytes, and what a value owns lives until the last use of any alias of it.
    const exec::Liveness liveness = exec::analyzeLiveness(p, resident_);
    ownedBytes_.assign(nv, 0);
    for (ValueId v = 0; v < nv; ++v) {
        if (defIndex_[v] == kNoId) continue;
        ownedBytes_[v] = liveness.ownedBytes(v);
        const uint32_t end = liveness.storageEnd(v);
        if (!resident_[v] && end != exec::Liveness::kNever && end > liveness.lastUse[v]) {  // kept by an alias
            lastUse_[v] = std::max(lastUse_[v], end);
            lastFixedUse_[v] = std::max(lastFixedUse_[v], end);
        }
    }
    firstBackwardUse_.assign(candidates_.size(), kNoId);
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        const Operation& o = p.op(candidates_[k]);
        for (const Use& use : p.uses(o.results[0]))
            if (use.ancestor != kNoId && a.isBackwardRangeOp(use.ancestor))
                firstBackwardUse_[k] = std::min(firstBackwardUse_[k], a.opIndex(use.ancestor));
    }
}

int64_t BudgetPlanner::simulatePeak(const std::vector<uint8_t>& inR) const {
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const auto gops = a.globalOps();
    const size_t n = gops.size();
    // Clones in program order and their anchors (ALGORITHM.md §7, as Rewriter.cpp places them).
    std::vector<uint32_t> clones;  // candidate indices
    for (uint32_t k = 0; k < inR.size(); ++k)
        if (inR[k]) clones.push_back(k);
    const size_t nc = clones.size();
    std::vector<uint32_t> cloneSlot(candidates_.size(), kNoId);
    for (uint32_t c = 0; c < nc; ++c) cloneSlot[clones[c]] = c;
    auto producerSlot = [&](ValueId x) -> uint32_t {
        if (x == kNoId || x >= p.values().size()) return kNoId;
        const OpId d = p.value(x).definingOp;
        if (d == kNoId || candidateIndex_[d] == kNoId) return kNoId;
        return cloneSlot[candidateIndex_[d]];
    };
    std::vector<uint32_t> anchor(nc);
    for (uint32_t c = 0; c < nc; ++c) anchor[c] = firstBackwardUse_[clones[c]];
    for (size_t c = nc; c-- > 0;)
        for (ValueId x : p.op(candidates_[clones[c]]).operands) {
            const uint32_t s = producerSlot(x);
            if (s != kNoId && anchor[c] != kNoId) anchor[s] = std::min(anchor[s], anchor[c]);
        }
    // Positions: clones sit before their anchor, same anchor in clone order.
    std::vector<uint32_t> before(n + 1, 0);
    for (uint32_t c = 0; c < nc; ++c) {
        if (anchor[c] == kNoId) return std::numeric_limits<int64_t>::max();  // the rewriter would fail
        ++before[anchor[c] + 1];
    }
    for (size_t i = 0; i < n; ++i) before[i + 1] += before[i];  // clones anchored before op i
    auto pos = [&](uint32_t i) { return i + before[i + 1]; };   // original op i
    std::vector<uint32_t> clonePos(nc), rank(n, 0);
    for (uint32_t c = 0; c < nc; ++c) clonePos[c] = anchor[c] + before[anchor[c]] + rank[anchor[c]]++;

    std::vector<int64_t> delta(n + nc + 2, 0);
    auto live = [&](uint32_t from, uint32_t to, int64_t bytes) {
        delta[from] += bytes;
        delta[std::max(from, to) + 1] -= bytes;
    };
    // Readers among the clones: of original values (subgraph inputs) and of clone results.
    std::vector<uint32_t> cloneRead(p.values().size(), kNoId), cloneResultRead(p.values().size(), kNoId);
    for (uint32_t c = 0; c < nc; ++c)
        for (ValueId x : p.op(candidates_[clones[c]]).operands) {
            if (x == kNoId || x >= p.values().size()) continue;
            auto& last = producerSlot(x) != kNoId ? cloneResultRead[x] : cloneRead[x];
            last = last == kNoId ? clonePos[c] : std::max(last, clonePos[c]);
        }
    // Clone results: alive from the clone to its last reader (clones and redirected backward uses).
    for (uint32_t c = 0; c < nc; ++c)
        for (ValueId r : p.op(candidates_[clones[c]]).results) {
            if (resident_[r]) continue;
            uint32_t last = clonePos[c];
            if (neededByBackward_[r] && lastRedirectedUse_[r] != kNoId) last = std::max(last, pos(lastRedirectedUse_[r]));
            if (cloneResultRead[r] != kNoId) last = std::max(last, cloneResultRead[r]);
            live(clonePos[c], last, ownedBytes_[r]);
        }
    // Original values.
    for (size_t i = 0; i < n; ++i) {
        for (ValueId r : p.op(gops[i]).results) {
            if (resident_[r]) continue;
            const int64_t b = ownedBytes_[r];
            if (!b) continue;
            const uint32_t s = candidateIndex_[gops[i]] == kNoId ? kNoId : cloneSlot[candidateIndex_[gops[i]]];
            uint32_t last = (s != kNoId && neededByBackward_[r]) ? lastFixedUse_[r] : lastUse_[r];
            last = std::max<uint32_t>(pos(uint32_t(i)), pos(std::max<uint32_t>(last, uint32_t(i))));
            if (cloneRead[r] != kNoId) last = std::max(last, cloneRead[r]);
            live(pos(uint32_t(i)), last, b);
        }
    }
    int64_t cur = 0, peak = 0;
    for (size_t i = 0; i < n + nc; ++i) {
        cur += delta[i];
        peak = std::max(peak, cur);
    }
    return peak + original_.residentBytes;
}

void BudgetPlanner::buildCandidates() {
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const auto gops = a.globalOps();
    const int64_t fwdEnd = a.fwdEnd(), bwdStart = a.bwdStart();

    resident_ = exec::residentValuesOf(p, spec_.inputs);  // the memory model's resident set

    auto isForwardDef = [&](ValueId v) {
        if (v == kNoId || v >= p.values().size() || resident_[v]) return false;
        const OpId d = p.value(v).definingOp;
        return d != kNoId && p.op(d).parentBlock == Program::kGlobalBlock && int64_t(a.opIndex(d)) <= fwdEnd;
    };

    neededByBackward_.assign(p.values().size(), 0);
    std::vector<ValueId> stack;
    for (OpId op : gops) {
        if (int64_t(a.opIndex(op)) > fwdEnd) break;
        for (ValueId r : p.op(op).results) {
            if (!isForwardDef(r)) continue;
            for (const Use& use : p.uses(r))
                if (use.ancestor != kNoId && int64_t(a.opIndex(use.ancestor)) >= bwdStart) {
                    neededByBackward_[r] = 1;
                    stack.push_back(r);
                    break;
                }
        }
    }

    const std::vector<std::string> random = config_.randomOps;
    recomputable_.assign(p.ops().size(), 0);
    std::vector<uint8_t> inCone(p.ops().size(), 0), seen(p.values().size(), 0);
    for (ValueId v : stack) seen[v] = 1;
    while (!stack.empty()) {
        const ValueId v = stack.back();
        stack.pop_back();
        const OpId d = p.value(v).definingOp;
        if (inCone[d]) continue;
        inCone[d] = 1;
        for (ValueId x : p.op(d).operands)
            if (isForwardDef(x) && !seen[x]) { seen[x] = 1; stack.push_back(x); }
    }
    candidateIndex_.assign(p.ops().size(), kNoId);
    for (OpId op : gops) {
        if (!inCone[op]) continue;
        coneOps_.push_back(op);
        const Operation& o = p.op(op);
        const std::string_view name = p.opName(op);
        bool ok = o.regions.empty() && !o.results.empty() && !sideEffecting(name) && !contains(random, name);
        for (ValueId r : o.results) ok = ok && !resident_[r];
        // Operands must be reachable by the clone: global values (nested ones cannot be).
        for (ValueId x : o.operands)
            if (x != kNoId && p.value(x).block != Program::kGlobalBlock) ok = false;
        if (!ok) continue;
        recomputable_[op] = 1;
        candidateIndex_[op] = uint32_t(candidates_.size());
        candidates_.push_back(op);
    }

    net_ = buildNetwork(nullptr);

    resultBytes_.assign(candidates_.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        for (ValueId r : p.op(candidates_[k]).results) resultBytes_[k] += p.valueBytes(r);
    int64_t neededBytes = 0;
    double candidateCost = 0;
    for (ValueId v = 0; v < p.values().size(); ++v)
        if (neededByBackward_[v]) neededBytes += p.valueBytes(v);
    for (OpId op : candidates_) candidateCost += costs_.cost(op);
    lambdaScale_ = candidateCost > 0 ? double(std::max<int64_t>(neededBytes, 1)) / candidateCost : 1.0;
}

void BudgetPlanner::findLayerInputs() {
    // Layers as the explorer shows them (algorithms/Layers.h). A layer's inputs: forward
    // activations defined before it (in another group) that its ops read: the residual
    // stream between blocks, and whatever the block reads from the embedding.
    if (layersDone_) return;
    layersDone_ = true;
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const auto gops = a.globalOps();
    const LayerPartition layers = detectLayers(p, a.fwdEnd(), a.bwdStart());
    inLayer_.assign(candidates_.size(), 0);
    std::vector<uint8_t> taken(p.values().size(), 0);
    for (const LayerGroup& g : layers.groups) {
        if (g.kind != LayerGroup::Kind::Layer) continue;
        for (uint32_t i = g.fwdBegin; i < g.fwdEnd && i < gops.size(); ++i) {
            if (candidateIndex_[gops[i]] != kNoId) inLayer_[candidateIndex_[gops[i]]] = 1;
            for (ValueId x : p.op(gops[i]).operands) {
                if (x == kNoId || x >= p.values().size() || resident_[x] || taken[x]) continue;
                const uint32_t d = defIndex_[x];
                if (d == kNoId || d >= g.fwdBegin || int64_t(d) > a.fwdEnd() || !p.valueBytes(x)) continue;
                taken[x] = 1;
                layerInputs_.push_back(x);
            }
        }
    }
    sortValuesByName(p, layerInputs_);
}


std::shared_ptr<BudgetPlanner::Network> BudgetPlanner::buildNetwork(const std::vector<uint8_t>* banned) const {
    const Program& p = *program_;
    auto net = std::make_shared<Network>();
    Network& n = *net;
    n.source = n.graph.addNode();
    n.sink = n.graph.addNode();
    n.sourceArc.assign(candidates_.size(), lemon::INVALID);
    n.opNode.assign(candidates_.size(), lemon::INVALID);
    std::vector<lemon::SmartDigraph::Node> valueNode(p.values().size(), lemon::INVALID);
    auto freeOp = [&](OpId op) {
        const uint32_t k = candidateIndex_[op];
        return k != kNoId && !(banned && (*banned)[k]);
    };
    for (OpId op : coneOps_) {
        const uint32_t k = candidateIndex_[op];
        lemon::SmartDigraph::Node from = n.source;
        if (freeOp(op)) {
            n.opNode[k] = n.graph.addNode();
            n.sourceArc[k] = n.graph.addArc(n.source, n.opNode[k]);
            from = n.opNode[k];
            for (ValueId x : p.op(op).operands)
                if (x != kNoId && x < valueNode.size() && valueNode[x] != lemon::INVALID)
                    n.cap[n.graph.addArc(valueNode[x], n.opNode[k])] = kInfinite;
        }
        for (ValueId r : p.op(op).results) {
            if (resident_[r]) continue;
            valueNode[r] = n.graph.addNode();
            n.valueArcs.push_back({n.graph.addArc(from, valueNode[r]), r});
            if (neededByBackward_[r]) n.cap[n.graph.addArc(valueNode[r], n.sink)] = kInfinite;
        }
    }
    return net;
}

std::vector<uint8_t> BudgetPlanner::cutRecomputeSet(double lambda, const std::vector<uint8_t>* banned,
                                                     const std::vector<int64_t>* valueCaps) {
    const Program& p = *program_;
    std::shared_ptr<Network> own = banned ? buildNetwork(banned) : net_;
    Network& n = *own;
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        if (n.sourceArc[k] == lemon::INVALID) continue;
        // Above the bytes of its results, recomputing an op never beats saving them: capping
        // there keeps the cut and spares Preflow pushing excess it must send back.
        const double x = std::min(lambda * costs_.cost(candidates_[k]), double(resultBytes_[k]) + 1);
        n.cap[n.sourceArc[k]] = x >= double(kMaxFinite) ? kMaxFinite : int64_t(std::llround(x));
    }
    for (const auto& [arc, v] : n.valueArcs)
        n.cap[arc] = valueCaps ? (*valueCaps)[v] : p.valueBytes(v);

    // The linked elevator lifts a node to the top in O(1) (the array one walks every level,
    // quadratic here where most op nodes end cut off from the sink).
    using Preflow = lemon::Preflow<lemon::SmartDigraph, lemon::SmartDigraph::ArcMap<int64_t>>::
        SetStandardElevator<lemon::LinkedElevator<lemon::SmartDigraph, lemon::SmartDigraph::Node>>::Create;
    Preflow preflow(n.graph, n.cap, n.source, n.sink);
    preflow.runMinCut();
    // The smallest sink side: nodes that still reach the sink in the residual network.
    std::vector<uint8_t> reaches(size_t(n.graph.maxNodeId()) + 1, 0);
    std::vector<lemon::SmartDigraph::Node> queue{n.sink};
    reaches[size_t(n.graph.id(n.sink))] = 1;
    for (size_t q = 0; q < queue.size(); ++q) {
        const auto w = queue[q];
        for (lemon::SmartDigraph::InArcIt a(n.graph, w); a != lemon::INVALID; ++a) {
            const auto u = n.graph.source(a);
            if (!reaches[size_t(n.graph.id(u))] && preflow.flow(a) < n.cap[a]) {
                reaches[size_t(n.graph.id(u))] = 1;
                queue.push_back(u);
            }
        }
        for (lemon::SmartDigraph::OutArcIt a(n.graph, w); a != lemon::INVALID; ++a) {
            const auto u = n.graph.target(a);
            if (!reaches[size_t(n.graph.id(u))] && preflow.flow(a) > 0) {
                reaches[size_t(n.graph.id(u))] = 1;
                queue.push_back(u);
            }
        }
    }
    std::vector<uint8_t> wanted(candidates_.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        wanted[k] = n.opNode[k] != lemon::INVALID && reaches[size_t(n.graph.id(n.opNode[k]))];
    return normalise(wanted);
}

std::vector<uint8_t> BudgetPlanner::normalise(const std::vector<uint8_t>& wantedIn) const {
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    std::vector<uint8_t> wanted = wantedIn;
    const size_t nc = candidates_.size();
    auto candidateOf = [&](ValueId v) -> uint32_t {
        if (v == kNoId || v >= p.values().size()) return kNoId;
        const OpId d = p.value(v).definingOp;
        return d == kNoId ? kNoId : candidateIndex_[d];
    };
    for (;;) {
        // Close: recompute a wanted op only when the backward or another recomputed op needs it.
        std::vector<uint8_t> inR(nc, 0);
        std::vector<uint32_t> stack;
        for (uint32_t k = 0; k < nc; ++k) {
            if (!wanted[k]) continue;
            for (ValueId r : p.op(candidates_[k]).results)
                if (neededByBackward_[r]) { inR[k] = 1; stack.push_back(k); break; }
        }
        while (!stack.empty()) {
            const uint32_t k = stack.back();
            stack.pop_back();
            for (ValueId x : p.op(candidates_[k]).operands) {
                const uint32_t d = candidateOf(x);
                if (d != kNoId && wanted[d] && !inR[d]) { inR[d] = 1; stack.push_back(d); }
            }
        }
        // The rewriter places a clone before the first backward user of its first result or
        // before the earliest placed clone using it (ALGORITHM.md §7); drop ops it cannot place.
        std::vector<uint8_t> anchored(nc, 0);
        bool allAnchored = true;
        for (size_t k = nc; k-- > 0;) {
            if (!inR[k]) continue;
            const Operation& o = p.op(candidates_[k]);
            bool ok = false;
            for (const Use& use : p.uses(o.results[0]))
                if (use.ancestor != kNoId && a.isBackwardRangeOp(use.ancestor)) { ok = true; break; }
            for (size_t r = 0; r < o.results.size() && !ok; ++r)
                for (const Use& use : p.uses(o.results[r])) {
                    const uint32_t c = use.ancestor == kNoId ? kNoId : candidateIndex_[use.ancestor];
                    if (c != kNoId && inR[c] && anchored[c]) { ok = true; break; }
                }
            anchored[k] = ok;
            if (!ok) { allAnchored = false; wanted[k] = 0; }
        }
        if (allAnchored) return inR;
    }
}

Plan BudgetPlanner::rxPlan(const std::vector<uint8_t>& inR) const {
    const Program& p = *program_;
    Plan plan;
    std::vector<uint8_t> produced(p.values().size(), 0), input(p.values().size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (inR[k]) {
            plan.recomputeOps.push_back(candidates_[k]);
            for (ValueId r : p.op(candidates_[k]).results) produced[r] = 1;
        }
    for (OpId op : plan.recomputeOps) {
        for (ValueId x : p.op(op).operands)
            if (x != kNoId && !produced[x] && !input[x]) { input[x] = 1; plan.subgraphInputs.push_back(x); }
        for (ValueId r : p.op(op).results)
            if (neededByBackward_[r]) {
                plan.midHoldValues.push_back(r);
                plan.memorySavedBytes += p.valueBytes(r);
            }
    }
    for (ValueId x : plan.subgraphInputs)
        if (!resident_[x]) plan.savedValues.push_back(x);
    sortValuesByName(p, plan.savedValues);
    sortValuesByName(p, plan.midHoldValues);
    sortValuesByName(p, plan.subgraphInputs);
    plan.maxRecomputeDepth = plan.recomputeOps.size();
    return plan;
}

const BudgetPlanner::Evaluated& BudgetPlanner::evaluate(const std::vector<uint8_t>& inR, bool exact) {
    auto& pool = exact ? exactPool_ : pool_;
    const uint64_t h = hashSet(inR);
    if (auto it = pool.find(h); it != pool.end()) return it->second;
    Evaluated e;
    e.inR = inR;
    e.hash = h;
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (inR[k]) e.cost += costs_.cost(candidates_[k]);
    e.peak = simulatePeak(inR);
    e.activation = e.peak == std::numeric_limits<int64_t>::max() ? e.peak : e.peak - original_.residentBytes;
    return pool.emplace(h, std::move(e)).first->second;
}

const BudgetPlanner::Evaluated& BudgetPlanner::evaluateLambda(double lambda) {
    if (auto it = lambdaPlans_.find(lambda); it != lambdaPlans_.end()) return pool_.at(it->second);
    const Evaluated& e = evaluate(cutRecomputeSet(lambda, nullptr, nullptr));
    lambdaPlans_[lambda] = e.hash;
    return e;
}

void BudgetPlanner::exploreGrid() {
    if (gridDone_) return;
    gridDone_ = true;
    evaluate(std::vector<uint8_t>(candidates_.size(), 0));  // no recompute
    if (candidates_.empty()) return;
    evaluateLambda(0.0);
    // Every second power of two; refineAround bisects between the neighbours of a budget.
    // Large programs take every fourth power: each cut costs a Preflow over the whole cone,
    // and refineAround's geometric bisection recovers the resolution around a budget.
    const int step = candidates_.size() > options_.coarseGridAbove ? 4 : 2;
    for (int k = -options_.gridSteps; k <= options_.gridSteps; k += step) evaluateLambda(lambdaScale_ * std::ldexp(1.0, k));
}

const BudgetPlanner::Evaluated* BudgetPlanner::bestFitting(int64_t budget, bool exactPool) const {
    const Evaluated* best = nullptr;
    for (const auto& [h, e] : exactPool ? exactPool_ : pool_) {
        if (e.activation > budget || e.peak > original_.peakBytes) continue;
        if (!best || e.cost < best->cost || (e.cost == best->cost && e.activation < best->activation) ||
            (e.cost == best->cost && e.activation == best->activation && e.hash < best->hash))
            best = &e;
    }
    return best;
}

void BudgetPlanner::refineAround(int64_t budget) {
    if (candidates_.empty()) return;
    // Grid λ's ascending: small λ recomputes more. lo: largest λ whose plan fits.
    double lo = -1, hi = -1;
    for (const auto& [lambda, h] : lambdaPlans_) {
        const Evaluated& e = pool_.at(h);
        if (e.activation <= budget && e.peak <= original_.peakBytes) lo = lambda;
        else if (lo >= 0 && hi < 0) hi = lambda;
    }
    if (lo < 0) return;
    if (hi < 0) hi = lo * 4 + lambdaScale_;
    for (int s = 0; s < options_.refineSteps; ++s) {
        const double mid = lo > 0 ? std::sqrt(lo * hi) : hi / 16;
        const Evaluated& e = evaluateLambda(mid);
        if (e.activation <= budget && e.peak <= original_.peakBytes) lo = mid;
        else hi = mid;
    }
}

void BudgetPlanner::improveGreedy(int64_t budget) {
    // Local search over single flips (recompute one op more or one op less), starting from
    // the cheapest fitting plan or, when none fits, the lowest one: first reach the budget,
    // then cut cost while it still fits. Small programs try every op each round; big ones
    // only the costliest recomputed ops once.
    auto fits = [&](const Evaluated& e) { return e.activation <= budget && e.peak <= original_.peakBytes; };
    const Evaluated* start = bestFitting(budget, false);
    if (!start) {
        for (const auto& [h, e] : pool_)
            if (e.peak <= original_.peakBytes && (!start || e.activation < start->activation)) start = &e;
        if (!start) return;
    }
    std::vector<uint8_t> current = start->inR;
    int64_t curActivation = start->activation;
    double curCost = start->cost;
    bool curFits = fits(*start);
    const bool small = candidates_.size() <= 64;
    for (int round = 0; round < (small ? 64 : 1); ++round) {
        std::vector<uint32_t> order;
        for (uint32_t k = 0; k < current.size(); ++k)
            if (small || current[k]) order.push_back(k);
        if (!small) {
            std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
                return costs_.cost(candidates_[x]) > costs_.cost(candidates_[y]);
            });
            order.resize(std::min<size_t>(order.size(), 6));
        }
        bool moved = false;
        std::vector<uint8_t> bestSet;
        int64_t bestActivation = curActivation;
        double bestCost = curCost;
        for (uint32_t k : order) {
            std::vector<uint8_t> wanted = current;
            wanted[k] = !wanted[k];
            const Evaluated& e = evaluate(normalise(wanted));
            if (e.peak > original_.peakBytes) continue;
            const bool better = curFits ? (fits(e) && e.cost < bestCost)
                                        : (e.activation < bestActivation ||
                                           (e.activation == bestActivation && e.cost < bestCost));
            if (better) {
                bestSet = e.inR;
                bestActivation = e.activation;
                bestCost = e.cost;
                moved = true;
                if (!small) break;
            }
        }
        if (!moved) break;
        current = bestSet;
        curActivation = bestActivation;
        curCost = bestCost;
        curFits = curActivation <= budget;
    }
}

int64_t BudgetPlanner::minimumActivationPeak() {
    exploreGrid();
    int64_t best = originalActivationPeak();
    for (const auto& [h, e] : pool_)
        if (e.peak <= original_.peakBytes) best = std::min(best, e.activation);
    return best;
}

int64_t BudgetPlanner::budgetFromFraction(double fraction) {
    if (!(fraction >= 0 && fraction <= 1))
        throw Error("a budget fraction must lie in 0.0-1.0, found " + std::to_string(fraction));
    const int64_t lo = minimumActivationPeak(), hi = originalActivationPeak();
    return lo + int64_t(std::llround(fraction * double(hi - lo)));
}

BudgetPlan BudgetPlanner::planForBudget(int64_t budgetBytes) {
    if (candidates_.size() <= std::min(options_.exactBelow, options_.maxExactOps)) {
        BudgetPlan plan = exactPlanForBudget(budgetBytes);  // small: the optimum, cheaply
        plan.source = "budget";
        return plan;
    }
    exploreGrid();
    refineAround(budgetBytes);
    improveGreedy(budgetBytes);
    const Evaluated* best = bestFitting(budgetBytes, false);
    if (!best) {
        const int64_t lo = minimumActivationPeak();
        throw Error("budget " + humanBytes(budgetBytes) + " (" + std::to_string(budgetBytes) +
                    " bytes) cannot be met: the smallest feasible activation peak is " + humanBytes(lo) + " (" +
                    std::to_string(lo) + " bytes)");
    }
    BudgetPlan plan = makePlan(best->inR, "budget");
    plan.budgetBytes = budgetBytes;
    return plan;
}

void BudgetPlanner::runExact() {
    if (exactDone_) return;
    const size_t n = candidates_.size();
    if (n > options_.maxExactOps)
        throw Error("exact mode enumerates at most " + std::to_string(options_.maxExactOps) +
                    " candidate ops; this program has " + std::to_string(n));
    std::unordered_set<uint64_t> seen;
    std::vector<uint8_t> wanted(n, 0);
    for (uint64_t mask = 0; mask < (uint64_t(1) << n); ++mask) {
        for (size_t k = 0; k < n; ++k) wanted[k] = (mask >> k) & 1;
        const std::vector<uint8_t> inR = normalise(wanted);
        if (seen.insert(hashSet(inR)).second) evaluate(inR, true);
    }
    exactDone_ = true;
}

BudgetPlan BudgetPlanner::exactPlanForBudget(int64_t budgetBytes) {
    runExact();
    const Evaluated* best = bestFitting(budgetBytes, true);
    if (!best) {
        int64_t lo = std::numeric_limits<int64_t>::max();
        for (const auto& [h, e] : exactPool_)
            if (e.peak <= original_.peakBytes) lo = std::min(lo, e.activation);
        throw Error("budget " + humanBytes(budgetBytes) + " (" + std::to_string(budgetBytes) +
                    " bytes) cannot be met: the smallest feasible activation peak is " + humanBytes(lo) + " (" +
                    std::to_string(lo) + " bytes)");
    }
    BudgetPlan plan = makePlan(best->inR, "exact");
    plan.budgetBytes = budgetBytes;
    return plan;
}

namespace {
// Keeps plans whose peak strictly falls as cost rises (input: any order).
template <class T, class Cost, class Peak>
std::vector<T> paretoFilter(std::vector<T> items, Cost cost, Peak peak) {
    std::sort(items.begin(), items.end(), [&](const T& x, const T& y) {
        return cost(x) != cost(y) ? cost(x) < cost(y) : peak(x) < peak(y);
    });
    std::vector<T> out;
    for (auto& it : items)
        if (out.empty() || peak(it) < peak(out.back())) out.push_back(std::move(it));
    return out;
}
}  // namespace

void BudgetPlanner::consider(const BudgetPlan& plan) {
    std::vector<uint8_t> inR(candidates_.size(), 0);
    for (OpId op : plan.recomputeOps) {
        if (op >= candidateIndex_.size() || candidateIndex_[op] == kNoId) return;
        inR[candidateIndex_[op]] = 1;
    }
    if (normalise(inR) != inR) return;
    evaluate(inR);
}

std::vector<BudgetPlan> BudgetPlanner::frontier(int points, const std::vector<BudgetPlan>& references) {
    if (points < 1) throw Error("--points expects at least 1, found " + std::to_string(points));
    exploreGrid();
    if (candidates_.size() <= std::min(options_.exactBelow, options_.maxExactOps)) {
        runExact();  // small program: every recompute set is a candidate
        for (const auto& [h, e] : exactPool_) pool_.emplace(h, e);
    }
    for (const BudgetPlan& r : references) consider(r);
    const int64_t lo = minimumActivationPeak(), hi = originalActivationPeak();
    std::vector<int64_t> budgets;
    for (int i = points - 1; i >= 0; --i)
        budgets.push_back(points == 1 ? hi : lo + int64_t(std::llround(double(hi - lo) * i / (points - 1))));
    for (const BudgetPlan& r : references)
        if (r.activationPeakBytes >= lo && r.activationPeakBytes <= hi) budgets.push_back(r.activationPeakBytes);
    std::sort(budgets.rbegin(), budgets.rend());
    budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
    for (int64_t b : budgets) refineAround(b);
    for (int64_t b : budgets) improveGreedy(b);
    // Answer every budget from the final pool, so that a smaller budget never costs less.
    std::vector<const Evaluated*> chosen;
    std::vector<int64_t> chosenBudget;
    for (int64_t b : budgets) {
        const Evaluated* e = bestFitting(b, false);
        if (!e) continue;
        if (!chosen.empty() && chosen.back()->hash == e->hash) continue;
        chosen.push_back(e);
        chosenBudget.push_back(b);
    }
    std::vector<std::pair<const Evaluated*, int64_t>> rows;
    for (size_t i = 0; i < chosen.size(); ++i) rows.push_back({chosen[i], chosenBudget[i]});
    rows = paretoFilter(
        rows, [](const auto& r) { return r.first->cost; }, [](const auto& r) { return r.first->activation; });
    std::vector<BudgetPlan> out;
    for (const auto& [e, b] : rows) {
        BudgetPlan plan = makePlan(e->inR, "budget");
        plan.budgetBytes = b;
        out.push_back(std::move(plan));
    }
    return out;
}

std::vector<BudgetPlan> BudgetPlanner::exactFrontier() {
    runExact();
    std::vector<const Evaluated*> all;
    for (const auto& [h, e] : exactPool_)
        if (e.peak <= original_.peakBytes) all.push_back(&e);
    all = paretoFilter(
        all, [](const Evaluated* e) { return e->cost; }, [](const Evaluated* e) { return e->activation; });
    std::vector<BudgetPlan> out;
    for (const Evaluated* e : all) {
        BudgetPlan plan = makePlan(e->inR, "exact");
        plan.budgetBytes = e->activation;
        out.push_back(std::move(plan));
    }
    return out;
}

BudgetPlan BudgetPlanner::makePlan(const std::vector<uint8_t>& inR, const std::string& source) {
    const Program& p = *program_;
    const Evaluated& e = evaluate(inR);
    BudgetPlan out;
    out.source = source;
    out.plan = rxPlan(inR);
    out.recomputeOps = out.plan.recomputeOps;
    out.recomputedValues = out.plan.midHoldValues;
    // Saved: needed values the forward keeps, plus the clones' non-resident inputs.
    std::vector<uint8_t> produced(p.values().size(), 0), saved(p.values().size(), 0);
    for (OpId op : out.recomputeOps)
        for (ValueId r : p.op(op).results) produced[r] = 1;
    for (ValueId v = 0; v < p.values().size(); ++v)
        if (neededByBackward_[v] && !produced[v]) saved[v] = 1;
    for (ValueId x : out.plan.savedValues) saved[x] = 1;
    for (ValueId v = 0; v < p.values().size(); ++v)
        if (saved[v]) out.savedValues.push_back(v);
    sortValuesByName(p, out.savedValues);
    // Reported figures come from the real rewritten program (the search used simulatePeak).
    const RewriteResult rw = partitionJointGraph(*analysis_, out.plan);
    if (!rw.ok()) throw Error("rewriting the " + source + " plan failed: " + rw.error);
    const MemoryProfile m = profileMemory(*rw.program, spec_.inputs, spec_.fwdOpEndIdx);
    out.peakBytes = m.peakBytes;
    out.activationPeakBytes = m.peakBytes - m.residentBytes;
    out.recomputeCost = e.cost;
    for (OpId op : out.recomputeOps) out.recomputeFlops += costs_.flops(op);
    return out;
}

int64_t BudgetPlanner::savedBytes(const std::vector<uint8_t>& inR) const {
    const Program& p = *program_;
    const Plan plan = rxPlan(inR);
    std::vector<uint8_t> produced(p.values().size(), 0);
    for (OpId op : plan.recomputeOps)
        for (ValueId r : p.op(op).results) produced[r] = 1;
    int64_t bytes = 0;
    for (ValueId v = 0; v < p.values().size(); ++v)
        if (neededByBackward_[v] && !produced[v]) bytes += p.valueBytes(v);
    for (ValueId x : plan.savedValues)
        if (!neededByBackward_[x] || produced[x]) bytes += p.valueBytes(x);
    return bytes;
}

BudgetPlan BudgetPlanner::noRecomputePlan() {
    return makePlan(std::vector<uint8_t>(candidates_.size(), 0), "no-recompute");
}

BudgetPlan BudgetPlanner::seedPlan() {
    RecomputeSolver solver(program_, spec_);
    const SolveResult r = solver.solve(config_);
    if (!r.ok()) throw Error("the seed's auto_recompute failed: " + r.error);
    BudgetPlan out;
    out.source = "seed";
    out.plan = r.plan;
    out.recomputeOps = r.plan.recomputeOps;
    out.recomputedValues = r.plan.midHoldValues;
    for (ValueId v : r.plan.savedValues)
        if (!resident_[v]) out.savedValues.push_back(v);
    out.peakBytes = r.rewrittenMemory.peakBytes;
    out.activationPeakBytes = r.rewrittenMemory.peakBytes - r.rewrittenMemory.residentBytes;
    for (OpId op : out.recomputeOps) {
        out.recomputeFlops += costs_.flops(op);
        out.recomputeCost += costs_.cost(op);
    }
    return out;
}

std::vector<uint8_t> BudgetPlanner::bansForPyTorch(bool allowlist) const {
    // PyTorch bans recomputing compute-intensive ops always and, unless aggressive, every
    // op outside its allowlist (here: the config's recomputable ops).
    const Program& p = *program_;
    const std::vector<std::string> allowed = config_.effectiveRecomputableOps();
    std::vector<uint8_t> banned(candidates_.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        const std::string_view name = p.opName(candidates_[k]);
        if (contains(config_.computeIntensiveOps, name)) banned[k] = 1;
        if (allowlist && !contains(allowed, name) && !name.starts_with("builtin.")) banned[k] = 1;
    }
    return banned;
}

std::vector<int64_t> BudgetPlanner::pytorchValueWeights() const {
    // partitioners.py get_node_weight: size × 1.1^clamp(dist_from_bw, 1, 100), doubled when
    // the value is not materialised (every user fuses with its producer: pointwise ops of the
    // allowlist, neither compute-intensive nor random). dist_from_bw: graph distance to the
    // nearest backward op (PyTorch: 0 for nodes outside the forward, else min over users + 1).
    const Program& p = *program_;
    const Analysis& a = *analysis_;
    const auto gops = a.globalOps();
    const std::vector<std::string> allowed = config_.effectiveRecomputableOps();
    auto fusible = [&](OpId op) {
        const std::string_view name = p.opName(op);
        return contains(allowed, name) && !contains(config_.computeIntensiveOps, name) &&
               !contains(config_.randomOps, name);
    };
    constexpr int64_t kFar = 1000000000;
    std::vector<int64_t> dist(p.ops().size(), kFar);
    for (size_t i = gops.size(); i-- > 0;) {
        const OpId op = gops[i];
        if (int64_t(i) > a.fwdEnd()) { dist[op] = 0; continue; }
        for (ValueId r : p.op(op).results)
            for (const Use& use : p.uses(r))
                if (use.ancestor != kNoId && use.ancestor < dist.size())
                    dist[op] = std::min(dist[op], dist[use.ancestor] + 1);
    }
    std::vector<int64_t> weight(p.values().size(), 0);
    for (ValueId v = 0; v < p.values().size(); ++v) {
        const int64_t bytes = p.valueBytes(v);
        const OpId d = p.value(v).definingOp;
        if (d == kNoId || !bytes) { weight[v] = bytes; continue; }
        bool materialized = !fusible(d);
        for (const Use& use : p.uses(v))
            if (use.ancestor == kNoId || !fusible(use.ancestor)) materialized = true;
        const double w = double(bytes) * std::pow(1.1, double(std::clamp<int64_t>(dist[d], 1, 100))) *
                         (materialized ? 1.0 : 2.0);
        weight[v] = w >= double(kMaxFinite) ? kMaxFinite : std::max<int64_t>(1, int64_t(std::llround(w)));
    }
    return weight;
}

BudgetPlan BudgetPlanner::pytorchStylePlan(double f) {
    if (!(f >= 0 && f <= 1)) throw Error("a PyTorch memory budget must lie in 0.0-1.0, found " + std::to_string(f));
    const Program& p = *program_;
    auto finish = [&](const std::vector<uint8_t>& inR) {
        BudgetPlan plan = makePlan(inR, "pytorch-style");
        plan.budgetFraction = f;
        return plan;
    };
    const std::vector<uint8_t> banDefault = bansForPyTorch(true), banAggressive = bansForPyTorch(false);
    const std::vector<int64_t> weights = pytorchValueWeights();
    const std::vector<uint8_t> runtimeOptimized = cutRecomputeSet(0.0, &banDefault, &weights);
    if (f >= 1) return finish(runtimeOptimized);
    if (f <= 0) {
        // Budget 0: save only what cannot be recomputed (PyTorch: the inputs).
        const std::vector<uint8_t> none(candidates_.size(), 0);
        return finish(cutRecomputeSet(0.0, &none, &weights));
    }
    const double maxAct = double(savedBytes(runtimeOptimized)), minAct = 0;
    if (maxAct <= minAct) return finish(runtimeOptimized);
    auto ratio = [&](const std::vector<uint8_t>& inR) { return (double(savedBytes(inR)) - minAct) / (maxAct - minAct); };
    const std::vector<uint8_t> aggressive = cutRecomputeSet(0.0, &banAggressive, &weights);
    if (ratio(aggressive) < f) return finish(aggressive);
    // Knapsack over the banned compute-intensive ops: keep (ban) the ones with the most
    // runtime per normalised byte while they fit the budget; the rest may be recomputed.
    std::vector<uint32_t> items;
    for (uint32_t k = 0; k < candidates_.size(); ++k)
        if (banAggressive[k]) items.push_back(k);
    auto memory = [&](uint32_t k) {
        int64_t b = 0;
        for (ValueId r : p.op(candidates_[k]).results) b += p.valueBytes(r);
        return double(b) / (maxAct - minAct);
    };
    std::stable_sort(items.begin(), items.end(), [&](uint32_t x, uint32_t y) {
        const double mx = memory(x), my = memory(y);
        const double rx = mx > 0 ? costs_.flops(candidates_[x]) / mx : std::numeric_limits<double>::infinity();
        const double ry = my > 0 ? costs_.flops(candidates_[y]) / my : std::numeric_limits<double>::infinity();
        return rx > ry;
    });
    std::vector<uint8_t> banned = banAggressive;
    double used = 0;
    for (uint32_t k : items) {
        if (used + memory(k) <= f) used += memory(k);
        else banned[k] = 0;  // dont_ban
    }
    return finish(cutRecomputeSet(0.0, &banned, &weights));
}

BudgetPlan BudgetPlanner::fullCheckpointPlan() {
    // Save the layer inputs, recompute everything else inside layers, and save what the
    // backward needs from outside them (ops there are never recomputed).
    findLayerInputs();
    const Program& p = *program_;
    std::vector<int64_t> caps(p.values().size(), 0);
    for (ValueId v = 0; v < p.values().size(); ++v) {
        // Values of ops no plan recomputes (dropout) are saved at their plain price.
        const OpId d = p.value(v).definingOp;
        const bool fixed = d == kNoId || candidateIndex_[d] == kNoId;
        caps[v] = p.valueBytes(v) + (fixed ? 0 : kAvoid);
    }
    for (ValueId v : layerInputs_) caps[v] = 1;
    std::vector<uint8_t> outside(candidates_.size(), 0);
    for (uint32_t k = 0; k < candidates_.size(); ++k) {
        outside[k] = !inLayer_[k];
        if (outside[k])
            for (ValueId r : p.op(candidates_[k]).results) caps[r] = p.valueBytes(r);
    }
    // A layer input is never recomputed: recompute segments start at layer inputs and never
    // reach across a layer boundary.
    for (ValueId v : layerInputs_) {
        const OpId d = p.value(v).definingOp;
        if (d != kNoId && candidateIndex_[d] != kNoId) outside[candidateIndex_[d]] = 1;
    }
    return makePlan(cutRecomputeSet(0.0, &outside, &caps), "full-checkpoint");
}

int64_t BudgetPlanner::simulatedPeakOf(const BudgetPlan& plan) const {
    std::vector<uint8_t> inR(candidates_.size(), 0);
    for (OpId op : plan.recomputeOps) {
        if (op >= candidateIndex_.size() || candidateIndex_[op] == kNoId) return -1;
        inR[candidateIndex_[op]] = 1;
    }
    return simulatePeak(inR);
}

int64_t BudgetPlanner::activationLowerBound() const {
    const Program& p = *program_;
    const auto gops = analysis_->globalOps();
    const size_t n = gops.size();
    const int64_t fwdEnd = analysis_->fwdEnd();
    // Live ranges no plan changes. Clones read forward values only and sit before backward
    // ops, so backward values keep their ranges; a recomputed forward original lives to its
    // last use the rewriter does not redirect; an op no plan recomputes keeps its values.
    std::vector<int64_t> delta(n + 2, 0);
    for (ValueId v = 0; v < p.values().size(); ++v) {
        const uint32_t d = defIndex_[v];
        if (d == kNoId || resident_[v]) continue;
        const int64_t b = ownedBytes_[v];
        if (!b) continue;
        uint32_t end = std::max(d, lastUse_[v]);
        const OpId def = p.value(v).definingOp;
        if (int64_t(d) <= fwdEnd && neededByBackward_[v] && candidateIndex_[def] != kNoId &&
            lastRedirectedUse_[v] != kNoId) {
            end = std::max(d, lastFixedUse_[v]);
            // An op is cloned once: original or clone holds the value from its first
            // redirected backward use to its last.
            uint32_t first = lastRedirectedUse_[v];
            for (const Use& use : p.uses(v))
                if (use.user == use.ancestor && analysis_->isBackwardRangeOp(use.user))
                    first = std::min(first, analysis_->opIndex(use.user));
            if (first > end) {
                delta[first] += b;
                delta[size_t(lastRedirectedUse_[v]) + 1] -= b;
            } else {
                end = std::max(end, lastRedirectedUse_[v]);
            }
        }
        delta[d] += b;
        delta[end + 1] -= b;
    }
    // Every operand of an op lies in one of these ranges, so the bound includes what the op reads.
    int64_t live = 0, bound = 0;
    for (size_t i = 0; i < n; ++i) {
        live += delta[i];
        bound = std::max(bound, live);
    }
    return bound;
}

PeakBreakdown BudgetPlanner::peakBreakdown(const BudgetPlan& plan) const {
    const RewriteResult rw = partitionJointGraph(*analysis_, plan.plan);
    if (!rw.ok()) throw Error("rewriting the " + plan.source + " plan failed: " + rw.error);
    const Program& q = *rw.program;
    const MemoryProfile m = profileMemory(q, spec_.inputs, spec_.fwdOpEndIdx);
    if (!m.ok()) throw Error(m.error);
    const auto& gops = q.globalBlock().ops;
    PeakBreakdown out;
    out.peakOpIndex = m.peakOpIndex;
    if (m.peakOpIndex < gops.size()) out.peakOpName = std::string(q.opName(gops[m.peakOpIndex]));
    out.inBackward = int64_t(m.peakOpIndex) > rw.fwdOpEndIdx;
    std::vector<uint8_t> fetched(q.values().size(), 0), clone(q.ops().size(), 0);
    const std::vector<uint8_t> resident = exec::residentValuesOf(q, spec_.inputs);
    for (OpId op : gops) {
        const std::string_view name = q.opName(op);
        if (isFetchOp(name))
            for (ValueId x : q.op(op).operands)
                if (x != kNoId && x < fetched.size()) fetched[x] = 1;
    }
    for (OpId c : rw.clones) clone[c] = 1;
    // The buffers alive at the peak (exec/Liveness.h, what profileMemory summed), by owner.
    const exec::Liveness liveness = exec::analyzeLiveness(q, resident);
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
            for (ValueId r : p.op(op).results) s[r] = ValueSide::Recomputed;
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
