#include "algorithms/MinCut.h"

#include "algorithms/LemonSmartGraph.h"

#include <lemon/elevator.h>
#include <lemon/preflow.h>

#include <algorithm>

namespace rx {

namespace {

// Arc lists by node (CSR), positive arcs only: networkx drops 0-capacity edges from its
// residual network, so they neither carry flow nor connect anything. Each entry holds the
// node at the other end and whether the arc is ∞, so the searches below read one
// contiguous list instead of fetching every arc (a third of a re-solve's cut time).
struct Adjacency {
    struct Edge {
        uint32_t node;      // the arc's other end
        uint32_t infinite;  // 1 for an ∞ arc
    };
    std::vector<uint32_t> outOff, inOff;
    std::vector<Edge> out, in;
    Adjacency(const FlowNetwork& net) {
        const size_t n = net.nodes.size();
        outOff.assign(n + 1, 0);
        inOff.assign(n + 1, 0);
        for (const auto& a : net.arcs)
            if (a.infinite || a.capacity > 0) { ++outOff[a.from + 1]; ++inOff[a.to + 1]; }
        for (size_t i = 0; i < n; ++i) { outOff[i + 1] += outOff[i]; inOff[i + 1] += inOff[i]; }
        out.resize(outOff[n]);
        in.resize(inOff[n]);
        std::vector<uint32_t> fo(outOff.begin(), outOff.end() - 1), fi(inOff.begin(), inOff.end() - 1);
        for (const auto& a : net.arcs)
            if (a.infinite || a.capacity > 0) {
                out[fo[a.from]++] = {a.to, a.infinite ? 1u : 0u};
                in[fi[a.to]++] = {a.from, a.infinite ? 1u : 0u};
            }
    }
};

// Nodes reachable from `start` (forward) or reaching it (backward), over ∞ arcs only or over
// every (positive) arc; with `parent`, the node each was reached from.
std::vector<uint8_t> reach(const Adjacency& adj, size_t nodeCount, uint32_t start, bool forward, bool infiniteOnly,
                           std::vector<uint32_t>* parent = nullptr) {
    std::vector<uint8_t> mark(nodeCount, 0);
    if (parent) parent->assign(nodeCount, kNoId);
    std::vector<uint32_t> queue;
    queue.reserve(nodeCount);  // one allocation: growth copied the queue ~20 times
    queue.push_back(start);
    mark[start] = 1;
    const auto& off = forward ? adj.outOff : adj.inOff;
    const auto& list = forward ? adj.out : adj.in;
    for (size_t q = 0; q < queue.size(); ++q) {
        const uint32_t x = queue[q];
        for (uint32_t k = off[x]; k < off[x + 1]; ++k) {
            const Adjacency::Edge e = list[k];
            if ((infiniteOnly && !e.infinite) || mark[e.node]) continue;
            mark[e.node] = 1;
            if (parent) (*parent)[e.node] = x;
            queue.push_back(e.node);
        }
    }
    return mark;
}

}  // namespace

MinCutResult solveMinCut(const FlowNetwork& net, const Program& program, const MinCutOptions& options) {
    MinCutResult res;
    const size_t n = net.nodes.size();
    res.sinkSide.assign(n, 0);
    if (!net.hasSource()) {
        res.error = "the flow network has no source node (no inputs and no banned value): "
                    "networkx fails with 'node source not in graph'";
        return res;
    }
    if (!net.hasSink()) {
        res.error = "the flow network has no sink node (no backward value in the network): "
                    "networkx fails with 'node sink not in graph'";
        return res;
    }
    const Adjacency adj(net);
    auto positive = [](const FlowNetwork::Arc& a) { return a.infinite || a.capacity > 0; };

    // A path of ∞ arcs from source to sink: networkx raises "unbounded".
    std::vector<uint32_t> parent;
    const std::vector<uint8_t> sStar = reach(adj, n, FlowNetwork::kSource, true, /*infiniteOnly=*/true, &parent);
    if (sStar[FlowNetwork::kSink]) {
        std::vector<uint32_t> path{FlowNetwork::kSink};
        while (path.back() != FlowNetwork::kSource) path.push_back(parent[path.back()]);
        std::reverse(path.begin(), path.end());
        res.infinitePath = path;
        std::string text;
        for (uint32_t x : path) text += (text.empty() ? "" : " -> ") + net.nodeName(x, program);
        res.error = "infinite capacity path, flow unbounded above (networkx raises NetworkXUnbounded): " + text;
        return res;
    }
    const std::vector<uint8_t> tStar = reach(adj, n, FlowNetwork::kSink, false, /*infiniteOnly=*/true);

    // Map network nodes to the graph given to Preflow.
    std::vector<uint32_t> map(n, kNoId);
    std::vector<uint8_t> fromSource;  // reduced: reachable from source by positive arcs
    uint32_t count = 2;
    if (options.reduce) {
        fromSource = reach(adj, n, FlowNetwork::kSource, true, /*infiniteOnly=*/false);
        const std::vector<uint8_t> toSink = reach(adj, n, FlowNetwork::kSink, false, /*infiniteOnly=*/false);
        for (uint32_t i = 0; i < n; ++i) {
            if (sStar[i]) map[i] = 0;
            else if (tStar[i]) map[i] = 1;
            else if (fromSource[i] && toSink[i]) map[i] = count++;
        }
    } else {
        map[FlowNetwork::kSource] = 0;
        map[FlowNetwork::kSink] = 1;
        for (uint32_t i = 2; i < n; ++i) map[i] = count++;
    }

    struct SolvedArc { uint32_t u, v; int64_t cap; bool inf; };
    std::vector<SolvedArc> solved;
    int64_t finiteSum = 0;
    for (const auto& a : net.arcs) {
        if (!positive(a)) continue;
        const uint32_t u = map[a.from], v = map[a.to];
        if (u == kNoId || v == kNoId || u == v) continue;
        if (options.reduce && (v == 0 || u == 1)) continue;  // into source / out of sink: no use
        solved.push_back({u, v, a.capacity, a.infinite});
        if (!a.infinite) {
            if (__builtin_add_overflow(finiteSum, a.capacity, &finiteSum)) {
                res.error = "the sum of the finite capacities overflows 64-bit integers (" +
                            std::to_string(finiteSum) + " + " + std::to_string(a.capacity) + " units)";
                return res;
            }
        }
    }
    if (finiteSum == INT64_MAX) {
        res.error = "the sum of the capacities overflows 64-bit integers";
        return res;
    }
    const int64_t sentinel = finiteSum + 1;  // above any flow: an ∞ arc is never saturated
    // Preflow saturates every arc out of source first: the excesses it then moves around
    // are bounded by their sum, which must fit (unreduced networks keep ∞ source arcs).
    {
        int64_t pushed = 0;
        for (const auto& s : solved)
            if (s.u == 0 && __builtin_add_overflow(pushed, s.inf ? sentinel : s.cap, &pushed)) {
                res.error = "the flow network's capacities out of source (" + std::to_string(finiteSum) +
                            " finite units plus infinite arcs of " + std::to_string(sentinel) +
                            " each) overflow 64-bit integers; solve the reduced network";
                return res;
            }
    }
    res.solvedNodes = count;
    res.solvedArcs = solved.size();

    lemon::SmartDigraph g;
    g.reserveNode(int(count));
    g.reserveArc(int(solved.size()));
    for (uint32_t i = 0; i < count; ++i) g.addNode();
    std::vector<lemon::SmartDigraph::Arc> garcs;
    garcs.reserve(solved.size());
    for (const auto& s : solved) garcs.push_back(g.addArc(g.nodeFromId(int(s.u)), g.nodeFromId(int(s.v))));
    lemon::SmartDigraph::ArcMap<int64_t> cap(g);
    for (size_t k = 0; k < solved.size(); ++k) cap[garcs[k]] = solved[k].inf ? sentinel : solved[k].cap;
    using ArrayPreflow = lemon::Preflow<lemon::SmartDigraph, lemon::SmartDigraph::ArcMap<int64_t>>;
    using LinkedPreflow = ArrayPreflow::SetStandardElevator<
        lemon::LinkedElevator<lemon::SmartDigraph, lemon::SmartDigraph::Node>>::Create;
    std::vector<int64_t> flow(solved.size(), 0);
    auto run = [&](auto& preflow) {
        preflow.runMinCut();
        res.valueUnits = preflow.flowValue();
        for (size_t k = 0; k < solved.size(); ++k) flow[k] = preflow.flow(garcs[k]);
    };
    if (options.linkedElevator) {
        LinkedPreflow preflow(g, cap, g.nodeFromId(0), g.nodeFromId(1));
        run(preflow);
    } else {
        ArrayPreflow preflow(g, cap, g.nodeFromId(0), g.nodeFromId(1));
        run(preflow);
    }
    if (res.valueUnits >= sentinel) {
        res.error = "flow reached the infinite-capacity sentinel: unbounded";
        return res;
    }

    // networkx's cut: sink side = nodes that can reach sink in the residual graph.
    std::vector<uint32_t> inOff(count + 1, 0), outOff(count + 1, 0), inL(solved.size()), outL(solved.size());
    for (const auto& s : solved) { ++inOff[s.v + 1]; ++outOff[s.u + 1]; }
    for (uint32_t i = 0; i < count; ++i) { inOff[i + 1] += inOff[i]; outOff[i + 1] += outOff[i]; }
    {
        std::vector<uint32_t> fi(inOff.begin(), inOff.end() - 1), fo(outOff.begin(), outOff.end() - 1);
        for (uint32_t k = 0; k < solved.size(); ++k) { inL[fi[solved[k].v]++] = k; outL[fo[solved[k].u]++] = k; }
    }
    std::vector<uint8_t> reaches(count, 0);
    std::vector<uint32_t> queue;
    queue.reserve(count);
    queue.push_back(1);
    reaches[1] = 1;
    for (size_t q = 0; q < queue.size(); ++q) {
        const uint32_t w = queue[q];
        for (uint32_t k = inOff[w]; k < inOff[w + 1]; ++k) {  // x -> w with spare capacity
            const uint32_t a = inL[k];
            const uint32_t x = solved[a].u;
            if (!reaches[x] && flow[a] < cap[garcs[a]]) { reaches[x] = 1; queue.push_back(x); }
        }
        for (uint32_t k = outOff[w]; k < outOff[w + 1]; ++k) {  // w -> x carrying flow: x -> w residual
            const uint32_t a = outL[k];
            const uint32_t x = solved[a].v;
            if (!reaches[x] && flow[a] > 0) { reaches[x] = 1; queue.push_back(x); }
        }
    }
    for (uint32_t i = 0; i < n; ++i)
        if (map[i] != kNoId) res.sinkSide[i] = reaches[map[i]];
    if (options.reduce) {
        // Nodes unreachable from source carry no flow: they reach sink iff a positive arc
        // leads from them to a sink-side node.
        std::vector<uint32_t> work;
        for (uint32_t i = 0; i < n; ++i)
            if (res.sinkSide[i]) work.push_back(i);
        while (!work.empty()) {
            const uint32_t w = work.back();
            work.pop_back();
            for (uint32_t k = adj.inOff[w]; k < adj.inOff[w + 1]; ++k) {
                const uint32_t x = adj.in[k].node;
                if (res.sinkSide[x] || fromSource[x]) continue;
                res.sinkSide[x] = 1;
                work.push_back(x);
            }
        }
    }
    int64_t cutSum = 0;
    bool infiniteCut = false;
    for (uint32_t k = 0; k < net.arcs.size(); ++k) {
        const auto& a = net.arcs[k];
        if (!res.sinkSide[a.from] && res.sinkSide[a.to]) {
            res.cutArcs.push_back(k);
            if (a.infinite) infiniteCut = true;
            else cutSum += a.capacity;
        }
    }
    if (infiniteCut || cutSum != res.valueUnits)
        res.error = "internal error: the cut (" + std::to_string(cutSum) + ") does not match the flow value (" +
                    std::to_string(res.valueUnits) + ")";
    return res;
}

}  // namespace rx
