// Where the seed raises under a tuned config (docs/ALGORITHM.md §5 banned(v), issue 8 part 7):
// the solve says so as the seed would (message, value, op, rule) and marks its own plan as an
// extension; where the seed does not reach the failing read, nothing is reported.
#include <QtTest>

#include "support/ProgramBuilder.h"

using namespace rx;
using namespace rx::test;

namespace {

// x -> dropout(x, <<NULL VALUE>>, p) -> exp -> (backward reads the dropout result and exp).
struct DropoutProgram {
    ProgramBuilder b;
    ValueId x, p, y, mask, e;
    RecomputeSpec spec;
    DropoutProgram() {
        const TypeId t = b.f32({8, 8}), one = b.f32({1});
        x = b.op("pd_op.data", {}, t);
        p = b.op("pd_op.full", {}, one);
        const auto r = b.ops("pd_op.dropout", {x, kNoId, p}, {t, b.p.tensorType(DType::UInt8, {8, 8})});
        y = r[0];
        mask = r[1];
        e = b.op("pd_op.exp", {y}, t);
        const int fwdEnd = b.index();
        const ValueId g = b.op("pd_op.full", {}, t);
        const ValueId ge = b.op("pd_op.multiply", {e, g}, t);
        b.op("pd_op.multiply", {y, ge}, t);
        spec = makeSpec(fwdEnd, fwdEnd + 2, {x}, {e});
    }
};

RecomputeConfig withRecomputable(std::vector<std::string> extra) {
    RecomputeConfig c = RecomputeConfig::seedDefaults();
    c.recomputableOps.insert(c.recomputableOps.end(), extra.begin(), extra.end());
    return c;
}

}  // namespace

class SeedErrorsTest : public QObject {
    Q_OBJECT
private slots:
    void dropoutMadeRecomputableRaisesOnItsNullSeedTensor() {
        DropoutProgram d;
        RecomputeSolver solver(d.b.program, d.spec);
        const SolveResult r = solver.solve(withRecomputable({"pd_op.dropout"}));
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(r.extension);
        QCOMPARE(r.seedError.message, std::string("ValueError: value node illegal: <<NULL VALUE>>"));
        QCOMPARE(r.seedError.value, d.b.name(d.y));
        QCOMPARE(r.seedError.opIndex, int64_t(2));
        QCOMPARE(r.seedError.opName, std::string("pd_op.dropout"));
        QCOMPARE(r.seedError.rule, std::string("size_ratio"));
        QVERIFY(r.seedError.detail.find("operand 1 of pd_op.dropout (null)") != std::string::npos);
        // Our own answer goes on, with the null operand counted as 0 bytes.
        QVERIFY(!r.plan.savedValues.empty() || !r.plan.midHoldValues.empty());
    }

    void noRaiseWhereTheSeedDoesNotReachTheRead() {
        DropoutProgram d;
        RecomputeSolver solver(d.b.program, d.spec);
        // Default ops: dropout is not recomputable, banned before its inputs are sized.
        const SolveResult byDefault = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(byDefault.ok(), byDefault.error.c_str());
        QVERIFY(byDefault.seedError.empty());
        QVERIFY(!byDefault.extension);
        // Aggressive mode only asks whether the op is unrecomputable.
        RecomputeConfig aggressive = withRecomputable({"pd_op.dropout"});
        aggressive.aggressiveRecomputation = true;
        const SolveResult a = solver.solve(aggressive);
        QVERIFY2(a.ok(), a.error.c_str());
        QVERIFY(a.seedError.empty());
        // Too far from the backward: banned by distance first.
        RecomputeConfig far = withRecomputable({"pd_op.dropout"});
        far.maxDistFromBw = 0;
        const SolveResult f = solver.solve(far);
        QVERIFY(f.ok());
        QVERIFY(f.seedError.empty());
        QCOMPARE(f.network->facts[d.y].banRule, BanRule::TooFarFromBackward);
    }

    void nullOperandThroughCombine() {
        ProgramBuilder b;
        const TypeId t = b.f32({8, 8});
        const ValueId x = b.op("pd_op.data", {}, t);
        const TypeId vt = b.p.internType(Type::vector({t, t}));
        const ValueId c = b.op("builtin.combine", {x, kNoId}, vt);
        const ValueId cat = b.op("pd_op.concat", {c}, b.f32({16, 8}));
        const int fwdEnd = b.index();
        const ValueId g = b.op("pd_op.full", {}, b.f32({16, 8}));
        b.op("pd_op.multiply", {cat, g}, b.f32({16, 8}));
        RecomputeSolver solver(b.program, makeSpec(fwdEnd, fwdEnd + 2, {x}, {}));
        const SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(r.extension);
        QCOMPARE(r.seedError.value, b.name(cat));
        QCOMPARE(r.seedError.opName, std::string("pd_op.concat"));
        QVERIFY(r.seedError.detail.find("operand 1 of builtin.combine (null)") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(SeedErrorsTest)
#include "test_seed_errors.moc"
