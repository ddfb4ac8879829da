// The memory-budget planner: budget strings, the cost model and profile costs, simulated
// against real peaks, budget plans against the exact optimum on small programs, frontier
// monotone and fitting, plans equivalent on the CPU executor, reference plans, bad budgets.
#include <QtTest>

#include <algorithm>
#include <limits>
#include <random>

#include "algorithms/Layers.h"
#include "algorithms/MemoryModel.h"
#include "exec/Verify.h"
#include "algorithms/planner/Budget.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/CostModel.h"
#include "algorithms/planner/PlanReport.h"
#include "algorithms/planner/PlannerInternal.h"
#include "algorithms/zoo/ModelZoo.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/RecomputeSpec.h"
#include "planner/PlannerPrograms.h"
#include "planner/RandomJointProgram.h"
#include "support/ProgramBuilder.h"

using namespace rx;
using namespace rx::planner;
using test::randomProgram;
using test::SmallProgram;
using test::smallTransformer;

namespace {

int64_t realActivationPeak(const BudgetPlanner& planner, const BudgetPlan& plan, const RecomputeSpec& spec) {
    const auto rewritten = planner.rewrite(plan);
    const MemoryProfile m = profileMemory(*rewritten, spec.inputs, spec.fwdOpEndIdx);
    return m.peakBytes - m.residentBytes;
}

// A 2-layer transformer's planner that never enumerates, so its frontier carries LP bounds.
std::unique_ptr<BudgetPlanner> lpBoundedPlanner() {
    const auto g = smallTransformer(2);
    PlannerOptions opts;
    opts.exactBelow = 0;
    return std::make_unique<BudgetPlanner>(g.program, g.spec, RecomputeConfig::seedDefaults(), CostModel{}, opts);
}

}  // namespace

class TestBudget : public QObject {
    Q_OBJECT
private slots:
    void roundsLastPointSearchesOnEveryThread() {
        // A frontier round's points share the threads; its last one, which the others leave
        // running alone, searches on every thread and by CBC's search (GLPK's has one thread).
        // Each point by one engine: both at once (ExactOptions::bothEngines) is one budget's.
        ExactOptions exact;
        QVERIFY(exact.bothEngines);
        const ExactOptions early = detail::roundPointOptions(exact, 2, 10, false);
        QCOMPARE(early.searchThreads, 1u);
        QVERIFY(early.glpkWhereFewDear && !early.bothEngines);
        const ExactOptions last = detail::roundPointOptions(exact, 2, 10, true);
        QCOMPARE(last.searchThreads, 2u);
        QVERIFY(!last.glpkWhereFewDear && !last.bothEngines);
        // Fewer points than threads: each takes the threads no other has.
        QCOMPARE(detail::roundPointOptions(exact, 4, 2, false).searchThreads, 2u);
        QVERIFY(!detail::roundPointOptions(exact, 4, 2, false).bothEngines);
        // One thread: nothing to share, GLPK's search stays where few ops are dear.
        const ExactOptions alone = detail::roundPointOptions(exact, 1, 10, true);
        QCOMPARE(alone.searchThreads, 1u);
        QVERIFY(alone.glpkWhereFewDear);
        // What the caller asked for is kept.
        exact.glpkWhereFewDear = false;
        exact.searchThreads = 3;
        QVERIFY(!detail::roundPointOptions(exact, 2, 10, false).glpkWhereFewDear);
        QCOMPARE(detail::roundPointOptions(exact, 2, 10, false).searchThreads, 3u);
    }

    void boundsAtLargerPeaksBoundTheSmaller() {
        // Any plan fitting a peak fits every larger one: the cheapest cost at a larger peak is a
        // floor at a smaller one (detail::raiseBoundsFromLargerPeaks, both exact frontiers).
        auto plan = [](int64_t peak, double cost, std::optional<OptimalityBound> bound) {
            BudgetPlan p;
            p.activationPeakBytes = peak;
            p.recomputeCost = cost;
            p.bound = std::move(bound);
            return p;
        };
        auto open = [](double cost, double lower, int solves) {
            return OptimalityBound{"milp", lower, (cost - lower) / cost, false, solves};
        };
        std::vector<BudgetPlan> plans{plan(300, 100, OptimalityBound{"milp", 100, 0, true, 3}),
                                      plan(290, 150, open(150, 80, 5)),   // raised to 100 by the point above
                                      plan(280, 400, open(400, 120, 7)),  // its own 120 above: kept
                                      plan(270, 120.4, open(120.4, 50, 2)),  // raised to 120: proven to a granule
                                      plan(260, 500, std::nullopt)};       // no bound: one from above (120)
        detail::raiseBoundsFromLargerPeaks(plans, [](size_t) { return true; },
                                           [](double lower, double cost) { return lower >= cost - 0.5; });
        QVERIFY(plans[0].bound->optimal);
        QCOMPARE(plans[1].bound->costLowerBound, 100.0);
        QCOMPARE(plans[1].bound->gap, 50.0 / 150);
        QVERIFY(!plans[1].bound->optimal);
        QCOMPARE(plans[1].bound->solves, 5);
        QCOMPARE(plans[1].bound->method, std::string("milp"));
        QCOMPARE(plans[2].bound->costLowerBound, 120.0);
        QVERIFY(plans[3].bound->optimal);
        QCOMPARE(plans[3].bound->costLowerBound, 120.4);
        QCOMPARE(plans[3].bound->gap, 0.0);
        QVERIFY(plans[4].bound);
        QCOMPARE(plans[4].bound->costLowerBound, 120.0);
        QCOMPARE(plans[4].bound->method, std::string("lp"));
        // Never from a smaller peak, nor where `raisable` says no.
        std::vector<BudgetPlan> upward{plan(300, 100, open(100, 10, 1)), plan(290, 150, open(150, 90, 1))};
        detail::raiseBoundsFromLargerPeaks(upward, [](size_t i) { return i == 0; }, [](double, double) { return false; });
        QCOMPARE(upward[0].bound->costLowerBound, 10.0);
        QCOMPARE(upward[1].bound->costLowerBound, 90.0);
    }

    void parsesBudgets() {
        QCOMPARE(parseBudget("512MiB").bytes, int64_t(512) << 20);
        QCOMPARE(parseBudget("2GB").bytes, int64_t(2000000000));
        QCOMPARE(parseBudget("1048576").bytes, int64_t(1048576));
        QCOMPARE(parseBudget("1.5KiB").bytes, int64_t(1536));
        QVERIFY(parseBudget("0.25").isFraction);
        QCOMPARE(parseBudget("0.25").fraction, 0.25);
        QVERIFY(parseBudget("1.0").isFraction);
        for (const char* bad : {"", "abc", "-5", "1.5", "12parsecs", "MiB", "1..2"}) {
            try {
                parseBudget(bad);
                QFAIL(qPrintable(QString("accepted '%1'").arg(bad)));
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find("--budget") != std::string::npos, e.what());
            }
        }
    }

    void costModelCountsMatmulAndElementwise() {
        test::ProgramBuilder b;
        const ValueId x = b.op("pd_op.data", {}, b.f32({4, 8}));
        const ValueId w = b.op("builtin.parameter", {}, b.f32({8, 16}));
        const ValueId y = b.op("pd_op.matmul", {x, w}, b.f32({4, 16}));
        const OpId mm = b.lastOp;
        b.op("pd_op.relu", {y}, b.f32({4, 16}));
        const OpId relu = b.lastOp;
        b.op("pd_op.reshape", {y}, b.f32({64}));
        const OpId reshape = b.lastOp;
        const ValueId xt = b.op("pd_op.data", {}, b.f32({8, 4}));
        b.op("pd_op.matmul", {xt, w}, b.f32({4, 16}), {{"transpose_x", Attribute::boolean(true)}});
        const OpId mmT = b.lastOp;
        const CostModel m = CostModel::fromTypes(b.p);
        QCOMPARE(m.flops(mm), 2.0 * 4 * 16 * 8);
        QCOMPARE(m.flops(mmT), 2.0 * 4 * 16 * 8);
        QCOMPARE(m.flops(relu), 64.0);
        QCOMPARE(m.flops(reshape), 0.0);
        QCOMPARE(m.bytesMoved(relu), int64_t(2 * 64 * 4));
        QVERIFY(!m.measured());
        QCOMPARE(m.cost(mm), m.flops(mm));
    }

    void profileCostsReplaceEstimates() {
        test::ProgramBuilder b;
        const ValueId x = b.op("pd_op.data", {}, b.f32({4, 4}));
        const ValueId y = b.op("pd_op.exp", {x}, b.f32({4, 4}));
        b.op("pd_op.relu", {y}, b.f32({4, 4}));
        CostModel m = CostModel::fromTypes(b.p);
        m.loadProfileJson(R"({"device": "cpu", "original": {"ops": [
            {"index": 1, "name": "pd_op.exp", "ms": 2.5, "live_bytes": 0}]}})", "p.json", b.p);
        QVERIFY(m.measured());
        const auto gops = b.p.globalBlock().ops;
        QCOMPARE(m.cost(gops[1]), 2.5);
        // relu is not listed: its FLOPs at the profile's ms per FLOP (exp: 2.5 ms / 64 FLOP).
        QCOMPARE(m.cost(gops[2]), 16.0 * 2.5 / 64.0);
        QCOMPARE(m.flops(gops[1]), 64.0);  // FLOPs stay the estimate
        QCOMPARE(m.estimatedOps(), size_t(2));  // data and relu: said beside the costs
        auto expectError = [&](const char* json, const char* needle) {
            CostModel c = CostModel::fromTypes(b.p);
            try {
                c.loadProfileJson(json, "p.json", b.p);
                QFAIL("accepted a bad profile");
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(needle) != std::string::npos, e.what());
            }
        };
        expectError(R"({"original": {"ops": [{"index": 1, "name": "pd_op.relu", "ms": 1}]}})",
                    "$.original.ops[0].name: op 1 is pd_op.exp in the program, the profile says pd_op.relu");
        expectError(R"({"original": {"ops": [{"index": 9, "ms": 1}]}})", "$.original.ops[0].index: op index 9");
        expectError(R"({"original": {"ops": [{"index": 1, "ms": -1}]}})", "$.original.ops[0].ms");
        expectError(R"({"original": {}})", "$.original.ops: expected an array");
        // Nothing to take a rate from: every cost came out 0 ms, "measured".
        expectError(R"({"original": {"ops": []}})", "$.original.ops: lists none of the program's 3 ops");
        expectError(R"({"original": {"ops": [{"index": 0, "ms": 1}]}})",
                    "$.original.ops: lists only ops without FLOPs, so the times of the 2 ops it leaves out cannot be estimated");
        expectError("{\n  \"original\": [1,", "p.json:2:");
    }

    void measuredCostsSteerThePlan() {
        // Make the ops the FLOP-based plan recomputes expensive in a profile: the planner
        // driven by the profile pays less (in ms) at the same budget.
        const auto g = smallTransformer(2);
        BudgetPlanner byTypes(g.program, g.spec);
        const int64_t budget = byTypes.budgetFromFraction(0.3);
        const BudgetPlan a = byTypes.planForBudget(budget);
        QVERIFY(!a.recomputeOps.empty());
        std::vector<uint8_t> expensive(g.program->ops().size(), 0);
        for (OpId op : a.recomputeOps) expensive[op] = 1;
        std::string json = "{\"original\": {\"ops\": [";
        const auto gops = g.program->globalBlock().ops;
        for (size_t i = 0; i < gops.size(); ++i)
            json += std::string(i ? "," : "") + "{\"index\": " + std::to_string(i) + ", \"name\": \"" +
                    std::string(g.program->opName(gops[i])) + "\", \"ms\": " + (expensive[gops[i]] ? "5.0" : "0.001") + "}";
        json += "]}}";
        CostModel costs = CostModel::fromTypes(*g.program);
        costs.loadProfileJson(json, "p.json", *g.program);
        BudgetPlanner byProfile(g.program, g.spec, RecomputeConfig::seedDefaults(), costs);
        const BudgetPlan b = byProfile.planForBudget(budget);
        QVERIFY(b.activationPeakBytes <= budget);
        double aMs = 0;
        for (OpId op : a.recomputeOps) aMs += costs.cost(op);
        QVERIFY2(b.recomputeCost < aMs, qPrintable(QString("profile plan %1 ms, FLOP plan %2 ms").arg(b.recomputeCost).arg(aMs)));
    }

    void replayedPeakEqualsRewrittenOnSampledSets_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"transformer_layer.prim", "transformer_layer.aten", "mlp.prim", "mlp.aten", "transformer", "llama", "lstm", "mlp", "conv"}) QTest::newRow(m) << QString(m);
    }

    void replayedPeakEqualsRewrittenOnSampledSets() {
        // Random recompute sets, not only the frontier's: the exact MILP reaches sets the
        // heuristics never measure (vector-producing splits cloned with or without their
        // builtin.split, clones reading originals through aliases); every replayed peak must
        // be the rewritten program's by the memory model.
        QFETCH(QString, model);
        const auto [program, spec] = test::plannerProgram(model.toStdString());
        BudgetPlanner planner(program, spec);
        const std::vector<OpId> candidates = planner.candidateOps();
        QVERIFY(candidates.size() >= 4);
        std::mt19937 rng(20261203);
        size_t checked = 0, mismatches = 0;
        std::string first;
        for (int sample = 0; sample < 1000; ++sample) {
            // Densities from sparse to nearly everything, so that small and large sets both occur.
            std::bernoulli_distribution pick(0.02 + 0.96 * (sample % 10) / 9.0);
            std::vector<OpId> ops;
            for (OpId op : candidates)
                if (pick(rng)) ops.push_back(op);
            const auto [replayed, rewritten] = planner.replayedAndRewrittenPeak(ops);
            if (rewritten < 0) continue;  // the rewriter refuses this set; the replay says so too
            ++checked;
            if (replayed != rewritten && mismatches++ == 0)
                first = "sample " + std::to_string(sample) + ": replayed " + std::to_string(replayed) +
                        " B, rewritten " + std::to_string(rewritten) + " B";
        }
        QVERIFY(checked >= 100);
        QVERIFY2(mismatches == 0, (std::to_string(mismatches) + " of " + std::to_string(checked) +
                                   " sets differ; first " + first).c_str());
    }

    void simulatedPeakEqualsRewrittenProgram_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"transformer", "llama", "mlp", "conv"}) QTest::newRow(m) << QString(m);
    }

    void simulatedPeakEqualsRewrittenProgram() {
        // Plans' figures and peak breakdowns come from the replay (no rewritten program per
        // plan: issue 25 item 4); they must be the rewritten program's to the byte.
        QFETCH(QString, model);
        const auto g = smallTransformer(2, model.toStdString());
        BudgetPlanner planner(g.program, g.spec);
        std::vector<BudgetPlan> plans = planner.frontier(8);
        for (const BudgetPlan& r : planner.referencePlans().plans) plans.push_back(r);
        QVERIFY(plans.size() >= 3);
        for (const auto& plan : plans) {
            const int64_t sim = planner.simulatedPeakOf(plan);
            if (plan.source != "seed") QCOMPARE(sim, plan.peakBytes);
            QCOMPARE(realActivationPeak(planner, plan, g.spec), plan.activationPeakBytes);
            const PeakBreakdown replayed = planner.peakBreakdown(plan), real = planner.rewrittenPeakBreakdown(plan);
            QCOMPARE(replayed.peakOpIndex, real.peakOpIndex);
            QCOMPARE(replayed.peakOpName, real.peakOpName);
            QCOMPARE(replayed.inBackward, real.inBackward);
            QCOMPARE(replayed.outputs, real.outputs);
            QCOMPARE(replayed.backwardTemporaries, real.backwardTemporaries);
            QCOMPARE(replayed.forwardValues, real.forwardValues);
            QCOMPARE(replayed.recomputed, real.recomputed);
        }
    }

    void frontierMonotoneFittingAndEquivalent_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"transformer", "llama", "mlp", "conv"}) QTest::newRow(m) << QString(m);
    }

    void frontierMonotoneFittingAndEquivalent() {
        QFETCH(QString, model);
        const auto g = smallTransformer(2, model.toStdString());
        BudgetPlanner planner(g.program, g.spec);
        const std::vector<BudgetPlan> refs = planner.referencePlans().plans;
        QVERIFY(planner.referencePlans().seed && planner.referencePlans().seed->source == "seed");
        const auto plans = planner.frontier(10);
        // Small MLP and conv stacks peak in the backward (gradients): no plan lowers that
        // peak, and the frontier is the original alone (PyTorch-style plans land above it).
        QVERIFY(plans.size() >= (model == "transformer" || model == "llama" ? 3u : 1u));
        for (const auto& ref : refs) {
            if (ref.source == "seed") continue;  // the seed's rewrite is checked in tests/exec
            exec::VerifyOptions vo;
            vo.residentValues = g.spec.inputs;
            const exec::VerifyReport r = exec::verifyPrograms(*g.program, *planner.rewrite(ref), vo);
            QVERIFY2(r.equivalent, (ref.source + ": " + r.summary()).c_str());
        }
        const uint32_t dropout = g.program->findOpName("pd_op.dropout");
        for (size_t i = 0; i < plans.size(); ++i) {
            const BudgetPlan& p = plans[i];
            QVERIFY(p.budgetBytes.has_value());
            QVERIFY2(p.activationPeakBytes <= *p.budgetBytes, "plan above its budget");
            QVERIFY(p.peakBytes <= planner.originalMemory().peakBytes);
            if (i > 0) {
                QVERIFY2(p.activationPeakBytes < plans[i - 1].activationPeakBytes, "peak not falling");
                QVERIFY2(p.recomputeCost > plans[i - 1].recomputeCost, "less memory for fewer FLOPs");
            }
            for (OpId op : p.recomputeOps) QVERIFY2(g.program->op(op).nameId != dropout, "recomputes dropout");
            // Same bits on the CPU executor as the original.
            exec::VerifyOptions vo;
            vo.residentValues = g.spec.inputs;
            const auto rewritten = planner.rewrite(p);
            const exec::VerifyReport r = exec::verifyPrograms(*g.program, *rewritten, vo);
            QVERIFY2(r.equivalent, r.summary().c_str());
        }
        // Never above a reference plan at equal or lower FLOPs.
        for (const auto& ref : refs) {
            const BudgetPlan* best = nullptr;
            for (const auto& p : plans)
                if (p.recomputeFlops <= ref.recomputeFlops && (!best || p.activationPeakBytes < best->activationPeakBytes))
                    best = &p;
            QVERIFY2(best, ref.source.c_str());
            QVERIFY2(best->activationPeakBytes <= ref.activationPeakBytes, ref.source.c_str());
        }
    }

    void referencePlansAreValid() {
        const auto g = smallTransformer(3);
        BudgetPlanner planner(g.program, g.spec);
        QVERIFY(!planner.layerInputs().empty());
        for (const BudgetPlan& p : {planner.seedPlan(), planner.pytorchStylePlan(0.5), planner.fullCheckpointPlan(),
                                    planner.noRecomputePlan()}) {
            QVERIFY(!p.source.empty());
            QCOMPARE(realActivationPeak(planner, p, g.spec), p.activationPeakBytes);
        }
        const BudgetPlan none = planner.noRecomputePlan();
        QCOMPARE(none.activationPeakBytes, planner.originalActivationPeak());
        QCOMPARE(none.recomputeFlops, 0.0);
        QVERIFY(planner.fullCheckpointPlan().activationPeakBytes < planner.originalActivationPeak());
    }

    void fullCheckpointSavesTheLayerInputs_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"transformer", "llama"}) QTest::newRow(m) << QString(m);
    }

    void fullCheckpointSavesTheLayerInputs() {
        // Layers as the explorer detects them: a 12-layer stack saves its 12 layer inputs,
        // and otherwise only values from outside the layers and dropout's (never recomputed); every op it recomputes is
        // inside a layer; the rewrite runs bit-identically.
        QFETCH(QString, model);
        const auto g = smallTransformer(12, model.toStdString());
        BudgetPlanner planner(g.program, g.spec);
        const LayerPartition layers = detectLayers(*g.program, g.spec.fwdOpEndIdx, g.spec.backwardOpStartIdx);
        QCOMPARE(layers.layerCount(), size_t(12));
        const Analysis& a = planner.analysis();
        auto inLayer = [&](uint32_t pos) {
            const int32_t grp = pos < layers.groupOfPos.size() ? layers.groupOfPos[pos] : -1;
            return grp >= 0 && layers.groups[size_t(grp)].kind == LayerGroup::Kind::Layer;
        };
        const BudgetPlan full = planner.fullCheckpointPlan();
        const std::vector<ValueId>& inputs = planner.layerInputs();
        QVERIFY2(inputs.size() >= 12, std::to_string(inputs.size()).c_str());
        int savedInputs = 0, savedInputsInLayers = 0, savedInside = 0;
        for (ValueId v : full.savedValues) {
            const bool isInput = std::find(inputs.begin(), inputs.end(), v) != inputs.end();
            const OpId d = g.program->value(v).definingOp;
            savedInputs += isInput;
            savedInputsInLayers += isInput && d != kNoId && inLayer(a.opIndex(d));
            // Values of ops never recomputed (dropout) are saved wherever they are.
            const bool fixed = d == kNoId || g.program->op(d).nameId == g.program->findOpName("pd_op.dropout");
            if (!isInput && !fixed && inLayer(a.opIndex(d))) ++savedInside;
        }
        QCOMPARE(savedInside, 0);
        // The residual stream entering layers 1-11 comes out of the layer before; layer 0's
        // input (and LLaMA's rotary tables and mask) out of the embedding.
        QCOMPARE(savedInputsInLayers, 11);
        QVERIFY(savedInputs >= 12);
        QVERIFY(!full.recomputeOps.empty());
        for (OpId op : full.recomputeOps) QVERIFY(inLayer(a.opIndex(op)));
        QVERIFY(full.activationPeakBytes < planner.originalActivationPeak());
        exec::VerifyOptions vo;
        vo.residentValues = g.spec.inputs;
        const exec::VerifyReport r = exec::verifyPrograms(*g.program, *planner.rewrite(full), vo);
        QVERIFY2(r.equivalent, r.summary().c_str());
    }

    void planningIsAFunctionOfTheBudget_data() {
        QTest::addColumn<int>("exactBelow");
        QTest::newRow("heuristic") << 0;    // λ grid, refinement, local search
        QTest::newRow("enumerated") << 12;  // small programs: the exact pool
    }

    void planningIsAFunctionOfTheBudget() {
        // planForBudget after frontier() (and after other budgets, in any order) equals a
        // fresh planner's answer at every budget, and every frontier point is the answer at
        // its own budget: one planner result for the dock's frontier and its slider.
        QFETCH(int, exactBelow);
        SmallProgram g;
        if (exactBelow) {
            // A random program small enough to enumerate (4-12 candidate ops).
            for (uint32_t seed = 1; seed <= 40 && !g.program; ++seed) {
                SmallProgram sp = randomProgram(seed, 9, 6);
                const size_t n = BudgetPlanner(sp.program, sp.spec).candidateOpCount();
                if (n >= 4 && n <= size_t(exactBelow)) g = sp;
            }
            QVERIFY(g.program);
        } else {
            const auto t = smallTransformer(2);
            g = SmallProgram{t.program, t.spec};
        }
        PlannerOptions opts;
        opts.exactBelow = size_t(exactBelow);
        opts.maxExactOps = 14;
        BudgetPlanner used(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, opts);
        if (exactBelow) QVERIFY(used.candidateOpCount() <= size_t(exactBelow));
        const std::vector<BudgetPlan> frontier = used.frontier(12);
        QVERIFY(frontier.size() >= 2);
        std::vector<int64_t> budgets;
        for (double f : {1.0, 0.8, 0.6, 0.45, 0.3, 0.2, 0.1, 0.05, 0.0}) budgets.push_back(used.budgetFromFraction(f));
        for (const BudgetPlan& p : frontier) budgets.push_back(*p.budgetBytes);
        for (const BudgetPlan& p : frontier) budgets.push_back(p.activationPeakBytes);
        // Ask in a scrambled order on the used planner; each budget on a fresh one.
        std::vector<int64_t> scrambled = budgets;
        std::mt19937 rng(7);
        std::shuffle(scrambled.begin(), scrambled.end(), rng);
        for (int64_t b : scrambled) (void)used.planForBudget(b);
        for (int64_t b : budgets) {
            BudgetPlanner fresh(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, opts);
            const BudgetPlan a = used.planForBudget(b), c = fresh.planForBudget(b);
            QCOMPARE(a.recomputeOps, c.recomputeOps);
            QCOMPARE(a.savedValues, c.savedValues);
            QCOMPARE(a.activationPeakBytes, c.activationPeakBytes);
            QCOMPARE(a.recomputeCost, c.recomputeCost);
        }
        for (const BudgetPlan& p : frontier) {
            const BudgetPlan again = used.planForBudget(*p.budgetBytes);
            QCOMPARE(again.recomputeOps, p.recomputeOps);
            QCOMPARE(again.activationPeakBytes, p.activationPeakBytes);
        }
        // A fresh planner's frontier is the same frontier.
        BudgetPlanner fresh(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, opts);
        const std::vector<BudgetPlan> again = fresh.frontier(12);
        QCOMPARE(again.size(), frontier.size());
        for (size_t i = 0; i < again.size(); ++i) QCOMPARE(again[i].recomputeOps, frontier[i].recomputeOps);
        QCOMPARE(used.minimumActivationPeak(), fresh.minimumActivationPeak());
    }

    void milpExactModeMatchesBruteForce() {
        // The MILP (enumeration switched off) against brute-force enumeration of the
        // saved-set family: at every exact frontier point's peak it finds a plan exactly as
        // cheap and proves it optimal; its LP relaxation's bound never exceeds the optimum.
        int compared = 0;
        for (uint32_t seed = 1; seed <= 12; ++seed) {
            const SmallProgram sp = randomProgram(seed, 9, 6);
            PlannerOptions enumerate;
            enumerate.maxExactOps = 14;
            BudgetPlanner exact(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, enumerate);
            if (exact.candidateOpCount() > enumerate.maxExactOps) continue;
            PlannerOptions milpOnly;
            milpOnly.maxExactOps = 0;
            milpOnly.exactBelow = 0;
            BudgetPlanner milp(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, milpOnly);
            for (const BudgetPlan& e : exact.exactFrontier()) {
                const BudgetPlan m = milp.certifiedPlanForBudget(e.activationPeakBytes, ExactOptions{30});
                QVERIFY(m.bound.has_value());
                QCOMPARE(m.bound->method, std::string("milp"));
                QVERIFY2(m.bound->optimal, qPrintable(QString("seed %1: not proven optimal, gap %2")
                                                          .arg(seed).arg(m.bound->gap)));
                QVERIFY(m.activationPeakBytes <= e.activationPeakBytes);
                QVERIFY2(std::abs(m.recomputeCost - e.recomputeCost) <= 1e-9 * std::max(1.0, e.recomputeCost),
                         qPrintable(QString("seed %1: MILP cost %2, enumeration %3").arg(seed).arg(m.recomputeCost)
                                        .arg(e.recomputeCost)));
                ++compared;
            }
            // The LP relaxation's bound (the default frontier's gap) is a lower bound.
            std::vector<BudgetPlan> plans = exact.exactFrontier();
            for (BudgetPlan& p : plans) p.bound.reset();
            PlannerOptions lpOnly = milpOnly;
            BudgetPlanner lp(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, lpOnly);
            lp.boundFrontier(plans);
            for (const BudgetPlan& p : plans) {
                QVERIFY(p.bound && p.bound->method == "lp");
                QVERIFY(p.bound->costLowerBound <= p.recomputeCost * (1 + 1e-9));
            }
        }
        QVERIFY(compared >= 20);
    }

    void heuristicFrontierWithinOnePercentOfTheCertifiedOne() {
        // A transformer past enumeration: the MILP certifies (or improves) each heuristic
        // frontier point. Where it proves the optimum, the heuristic's plan at that peak is
        // never cheaper (that would be a wrong proof), and how far above it is measured:
        // the heuristic is not within 1% everywhere (README, "Exact mode").
        const auto g = smallTransformer(2);
        PlannerOptions opts;
        opts.maxExactOps = 0;
        opts.exactBelow = 0;
        BudgetPlanner planner(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, opts);
        const std::vector<BudgetPlan> exact = planner.certifiedFrontier(12, ExactOptions{20});
        int proven = 0, provenWithCost = 0, withinOnePercent = 0, belowHeuristicFloor = 0;
        double worstGap = 0, worstExcess = 0;
        for (const BudgetPlan& e : exact) {
            QVERIFY(e.bound.has_value());
            QVERIFY(e.bound->costLowerBound <= e.recomputeCost * (1 + 1e-9));
            QVERIFY(e.bound->gap >= 0 && e.bound->gap <= 1);
            worstGap = std::max(worstGap, e.bound->gap);
            if (!e.bound->optimal) continue;
            ++proven;
            provenWithCost += e.recomputeCost > 0;
            // The heuristic's answer at the exact point's peak (a function of the budget); the
            // MILP may go below the heuristic's floor, where it has none.
            double best = std::numeric_limits<double>::infinity();
            try {
                best = planner.planForBudget(e.activationPeakBytes).recomputeCost;
            } catch (const rx::Error&) {
                ++belowHeuristicFloor;
                continue;
            }
            QVERIFY2(best >= e.recomputeCost * (1 - 1e-9),
                     qPrintable(QString("heuristic %1 below the proven optimum %2 at %3 bytes").arg(best)
                                    .arg(e.recomputeCost).arg(e.activationPeakBytes)));
            const double excess = e.recomputeCost > 0 ? best / e.recomputeCost - 1 : (best > 0 ? 1.0 : 0.0);
            withinOnePercent += excess <= 0.01;
            worstExcess = std::max(worstExcess, excess);
        }
        qInfo("%d of %zu certified frontier points proven optimal (%zu candidate ops), largest gap %.1f%%; the "
              "heuristic within 1%% of %d of them, at most %.1f%% above; %d below the heuristic's floor", proven,
              exact.size(), planner.candidateOpCount(), 100 * worstGap, withinOnePercent, 100 * worstExcess,
              belowHeuristicFloor);
        // How many the time limit proves depends on the machine's speed (at a load of ~2 on 2
        // cores, with the cumulative peak rows: 17 of 17; with the dense ones 7-9 of 10), so no
        // share is asserted: that the MILP proves some point that costs anything (the free one
        // needs no proof), and that at every proven point the heuristic reaches it is within 1%.
        QVERIFY2(provenWithCost >= 1, "no point with a recompute cost proven optimal");
        QVERIFY2(worstExcess <= 0.01, qPrintable(QString("the heuristic %1% above a proven optimum").arg(100 * worstExcess)));
    }

    void heuristicWithinOnePercentOfTheOptimumOnAnLstm() {
        // A 2-layer LSTM (331 candidates), at the four budgets where the local search stood
        // 7.7-29.7% above the proven optimum: an LSTM cell's c = f·c' + i·g is recomputed from
        // its saved gates (a cone one step deep, which the search never tried), and the plans
        // the descent measures on its way to a budget can be cheaper than where it stops (it
        // goes on from them now). Each budget's optimum proven by the MILP (~6-10 s each).
        const zoo::GeneratedProgram g = test::smallTransformer(2, "lstm");
        BudgetPlanner planner(g.program, g.spec);
        int proven = 0;
        for (const int64_t below : {2048, 2560, 2816, 3328}) {
            const int64_t budget = planner.originalActivationPeak() - below;
            const BudgetPlan exact = planner.certifiedPlanForBudget(budget, ExactOptions{30});
            QVERIFY(exact.bound.has_value());
            if (!exact.bound->optimal) continue;
            ++proven;
            const BudgetPlan heuristic = planner.planForBudget(budget);
            QVERIFY2(heuristic.recomputeCost >= exact.recomputeCost * (1 - 1e-9), "a proof above the heuristic's plan");
            QVERIFY2(heuristic.recomputeCost <= exact.recomputeCost * 1.01,
                     qPrintable(QString("at %1 bytes the heuristic's %2 FLOP, the optimum %3").arg(budget)
                                    .arg(heuristic.recomputeCost).arg(exact.recomputeCost)));
        }
        QVERIFY2(proven >= 3, qPrintable(QString("only %1 of 4 optima proven").arg(proven)));
    }

    void warmStartedRelaxationEqualsFreshSolves() {
        // boundFrontier solves the full model's LP relaxation once per frontier, each point
        // from the last point's optimal basis; a fresh problem per point gives the same bounds.
        for (const std::string name : {"transformer", "transformer_layer.prim"}) {
            const auto [program, spec] = test::plannerProgram(name);
            BudgetPlanner planner(program, spec);
            std::vector<int64_t> budgets;
            for (const BudgetPlan& p : planner.frontier(12)) budgets.push_back(p.activationPeakBytes);
            budgets.push_back(budgets.back() / 2);  // below the floor: nothing fits
            const std::vector<double> warm = planner.lpRelaxationLowerBounds(budgets, true);
            const std::vector<double> fresh = planner.lpRelaxationLowerBounds(budgets, false);
            int positive = 0;
            for (size_t i = 0; i < budgets.size(); ++i) {
                QVERIFY2(std::isinf(warm[i]) == std::isinf(fresh[i]) &&
                             (std::isinf(warm[i]) || std::abs(warm[i] - fresh[i]) <= 1e-6 * std::max(1.0, fresh[i])),
                         qPrintable(QString("%1 at %2 bytes: warm %3, fresh %4").arg(name.c_str()).arg(budgets[i]).arg(warm[i]).arg(fresh[i])));
                positive += warm[i] > 0 && std::isfinite(warm[i]);
            }
            QVERIFY(std::isinf(warm.back()));
            QVERIFY2(positive >= 2, qPrintable(QString("%1: %2 positive bounds").arg(name.c_str()).arg(positive)));
        }
    }

    void relaxationStartsFromTheNothingRecomputedBasis() {
        // A relaxation with no basis to start from starts from that of the set that
        // recomputes nothing, not the all-slack one, from which the dual simplex first pivots
        // in every segment that set keeps alive, one at a time. A small generated LLaMA's
        // two highest points below the top (the first with no basis): 426 and 0 iterations
        // from this basis, 1578 and 0 from the all-slack one (a 2-layer LSTM's frontier's
        // first: 3.4-5.4 s, now 0.3 s). Under a work limit of 1% of an iteration per row and
        // column (549 here) the bounds are those of an unlimited solve.
        const auto [program, spec] = test::plannerProgram("llama");
        BudgetPlanner planner(program, spec);
        std::vector<int64_t> budgets;
        for (const BudgetPlan& p : planner.frontier(12)) budgets.push_back(p.activationPeakBytes);
        std::sort(budgets.rbegin(), budgets.rend());
        QVERIFY(budgets.size() >= 3);
        budgets = {budgets[1], budgets[2]};  // the top point's bound is 0 however it ends
        ExactOptions tight;
        tight.lpIterationsPerRowAndColumn = 0.01;
        const std::vector<double> limited = planner.lpRelaxationLowerBounds(budgets, true, tight);
        const std::vector<double> full = planner.lpRelaxationLowerBounds(budgets, true);
        for (size_t i = 0; i < budgets.size(); ++i) {
            QVERIFY2(full[i] > 0, qPrintable(QString("no positive bound at %1 bytes").arg(budgets[i])));
            QVERIFY2(std::abs(limited[i] - full[i]) <= 1e-6 * full[i],
                     qPrintable(QString("at %1 bytes: %2 within the work limit, %3 without")
                                    .arg(budgets[i]).arg(limited[i]).arg(full[i])));
        }
    }

    void frontierBoundsDoNotDependOnTheTimeLimit() {
        // The default frontier's bounds stop on work (simplex iterations, lazy rounds), not on
        // time: a time limit of 0.1 ms and one of hours give the same bound at every point,
        // with the full model's LP (below lpMaxCandidates) and with the lazy relaxation alone.
        const auto owned = lpBoundedPlanner();
        BudgetPlanner& planner = *owned;
        const std::vector<BudgetPlan> frontier = planner.frontier(8);
        QVERIFY(frontier.size() >= 3);
        for (const size_t lpMaxCandidates : {size_t(20000), size_t(0)}) {
            std::vector<BudgetPlan> quick = frontier, slow = frontier;
            ExactOptions quickOptions{1e-4}, slowOptions{1e4};
            quickOptions.lpMaxCandidates = slowOptions.lpMaxCandidates = lpMaxCandidates;
            planner.boundFrontier(quick, quickOptions);
            planner.boundFrontier(slow, slowOptions);
            int nonTrivial = 0;
            for (size_t i = 0; i < frontier.size(); ++i) {
                QVERIFY2(quick[i].bound && slow[i].bound, qPrintable(QString("no bound at point %1").arg(i)));
                QCOMPARE(quick[i].bound->method, slow[i].bound->method);
                QVERIFY2(quick[i].bound->costLowerBound == slow[i].bound->costLowerBound,
                         qPrintable(QString("lpMaxCandidates %1, point %2: bound %3 with 0.1 ms, %4 with 10^4 s")
                                        .arg(lpMaxCandidates).arg(i).arg(quick[i].bound->costLowerBound)
                                        .arg(slow[i].bound->costLowerBound)));
                QCOMPARE(quick[i].bound->gap, slow[i].bound->gap);
                QCOMPARE(quick[i].bound->optimal, slow[i].bound->optimal);
                nonTrivial += slow[i].bound->costLowerBound > 0;
            }
            QVERIFY(nonTrivial >= 1);  // the bounds say something
        }
    }

    void stoppedBoundsLeavePointsUnbounded() {
        // ExactOptions::stop (a caller that has moved on): asked between budgets, it leaves
        // the remaining points without a bound, counted, never with a smaller one.
        const auto owned = lpBoundedPlanner();
        BudgetPlanner& planner = *owned;
        const std::vector<BudgetPlan> frontier = planner.frontier(8);
        QVERIFY(frontier.size() >= 3);
        for (const size_t lpMaxCandidates : {size_t(20000), size_t(0)}) {
            ExactOptions stopped;
            stopped.lpMaxCandidates = lpMaxCandidates;
            // The lazy relaxation asks once per point (when it runs), then the full model's
            // LP once per point: stop after the last phase's first point.
            const size_t allowed = (lpMaxCandidates ? frontier.size() : 0) + 1;
            size_t asked = 0;
            stopped.stop = [&asked, allowed] { return ++asked > allowed; };
            std::vector<BudgetPlan> plans = frontier;
            const size_t cut = planner.boundFrontier(plans, stopped);
            QVERIFY(asked > allowed);  // asked again after it said stop
            QCOMPARE(cut, frontier.size() - 1);
            std::vector<BudgetPlan> full = frontier;
            ExactOptions all;
            all.lpMaxCandidates = lpMaxCandidates;
            QCOMPARE(planner.boundFrontier(full, all), size_t(0));
            size_t bounded = 0;
            for (size_t i = 0; i < plans.size(); ++i) {
                if (!plans[i].bound) continue;
                ++bounded;
                QVERIFY(full[i].bound);
                QVERIFY(plans[i].bound->costLowerBound <= full[i].bound->costLowerBound);
            }
            QCOMPARE(bounded, size_t(1));
        }
    }

    void budgetPlansMatchTheExactOptimum() {
        // Every exact frontier point as a budget: the heuristic finds a plan as cheap.
        int compared = 0, optimal = 0, infeasible = 0, autoChecked = 0;
        double worstGap = 0;
        for (uint32_t seed = 1; seed <= 12; ++seed) {
            const SmallProgram sp = randomProgram(seed, 9, 6);
            PlannerOptions opts;
            opts.maxExactOps = 14;
            PlannerOptions pure = opts;
            pure.exactBelow = 0;  // the min cut + local search alone, to measure its gap
            BudgetPlanner heuristic(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, pure);
            BudgetPlanner automatic(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, opts);
            BudgetPlanner exact(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, opts);
            if (exact.candidateOpCount() > opts.maxExactOps) continue;
            for (const BudgetPlan& e : exact.exactFrontier()) {
                // planForBudget on a small program (the default policy) is the optimum.
                if (automatic.candidateOpCount() <= opts.exactBelow) {
                    QCOMPARE(automatic.planForBudget(e.activationPeakBytes).recomputeCost, e.recomputeCost);
                    ++autoChecked;
                }
                BudgetPlan h;
                try {
                    h = heuristic.planForBudget(e.activationPeakBytes);
                } catch (const Error& err) {
                    ++compared;
                    ++infeasible;
                    qInfo("seed %u: %s", seed, err.what());
                    continue;
                }
                QVERIFY(h.activationPeakBytes <= e.activationPeakBytes);
                QVERIFY2(h.recomputeCost >= e.recomputeCost, "heuristic beat the exact optimum");
                ++compared;
                if (h.recomputeCost <= e.recomputeCost) ++optimal;
                else worstGap = std::max(worstGap, (h.recomputeCost - e.recomputeCost) / std::max(1.0, e.recomputeCost));
            }
        }
        qInfo("heuristic vs exact: %d of %d budgets optimal, %d missed, worst cost gap %.1f%%", optimal, compared,
              infeasible, 100 * worstGap);
        QVERIFY(compared >= 20);
        QVERIFY(autoChecked >= 10);
        // The heuristic alone: optimal on most budgets, a few percent off (or one step short
        // of the smallest peak) on the rest. Measured: 33 of 37 optimal, worst gap 1.8%.
        QVERIFY2(optimal * 10 >= compared * 8, "heuristic optimal on fewer than 80% of budgets");
        QVERIFY2(worstGap <= 0.05, "heuristic more than 5% above the optimum");
    }

    void lowerBoundBelowEveryPlanAndReachedOnSmallPrograms() {
        // The bound holds for every recompute set (exact mode enumerates them all) and is
        // often the optimum itself; a bound above any real plan would be a wrong proof.
        int programs = 0, tight = 0;
        for (uint32_t seed = 1; seed <= 12; ++seed) {
            const SmallProgram sp = randomProgram(seed, 9, 6);
            PlannerOptions opts;
            opts.maxExactOps = 14;
            BudgetPlanner exact(sp.program, sp.spec, RecomputeConfig::seedDefaults(), {}, opts);
            if (exact.candidateOpCount() > opts.maxExactOps) continue;
            const int64_t bound = exact.activationLowerBound();
            const auto plans = exact.exactFrontier();
            QVERIFY(!plans.empty());
            for (const auto& p : plans) QVERIFY2(p.activationPeakBytes >= bound, "lower bound above a real plan");
            ++programs;
            if (plans.back().activationPeakBytes == bound) ++tight;
        }
        qInfo("lower bound equals the exact smallest peak on %d of %d programs", tight, programs);
        QVERIFY(programs >= 8);
        QVERIFY(tight >= 1);
        // On a transformer: every frontier and reference plan at or above it; the peak's
        // breakdown adds up to the plan's activation peak.
        const auto g = smallTransformer(3);
        BudgetPlanner planner(g.program, g.spec);
        const int64_t bound = planner.activationLowerBound();
        QVERIFY(bound > 0 && bound < planner.originalActivationPeak());
        auto plans = planner.frontier(12);
        plans.push_back(planner.fullCheckpointPlan());
        plans.push_back(planner.pytorchStylePlan(0.0));
        for (const auto& p : plans) {
            QVERIFY2(p.activationPeakBytes >= bound, p.source.c_str());
            const PeakBreakdown b = planner.peakBreakdown(p);
            QCOMPARE(b.activation(), p.activationPeakBytes);
        }
        // At the lowest plan's peak the parameter gradients (fetched) are alive.
        QVERIFY(planner.peakBreakdown(plans[plans.size() - 3]).outputs > 0);
    }

    void lowerBoundFollowsBuffersThroughAliases() {
        // A GRU's gates come from one pd_op.split (a vector value owning three buffers) taken
        // apart by builtin.split, whose results the backward reads: recomputing the split
        // frees its forward buffers although the owner value itself has no backward use. The
        // bound once kept every such buffer to its aliases' last use (216.75 KiB on this
        // program, under the full checkpoint's 214.75).
        zoo::ZooOptions o;
        o.model = "gru";
        o.layers = 1;
        o.seq = 4;
        const zoo::GeneratedProgram g = zoo::generateModel(o);
        BudgetPlanner planner(g.program, g.spec);
        const int64_t bound = planner.activationLowerBound();
        auto plans = planner.frontier(8);
        plans.push_back(planner.fullCheckpointPlan());
        plans.push_back(planner.pytorchStylePlan(0.0));
        for (const auto& p : plans) QVERIFY2(p.activationPeakBytes >= bound, p.source.c_str());
        // Still a bound worth showing: above the original's backward-only floor.
        QVERIFY(bound > planner.originalActivationPeak() * 9 / 10);
    }

    void pytorchWeightsFollowDistanceAndFusion() {
        // x → a = exp(x) → b = tanh(a) → c = matmul(b, w); the backward reads c and a.
        test::ProgramBuilder b;
        const ValueId x = b.op("pd_op.data", {}, b.f32({8, 8}), {{"name", Attribute::string("x")}});
        const ValueId w = b.op("builtin.parameter", {}, b.f32({8, 8}), {{"parameter_name", Attribute::string("w")}});
        const ValueId va = b.op("pd_op.exp", {x}, b.f32({8, 8}));
        const ValueId vb = b.op("pd_op.tanh", {va}, b.f32({8, 8}));
        const ValueId vc = b.op("pd_op.matmul", {vb, w}, b.f32({8, 8}));
        const ValueId loss = b.op("pd_op.mean", {vc}, b.f32({}));
        const int fwdEnd = b.index();
        const ValueId g = b.op("pd_op.full", {}, b.f32({8, 8}));
        const int bwdStart = b.index();
        const ValueId g1 = b.op("pd_op.multiply", {g, vc}, b.f32({8, 8}));
        const ValueId g2 = b.op("pd_op.multiply", {g1, va}, b.f32({8, 8}));
        b.noResult("pd_op.fetch", {g2});
        RecomputeSpec spec = test::makeSpec(fwdEnd, bwdStart, {x}, {loss});
        spec.backwardOpStartIdx = bwdStart;
        BudgetPlanner planner(b.program, spec);
        const std::vector<int64_t> weight = planner.pytorchValueWeights();
        const double bytes = 8 * 8 * 4;
        // c: one op from the backward, a matmul (materialised): size × 1.1.
        QCOMPARE(weight[vc], int64_t(std::llround(bytes * 1.1)));
        // b: two ops away, its user (matmul) does not fuse: size × 1.1².
        QCOMPARE(weight[vb], int64_t(std::llround(bytes * 1.1 * 1.1)));
        // a: read by the backward (distance 1), every user pointwise: not materialised, × 2.
        QCOMPARE(weight[va], int64_t(std::llround(bytes * 1.1 * 2)));
        // The plans built on them stay valid plans.
        for (double f : {0.0, 0.5, 1.0}) QCOMPARE(realActivationPeak(planner, planner.pytorchStylePlan(f), spec),
                                                  planner.pytorchStylePlan(f).activationPeakBytes);
    }

    void coarseGridPlansStillFitAndEquivalent() {
        // The grid large programs take (every fourth power of λ), forced on a small one: every
        // budget still gets a fitting plan, never dearer than the no-recompute plan at the
        // top, and bit-identical on the CPU executor.
        const auto g = smallTransformer(3);
        PlannerOptions coarse;
        coarse.coarseGridAbove = 0;
        coarse.exactBelow = 0;
        BudgetPlanner planner(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, coarse);
        BudgetPlanner fine(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, PlannerOptions{});
        QCOMPARE(planner.originalActivationPeak(), fine.originalActivationPeak());
        for (double f : {0.0, 0.25, 0.5, 1.0}) {
            const int64_t budget = fine.budgetFromFraction(f);
            if (budget < planner.minimumActivationPeak()) continue;  // below the coarse grid's floor
            const BudgetPlan p = planner.planForBudget(budget);
            QVERIFY(p.activationPeakBytes <= budget);
            QCOMPARE(realActivationPeak(planner, p, g.spec), p.activationPeakBytes);
            exec::VerifyOptions vo;
            vo.residentValues = g.spec.inputs;
            const exec::VerifyReport r = exec::verifyPrograms(*g.program, *planner.rewrite(p), vo);
            QVERIFY2(r.equivalent, r.summary().c_str());
        }
        QCOMPARE(planner.planForBudget(planner.originalActivationPeak()).recomputeFlops, 0.0);
    }

    void unmeetableBudgetIsAClearError() {
        const auto g = smallTransformer(1);
        BudgetPlanner planner(g.program, g.spec);
        try {
            planner.planForBudget(1);
            QFAIL("accepted a budget below the smallest feasible peak");
        } catch (const Error& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("smallest feasible activation peak is") != std::string::npos, e.what());
            const int64_t lo = planner.minimumActivationPeak();
            QVERIFY2(msg.find("(" + std::to_string(lo) + " bytes)") != std::string::npos, e.what());
        }
        const int64_t lo = planner.minimumActivationPeak();
        QCOMPARE(planner.planForBudget(lo).activationPeakBytes <= lo, true);
        QCOMPARE(planner.budgetFromFraction(0.0), planner.minimumActivationPeak());
        QVERIFY(planner.minimumActivationPeak() <= lo);
        QCOMPARE(planner.budgetFromFraction(1.0), planner.originalActivationPeak());
        QCOMPARE(planner.planForBudget(planner.originalActivationPeak()).recomputeFlops, 0.0);
        QVERIFY_THROWS_EXCEPTION(Error, planner.budgetFromFraction(1.5));
    }

    void explainsChangesAgainstTheSeed() {
        const auto g = smallTransformer(2);
        BudgetPlanner planner(g.program, g.spec);
        const BudgetPlan seed = planner.seedPlan();
        const BudgetPlan tight = planner.planForBudget(planner.budgetFromFraction(0.0));
        const auto changes = planner.explain(tight, seed);
        QVERIFY(!changes.empty());
        for (const auto& c : changes) QVERIFY(c.side != c.referenceSide);
        QVERIFY(planner.explain(seed, seed).empty());
        const std::string json = paretoJson(planner, {tight}, &seed, {"p.pir", "spec", ""});
        QVERIFY(json.find("\"changes_vs_seed\"") != std::string::npos);
        QVERIFY(json.find("\"activation_peak_bytes\"") != std::string::npos);
        const std::string csv = paretoCsv(planner, {tight}, /*sets=*/true);
        QVERIFY(csv.starts_with("source,budget_bytes,peak_bytes,activation_peak_bytes,recompute_flops,saved_values,saved_count\n"));
    }

    void paretoReportSummarisesUnlessSetsAsked() {
        // Issue 25 item 4: per-plan summaries by default (a 1M-op frontier's sets were 598 MB),
        // the full sets, under FORMATS.md's keys, with `sets`.
        const auto g = smallTransformer(2);
        BudgetPlanner planner(g.program, g.spec);
        const BudgetPlan seed = planner.seedPlan();
        const BudgetPlan tight = planner.planForBudget(planner.budgetFromFraction(0.0));
        QVERIFY(!tight.savedValues.empty() && !tight.recomputeOps.empty());
        const std::string savedName = g.program->value(tight.savedValues.front()).name;
        const std::string count = "\"saved_count\": " + std::to_string(tight.savedValues.size());
        const std::string summary = paretoJson(planner, {tight}, &seed, {"p.pir", "spec", ""});
        QVERIFY(summary.find("\"sets\": false") != std::string::npos);
        QVERIFY(summary.find(count) != std::string::npos);
        QVERIFY(summary.find("\"recompute_op_count\": " + std::to_string(tight.recomputeOps.size())) != std::string::npos);
        QVERIFY(summary.find("\"changes_vs_seed\"") != std::string::npos);
        for (const char* listKey : {"\"saved_values\"", "\"recomputed_values\"", "\"recompute_ops\"", "\"values\""})
            QVERIFY2(summary.find(listKey) == std::string::npos, listKey);
        QVERIFY(summary.find("\"" + savedName + "\"") == std::string::npos);
        const std::string full = paretoJson(planner, {tight}, &seed, {"p.pir", "spec", ""}, /*sets=*/true);
        QVERIFY(full.find("\"sets\": true") != std::string::npos);
        QVERIFY(full.find(count) != std::string::npos);
        for (const char* listKey : {"\"saved_values\"", "\"recomputed_values\"", "\"recompute_ops\"", "\"values\""})
            QVERIFY2(full.find(listKey) != std::string::npos, listKey);
        QVERIFY(full.find("\"" + savedName + "\"") != std::string::npos);
        const std::string csv = paretoCsv(planner, {tight});
        QVERIFY(csv.starts_with("source,budget_bytes,peak_bytes,activation_peak_bytes,recompute_flops,saved_count\n"));
        QVERIFY(csv.find(savedName) == std::string::npos);
        QVERIFY(csv.ends_with("," + std::to_string(tight.savedValues.size()) + "\n"));
        QVERIFY(paretoCsv(planner, {tight}, true).find(savedName) != std::string::npos);
    }

    void reportWriteReplacesAtomically() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("r.json").toStdString();
        writeFileReplacing(path, "one");
        writeFileReplacing(path, "two");
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("two"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
        QVERIFY_THROWS_EXCEPTION(Error, writeFileReplacing(dir.filePath("missing/r.json").toStdString(), "x"));
    }
};

QTEST_GUILESS_MAIN(TestBudget)
#include "test_budget.moc"
