// Exact mode's MILP (MilpCertificate.cpp) against enumeration: its model of a plan's peak is
// never above the real one and equals it at original ops, its bounds never exceed the
// optimum, its certified plans are the optimum, at many budgets; corpus programs certify.
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <limits>

#include "algorithms/MemoryModel.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/RecomputeSpec.h"
#include "planner/RandomJointProgram.h"

using namespace rx;
using namespace rx::planner;
using test::randomProgram;
using test::SmallProgram;

namespace {

// The forward ops a plan may recompute (simulatedPeakOf answers -1 for any other).
std::vector<OpId> candidateOps(const BudgetPlanner& planner, const RecomputeSpec& spec) {
    std::vector<OpId> out;
    const auto& ops = planner.program().globalBlock().ops;
    for (int64_t i = 0; i <= spec.fwdOpEndIdx; ++i) {
        BudgetPlan one;
        one.recomputeOps = {ops[size_t(i)]};
        if (planner.simulatedPeakOf(one) >= 0) out.push_back(ops[size_t(i)]);
    }
    return out;
}

PlannerOptions milpOnly() {
    PlannerOptions o;
    o.maxExactOps = 0;
    o.exactBelow = 0;
    return o;
}

}  // namespace

class TestExactMilp : public QObject {
    Q_OBJECT
private slots:
    void modelPeakIsTheRealPeakAtOriginalOps() {
        // Every normalised recompute set of small programs: the model's peak (its rows with
        // the set fixed) is a lower bound of the simulated peak, and equal to it on nearly
        // every set (the rest peak at a clone, between two original ops).
        int sets = 0, equal = 0;
        for (uint32_t seed = 1; seed <= 16; ++seed) {
            const SmallProgram sp = randomProgram(seed, 9, 8);
            BudgetPlanner planner(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, milpOnly());
            const std::vector<OpId> cands = candidateOps(planner, sp.spec);
            if (cands.size() > 12) continue;
            const int64_t resident = planner.originalMemory().residentBytes;
            for (uint32_t mask = 0; mask < (1u << cands.size()); ++mask) {
                BudgetPlan plan;
                for (size_t k = 0; k < cands.size(); ++k)
                    if (mask >> k & 1) plan.recomputeOps.push_back(cands[k]);
                const int64_t model = planner.milpModelActivationPeak(plan);
                if (model < 0) continue;  // not normalised
                const int64_t real = planner.simulatedPeakOf(plan) - resident;
                QVERIFY2(model <= real, qPrintable(QString("seed %1 set %2: model %3 above the real %4")
                                                       .arg(seed).arg(mask).arg(model).arg(real)));
                ++sets;
                equal += model == real;
            }
        }
        qInfo("model peak equal to the simulated peak on %d of %d sets", equal, sets);
        QVERIFY(sets >= 500);
        // Measured: 2753 of 2802 (the rest peak at a clone, where the rows are a lower bound and
        // the no-good cuts handle the rest); 2653 with rows for what spans t-1..t alone.
        QVERIFY2(equal * 100 >= sets * 97, "the model misses the real peak on more than 3% of the sets");
    }

    void boundsNeverAboveAndCertifiedPlansEqualTheOptimum() {
        // Budgets at, just below and between the exhaustive frontier's points: the MILP's plan
        // is certified and exactly as cheap as enumeration's optimum, or both find none; the
        // LP relaxation's bound never exceeds the optimum.
        int budgets = 0, none = 0;
        for (uint32_t seed = 1; seed <= 14; ++seed) {
            const SmallProgram sp = randomProgram(seed, 10, 8);
            PlannerOptions enumerate;
            enumerate.maxExactOps = 16;
            BudgetPlanner exact(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, enumerate);
            if (exact.candidateOpCount() > enumerate.maxExactOps) continue;
            BudgetPlanner milp(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, milpOnly());
            std::vector<int64_t> points;
            for (const BudgetPlan& e : exact.exactFrontier()) {
                points.push_back(e.activationPeakBytes);
                points.push_back(e.activationPeakBytes - 1);
            }
            for (size_t i = 0; i + 2 < points.size(); i += 2) points.push_back((points[i] + points[i + 2]) / 2);
            for (const int64_t budget : points) {
                std::optional<BudgetPlan> optimum;
                try {
                    optimum = exact.exactPlanForBudget(budget);
                } catch (const Error&) {
                }
                ++budgets;
                if (!optimum) {
                    ++none;
                    QVERIFY_THROWS_EXCEPTION(Error, milp.certifiedPlanForBudget(budget, ExactOptions{30}));
                    continue;
                }
                const BudgetPlan m = milp.certifiedPlanForBudget(budget, ExactOptions{30});
                QVERIFY(m.bound && m.bound->method == "milp");
                QVERIFY2(m.bound->optimal, qPrintable(QString("seed %1, budget %2: gap %3").arg(seed).arg(budget)
                                                          .arg(m.bound->gap)));
                QVERIFY(m.activationPeakBytes <= budget);
                QVERIFY2(std::abs(m.recomputeCost - optimum->recomputeCost) <= 1e-9 * std::max(1.0, optimum->recomputeCost),
                         qPrintable(QString("seed %1, budget %2: MILP %3, enumeration %4").arg(seed).arg(budget)
                                        .arg(m.recomputeCost).arg(optimum->recomputeCost)));
                ExactOptions lpOnly{30};
                lpOnly.milpMaxCandidates = 0;
                std::optional<BudgetPlan> l;
                try {  // LP alone: the heuristic's plan bounded (none when the heuristic misses)
                    l = milp.certifiedPlanForBudget(budget, lpOnly);
                } catch (const Error&) {
                }
                if (l && l->bound && l->bound->method == "lp")
                    QVERIFY2(l->bound->costLowerBound <= optimum->recomputeCost * (1 + 1e-9),
                             qPrintable(QString("seed %1, budget %2: LP bound %3 above the optimum %4").arg(seed)
                                            .arg(budget).arg(l->bound->costLowerBound).arg(optimum->recomputeCost)));
            }
        }
        qInfo("%d budgets compared, %d with no fitting plan", budgets, none);
        QVERIFY(budgets >= 100);
        QVERIFY(none >= 5);
    }

    void torchJointFrontiersCertified_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("maxSeconds");
        // The MLP: one point proven and a gap of 84% before the time-indexed model. (The
        // transformer layers do not certify: the MILP's model counts aliased storage per value
        // (README, "Exact mode"), and its answers there can miss their budget, cut off one by one.)
        QTest::newRow("mlp.prim") << "mlp.prim" << 20.0;
    }

    void torchJointFrontiersCertified() {
        // The corpus's torch-joint programs past enumeration: every frontier point proven
        // optimal and the lowest proven the family's lowest peak, within the time limit.
        QFETCH(QString, name);
        QFETCH(double, maxSeconds);
        const std::string path = std::string(RX_SHARED_DIR) + "/corpus/torch-joint/" + name.toStdString() + ".pir";
        auto program = std::make_shared<Program>(loadProgram(path));
        const RecomputeSpec spec = resolveSpec(*program, path, std::nullopt).spec;
        BudgetPlanner planner(program, spec);
        QVERIFY(planner.candidateOpCount() > PlannerOptions{}.maxExactOps);
        const auto start = std::chrono::steady_clock::now();
        const std::vector<BudgetPlan> plans = planner.certifiedFrontier(20, ExactOptions{maxSeconds});
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY(plans.size() >= 2);
        for (const BudgetPlan& p : plans) {
            QVERIFY(p.bound && p.bound->method == "milp");
            QVERIFY2(p.bound->optimal, qPrintable(QString("gap %1 at %2 bytes").arg(p.bound->gap).arg(p.activationPeakBytes)));
            // The plan's peak is the rewritten program's by the memory model.
            const MemoryProfile real = profileMemory(*planner.rewrite(p), spec.inputs, spec.fwdOpEndIdx);
            QCOMPARE(real.peakBytes - real.residentBytes, p.activationPeakBytes);
        }
        QVERIFY(plans.back().bound->lowestPeak);
        qInfo("%s: %zu points proven, the lowest peak too, in %.1f s", qPrintable(name), plans.size(), seconds);
    }
};

QTEST_GUILESS_MAIN(TestExactMilp)
#include "test_exact_milp.moc"
