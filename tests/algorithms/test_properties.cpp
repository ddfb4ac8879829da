// Property tests on seeded random joint programs: the reduced solve returns exactly the
// unreduced cut; the cut equals an independent max flow (Edmonds-Karp) and its residual
// sink side; every backward read of a forward value is saved, an input/output, a
// no-need-buffer read, or comes from clones that read only saved values and inputs; the
// rewritten program defines before use and prints and parses back.
#include <QtTest>

#include <deque>
#include <random>

#include "support/ProgramBuilder.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"

using namespace rx;
using namespace rx::test;

namespace {

struct RandomProgram {
    ProgramBuilder b;
    RecomputeSpec spec;
};

RandomProgram makeRandomProgram(uint32_t seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
    RandomProgram rp;
    ProgramBuilder& b = rp.b;
    const std::vector<TypeId> types{b.f32({8, 8}), b.f32({8, 1}), b.f32({2, 8}), b.f32({8}), b.f32({0}), b.f32({16, 8})};
    auto type = [&] { return types[size_t(pick(int(types.size())))]; };
    std::vector<ValueId> fw, inputs;
    const int nInputs = 1 + pick(3);
    for (int i = 0; i < nInputs; ++i) { inputs.push_back(b.op("pd_op.data", {}, type())); fw.push_back(inputs.back()); }
    auto recent = [&](const std::vector<ValueId>& pool) {
        const int n = int(pool.size());
        const int window = std::min(n, 6);
        return pick(3) == 0 ? pool[size_t(pick(n))] : pool[size_t(n - 1 - pick(window))];
    };
    static const char* unary[] = {"pd_op.exp", "pd_op.sin", "pd_op.relu", "pd_op.cast", "pd_op.tanh", "pd_op.dropout", "pd_op.sum", "pd_op.slice", "pd_op.reshape"};
    static const char* binary[] = {"pd_op.add", "pd_op.multiply", "pd_op.matmul", "pd_op.divide", "pd_op.subtract"};
    const int nFw = 4 + pick(30);
    for (int i = 0; i < nFw; ++i) {
        const int kind = pick(10);
        if (kind < 4) fw.push_back(b.op(unary[pick(9)], {recent(fw)}, type()));
        else if (kind < 8) fw.push_back(b.op(binary[pick(5)], {recent(fw), recent(fw)}, type()));
        else if (kind == 8) fw.push_back(b.op(pick(2) ? "pd_op.full" : "pd_op.full_int_array", {}, type()));
        else if (pick(2)) {
            const ValueId x = recent(fw), y = recent(fw);
            const TypeId vt = b.p.types.intern(Type::vector({b.p.values[x].type, b.p.values[y].type}));
            const ValueId c = b.op("builtin.combine", {x, y}, vt);
            fw.push_back(b.op("pd_op.concat", {c}, type()));
        } else {
            const TypeId t = type();
            const ValueId s = b.op("pd_op.split", {recent(fw)}, b.p.types.intern(Type::vector({t, t})));
            for (ValueId r : b.ops("builtin.split", {s}, {t, t})) fw.push_back(r);
        }
    }
    const int fwdEnd = b.index();
    std::vector<ValueId> outputs{fw.back()};
    const ValueId grad = b.op("pd_op.full", {}, b.p.values[fw.back()].type);
    const int bwdStart = b.index() + 1;
    std::vector<ValueId> bw{grad};
    static const char* bwOps[] = {"pd_op.multiply", "pd_op.add", "pd_op.exp", "pd_op.matmul", "pd_op.mean_grad", "pd_op.add_grad", "pd_op.sum", "pd_op.relu_grad"};
    const int nBw = 3 + pick(30);
    for (int i = 0; i < nBw; ++i) {
        const int kind = pick(20);
        const ValueId f = fw[size_t(pick(int(fw.size())))];
        if (kind == 0) { b.noResult("builtin.shadow_output", {f}); continue; }
        const char* name = bwOps[pick(8)];
        if (std::string_view(name) == "pd_op.add_grad") bw.push_back(b.op(name, {f, recent(fw), recent(bw)}, type()));
        else if (kind < 12) bw.push_back(b.op(name, {f, recent(bw)}, type()));
        else bw.push_back(b.op(name, {recent(bw), recent(bw)}, type()));
    }
    rp.spec = makeSpec(fwdEnd, bwdStart, inputs, outputs);
    return rp;
}

// Independent max flow (Edmonds-Karp on the whole network, ∞ = sum of finite + 1) and the
// set of nodes that can reach sink in its residual graph.
struct ReferenceCut { int64_t value = 0; std::vector<uint8_t> sinkSide; };
ReferenceCut edmondsKarp(const FlowNetwork& net) {
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

}  // namespace

class PropertiesTest : public QObject {
    Q_OBJECT
private slots:
    void randomPrograms() {
        int solved = 0, failed = 0, withClones = 0;
        for (uint32_t seed = 1; seed <= 300; ++seed) {
            RandomProgram rp = makeRandomProgram(seed);
            const std::string tag = "seed " + std::to_string(seed);
            RecomputeSolver solver(rp.b.program, rp.spec);
            SolveOptions unreducedOpt;
            unreducedOpt.reduced = false;
            const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
            const SolveResult u = solver.solve(RecomputeConfig::seedDefaults(), unreducedOpt);
            QVERIFY2(r.error == u.error, (tag + ": " + r.error + " vs " + u.error).c_str());
            if (r.network && r.cut.ok()) {
                QVERIFY2(r.cut.sinkSide == u.cut.sinkSide, tag.c_str());
                QCOMPARE(r.cut.valueUnits, u.cut.valueUnits);
                const ReferenceCut ref = edmondsKarp(*r.network);
                QVERIFY2(ref.value == r.cut.valueUnits, tag.c_str());
                QVERIFY2(ref.sinkSide == r.cut.sinkSide, (tag + ": sink side differs from the residual rule").c_str());
            }
            if (!r.ok()) {
                ++failed;
                continue;
            }
            ++solved;
            QCOMPARE(r.plan.savedValues, u.plan.savedValues);
            const Analysis& a = solver.analysis();
            const Program& rw = *r.rewritten;
            if (!r.clones.empty()) ++withClones;
            // define before use
            std::vector<uint8_t> defined(rw.values.size(), 0);
            for (OpId op : rw.globalBlock().ops) {
                for (ValueId x : rw.ops[op].operands)
                    QVERIFY2(x == kNoId || defined[x], (tag + ": " + rw.values[x].name + " used before definition").c_str());
                for (ValueId res : rw.ops[op].results) defined[res] = 1;
            }
            // backward reads of forward values
            std::vector<uint8_t> saved(rw.values.size(), 0), cloneResult(rw.values.size(), 0);
            for (ValueId v : r.plan.savedValues) saved[v] = 1;
            for (OpId c : r.clones)
                for (ValueId res : rw.ops[c].results) cloneResult[res] = 1;
            for (size_t i = size_t(rp.spec.backwardOpStartIdx); i < rp.b.p.globalBlock().ops.size(); ++i) {
                const OpId op = rp.b.p.globalBlock().ops[i];
                for (ValueId x : rw.ops[op].operands) {
                    if (x == kNoId || x >= a.program().values.size() || !a.isForwardValue(x)) continue;
                    QVERIFY2(saved[x] || a.isInput(x) || a.isOutput(x) || a.isBwNoNeedBuffer(x),
                             (tag + ": backward reads forward value " + rw.values[x].name).c_str());
                }
            }
            for (OpId c : r.clones)
                for (ValueId x : rw.ops[c].operands) {
                    if (x == kNoId || cloneResult[x]) continue;
                    const OpId def = rw.values[x].definingOp;
                    const bool start = def != kNoId && (rw.opName(def) == "pd_op.data" || rw.opName(def) == "builtin.parameter");
                    QVERIFY2(saved[x] || start, (tag + ": clone reads " + rw.values[x].name).c_str());
                }
            // prints and parses back
            WriteOptions wo;
            wo.renumber = true;
            const std::string text = printProgram(rw, wo);
            const Program back = parsePir(text, tag);
            QCOMPARE(back.globalBlock().ops.size(), rw.globalBlock().ops.size());
            QCOMPARE(printProgram(back, wo), text);
        }
        qInfo("%d solved (%d with clones), %d seed errors", solved, withClones, failed);
        QVERIFY(solved >= 100);
        QVERIFY(withClones >= 20);
    }
};

QTEST_GUILESS_MAIN(PropertiesTest)
#include "test_properties.moc"
