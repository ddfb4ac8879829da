// ComponentMinCut (the budget planner's λ cuts) gives every node the side solveMinCut and an
// independent Edmonds-Karp give it, on random networks of many small components and a few
// large ones, re-solved with new capacities, with every component size limit.
#include <QtTest>

#include <random>

#include "algorithms/ComponentMinCut.h"
#include "algorithms/MinCut.h"
#include "support/ProgramBuilder.h"
#include "support/ReferenceMaxFlow.h"

using namespace rx;
using namespace rx::test;

namespace {

// Clusters of a few value nodes (in -> out by bytes, out -> a later in by ∞, some outs -> sink
// by ∞, source -> some ins by a capacity that changes per solve); `bridges` ∞ arcs between
// clusters join some of them into larger components.
FlowNetwork clusteredNetwork(std::mt19937& rng, size_t clusters, size_t bridges, std::vector<uint32_t>& variable) {
    FlowNetwork net;
    const size_t perCluster = 5;
    net.resizeValues(clusters * perCluster);
    auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
    for (size_t c = 0; c < clusters; ++c) {
        const ValueId first = ValueId(c * perCluster);
        const uint32_t size = 1 + pick(uint32_t(perCluster));
        for (ValueId v = first; v < first + size; ++v) {
            const uint32_t in = net.ensureIn(v), out = net.ensureOut(v);
            if (pick(30) == 0) net.addArc(in, out, 0, true, FlowNetwork::PinRecomputed);  // ∞: may close an ∞ path
            else net.addArc(in, out, pick(5) == 0 ? 0 : int64_t(1 + pick(100)), false, FlowNetwork::Weight);
            if (pick(4) != 0) {
                variable.push_back(uint32_t(net.arcs.size()));
                net.addArc(FlowNetwork::kSource, in, 0, false, FlowNetwork::Weight);
            }
            if (pick(20) == 0) net.addArc(FlowNetwork::kSource, in, 0, true, FlowNetwork::Input);
            if (pick(3) == 0) net.addArc(out, FlowNetwork::kSink, 0, true, FlowNetwork::BackwardSink);
            if (v + 1 < first + size && pick(3) != 0) net.addArc(out, net.ensureIn(v + 1 + pick(first + size - v - 1)), 0, true, FlowNetwork::User);
            if (pick(8) == 0) net.addArc(in, FlowNetwork::kSink, int64_t(pick(50)), false, FlowNetwork::Weight);
        }
    }
    for (size_t b = 0; b < bridges; ++b) {
        const ValueId u = ValueId(pick(uint32_t(clusters)) * perCluster), v = ValueId(pick(uint32_t(clusters)) * perCluster);
        if (net.outNode(u) != kNoId && net.inNode(v) != kNoId && u != v)
            net.addArc(net.outNode(u), net.inNode(v), 0, true, FlowNetwork::User);
    }
    return net;
}

}  // namespace

class ComponentMinCutTest : public QObject {
    Q_OBJECT
private slots:
    void sidesEqualSolveMinCutOnRandomNetworks() {
        std::mt19937 rng(7);
        ProgramBuilder names;  // values for the node names in solveMinCut's messages
        for (int i = 0; i < 200; ++i) names.op("pd_op.data", {}, names.f32({1}));
        const Program& empty = names.p;
        int solves = 0, unbounded = 0, large = 0, small = 0;
        for (int round = 0; round < 150; ++round) {
            std::vector<uint32_t> variable;
            FlowNetwork net = clusteredNetwork(rng, 1 + rng() % 40, rng() % 6, variable);
            std::vector<ComponentMinCut::Arc> arcs;
            int64_t finite = 0;
            for (const auto& a : net.arcs) {
                arcs.push_back({a.from, a.to, a.infinite});
                if (!a.infinite) finite += a.capacity;
            }
            const int64_t sentinel = finite + 200 * int64_t(variable.size()) + 1;
            for (const size_t limit : {size_t(0), size_t(3), size_t(64)}) {
                ComponentMinCut cut(net.nodes.size(), FlowNetwork::kSource, FlowNetwork::kSink, arcs, sentinel, limit);
                if (!cut.bounded()) {
                    ++unbounded;
                    QVERIFY(!solveMinCut(net, empty).ok());
                    continue;
                }
                large += cut.largeNodes() > 0;
                small += cut.componentCount() > (cut.largeNodes() > 0 ? 1u : 0u);
                for (int solve = 0; solve < 4; ++solve) {
                    const std::string tag = "round " + std::to_string(round) + " limit " + std::to_string(limit) +
                                            " solve " + std::to_string(solve);
                    for (uint32_t a : variable) net.arcs[a].capacity = int64_t(rng() % 200);
                    std::vector<int64_t> capacity;
                    for (const auto& a : net.arcs) capacity.push_back(a.infinite ? -1 : a.capacity);  // ∞: ignored
                    int64_t value = -1;
                    const std::vector<uint8_t> sides = cut.solve(capacity, value);
                    const MinCutResult expected = solveMinCut(net, empty);
                    QVERIFY2(expected.ok(), (tag + ": " + expected.error).c_str());
                    QCOMPARE(value, expected.valueUnits);
                    QVERIFY2(sides == expected.sinkSide, (tag + ": sides differ from solveMinCut's").c_str());
                    const ReferenceCut ref = edmondsKarp(net);
                    QCOMPARE(value, ref.value);
                    QVERIFY2(sides == ref.sinkSide, (tag + ": sides differ from Edmonds-Karp's").c_str());
                    ++solves;
                }
            }
        }
        qInfo("%d solves, %d unbounded, %d with large components, %d with small ones", solves, unbounded, large, small);
        QVERIFY(solves > 1000);
        QVERIFY(large > 100 && small > 100);
    }
};

QTEST_GUILESS_MAIN(ComponentMinCutTest)
#include "test_component_min_cut.moc"
