// One hand-made program per rule of ALGORITHM.md (bans, fusion loop, no-need-buffer,
// combine/split, 0-size tending ops, pins, aggressive mode, the seed's error cases) and
// Paddle's own rms_norm test.
#include <QtTest>

#include <algorithm>
#include <thread>

#include "support/ProgramBuilder.h"

using namespace rx;
using namespace rx::test;

namespace {

const RecomputeConfig kDefaults = RecomputeConfig::seedDefaults();

SolveResult solveWith(ProgramBuilder& b, const RecomputeSpec& spec, const RecomputeConfig& c = kDefaults) {
    RecomputeSolver solver(b.program, spec);
    return solver.solve(c);
}

bool contains(const std::vector<ValueId>& vs, ValueId v) { return std::find(vs.begin(), vs.end(), v) != vs.end(); }

}  // namespace

class RulesTest : public QObject {
    Q_OBJECT
private slots:
    // Paddle's test_auto_recompute_dy2static: rms_norm with prim-decomposed forward
    // (pow -> elementwise_pow, mean -> sum / N) and a hand-written decomposed backward.
    void rmsNormKeepsOnlyRsqrt_data() {
        QTest::addColumn<bool>("decomposeRsqrtGrad");
        QTest::newRow("rsqrt_grad kept") << false;
        QTest::newRow("rsqrt_grad decomposed") << true;
    }
    void rmsNormKeepsOnlyRsqrt() {
        QFETCH(bool, decomposeRsqrtGrad);
        ProgramBuilder b;
        const TypeId big = b.f32({4096, 4096}), row = b.f32({4096, 1}), vec = b.f32({4096}), one = b.f32({1}),
                     scalar = b.f32({});
        const ValueId x = b.op("pd_op.data", {}, big);
        const ValueId w = b.op("pd_op.data", {}, vec);
        const ValueId two = b.op("pd_op.full", {}, scalar);
        const ValueId p = b.op("pd_op.elementwise_pow", {x, two}, big);
        const ValueId axis = b.op("pd_op.full_int_array", {}, b.i64({1}));
        const ValueId s = b.op("pd_op.sum", {p, axis}, row);
        const ValueId n = b.op("pd_op.full", {}, scalar);
        const ValueId m = b.op("pd_op.divide", {s, n}, row);
        const ValueId eps = b.op("pd_op.full", {}, one);
        const ValueId a = b.op("pd_op.add", {m, eps}, row);
        const ValueId r = b.op("pd_op.rsqrt", {a}, row);
        const int rsqrtIndex = b.index();
        const ValueId h = b.op("pd_op.multiply", {r, x}, big);
        const ValueId o = b.op("pd_op.multiply", {h, w}, big);
        const int fwdEnd = b.index();
        const ValueId og = b.op("pd_op.full", {}, big);
        const int bwdStart = b.index() + 1;
        // o = h * w
        const ValueId dh = b.op("pd_op.multiply", {og, w}, big);
        const ValueId ogh = b.op("pd_op.multiply", {og, h}, big);
        const ValueId ax0 = b.op("pd_op.full_int_array", {}, b.i64({1}));
        const ValueId dw = b.op("pd_op.sum", {ogh, ax0}, vec);
        // h = r * x
        const ValueId dhx = b.op("pd_op.multiply", {dh, x}, big);
        const ValueId axm1 = b.op("pd_op.full_int_array", {}, b.i64({1}));
        const ValueId dr = b.op("pd_op.sum", {dhx, axm1}, row);
        const ValueId dx1 = b.op("pd_op.multiply", {dh, r}, big);
        // r = rsqrt(a): Paddle's vjp keeps pd_op.rsqrt_grad(out, out_grad) (not fusible); the
        // fully decomposed variant is da = -0.5 * r^3 * dr.
        ValueId da;
        if (!decomposeRsqrtGrad) {
            da = b.op("pd_op.rsqrt_grad", {r, dr}, row);
        } else {
            const ValueId three = b.op("pd_op.full", {}, scalar);
            const ValueId r3 = b.op("pd_op.elementwise_pow", {r, three}, row);
            const ValueId half = b.op("pd_op.full", {}, one);
            const ValueId sr3 = b.op("pd_op.scale", {r3, half}, row);
            da = b.op("pd_op.multiply", {sr3, dr}, row);
        }
        // m = s / n: ds = da / n
        const ValueId ds = b.op("pd_op.divide", {da, n}, row);
        // s = sum(p): dp = expand(ds)
        const ValueId shape = b.op("pd_op.full_int_array", {}, b.i64({2}));
        const ValueId dp = b.op("pd_op.expand", {ds, shape}, big);
        // p = x^2: dx2 = 2 * x^(2-1) * dp
        const ValueId onef = b.op("pd_op.full", {}, scalar);
        const ValueId e1 = b.op("pd_op.subtract", {two, onef}, scalar);
        const ValueId xp = b.op("pd_op.elementwise_pow", {x, e1}, big);
        const ValueId t = b.op("pd_op.multiply", {two, xp}, big);
        const ValueId dx2 = b.op("pd_op.multiply", {t, dp}, big);
        const ValueId dx = b.op("pd_op.add", {dx1, dx2}, big);
        (void)dw; (void)dx; (void)m; (void)s;

        const SolveResult res = solveWith(b, makeSpec(fwdEnd, bwdStart, {x}, {o}));
        QVERIFY2(res.ok(), res.error.c_str());
        std::vector<ValueId> nonInputSaved;
        for (ValueId v : res.plan.savedValues)
            if (v != x && v != w) nonInputSaved.push_back(v);
        std::string savedText;
        for (const auto& nm : b.names(res.plan.savedValues)) savedText += nm + " ";
        qInfo("saved: %s cut %s", savedText.c_str(), res.plan.cutValueText().c_str());
        if (decomposeRsqrtGrad) {
            // Every backward user of r is fusible, so r weighs 2 x int(16 KiB x 1.1) = 36044
            // and the seed saves the cheaper (materialized) sum output: 16 KiB x 1.1^4 -> 23987.
            QCOMPARE(b.names(nonInputSaved), std::vector<std::string>{b.name(s)});
            QCOMPARE(res.plan.cutValueText(), std::to_string(73819750 + 18022 + 23987));
            return;
        }
        // rsqrt_grad is not fusible: r is materialized (and materialized backwards: banned),
        // weighs 18022 < 23987 and is what the seed keeps.
        QCOMPARE(b.names(nonInputSaved), std::vector<std::string>{b.name(r)});
        QCOMPARE(res.plan.cutValueText(), std::to_string(73819750 + 18022 + 18022));
        QCOMPARE(int(res.plan.reasons[r].banRule), int(BanRule::MaterializedBackwards));
        // Every other forward result is used only by forward ops afterwards.
        const Program& rw = *res.rewritten;
        std::vector<uint32_t> pos(rw.ops().size(), 0);
        for (size_t i = 0; i < rw.globalBlock().ops.size(); ++i) pos[rw.globalBlock().ops[i]] = uint32_t(i);
        size_t checkedUses = 0;
        for (int i = 0; i <= fwdEnd; ++i) {
            const OpId op = b.p.globalBlock().ops[size_t(i)];
            if (b.p.opName(op) == "pd_op.data") continue;
            for (ValueId v : rw.op(op).results) {
                if (v == r) continue;
                for (const Use& u : rw.uses(v)) {
                    QVERIFY2(int(pos[u.ancestor]) <= fwdEnd, (b.name(v) + " used after the forward").c_str());
                    ++checkedUses;
                }
            }
        }
        QVERIFY(checkedUses > 0);  // the loop checked the forward chain, not an empty range
        QCOMPARE(int(res.plan.reasons[r].side), int(ValueSide::Saved));
        QCOMPARE(b.p.opName(b.p.globalBlock().ops[size_t(rsqrtIndex)]), std::string_view("pd_op.rsqrt"));
        QVERIFY(contains(res.plan.midHoldValues, h));
    }

    // Each ban rule on one forward value; bw op "pd_op.exp" keeps everything fusible.
    void banRules() {
        ProgramBuilder b;
        const TypeId t = b.f32({64, 64}), small = b.f32({4, 64});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId relu = b.op("pd_op.relu", {x}, t);           // not recomputable
        const ValueId e1 = b.op("pd_op.exp", {relu}, t);            // dist 4: too far
        const ValueId e2 = b.op("pd_op.exp", {e1}, t);
        const ValueId e3 = b.op("pd_op.exp", {e2}, t);
        const ValueId e4 = b.op("pd_op.exp", {e3}, t);              // dist 1
        const ValueId sl = b.op("pd_op.slice", {x}, small);         // 4 x 1 KiB < 16 KiB: size ratio
        const ValueId mb = b.op("pd_op.exp", {x}, t);               // used by a non-fusible bw op
        const ValueId full = b.op("pd_op.full", {}, t);             // tending: never banned
        const ValueId out = b.op("pd_op.add", {e4, sl}, t);
        const int fwdEnd = b.index();
        const ValueId g = b.op("pd_op.full", {}, t);
        const int bwdStart = b.index() + 1;
        const ValueId b1 = b.op("pd_op.exp", {e4, g}, t);
        const ValueId b2 = b.op("pd_op.exp", {sl, b1}, t);
        const ValueId b3 = b.op("pd_op.matmul", {mb, b2}, t);
        b.op("pd_op.exp", {full, b3, relu}, t);
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, bwdStart, {x}, {out}));
        const SolveResult r = solver.solve(kDefaults);
        QVERIFY2(r.ok(), r.error.c_str());
        const Plan& plan = r.plan;
        QCOMPARE(int(plan.reasons[relu].banRule), int(BanRule::NotRecomputable));
        QCOMPARE(int(plan.reasons[e1].banRule), int(BanRule::TooFarFromBackward));
        QCOMPARE(plan.reasons[e1].distance, int64_t(4));
        QCOMPARE(plan.reasons[e3].distance, int64_t(2));
        QCOMPARE(int(plan.reasons[e3].banRule), int(BanRule::None));
        QCOMPARE(int(plan.reasons[sl].banRule), int(BanRule::SizeRatio));
        QCOMPARE(int(plan.reasons[mb].banRule), int(BanRule::MaterializedBackwards));
        QVERIFY(plan.reasons[mb].materialized);
        QCOMPARE(int(plan.reasons[full].banRule), int(BanRule::TendingToRecompute));
        QVERIFY(!plan.reasons[full].banned);
        QCOMPARE(plan.reasons[out].skip, SkipReason::ForwardOutput);
        QVERIFY(plan.reasons[x].banned);
        // Weights: e4 dist 1, not materialized: 2 x int(16384 x 1.1) = 36044.
        QCOMPARE(plan.weightText(e4), std::string("36044"));
        // relu is materialized (its user exp is fusible, relu is not): int(16384 x 1.1^1).
        QCOMPARE(plan.weightText(relu), std::string("18022"));
        QCOMPARE(plan.reasons[e3].size, int64_t(16384));
        QVERIFY(plan.reasons[e1].banText.find("4 > max_dist_from_bw 3") != std::string::npos);

        // Raising max distance unbans e1; aggressive mode bans only unrecomputable ops.
        RecomputeConfig c = kDefaults;
        c.maxDistFromBw = 10;
        QCOMPARE(int(solver.solve(c).plan.reasons[e1].banRule), int(BanRule::None));
        c = kDefaults;
        c.aggressiveRecomputation = true;
        const SolveResult ag = solver.solve(c);
        QVERIFY2(ag.ok(), ag.error.c_str());
        QCOMPARE(int(ag.plan.reasons[relu].banRule), int(BanRule::None));
        QCOMPARE(int(ag.plan.reasons[sl].banRule), int(BanRule::None));
        c.computeIntensiveOps.push_back("pd_op.relu");
        QCOMPARE(int(solver.solve(c).plan.reasons[relu].banRule), int(BanRule::AggressiveUnrecomputable));
        // Size ratio knob
        c = kDefaults;
        c.sizeRatioBan = 32;
        QCOMPARE(int(solver.solve(c).plan.reasons[sl].banRule), int(BanRule::None));
    }

    // §6 step 7: a forward user with an unrecomputable op on a path forces v saved.
    void fusionLoopEdges() {
        ProgramBuilder b;
        const TypeId t = b.f32({32, 32});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId wgt = b.op("pd_op.data", {}, t);
        const ValueId v = b.op("pd_op.exp", {x}, t);
        const ValueId mm = b.op("pd_op.matmul", {v, wgt}, t);
        const ValueId u = b.op("pd_op.add", {v, mm}, t);
        const ValueId free = b.op("pd_op.exp", {x}, t);
        const ValueId out = b.op("pd_op.add", {u, free}, t);
        const int fwdEnd = b.index();
        const int bwdStart = fwdEnd + 1;
        b.op("pd_op.multiply", {v, free}, t);
        b.op("pd_op.multiply", {u, mm}, t);
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, bwdStart, {x, wgt}, {out}));
        const SolveResult r = solver.solve(kDefaults);
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(r.plan.reasons[v].fusionLoop);
        QVERIFY(!r.plan.reasons[free].fusionLoop);
        QVERIFY(contains(r.plan.savedValues, v));
        QVERIFY(contains(r.plan.midHoldValues, free));  // recomputed from x
        const auto classes = solver.analysis().classify(kDefaults);
        QVERIFY(solver.analysis().hasUnfusibleOpOnAnyPath(classes, b.p.value(v).definingOp, b.p.value(u).definingOp));
        QVERIFY(!solver.analysis().hasUnfusibleOpOnAnyPath(classes, b.p.value(x).definingOp, b.p.value(free).definingOp));
        // Without unrecomputable ops there is no loop.
        RecomputeConfig c = kDefaults;
        c.computeIntensiveOps.clear();
        QVERIFY(!solver.solve(c).plan.reasons[v].fusionLoop);
    }

    // §5 no-need-buffer: a value read by the backward only in a no-need-buffer slot is not
    // held; the same op reading it in another slot still counts as no-need-buffer.
    void noNeedBuffer() {
        ProgramBuilder b;
        const TypeId t = b.f32({16, 16}), r1 = b.f32({16, 1});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId e = b.op("pd_op.exp", {x}, t);
        const ValueId m = b.op("pd_op.mean", {e}, r1);
        const ValueId e2 = b.op("pd_op.exp", {x}, t);
        const ValueId out = b.op("pd_op.add", {m, e2}, r1);
        const int fwdEnd = b.index();
        const ValueId g = b.op("pd_op.full", {}, r1);
        const int bwdStart = b.index() + 1;
        b.op("pd_op.mean_grad", {e, g}, t);       // slot 0 (x) is no-need-buffer
        b.op("pd_op.add_grad", {e2, e2, g}, t);   // slots 0 and 1: both no-need-buffer
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, bwdStart, {x}, {out}));
        QVERIFY(solver.analysis().isBwNoNeedBuffer(e));
        QVERIFY(solver.analysis().isBwNoNeedBuffer(e2));
        QVERIFY(solver.analysis().users(e, true).size() == 1);   // only the forward mean
        QCOMPARE(solver.analysis().users(e, false).size(), size_t(2));
        const SolveResult r = solver.solve(kDefaults);
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(r.plan.midHoldValues.empty());
        // A need-buffer read elsewhere makes it a real backward use.
        ProgramBuilder b2;  // its own types: b's ids index b's type table only
        const TypeId t2 = b2.f32({16, 16}), row2 = b2.f32({16, 1});
        const ValueId x2 = b2.op("pd_op.data", {}, t2);
        const ValueId f = b2.op("pd_op.exp", {x2}, t2);
        const ValueId o2 = b2.op("pd_op.mean", {f}, row2);
        const int fe = b2.index();
        const ValueId g2 = b2.op("pd_op.full", {}, row2);
        b2.op("pd_op.mean_grad", {f, g2}, t2);
        b2.op("pd_op.multiply", {f, f}, t2);
        RecomputeSolver s2(b2.program, makeSpec(fe, fe + 2, {x2}, {o2}));
        QVERIFY(!s2.analysis().isBwNoNeedBuffer(f));
        const SolveResult r2 = s2.solve(kDefaults);
        QVERIFY2(r2.ok(), r2.error.c_str());
        QVERIFY(contains(r2.plan.midHoldValues, f) || contains(r2.plan.savedValues, f));
    }

    // §2: users through builtin.combine and builtin.split.
    void combineAndSplit() {
        ProgramBuilder b;
        const TypeId t = b.f32({8, 8}), t2 = b.f32({16, 8});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId a = b.op("pd_op.exp", {x}, t);
        const ValueId c = b.op("pd_op.exp", {x}, t);
        const TypeId vecT = b.p.internType(Type::vector({t, t}));
        const ValueId comb = b.op("builtin.combine", {a, c}, vecT);
        const ValueId axis = b.op("pd_op.full", {}, b.i64({1}));
        const ValueId cat = b.op("pd_op.concat", {comb, axis}, t2);
        const ValueId sp = b.op("pd_op.split", {cat, axis}, vecT);
        const auto parts = b.ops("builtin.split", {sp}, {t, t});
        const ValueId out = b.op("pd_op.add", {parts[0], parts[1]}, t);
        const int fwdEnd = b.index();
        const ValueId bwv = b.op("pd_op.multiply", {parts[0], a}, t);
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, fwdEnd + 1, {x}, {out}));
        const Analysis& an = solver.analysis();
        QCOMPARE(std::vector<ValueId>(an.users(a).begin(), an.users(a).end()),
                 (std::vector<ValueId>{cat, bwv}));
        QVERIFY(an.usedOnceBySplitSlice(sp));
        QCOMPARE(std::vector<ValueId>(an.users(cat).begin(), an.users(cat).end()), (std::vector<ValueId>{parts[0], parts[1]}));
        QCOMPARE(an.distance(comb), Analysis::kNoDistance);  // combine results have no distance
        QCOMPARE(an.distance(sp), Analysis::kNoDistance);    // nor values used once by split
        QCOMPARE(an.distance(parts[0]), int64_t(1));
        QCOMPARE(an.distance(cat), int64_t(2));
        QCOMPARE(an.realInputsSize(cat), int64_t(256 + 256 + 8));  // combine expanded
        const SolveResult r = solver.solve(kDefaults);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.plan.reasons[comb].skip, SkipReason::CombineResult);
        QCOMPARE(r.plan.reasons[sp].skip, SkipReason::UsedOnceBySplit);
    }

    // 0-byte tending-to-recompute values weigh minimum_weight exactly (0.1, not rounded).
    void zeroSizeTendingWeight() {
        ProgramBuilder b;
        const TypeId t = b.f32({8}), empty = b.f32({0});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId z = b.op("pd_op.full", {}, empty);
        const ValueId out = b.op("pd_op.add", {x, z}, t);
        const int fwdEnd = b.index();
        b.op("pd_op.multiply", {z, out}, t);
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, fwdEnd + 1, {x, z}, {out}));
        const SolveResult r = solver.solve(kDefaults);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.plan.weightText(z), std::string("0.1"));
        QCOMPARE(r.plan.cutValueText(), std::string("0.1"));
        QCOMPARE(b.names(r.plan.savedValues), std::vector<std::string>{b.name(z)});
        RecomputeConfig c = kDefaults;
        c.minimumWeight = 0.125;
        const SolveResult r2 = solver.solve(c);
        QCOMPARE(r2.plan.cutValueText(), std::string("0.125"));
        c.minimumWeight = 1e-9;
        const SolveResult bad = solver.solve(c);
        QVERIFY(!bad.ok());
        QVERIFY(bad.error.find("minimum_weight") != std::string::npos);
    }

    // Pins force a side with ∞ edges; a conflicting pin is an ∞ path, reported with the path.
    void pins() {
        ProgramBuilder b;
        const TypeId t = b.f32({32, 32});
        const ValueId x = b.op("pd_op.data", {}, t);
        const ValueId a = b.op("pd_op.exp", {x}, t);
        const ValueId c = b.op("pd_op.exp", {a}, t);
        const ValueId out = b.op("pd_op.exp", {c}, t);
        const int fwdEnd = b.index();
        b.op("pd_op.multiply", {c, a}, t);
        b.op("pd_op.multiply", {x, x}, t);
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, fwdEnd + 1, {x}, {out}));
        const SolveResult r = solver.solve(kDefaults);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(b.names(r.plan.savedValues), std::vector<std::string>{b.name(x)});
        RecomputeConfig cfg = kDefaults;
        cfg.pinnedSaved = {b.name(c), "%999"};
        const SolveResult ps = solver.solve(cfg);
        QVERIFY2(ps.ok(), ps.error.c_str());
        QVERIFY(contains(ps.plan.savedValues, c));
        QCOMPARE(int(ps.plan.reasons[c].pin), int(ValueFacts::Pin::Saved));
        QVERIFY(!ps.plan.warnings.empty());  // %999 does not exist
        cfg = kDefaults;
        cfg.pinnedRecomputed = {b.name(x)};  // an input cannot be recomputed: ∞ path
        const SolveResult pr = solver.solve(cfg);
        QVERIFY(!pr.ok());
        QVERIFY(pr.error.find("infinite capacity path") != std::string::npos);
        QVERIFY(pr.error.find(b.name(x) + "_in -> " + b.name(x) + "_out") != std::string::npos);
        QVERIFY(pr.cut.infinitePath.size() >= 3);
        QVERIFY(pr.network);
    }

    // The seed's own failures come back as errors, not crashes.
    void seedErrors() {
        {   // no source: no inputs and nothing banned
            ProgramBuilder b;
            const TypeId t = b.f32({4});
            const ValueId f = b.op("pd_op.full", {}, t);
            const ValueId e = b.op("pd_op.exp", {f}, t);
            b.op("pd_op.exp", {e}, t);
            const SolveResult r = solveWith(b, makeSpec(1, 2, {}, {}));
            QVERIFY2(!r.ok(), (r.plan.cutValueText() + " saved " + std::to_string(r.plan.savedValues.size())).c_str());
            QVERIFY(r.error.find("no source") != std::string::npos);
        }
        {   // a result-less backward op holds a value whose path starts at pd_op.uniform
            ProgramBuilder b;
            const TypeId t = b.f32({4});
            const ValueId x = b.op("pd_op.data", {}, t);
            const ValueId u = b.op("pd_op.empty", {}, t);  // (uniform would be saved: fusion loop)
            const ValueId e = b.op("pd_op.exp", {u}, t);
            const ValueId out = b.op("pd_op.add", {x, e}, t);
            const int fwdEnd = b.index();
            b.noResult("builtin.shadow_output", {e});
            b.op("pd_op.exp", {x}, t);
            const SolveResult r = solveWith(b, makeSpec(fwdEnd, fwdEnd + 1, {x}, {out}));
            QVERIFY(!r.ok());
            QVERIFY2(r.error.find("but find pd_op.empty op") != std::string::npos, r.error.c_str());
        }
        {   // hazard without error: the held value is recomputable
            ProgramBuilder b;
            const TypeId t = b.f32({4});
            const ValueId x = b.op("pd_op.data", {}, t);
            const ValueId e = b.op("pd_op.exp", {x}, t);
            const ValueId out = b.op("pd_op.add", {x, e}, t);
            const int fwdEnd = b.index();
            b.noResult("builtin.shadow_output", {e});
            b.op("pd_op.exp", {x}, t);
            const SolveResult r = solveWith(b, makeSpec(fwdEnd, fwdEnd + 1, {x}, {out}));
            QVERIFY2(r.ok(), r.error.c_str());
            QVERIFY(contains(r.plan.midHoldValues, e));
            QVERIFY(!r.plan.hazards.empty());
        }
        {   // spec out of range
            ProgramBuilder b;
            const TypeId t = b.f32({4});
            b.op("pd_op.data", {}, t);
            const SolveResult r = solveWith(b, makeSpec(5, 6, {}, {}));
            QVERIFY(!r.ok());
            QVERIFY(r.error.find("out of range") != std::string::npos);
        }
        {   // no backward values: returned unchanged
            ProgramBuilder b;
            const TypeId t = b.f32({4});
            const ValueId x = b.op("pd_op.data", {}, t);
            b.op("pd_op.exp", {x}, t);
            const SolveResult r = solveWith(b, makeSpec(1, 2, {x}, {}));
            QVERIFY(r.ok());
            QVERIFY(r.unchanged);
            QCOMPARE(r.rewritten.get(), b.program.get());
        }
        {   // missing distance: a value used by a combine that feeds another combine
            ProgramBuilder b;
            const TypeId t = b.f32({4});
            const ValueId x = b.op("pd_op.data", {}, t);
            const ValueId e = b.op("pd_op.exp", {x}, t);
            const TypeId v1 = b.p.internType(Type::vector({t}));
            const TypeId v2 = b.p.internType(Type::vector({v1}));
            const ValueId c1 = b.op("builtin.combine", {e}, v1);
            const ValueId c2 = b.op("builtin.combine", {c1}, v2);
            const ValueId s = b.op("pd_op.some_op", {c2}, t);
            const int fwdEnd = b.index();
            b.op("pd_op.exp", {s}, t);
            const SolveResult r = solveWith(b, makeSpec(fwdEnd, fwdEnd + 1, {x}, {s}));
            QVERIFY(!r.ok());
            QVERIFY2(r.error.find("missing distance") != std::string::npos, r.error.c_str());
        }
    }

    // Recompute paths deeper than the seed's recursion limit are walked iteratively and flagged.
    void deepRecomputePath() {
        ProgramBuilder b;
        const TypeId t = b.f32({16});
        const ValueId x = b.op("pd_op.data", {}, t);
        ValueId cur = x;
        RecomputeConfig c = kDefaults;
        for (int i = 0; i < 1500; ++i) {
            cur = b.op("pd_op.exp", {cur}, t);
            c.pinnedRecomputed.push_back(b.name(cur));  // the distance bias would save the last one
        }
        const ValueId out = b.op("pd_op.exp", {cur}, t);
        const int fwdEnd = b.index();
        b.op("pd_op.multiply", {cur, cur}, t);
        c.maxDistFromBw = 100000;  // nothing too far: the cut falls on the input
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, fwdEnd + 1, {x}, {out}));
        const SolveResult r = solver.solve(c);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(b.names(r.plan.savedValues), std::vector<std::string>{b.name(x)});
        QCOMPARE(r.plan.recomputeOps.size(), size_t(1500));
        QCOMPARE(r.plan.maxRecomputeDepth, size_t(1500));
        QVERIFY(!r.plan.warnings.empty() && r.plan.warnings.back().find("RecursionError") != std::string::npos);
        QCOMPARE(r.clones.size(), size_t(1500));
        // clones sit just before the backward multiply, in program order
        const auto& order = r.rewritten->globalBlock().ops;
        QCOMPARE(order.size(), size_t(fwdEnd + 2 + 1500));
        QCOMPARE(order[size_t(fwdEnd) + 1], r.clones.front());
        QCOMPARE(order[size_t(fwdEnd) + 1500], r.clones.back());
    }

    // A re-solve reuses the analysis; concurrent solves give identical results.
    void concurrentSolves() {
        ProgramBuilder b;
        const TypeId t = b.f32({64, 64});
        ValueId x = b.op("pd_op.data", {}, t);
        ValueId cur = x;
        std::vector<ValueId> fw;
        for (int i = 0; i < 200; ++i) { cur = b.op(i % 7 == 3 ? "pd_op.matmul" : "pd_op.exp", {cur, x}, t); fw.push_back(cur); }
        const int fwdEnd = b.index();
        ValueId g = b.op("pd_op.full", {}, t);
        for (size_t i = fw.size(); i-- > 0;) g = b.op("pd_op.multiply", {g, fw[i]}, t);
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, fwdEnd + 1, {x}, {cur}));
        const SolveResult ref = solver.solve(kDefaults);
        QVERIFY2(ref.ok(), ref.error.c_str());
        std::vector<std::thread> threads;
        std::vector<int> same(4, 0);
        for (int k = 0; k < 4; ++k)
            threads.emplace_back([&, k] {
                const SolveResult r = solver.solve(kDefaults);
                same[size_t(k)] = r.ok() && r.plan.savedValues == ref.plan.savedValues &&
                                  r.plan.cutValueUnits == ref.plan.cutValueUnits;
            });
        for (auto& th : threads) th.join();
        QCOMPARE(same, std::vector<int>(4, 1));
    }
};

QTEST_GUILESS_MAIN(RulesTest)
#include "test_rules.moc"
