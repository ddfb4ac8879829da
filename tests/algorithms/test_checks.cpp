// Direct checks in LEMON's checkFlow style: the min cut (flow value = cut value = sum of the
// cut arcs' capacities, sides closed under the residual rule, equal to an independent max
// flow), the rewriter (every backward use of a forward value is covered by a saved value or a
// clone placed before it) and the memory model (peak = a brute-force liveness recount).
#include <QtTest>

#include <random>

#include "support/RandomProgram.h"
#include "support/ReferenceMaxFlow.h"

using namespace rx;
using namespace rx::test;

namespace {

// Every property of a returned cut that does not depend on how it was found.
void checkCut(const FlowNetwork& net, const MinCutResult& cut, const std::string& tag) {
    QVERIFY2(cut.ok(), (tag + ": " + cut.error).c_str());
    QVERIFY2(!cut.sinkSide[FlowNetwork::kSource] && cut.sinkSide[FlowNetwork::kSink], tag.c_str());
    int64_t cutSum = 0;
    std::vector<uint8_t> inCut(net.arcs.size(), 0);
    for (uint32_t k : cut.cutArcs) {
        const auto& a = net.arcs[k];
        QVERIFY2(!a.infinite, (tag + ": an infinite arc is cut").c_str());
        QVERIFY2(!cut.sinkSide[a.from] && cut.sinkSide[a.to], (tag + ": a listed cut arc does not cross").c_str());
        cutSum += a.capacity;
        inCut[k] = 1;
    }
    for (uint32_t k = 0; k < net.arcs.size(); ++k) {
        const auto& a = net.arcs[k];
        // Listed exactly when it crosses (source side -> sink side): both branches assert.
        const bool crosses = !cut.sinkSide[a.from] && cut.sinkSide[a.to];
        QVERIFY2(bool(inCut[k]) == crosses, (tag + (crosses ? ": a crossing arc is not listed" : ": a listed arc does not cross")).c_str());
    }
    QCOMPARE(cutSum, cut.valueUnits);  // cut value = flow value
    const ReferenceCut ref = edmondsKarp(net);
    QCOMPARE(ref.value, cut.valueUnits);  // a maximum flow: no larger flow exists
    QVERIFY2(ref.sinkSide == cut.sinkSide, (tag + ": not networkx's cut (residual reach of sink)").c_str());
}

// A random network over a few value nodes, as buildFlowNetwork makes them.
FlowNetwork randomNetwork(std::mt19937& rng, size_t values) {
    FlowNetwork net;
    net.resizeValues(values);
    auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
    for (ValueId v = 0; v < values; ++v) {
        const uint32_t in = net.ensureIn(v), out = net.ensureOut(v);
        if (pick(10) == 0) net.addArc(in, out, 0, true, FlowNetwork::PinRecomputed);  // ∞: may close an ∞ path
        else net.addArc(in, out, pick(4) == 0 ? 0 : int64_t(1 + pick(1000)), false, FlowNetwork::Weight);
        if (pick(5) == 0) net.addArc(FlowNetwork::kSource, in, 0, true, FlowNetwork::Input);
        if (pick(6) == 0) net.addArc(out, FlowNetwork::kSink, 0, true, FlowNetwork::FusionLoopSink);
        for (int k = 0; k < int(pick(3)); ++k) {
            const ValueId u = pick(uint32_t(values));
            if (u != v) net.addArc(out, net.ensureIn(u), 0, true, FlowNetwork::User);
        }
    }
    net.addArc(FlowNetwork::kSource, net.ensureIn(0), 0, true, FlowNetwork::Input);
    net.addArc(net.ensureOut(ValueId(values - 1)), FlowNetwork::kSink, 0, true, FlowNetwork::BackwardSink);
    return net;
}

}  // namespace

class ChecksTest : public QObject {
    Q_OBJECT
private slots:
    void minCutOnRandomNetworks() {
        std::mt19937 rng(42);
        ProgramBuilder names;  // values %0..%31 for the node names in messages
        for (int i = 0; i < 32; ++i) names.op("pd_op.data", {}, names.f32({1}));
        const Program& empty = names.p;
        int cuts = 0, unbounded = 0;
        for (int round = 0; round < 400; ++round) {
            const FlowNetwork net = randomNetwork(rng, 2 + rng() % 30);
            for (const bool reduce : {true, false}) {
                const MinCutResult cut = solveMinCut(net, empty, MinCutOptions{reduce});
                const std::string tag = "round " + std::to_string(round) + (reduce ? " reduced" : " whole");
                if (!cut.infinitePath.empty()) {
                    // An ∞ path: each step is an ∞ arc, from source to sink.
                    ++unbounded;
                    QCOMPARE(cut.infinitePath.front(), FlowNetwork::kSource);
                    QCOMPARE(cut.infinitePath.back(), FlowNetwork::kSink);
                    for (size_t i = 0; i + 1 < cut.infinitePath.size(); ++i) {
                        bool found = false;
                        for (const auto& a : net.arcs)
                            found = found || (a.infinite && a.from == cut.infinitePath[i] && a.to == cut.infinitePath[i + 1]);
                        QVERIFY2(found, (tag + ": infinite path step is no infinite arc").c_str());
                    }
                    QVERIFY(!cut.ok());
                    continue;
                }
                ++cuts;
                checkCut(net, cut, tag);
            }
        }
        qInfo("%d cuts, %d unbounded", cuts, unbounded);
        QVERIFY(cuts > 300);
        QVERIFY(unbounded > 20);
    }

    void minCutRefusesOverflow() {
        FlowNetwork net;
        net.resizeValues(2);
        for (ValueId v = 0; v < 2; ++v) {
            const uint32_t in = net.ensureIn(v);
            net.addArc(FlowNetwork::kSource, in, 0, true, FlowNetwork::Input);
            net.addArc(in, net.ensureOut(v), INT64_MAX / 2 + 1, false, FlowNetwork::Weight);
            net.addArc(net.outNode(v), FlowNetwork::kSink, 0, true, FlowNetwork::BackwardSink);
        }
        ProgramBuilder names;
        for (int i = 0; i < 2; ++i) names.op("pd_op.data", {}, names.f32({1}));
        const MinCutResult cut = solveMinCut(net, names.p);
        QVERIFY(!cut.ok());
        QVERIFY2(cut.error.find("overflows 64-bit") != std::string::npos, cut.error.c_str());
        QCOMPARE(cut.valueUnits, int64_t(0));  // no wrapped figure
    }

    void solvesOfRandomProgramsAreChecked() {
        int solved = 0, seedFailures = 0, clones = 0;
        for (uint32_t seed = 1; seed <= 200; ++seed) {
            RandomProgram rp = makeRandomProgram(seed);
            const std::string tag = "seed " + std::to_string(seed);
            RecomputeSolver solver(rp.b.program, rp.spec);
            const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
            if (!r.ok()) {
                // Only the seed's own failures (ALGORITHM.md §8) may end a solve.
                ++seedFailures;
                const bool known = r.error.find("Every path to recompute value") != std::string::npos ||
                                   r.error.find("infinite capacity path") != std::string::npos ||
                                   r.error.find("no source node") != std::string::npos ||
                                   r.error.find("no sink node") != std::string::npos ||
                                   r.error.find("assertion") != std::string::npos ||
                                   r.error.find("not found") != std::string::npos ||
                                   r.error.find("missing distance") != std::string::npos;
                QVERIFY2(known, (tag + ": unexpected failure: " + r.error).c_str());
                continue;
            }
            ++solved;
            checkCut(*r.network, r.cut, tag);
            checkRewrite(solver.analysis(), rp, r, tag);
            checkMemory(*r.rewritten, rp.spec, r.rewrittenMemory, tag);
            checkMemory(*rp.b.program, rp.spec, r.originalMemory, tag + " original");
            clones += int(r.clones.size());
        }
        QVERIFY(solved >= 80);
        QVERIFY(seedFailures >= 1);
        QVERIFY(clones >= 50);
    }

private:
    // Every use by a top-level backward op (from bwd_start) of a forward value reads a saved
    // value, an input / output / no-need-buffer value, or a clone of it placed before the op;
    // clones read only saved values, subgraph starts or earlier clones.
    static void checkRewrite(const Analysis& a, const RandomProgram& rp, const SolveResult& r, const std::string& tag) {
        const Program& orig = a.program();
        const Program& rw = *r.rewritten;
        std::vector<uint32_t> position(rw.ops().size(), kNoId);
        for (uint32_t i = 0; i < rw.globalBlock().ops.size(); ++i) position[rw.globalBlock().ops[i]] = i;
        std::vector<uint8_t> saved(orig.values().size(), 0), midHold(orig.values().size(), 0);
        for (ValueId v : r.plan.savedValues) saved[v] = 1;
        for (ValueId v : r.plan.midHoldValues) midHold[v] = 1;
        std::vector<OpId> cloneOfResult(rw.values().size(), kNoId);  // clone result -> original op
        for (size_t k = 0; k < r.clones.size(); ++k)
            for (ValueId res : rw.op(r.clones[k]).results) cloneOfResult[res] = r.cloneOf[k];
        QCOMPARE(r.clones.size(), r.plan.recomputeOps.size());
        const auto& gops = orig.globalBlock().ops;
        for (size_t i = size_t(rp.spec.backwardOpStartIdx); i < gops.size(); ++i) {
            const OpId op = gops[i];
            for (size_t slot = 0; slot < rw.op(op).operands.size(); ++slot) {
                const ValueId x = rw.op(op).operands[slot];
                const ValueId before = orig.op(op).operands[slot];
                if (before == kNoId || !a.isForwardValue(before)) {
                    QCOMPARE(x, before);  // only forward reads are redirected
                    continue;
                }
                if (midHold[before]) {
                    QVERIFY2(x < rw.values().size() && cloneOfResult[x] == orig.value(before).definingOp,
                             (tag + ": mid-hold " + orig.value(before).name + " not read from its clone").c_str());
                    QVERIFY2(position[rw.value(x).definingOp] < position[op], (tag + ": clone placed after its user").c_str());
                } else {
                    QCOMPARE(x, before);
                    QVERIFY2(saved[x] || a.isInput(x) || a.isOutput(x) || a.isBwNoNeedBuffer(x) ||
                                 orig.opName(orig.value(x).definingOp) == "cf.stack_create",
                             (tag + ": backward reads forward value " + orig.value(x).name + " uncovered").c_str());
                }
            }
        }
        for (OpId c : r.clones)
            for (ValueId x : rw.op(c).operands) {
                if (x == kNoId) continue;
                if (cloneOfResult[x] != kNoId) {
                    QVERIFY2(position[rw.value(x).definingOp] < position[c], (tag + ": clone reads a later clone").c_str());
                    continue;
                }
                const std::string_view def = rw.opName(rw.value(x).definingOp);
                QVERIFY2(saved[x] || def == "pd_op.data" || def == "builtin.parameter",
                         (tag + ": clone reads " + rw.value(x).name).c_str());
            }
    }

    // Peak and per-op live bytes recounted from scratch (README "Memory conventions"): storage
    // is allocated by the op defining a value that is not an alias (a vector: one piece per
    // element); builtin.combine / builtin.split / pd_op.fetch results (the aliases these programs use) refer to
    // their operands' storage. A piece is alive at op i from its definition to the last use
    // (through Program::uses) of any value referring to it; resident values (spec inputs,
    // feeds, parameters) hold theirs to the end.
    static void checkMemory(const Program& p, const RecomputeSpec& spec, const MemoryProfile& m, const std::string& tag) {
        const auto& gops = p.globalBlock().ops;
        QCOMPARE(m.liveBytes.size(), gops.size());
        const size_t nv = p.values().size();
        std::vector<uint8_t> resident(nv, 0);
        for (ValueId v : spec.inputs) resident[v] = 1;
        struct Piece { size_t def, end; int64_t bytes; bool resident; };
        std::vector<Piece> pieces;
        std::vector<std::vector<size_t>> refs(nv);
        std::vector<size_t> defAt(nv, SIZE_MAX);
        for (size_t j = 0; j < gops.size(); ++j) {
            const Operation& o = p.op(gops[j]);
            const std::string_view n = p.opName(gops[j]);
            if (n == "pd_op.data" || n == "pd_op.feed" || n == "builtin.parameter")
                for (ValueId r : o.results) resident[r] = 1;
            for (ValueId r : o.results) defAt[r] = j;
            if (n == "builtin.combine") {
                for (ValueId x : o.operands) refs[o.results[0]].insert(refs[o.results[0]].end(), refs[x].begin(), refs[x].end());
            } else if (n == "builtin.split") {
                for (size_t i = 0; i < o.results.size(); ++i) refs[o.results[i]] = {refs[o.operands[0]].at(i)};
            } else if (n == "pd_op.fetch") {
                refs[o.results[0]] = refs[o.operands[0]];
            } else {
                for (ValueId r : o.results) {
                    const Type& t = p.types()[p.value(r).type];
                    std::vector<int64_t> sizes;
                    if (t.kind == Type::Kind::Vector) for (TypeId e : t.elements) sizes.push_back(p.types().bytes(e));
                    else sizes.push_back(p.valueBytes(r));
                    for (int64_t b : sizes) {
                        refs[r].push_back(pieces.size());
                        pieces.push_back({j, j, b, false});
                    }
                }
            }
        }
        for (ValueId v = 0; v < nv; ++v) {
            if (defAt[v] == SIZE_MAX) continue;
            size_t last = defAt[v];
            for (const Use& u : p.uses(v))
                if (u.ancestor != kNoId) last = std::max<size_t>(last, p.indexInBlock(u.ancestor));
            for (size_t k : refs[v]) {
                pieces[k].end = std::max(pieces[k].end, last);
                pieces[k].resident = pieces[k].resident || resident[v];
            }
        }
        int64_t residentBytes = 0, peak = 0, boundary = 0;
        for (const Piece& pc : pieces) {
            if (pc.resident) { residentBytes += pc.bytes; continue; }
            if (int64_t(pc.def) <= spec.fwdOpEndIdx && int64_t(pc.end) > spec.fwdOpEndIdx) boundary += pc.bytes;
        }
        for (size_t i = 0; i < gops.size(); ++i) {
            int64_t live = 0;
            for (const Piece& pc : pieces)
                if (pc.def <= i && (pc.resident || pc.end >= i)) live += pc.bytes;
            QVERIFY2(live == m.liveBytes[i], (tag + ": live bytes at op " + std::to_string(i)).c_str());
            peak = std::max(peak, live);
        }
        QCOMPARE(m.peakBytes, peak);
        QCOMPARE(m.residentBytes, residentBytes);
        QCOMPARE(m.boundaryActivationBytes, boundary);
    }
};

QTEST_GUILESS_MAIN(ChecksTest)
#include "test_checks.moc"
