// --recompute-random (model/RandomRecompute.h): budget plans that recompute dropout from its
// saved mask or re-run fixed-seed random ops are equivalent on the CPU executor at every
// budget, reach below the default mode's floor, and the default mode is unchanged.
#include <QtTest>

#include "algorithms/MemoryModel.h"
#include "algorithms/Rewriter.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/zoo/ModelZoo.h"
#include "exec/Verify.h"
#include "model/RandomRecompute.h"
#include "support/ProgramBuilder.h"

using namespace rx;
using namespace rx::planner;

namespace {

zoo::GeneratedProgram dropoutTransformer(bool composite) {
    zoo::ZooOptions o;
    o.layers = 2;
    o.hidden = 32;
    o.heads = 2;
    o.seq = 8;
    o.batch = 2;
    o.dropout = 0.1;
    o.composite = composite;
    return zoo::generateModel(o);
}

PlannerOptions withRandom(RandomRecompute mode) {
    PlannerOptions o;
    o.randomRecompute = mode;
    return o;
}

bool recomputesRandomOp(const Program& p, const BudgetPlan& plan) {
    for (OpId op : plan.recomputeOps)
        if (hasOpTrait(p.opName(op), OpTrait::Random)) return true;
    return false;
}

// Every plan of `plans` fits its budget, measures what it says, and computes the same bits.
void checkPlans(const BudgetPlanner& planner, const std::vector<BudgetPlan>& plans, const RecomputeSpec& spec,
                const Program& program) {
    for (const BudgetPlan& plan : plans) {
        if (plan.budgetBytes) QVERIFY2(plan.activationPeakBytes <= *plan.budgetBytes, "plan above its budget");
        const auto rewritten = planner.rewrite(plan);
        const MemoryProfile m = profileMemory(*rewritten, spec.inputs, spec.fwdOpEndIdx);
        QCOMPARE(m.peakBytes - m.residentBytes, plan.activationPeakBytes);
        QCOMPARE(planner.simulatedPeakOf(plan), plan.peakBytes);  // the search's replay agrees
        exec::VerifyOptions vo;
        vo.residentValues = spec.inputs;
        const exec::VerifyReport r = exec::verifyPrograms(program, *rewritten, vo);
        QVERIFY2(r.equivalent && r.bitwiseEqual, (plan.source + ": " + r.summary()).c_str());
    }
}

// x -> matmul -> dropout(fix_seed) -> exp -> mean; the backward reads the dropout output and
// the exp: saving or recomputing either is the planner's choice once the dropout may re-run.
struct SeededProgram {
    std::shared_ptr<Program> program;
    RecomputeSpec spec;
};
SeededProgram fixedSeedDropout(bool fixSeed) {
    test::ProgramBuilder b;
    const int64_t n = 64;
    const ValueId x = b.op("pd_op.data", {}, b.f32({n, n}), {{"name", Attribute::string("x")}});
    const ValueId w = b.op("builtin.parameter", {}, b.f32({n, n}), {{"parameter_name", Attribute::string("w")}});
    const ValueId h = b.op("pd_op.matmul", {x, w}, b.f32({n, n}));
    // p as an attribute only (the zoo's dropouts also pass it as an operand).
    const auto d = b.ops("pd_op.dropout", {h}, {b.f32({n, n}), b.p.tensorType(DType::Bool, {n, n})},
                         {{"fix_seed", Attribute::boolean(fixSeed)}, {"is_test", Attribute::boolean(false)},
                          {"mode", Attribute::string("upscale_in_train")}, {"p", Attribute::float32(0.25)},
                          {"seed", Attribute::int32(7)}});
    const ValueId e = b.op("pd_op.exp", {d[0]}, b.f32({n, n}));
    const ValueId t = b.op("pd_op.tanh", {e}, b.f32({n, n}));
    const ValueId loss = b.op("pd_op.mean", {t}, b.f32({}));
    const int fwdEnd = b.index();
    const ValueId g = b.op("pd_op.full", {}, b.f32({n, n}), {{"shape", Attribute::intArray({n, n})}, {"value", Attribute::float32(0.5)}});
    const int bwdStart = b.index();
    const ValueId g1 = b.op("pd_op.multiply", {g, e}, b.f32({n, n}));
    const ValueId g2 = b.op("pd_op.multiply", {g1, d[0]}, b.f32({n, n}));
    const ValueId g3 = b.op("pd_op.matmul", {g2, w}, b.f32({n, n}));
    b.op("pd_op.fetch", {g3}, b.f32({n, n}), {{"name", Attribute::string("fetch0")}, {"col", Attribute::int32(0)}});
    SeededProgram out;
    out.program = b.program;
    out.spec = test::makeSpec(fwdEnd, bwdStart, {x, w}, {loss});
    return out;
}

}  // namespace

class TestRandomRecompute : public QObject {
    Q_OBJECT
private slots:
    void parsesModes() {
        QCOMPARE(parseRandomRecompute("mask"), std::optional(RandomRecompute::Mask));
        QCOMPARE(parseRandomRecompute("seed"), std::optional(RandomRecompute::Seed));
        QCOMPARE(parseRandomRecompute("off"), std::optional(RandomRecompute::Off));
        QVERIFY(!parseRandomRecompute("Mask").has_value());
        QVERIFY(!parseRandomRecompute("").has_value());
        QCOMPARE(std::string(randomRecomputeName(RandomRecompute::Mask)), std::string("mask"));
    }

    // Composite (dropout_grad in the backward) and primitive (cast + multiply) programs.
    void maskPlansAreEquivalentAtEveryBudget_data() {
        QTest::addColumn<bool>("composite");
        QTest::newRow("prim") << false;
        QTest::newRow("composite") << true;
    }
    void maskPlansAreEquivalentAtEveryBudget() {
        QFETCH(bool, composite);
        const zoo::GeneratedProgram g = dropoutTransformer(composite);
        BudgetPlanner off(g.program, g.spec);
        BudgetPlanner mask(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, withRandom(RandomRecompute::Mask));
        QVERIFY(mask.candidateOpCount() > off.candidateOpCount());  // the dropouts joined
        const std::vector<BudgetPlan> plans = mask.frontier(8);
        QVERIFY(plans.size() >= 3);
        // Budgets across the whole range, each planned on its own, plus the frontier.
        std::vector<BudgetPlan> all = plans;
        const int64_t lo = mask.minimumActivationPeak(), hi = mask.originalActivationPeak();
        for (int i = 0; i <= 4; ++i) all.push_back(mask.planForBudget(lo + (hi - lo) * i / 4));
        bool anyRandom = false;
        for (const BudgetPlan& plan : all) anyRandom = anyRandom || recomputesRandomOp(*g.program, plan);
        QVERIFY2(anyRandom, "no plan recomputed a dropout");
        checkPlans(mask, all, g.spec, *g.program);
        // The rewrite rebuilds each recomputed dropout from its mask (a dropout_grad clone
        // reading the original mask), never by drawing again.
        size_t rebuilt = 0;
        for (const BudgetPlan& plan : all) {
            const RewriteResult rw = partitionJointGraph(mask.analysis(), plan.plan);
            QVERIFY2(rw.ok(), rw.error.c_str());
            for (size_t k = 0; k < rw.clones.size(); ++k) {
                if (g.program->opName(rw.cloneOf[k]) != "pd_op.dropout") continue;
                QCOMPARE(rw.program->opName(rw.clones[k]), std::string_view("pd_op.dropout_grad"));
                QCOMPARE(rw.program->op(rw.clones[k]).operands[0], g.program->op(rw.cloneOf[k]).results[1]);
                QCOMPARE(rw.program->op(rw.clones[k]).results.size(), size_t(1));
                ++rebuilt;
            }
        }
        QVERIFY(rebuilt > 0);
        // Never above the default mode (its plans stay in the family; on these small
        // programs the floor is the gradients, the stack's figure is in the CLI test).
        QVERIFY(mask.minimumActivationPeak() <= off.minimumActivationPeak());
        QVERIFY(mask.activationLowerBound() <= off.activationLowerBound());
    }

    // The default (no option) and Off are the same planner: same plans, no random op recomputed;
    // and on a program without random ops the option changes nothing at all.
    void defaultModeIsUnchanged() {
        const zoo::GeneratedProgram g = dropoutTransformer(false);
        BudgetPlanner plain(g.program, g.spec);
        BudgetPlanner off(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, withRandom(RandomRecompute::Off));
        const auto a = plain.frontier(8), b = off.frontier(8);
        QCOMPARE(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].recomputeOps, b[i].recomputeOps);
            QCOMPARE(a[i].activationPeakBytes, b[i].activationPeakBytes);
            QVERIFY(!recomputesRandomOp(*g.program, a[i]));
            QCOMPARE(a[i].plan.randomRecompute, RandomRecompute::Off);
        }
        zoo::ZooOptions o;
        o.layers = 2;
        o.hidden = 32;
        o.heads = 2;
        o.seq = 8;
        o.dropout = 0;  // no random op
        const zoo::GeneratedProgram clean = zoo::generateModel(o);
        BudgetPlanner cleanOff(clean.program, clean.spec);
        BudgetPlanner cleanMask(clean.program, clean.spec, RecomputeConfig::seedDefaults(), {}, withRandom(RandomRecompute::Mask));
        const auto c = cleanOff.frontier(6), d = cleanMask.frontier(6);
        QCOMPARE(c.size(), d.size());
        for (size_t i = 0; i < c.size(); ++i) {
            QCOMPARE(c[i].recomputeOps, d[i].recomputeOps);
            QCOMPARE(c[i].activationPeakBytes, d[i].activationPeakBytes);
            QCOMPARE(c[i].recomputeFlops, d[i].recomputeFlops);
        }
        QCOMPARE(cleanOff.activationLowerBound(), cleanMask.activationLowerBound());
    }

    // seed: a dropout with fix_seed re-runs (same draws: the executor keys it by its seed);
    // one without a fixed seed is never recomputed.
    void seedModeRerunsFixedSeedOps() {
        const SeededProgram fixed = fixedSeedDropout(true);
        BudgetPlanner planner(fixed.program, fixed.spec, RecomputeConfig::seedDefaults(), {}, withRandom(RandomRecompute::Seed));
        const BudgetPlan lowest = planner.planForBudget(planner.minimumActivationPeak());
        QVERIFY2(recomputesRandomOp(*fixed.program, lowest), "the fixed-seed dropout was not re-run");
        BudgetPlanner offPlanner(fixed.program, fixed.spec);
        QVERIFY(lowest.activationPeakBytes < offPlanner.minimumActivationPeak());
        checkPlans(planner, planner.frontier(6), fixed.spec, *fixed.program);
        checkPlans(planner, {lowest}, fixed.spec, *fixed.program);
        const RewriteResult rw = partitionJointGraph(planner.analysis(), lowest.plan);
        QVERIFY(rw.ok());
        bool rerun = false;
        for (size_t k = 0; k < rw.clones.size(); ++k)
            rerun = rerun || rw.program->opName(rw.clones[k]) == "pd_op.dropout";
        QVERIFY(rerun);

        const SeededProgram drawn = fixedSeedDropout(false);
        BudgetPlanner unseeded(drawn.program, drawn.spec, RecomputeConfig::seedDefaults(), {}, withRandom(RandomRecompute::Seed));
        for (const BudgetPlan& plan : unseeded.frontier(6)) QVERIFY(!recomputesRandomOp(*drawn.program, plan));
        // mask mode takes the unseeded one from its mask instead.
        BudgetPlanner masked(drawn.program, drawn.spec, RecomputeConfig::seedDefaults(), {}, withRandom(RandomRecompute::Mask));
        const BudgetPlan maskLowest = masked.planForBudget(masked.minimumActivationPeak());
        QVERIFY(recomputesRandomOp(*drawn.program, maskLowest));
        checkPlans(masked, {maskLowest}, drawn.spec, *drawn.program);
    }
};

QTEST_GUILESS_MAIN(TestRandomRecompute)
#include "test_random_recompute.moc"
