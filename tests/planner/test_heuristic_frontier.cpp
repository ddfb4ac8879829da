// The heuristic Pareto frontier against the exact one (issue 25 item 1): every exact point
// (peak P*, cost F*) has a heuristic frontier point at peak ≤ 1.01·P* and cost ≤ 1.01·F*.
#include <QtTest>

#include <algorithm>
#include <chrono>

#include "algorithms/MemoryModel.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/PirReader.h"
#include "model/RecomputeSpec.h"
#include "planner/PlannerPrograms.h"
#include "planner/RandomJointProgram.h"

using namespace rx;
using namespace rx::planner;

namespace {

struct ExactPoint {
    int64_t peak;
    double cost;
};

// How far the frontier is from covering `point`: the least cost of a frontier plan at most 1%
// above its peak, over its cost (1: as cheap; infinity: no plan that low).
double coverRatio(const std::vector<BudgetPlan>& frontier, const ExactPoint& point) {
    double best = std::numeric_limits<double>::infinity();
    for (const BudgetPlan& p : frontier)
        if (p.activationPeakBytes <= point.peak + point.peak / 100) best = std::min(best, p.recomputeCost);
    if (point.cost == 0) return best == 0 ? 1.0 : std::numeric_limits<double>::infinity();
    return best / point.cost;
}

double worstCoverRatio(const std::vector<BudgetPlan>& frontier, const std::vector<ExactPoint>& exact) {
    double worst = 0;
    for (const ExactPoint& e : exact) worst = std::max(worst, coverRatio(frontier, e));
    return worst;
}

}  // namespace

class TestHeuristicFrontier : public QObject {
    Q_OBJECT
private slots:
    void randomProgramsWithinOnePercentOfEnumeration() {
        // Small random programs, the exact frontier by enumeration of every recompute set; the
        // heuristic alone (no enumeration). Measured: all 120 programs covered at 1%, 398 of
        // 398 points; before the descent below the floor from the LP relaxation's roundings
        // 115 of 120 (393 points), before the relaxation's guidance 114 (391), before the
        // cone and pair moves, the floor descent and the budget bisection 57 (321). The five
        // missed a low exact point that needs several ops cloned at once. On seeds 61-160,
        // never tuned on: 197 of 200 programs, 667 of 670 points (193, 663 before the
        // descent below the floor).
        int programs = 0, covered = 0, points = 0, pointsCovered = 0;
        for (const auto& [fwd, bwd] : {std::pair{9, 6}, std::pair{12, 8}}) {
            for (uint32_t seed = 1; seed <= 60; ++seed) {
                const test::SmallProgram sp = test::randomProgram(seed, fwd, bwd);
                PlannerOptions enumerate;
                enumerate.maxExactOps = 16;
                BudgetPlanner exact(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, enumerate);
                if (exact.candidateOpCount() > enumerate.maxExactOps) continue;
                PlannerOptions heuristicOnly = enumerate;
                heuristicOnly.exactBelow = 0;
                // The enumerated frontier has every Pareto point: the heuristic's is bisected to 1%.
                heuristicOnly.frontierResolution = 0.01;
                BudgetPlanner heuristic(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, heuristicOnly);
                std::vector<ExactPoint> reference;
                for (const BudgetPlan& e : exact.exactFrontier()) reference.push_back({e.activationPeakBytes, e.recomputeCost});
                const std::vector<BudgetPlan> frontier = heuristic.frontier(20);
                for (const ExactPoint& e : reference) {
                    ++points;
                    pointsCovered += coverRatio(frontier, e) <= 1.01;
                }
                ++programs;
                covered += worstCoverRatio(frontier, reference) <= 1.01;
                // Never below the exact frontier: each exact point is the cheapest at its peak.
                for (const BudgetPlan& h : frontier)
                    for (const ExactPoint& e : reference)
                        if (h.activationPeakBytes <= e.peak) QVERIFY(h.recomputeCost >= e.cost * (1 - 1e-9));
            }
        }
        qInfo("heuristic frontier within 1%% of the exhaustive one on %d of %d random programs (%d of %d points)", covered,
              programs, pointsCovered, points);
        QVERIFY(programs >= 100);
        QVERIFY2(covered * 100 >= programs * 98, "the heuristic frontier misses the exact one by over 1% on more than 2% of programs");
        QVERIFY2(pointsCovered * 100 >= points * 99, "more than 1% of exact frontier points not covered within 1%");
    }

    void relaxationGuidesTheSearch() {
        // A 4-layer generated transformer (285 candidates) at a budget where the min cuts'
        // plans and the local search from them cost 116.7 KFLOP while the MILP's bound is
        // ~56 KFLOP (and GLPK's own heuristics find no plan in 30 s): the search from the LP
        // relaxation's roundings finds one at most 60% of that, a plan whose rewritten program
        // peaks where the planner says, and the same answer after a frontier as before it.
        zoo::ZooOptions o;
        o.layers = 4;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const int64_t budget = 907652;  // 886.38 KiB
        PlannerOptions unguided;
        unguided.relaxationGuidedUpTo = 0;
        unguided.answerGridPoints = 0;  // the search alone, not the grid's answers
        BudgetPlanner cutsOnly(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, unguided);
        QCOMPARE(cutsOnly.candidateOpCount(), size_t(285));
        const BudgetPlan before = cutsOnly.planForBudget(budget);
        PlannerOptions guidedAlone;  // the relaxation's effect alone: no answer grid either
        guidedAlone.answerGridPoints = 0;
        BudgetPlanner planner(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, guidedAlone);
        const BudgetPlan guided = planner.planForBudget(budget);
        QVERIFY(guided.activationPeakBytes <= budget);
        QVERIFY2(guided.recomputeCost <= 0.6 * before.recomputeCost,
                 qPrintable(QString("guided %1, cuts only %2").arg(guided.recomputeCost).arg(before.recomputeCost)));
        const MemoryProfile real = profileMemory(*planner.rewrite(guided), g.spec.inputs, g.spec.fwdOpEndIdx);
        QCOMPARE(real.peakBytes - real.residentBytes, guided.activationPeakBytes);
        planner.frontier(12);
        const BudgetPlan again = planner.planForBudget(budget);
        QCOMPARE(again.recomputeOps, guided.recomputeOps);
    }

    void fanMovesCloneAnRnnInputTogether() {
        // A 1-layer GRU over 8 time steps: under 227.4 KiB the cheap plan recomputes the input's
        // transpose with its per-step slices (8.96 KFLOP); no flip, cone or pair reaches it
        // (a slice alone clones the whole transposed input), so the search without fan moves
        // recomputes whole time steps' matmuls (156.93 KFLOP).
        zoo::ZooOptions o;
        o.model = "gru";
        o.layers = 1;
        o.seq = 8;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const int64_t budget = 232800;
        PlannerOptions withoutFans;
        withoutFans.fanMoves = false;
        withoutFans.repairDescent = false;  // which reaches it too (repairDescentGivesBackTimeSteps)
        BudgetPlanner without(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, withoutFans);
        BudgetPlanner with(g.program, g.spec);
        QCOMPARE(with.candidateOpCount(), size_t(208));
        const BudgetPlan before = without.planForBudget(budget);
        const BudgetPlan after = with.planForBudget(budget);
        QVERIFY(after.activationPeakBytes <= budget);
        QVERIFY2(before.recomputeCost > 100000,
                 qPrintable(QString("without fans: %1 FLOP (no longer the case this test is about)").arg(before.recomputeCost)));
        QVERIFY2(after.recomputeCost <= 10000, qPrintable(QString("with fans: %1 FLOP").arg(after.recomputeCost)));
        const MemoryProfile real = profileMemory(*with.rewrite(after), g.spec.inputs, g.spec.fwdOpEndIdx);
        QCOMPARE(real.peakBytes - real.residentBytes, after.activationPeakBytes);
    }

    void repairDescentGivesBackTimeSteps() {
        // A 1-layer LSTM over 8 time steps at 293.25 KiB: 1 KiB below a plan of 10.50 KFLOP
        // (cheap ops only), every other descent starts from the cheapest fitting plan, which
        // recomputes two matmuls (144.90 KFLOP), and cannot give them back; the repair from the
        // cheap plan above, by the cheapest moves per byte (two input slices), ends at 12.54
        // KFLOP, the optimum the exact mode proves there. The GRU's fan case above is reached
        // so too, without fans.
        struct Case {
            const char* model;
            int64_t budget;
            double withoutAbove, withAtMost;
            bool fans;
        };
        for (const Case c : {Case{"lstm", 300292, 100000, 12544, true}, Case{"gru", 232800, 100000, 10000, false}}) {
            zoo::ZooOptions o;
            o.model = c.model;
            o.layers = 1;
            o.seq = 8;
            const zoo::GeneratedProgram g = zoo::generateModel(o);
            PlannerOptions withoutRepair, withRepair;
            withoutRepair.repairDescent = false;
            withoutRepair.fanMoves = withRepair.fanMoves = c.fans;
            BudgetPlanner without(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, withoutRepair);
            BudgetPlanner with(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, withRepair);
            const BudgetPlan before = without.planForBudget(c.budget);
            const BudgetPlan after = with.planForBudget(c.budget);
            qInfo("%s at %lld B: %.0f FLOP without the repair, %.0f with", c.model, (long long)c.budget, before.recomputeCost,
                  after.recomputeCost);
            QVERIFY(before.activationPeakBytes <= c.budget && after.activationPeakBytes <= c.budget);
            QVERIFY2(before.recomputeCost > c.withoutAbove,
                     qPrintable(QString("without the repair: %1 FLOP (no longer the case this test is about)").arg(before.recomputeCost)));
            QVERIFY2(after.recomputeCost <= c.withAtMost, qPrintable(QString("with it: %1 FLOP").arg(after.recomputeCost)));
            const MemoryProfile real = profileMemory(*with.rewrite(after), g.spec.inputs, g.spec.fwdOpEndIdx);
            QCOMPARE(real.peakBytes - real.residentBytes, after.activationPeakBytes);
        }
    }

    void budgetAnswersNeverDearerThanALowerFrontierPoint() {
        // The 4-layer generated transformer at 904068 B: its own local search answers 116.7
        // KFLOP at 881.88 KiB where the default frontier holds a 904064 B plan of 59.4 KFLOP
        // (found from the budget 907776, a reference plan's peak). With the answer grid no
        // budget is answered dearer than a frontier point that fits it, asked before or after
        // the frontier.
        zoo::ZooOptions o;
        o.layers = 4;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        const int64_t budget = 904068;
        PlannerOptions searchAlone;
        searchAlone.answerGridPoints = 0;
        BudgetPlanner alone(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, searchAlone);
        const double aloneCost = alone.planForBudget(budget).recomputeCost;
        BudgetPlanner fresh(g.program, g.spec);
        const BudgetPlan first = fresh.planForBudget(budget);
        BudgetPlanner planner(g.program, g.spec);
        const std::vector<BudgetPlan> frontier = planner.frontier(20);
        double cheapestBelow = std::numeric_limits<double>::infinity();
        for (const BudgetPlan& f : frontier)
            if (f.activationPeakBytes <= budget) cheapestBelow = std::min(cheapestBelow, f.recomputeCost);
        QVERIFY2(aloneCost > cheapestBelow * 1.5,
                 qPrintable(QString("the search alone: %1 FLOP, the frontier below: %2 (no longer the case this test is about)")
                                .arg(aloneCost)
                                .arg(cheapestBelow)));
        QVERIFY(first.recomputeCost <= cheapestBelow);
        QCOMPARE(planner.planForBudget(budget).recomputeOps, first.recomputeOps);
        // Every frontier point's peak, and a little above: never dearer than the points that fit.
        for (const BudgetPlan& f : frontier) {
            for (const int64_t b : {f.activationPeakBytes, f.activationPeakBytes + 3000}) {
                double cheapest = std::numeric_limits<double>::infinity();
                for (const BudgetPlan& h : frontier)
                    if (h.activationPeakBytes <= b) cheapest = std::min(cheapest, h.recomputeCost);
                const BudgetPlan answer = planner.planForBudget(b);
                QVERIFY(answer.activationPeakBytes <= b);
                QVERIFY2(answer.recomputeCost <= cheapest,
                         qPrintable(QString("budget %1: %2 FLOP, a frontier point fitting it %3").arg(b).arg(answer.recomputeCost).arg(cheapest)));
            }
        }
    }

    void transformerWithinOnePercentOfProvenOptima() {
        // Generated 2-layer transformer (149 candidate ops, past enumeration): the points the
        // MILP proved optimal (certifiedFrontier, 240 s at a load of 8-13), stored as
        // (activation peak, FLOPs). The heuristic frontier was up to 4x dearer at them
        // (README, "Exact mode": 2.3x at a 20 s limit) before the local search's cone and
        // pair moves and the 1% budget bisection.
        static const ExactPoint kProven[] = {
            {142148, 0},    {140100, 512},  {139076, 768},  {138052, 1024}, {136004, 1536}, {134980, 1792},
            {133956, 2048}, {132036, 2816}, {127940, 4864}, {126020, 5888}, {123844, 8448},
        };
        const zoo::GeneratedProgram g = test::smallTransformer(2);
        const auto start = std::chrono::steady_clock::now();
        BudgetPlanner planner(g.program, g.spec);
        QCOMPARE(planner.candidateOpCount(), size_t(149));
        // The stored optima are this program's: no plan of the planner's is cheaper at their peaks.
        for (const ExactPoint& e : kProven) {
            const BudgetPlan p = planner.planForBudget(e.peak);
            QVERIFY2(p.recomputeCost >= e.cost * (1 - 1e-9), "a plan below a proven optimum: the stored figures are stale");
        }
        const std::vector<BudgetPlan> frontier = planner.frontier(20);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double worst = worstCoverRatio(frontier, {std::begin(kProven), std::end(kProven)});
        qInfo("2-layer transformer: %zu frontier points (and the budgets above) in %.2f s, at most %.1f%% above the proven optima", frontier.size(),
              seconds, 100 * (worst - 1));
        QVERIFY2(worst <= 1.01, qPrintable(QString("the heuristic frontier is %1x the proven optimum").arg(worst)));
    }

    void torchJointWithinOnePercentOfCertified() {
        // The corpus's torch-joint programs: mlp.aten is enumerated, the others' frontiers the
        // MILP certifies (mlp.prim well under a second, transformer_layer.prim 22 of 22 points
        // in 3 s, transformer_layer.aten 21 of 21 and then seeks a lower floor until the time
        // limit). Only proven points are compared, so a loaded machine proves fewer, never
        // fails for it. Measured: the heuristic at every proven point, 0.0% above.
        for (const char* name : {"mlp.aten", "mlp.prim", "transformer_layer.prim", "transformer_layer.aten"}) {
            const auto [program, spec] = test::torchJointProgram(name);
            BudgetPlanner exact(program, spec);
            std::vector<ExactPoint> reference;
            for (const BudgetPlan& e : exact.certifiedFrontier(20, ExactOptions{8}))
                if (e.bound && e.bound->optimal) reference.push_back({e.activationPeakBytes, e.recomputeCost});
            QVERIFY(!reference.empty());
            BudgetPlanner heuristic(program, spec);
            const double worst = worstCoverRatio(heuristic.frontier(20), reference);
            qInfo("%s: %zu proven exact points, heuristic at most %.1f%% above", name, reference.size(), (worst - 1) * 100);
            QVERIFY2(worst <= 1.01, name);
        }
    }
};

QTEST_GUILESS_MAIN(TestHeuristicFrontier)
#include "test_heuristic_frontier.moc"
