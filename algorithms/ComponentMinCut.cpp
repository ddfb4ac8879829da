// The min cut of ComponentMinCut.h: contraction and components once, then per solve shortest
// augmenting paths in the small components and one Preflow over the large ones.
#include "algorithms/ComponentMinCut.h"

#include "algorithms/LemonSmartGraph.h"

#include <lemon/elevator.h>
#include <lemon/preflow.h>

#include <algorithm>
#include <limits>
#include <numeric>

namespace rx {

namespace {
using Graph = lemon::SmartDigraph;
using CapacityMap = Graph::ArcMap<int64_t>;
using LinkedPreflow = lemon::Preflow<Graph, CapacityMap>::SetStandardElevator<
    lemon::LinkedElevator<Graph, Graph::Node>>::Create;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
}  // namespace

struct ComponentMinCut::Large {
    Graph graph;
    CapacityMap capacity{graph};
    std::vector<uint32_t> kept;  // by graph arc: the kept arc
    std::unique_ptr<LinkedPreflow> preflow;
};

ComponentMinCut::~ComponentMinCut() = default;

ComponentMinCut::ComponentMinCut(size_t nodeCount, uint32_t source, uint32_t sink, const std::vector<Arc>& arcs,
                                 int64_t infiniteCapacity, size_t smallComponent)
    : nodeCount_(nodeCount), source_(source), sink_(sink), infiniteCapacity_(infiniteCapacity) {
    const size_t n = nodeCount;
    infinite_.resize(arcs.size());
    for (size_t a = 0; a < arcs.size(); ++a) infinite_[a] = arcs[a].infinite;

    // Merged nodes: reached from the source by ∞ arcs (1), reaching the sink by ∞ arcs (2).
    {
        std::vector<uint32_t> outOff(n + 1, 0), inOff(n + 1, 0), outList, inList;
        for (const Arc& a : arcs)
            if (a.infinite) { ++outOff[a.from + 1]; ++inOff[a.to + 1]; }
        std::partial_sum(outOff.begin(), outOff.end(), outOff.begin());
        std::partial_sum(inOff.begin(), inOff.end(), inOff.begin());
        outList.resize(outOff[n]);
        inList.resize(inOff[n]);
        std::vector<uint32_t> fo(outOff.begin(), outOff.end() - 1), fi(inOff.begin(), inOff.end() - 1);
        for (const Arc& a : arcs)
            if (a.infinite) { outList[fo[a.from]++] = a.to; inList[fi[a.to]++] = a.from; }
        merged_.assign(n, 0);
        auto spread = [&](uint32_t start, uint8_t mark, const std::vector<uint32_t>& off, const std::vector<uint32_t>& list) {
            std::vector<uint32_t> stack{start};
            merged_[start] |= mark;
            while (!stack.empty()) {
                const uint32_t x = stack.back();
                stack.pop_back();
                for (uint32_t i = off[x]; i < off[x + 1]; ++i)
                    if (!(merged_[list[i]] & mark)) { merged_[list[i]] |= mark; stack.push_back(list[i]); }
            }
        };
        spread(source, 1, outOff, outList);
        spread(sink, 2, inOff, inList);
        for (uint8_t m : merged_)
            if (m == 3) { bounded_ = false; return; }
    }
    auto contracted = [&](uint32_t x) { return merged_[x] == 1 ? source : merged_[x] == 2 ? sink : x; };
    for (uint32_t a = 0; a < arcs.size(); ++a) {
        const uint32_t u = contracted(arcs[a].from), v = contracted(arcs[a].to);
        if (u == sink || v == source || u == v) continue;  // never carries flow
        kept_.push_back({u, v, a});
    }
    flow_.assign(kept_.size(), 0);

    // Components of the inner nodes (union-find over kept arcs between two of them).
    std::vector<uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](uint32_t x) {
        while (parent[x] != x) { parent[x] = parent[parent[x]]; x = parent[x]; }
        return x;
    };
    auto inner = [&](uint32_t x) { return x != source && x != sink; };
    for (const KeptArc& k : kept_)
        if (inner(k.from) && inner(k.to)) {
            const uint32_t a = find(k.from), b = find(k.to);
            if (a != b) parent[a] = b;
        }
    std::vector<uint32_t> size(n, 0);
    std::vector<uint8_t> touched(n, 0);
    for (const KeptArc& k : kept_) {
        if (inner(k.from)) touched[k.from] = 1;
        if (inner(k.to)) touched[k.to] = 1;
    }
    for (uint32_t x = 0; x < n; ++x)
        if (touched[x]) ++size[find(x)];
    // Number the small components (by root) and their nodes (local 2..); the rest is large.
    std::vector<uint32_t> componentOf(n, kNone), local(n, kNone);
    std::vector<uint32_t> rootComponent(n, kNone);
    for (uint32_t x = 0; x < n; ++x) {
        if (!touched[x]) continue;
        const uint32_t r = find(x);
        if (size[r] > smallComponent || size[r] + 2 > 0xffff) continue;
        if (rootComponent[r] == kNone) {
            rootComponent[r] = uint32_t(smallCount_++);
            nodesOf_.push_back(2);
        }
        componentOf[x] = rootComponent[r];
        local[x] = nodesOf_[componentOf[x]]++;
    }
    // Large components: one graph, node 0 the source, 1 the sink.
    large_ = std::make_unique<Large>();
    std::vector<uint32_t> largeNode(n, kNone);
    for (uint32_t x = 0; x < n; ++x)
        if (touched[x] && componentOf[x] == kNone) largeNode[x] = uint32_t(2 + largeNodes_++);
    // Arcs per small component, in kept order.
    std::vector<uint32_t> arcCount(smallCount_ + 1, 0);
    auto componentOfArc = [&](const KeptArc& k) { return inner(k.from) ? componentOf[k.from] : componentOf[k.to]; };
    for (uint32_t i = 0; i < kept_.size(); ++i) {
        const KeptArc& k = kept_[i];
        if (k.from == source && k.to == sink) { direct_.push_back(i); continue; }
        const uint32_t c = componentOfArc(k);
        if (c != kNone) ++arcCount[c + 1];
    }
    arcOff_.assign(smallCount_ + 1, 0);
    std::partial_sum(arcCount.begin(), arcCount.end(), arcOff_.begin());
    localArcs_.resize(arcOff_[smallCount_]);
    std::vector<uint32_t> fill(arcOff_.begin(), arcOff_.end() - 1);
    auto localOf = [&](uint32_t x) -> uint16_t { return x == source ? 0 : x == sink ? 1 : uint16_t(local[x]); };
    if (largeNodes_ > 0) {
        Graph& g = large_->graph;
        g.reserveNode(int(largeNodes_ + 2));
        for (size_t i = 0; i < largeNodes_ + 2; ++i) g.addNode();
    }
    auto graphNode = [&](uint32_t x) { return x == source ? 0u : x == sink ? 1u : largeNode[x]; };
    for (uint32_t i = 0; i < kept_.size(); ++i) {
        const KeptArc& k = kept_[i];
        if (k.from == source && k.to == sink) continue;
        const uint32_t c = componentOfArc(k);
        if (c != kNone) {
            localArcs_[fill[c]++] = {localOf(k.from), localOf(k.to), i};
        } else {
            Graph& g = large_->graph;
            g.addArc(g.nodeFromId(int(graphNode(k.from))), g.nodeFromId(int(graphNode(k.to))));
            large_->kept.push_back(i);
        }
    }
    if (largeNodes_ > 0) {
        Graph& g = large_->graph;
        large_->preflow = std::make_unique<LinkedPreflow>(g, large_->capacity, g.nodeFromId(0), g.nodeFromId(1));
    }
    // Incidence lists per small component and local node.
    incidenceStart_.resize(smallCount_);
    size_t slots = 0;
    for (uint32_t c = 0; c < smallCount_; ++c) {
        incidenceStart_[c] = uint32_t(slots);
        slots += nodesOf_[c] + 1;
    }
    incidenceOff_.assign(slots, 0);
    incidence_.resize(2 * localArcs_.size());
    uint32_t maxNodes = 2;
    for (uint32_t c = 0; c < smallCount_; ++c) {
        const uint32_t base = incidenceStart_[c], nodes = nodesOf_[c];
        maxNodes = std::max(maxNodes, nodes);
        std::vector<uint32_t> degree(nodes, 0);
        for (uint32_t i = arcOff_[c]; i < arcOff_[c + 1]; ++i) { ++degree[localArcs_[i].from]; ++degree[localArcs_[i].to]; }
        uint32_t at0 = 2 * arcOff_[c];
        for (uint32_t u = 0; u < nodes; ++u) { incidenceOff_[base + u] = at0; at0 += degree[u]; }
        incidenceOff_[base + nodes] = at0;
        std::vector<uint32_t> at(incidenceOff_.begin() + base, incidenceOff_.begin() + base + nodes);
        for (uint32_t i = arcOff_[c]; i < arcOff_[c + 1]; ++i) {
            incidence_[at[localArcs_[i].from]++] = i - arcOff_[c];
            incidence_[at[localArcs_[i].to]++] = i - arcOff_[c];
        }
    }
    via_.resize(maxNodes);
    queue_.resize(maxNodes);

    // The residual search's lists over the kept arcs.
    inOff_.assign(n + 1, 0);
    outOff_.assign(n + 1, 0);
    for (const KeptArc& k : kept_) { ++inOff_[k.to + 1]; ++outOff_[k.from + 1]; }
    std::partial_sum(inOff_.begin(), inOff_.end(), inOff_.begin());
    std::partial_sum(outOff_.begin(), outOff_.end(), outOff_.begin());
    inArcs_.resize(kept_.size());
    outArcs_.resize(kept_.size());
    std::vector<uint32_t> fi(inOff_.begin(), inOff_.end() - 1), fo(outOff_.begin(), outOff_.end() - 1);
    for (uint32_t i = 0; i < kept_.size(); ++i) { inArcs_[fi[kept_[i].to]++] = i; outArcs_[fo[kept_[i].from]++] = i; }
    reaches_.assign(n, 0);
    sinkSide_.assign(n, 0);
    search_.reserve(n);
}

void ComponentMinCut::solveSmall(uint32_t c, const std::vector<int64_t>& capacity) {
    const LocalArc* arcs = localArcs_.data() + arcOff_[c];
    const uint32_t* off = incidenceOff_.data() + incidenceStart_[c];
    const uint32_t nodes = nodesOf_[c];
    auto residual = [&](uint32_t i, uint32_t from) {  // spare capacity of local arc i leaving `from`
        const LocalArc& l = arcs[i];
        const int64_t f = flow_[l.kept];
        return l.from == from ? cap(kept_[l.kept], capacity) - f : f;
    };
    for (uint32_t i = arcOff_[c]; i < arcOff_[c + 1]; ++i) flow_[localArcs_[i].kept] = 0;
    for (;;) {
        // Shortest augmenting path from the source (0) to the sink (1).
        std::fill(via_.begin(), via_.begin() + nodes, -1);
        via_[0] = int32_t(0x7fffffff);
        size_t head = 0, tail = 0;
        queue_[tail++] = 0;
        while (head < tail && via_[1] < 0) {
            const uint16_t u = queue_[head++];
            for (uint32_t s = off[u]; s < off[u + 1]; ++s) {
                const uint32_t i = incidence_[s];
                const uint16_t w = arcs[i].from == u ? arcs[i].to : arcs[i].from;
                if (via_[w] >= 0 || residual(i, u) <= 0) continue;
                via_[w] = int32_t(i);
                queue_[tail++] = w;
            }
        }
        if (via_[1] < 0) return;
        int64_t push = std::numeric_limits<int64_t>::max();
        for (uint16_t w = 1; w != 0;) {
            const uint32_t i = uint32_t(via_[w]);
            const uint16_t from = arcs[i].to == w ? arcs[i].from : arcs[i].to;
            push = std::min(push, residual(i, from));
            w = from;
        }
        for (uint16_t w = 1; w != 0;) {
            const uint32_t i = uint32_t(via_[w]);
            const bool forward = arcs[i].to == w;
            flow_[arcs[i].kept] += forward ? push : -push;
            w = forward ? arcs[i].from : arcs[i].to;
        }
    }
}

const std::vector<uint8_t>& ComponentMinCut::solve(const std::vector<int64_t>& capacity, int64_t& flowValue) {
    for (uint32_t i : direct_) flow_[i] = cap(kept_[i], capacity);
    for (uint32_t c = 0; c < smallCount_; ++c) solveSmall(c, capacity);
    if (largeNodes_ > 0) {
        Large& l = *large_;
        for (size_t a = 0; a < l.kept.size(); ++a) l.capacity[l.graph.arcFromId(int(a))] = cap(kept_[l.kept[a]], capacity);
        l.preflow->init();
        l.preflow->startFirstPhase();  // a maximum preflow: enough for the residual cut
        for (size_t a = 0; a < l.kept.size(); ++a) flow_[l.kept[a]] = l.preflow->flow(l.graph.arcFromId(int(a)));
    }
    flowValue = 0;
    for (uint32_t i = inOff_[sink_]; i < inOff_[sink_ + 1]; ++i) flowValue += flow_[inArcs_[i]];
    // networkx's cut: the nodes that reach the sink in the residual graph.
    std::fill(reaches_.begin(), reaches_.end(), 0);
    search_.clear();
    search_.push_back(sink_);
    reaches_[sink_] = 1;
    for (size_t q = 0; q < search_.size(); ++q) {
        const uint32_t w = search_[q];
        for (uint32_t i = inOff_[w]; i < inOff_[w + 1]; ++i) {  // x -> w with spare capacity
            const KeptArc& k = kept_[inArcs_[i]];
            if (!reaches_[k.from] && flow_[inArcs_[i]] < cap(k, capacity)) { reaches_[k.from] = 1; search_.push_back(k.from); }
        }
        for (uint32_t i = outOff_[w]; i < outOff_[w + 1]; ++i) {  // w -> x carrying flow
            const KeptArc& k = kept_[outArcs_[i]];
            if (!reaches_[k.to] && flow_[outArcs_[i]] > 0) { reaches_[k.to] = 1; search_.push_back(k.to); }
        }
    }
    for (size_t x = 0; x < nodeCount_; ++x)
        sinkSide_[x] = merged_[x] == 2 ? 1 : merged_[x] == 1 ? reaches_[source_] : reaches_[x];
    return sinkSide_;
}

}  // namespace rx
