#pragma once
// An independent max flow for checking MinCut: Edmonds-Karp on the whole network (∞ = sum of
// the finite capacities + 1) and the nodes that can reach sink in its residual graph.
#include <deque>
#include <utility>
#include <vector>

#include "algorithms/FlowNetwork.h"

namespace rx::test {

struct ReferenceCut { int64_t value = 0; std::vector<uint8_t> sinkSide; };
inline ReferenceCut edmondsKarp(const FlowNetwork& net) {
    const size_t n = net.nodes.size();
    struct E { uint32_t to; int64_t cap; uint32_t rev; };
    std::vector<std::vector<E>> g(n);
    int64_t sum = 0;
    for (const auto& a : net.arcs) if (!a.infinite) sum += a.capacity;
    for (const auto& a : net.arcs) {
        const int64_t c = a.infinite ? sum + 1 : a.capacity;
        if (c <= 0) continue;
        g[a.from].push_back({a.to, c, uint32_t(g[a.to].size())});
        g[a.to].push_back({a.from, 0, uint32_t(g[a.from].size() - 1)});
    }
    ReferenceCut rc;
    while (true) {
        std::vector<std::pair<uint32_t, uint32_t>> prev(n, {kNoId, kNoId});
        std::deque<uint32_t> q{FlowNetwork::kSource};
        prev[FlowNetwork::kSource] = {FlowNetwork::kSource, 0};
        while (!q.empty() && prev[FlowNetwork::kSink].first == kNoId) {
            const uint32_t x = q.front();
            q.pop_front();
            for (uint32_t k = 0; k < g[x].size(); ++k)
                if (g[x][k].cap > 0 && prev[g[x][k].to].first == kNoId) { prev[g[x][k].to] = {x, k}; q.push_back(g[x][k].to); }
        }
        if (prev[FlowNetwork::kSink].first == kNoId) break;
        int64_t push = INT64_MAX;
        for (uint32_t v = FlowNetwork::kSink; v != FlowNetwork::kSource; v = prev[v].first)
            push = std::min(push, g[prev[v].first][prev[v].second].cap);
        for (uint32_t v = FlowNetwork::kSink; v != FlowNetwork::kSource; v = prev[v].first) {
            E& e = g[prev[v].first][prev[v].second];
            e.cap -= push;
            g[v][e.rev].cap += push;
        }
        rc.value += push;
    }
    // reach sink in the residual graph: reverse search over edges with residual capacity
    rc.sinkSide.assign(n, 0);
    rc.sinkSide[FlowNetwork::kSink] = 1;
    std::deque<uint32_t> q{FlowNetwork::kSink};
    while (!q.empty()) {
        const uint32_t w = q.front();
        q.pop_front();
        for (const E& e : g[w]) {  // e: w -> x; its reverse x -> w has capacity g[x][e.rev].cap
            const uint32_t x = e.to;
            if (!rc.sinkSide[x] && g[x][e.rev].cap > 0) { rc.sinkSide[x] = 1; q.push_back(x); }
        }
    }
    return rc;
}


}  // namespace rx::test
