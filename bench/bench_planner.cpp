// The memory-budget planner: a 20-point frontier of a ~14k-op transformer and one budget
// solve of a ~100k-op one, plus the figures the issue asks for as counters (activation peak
// cut within 5% and 40% extra FLOPs, in % of the original's).
// Run: build/bench/bench_planner --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include "algorithms/planner/BudgetPlanner.h"  // before any Qt header (Analysis.h has `slots`)

#include <benchmark/benchmark.h>
#include <malloc.h>

#include "algorithms/zoo/ModelZoo.h"

namespace {

using namespace rx;

zoo::GeneratedProgram model(const std::string& name, int layers) {
    zoo::ZooOptions o;
    o.model = name;
    o.layers = layers;
    o.hidden = 256;
    o.heads = 4;
    o.seq = 128;
    o.batch = 4;
    return zoo::generateModel(o);
}

// Largest activation-peak cut (in %) among frontier plans within `extra` of the FLOPs.
double cutWithin(const planner::BudgetPlanner& p, const std::vector<planner::BudgetPlan>& plans, double extra) {
    double best = 0;
    for (const auto& plan : plans)
        if (plan.recomputeFlops <= extra * p.totalFlops())
            best = std::max(best, 100.0 * (1.0 - double(plan.activationPeakBytes) / double(p.originalActivationPeak())));
    return best;
}

void BM_Frontier20(benchmark::State& state, std::string name, int layers) {
    const auto g = model(name, layers);
    std::vector<planner::BudgetPlan> plans;
    double within5 = 0, within40 = 0, floorCut = 0, seedCut = 0, torchCut = 0, lowestCut = 0;
    for (auto _ : state) {
        planner::BudgetPlanner p(g.program, g.spec);
        plans = p.frontier(20);
        within5 = cutWithin(p, plans, 0.05);
        within40 = cutWithin(p, plans, 0.40);
        state.PauseTiming();  // reference figures, outside the frontier's time
        auto cut = [&](int64_t peak) { return 100.0 * (1.0 - double(peak) / double(p.originalActivationPeak())); };
        floorCut = cut(p.activationLowerBound());
        lowestCut = cut(plans.empty() ? p.originalActivationPeak() : plans.back().activationPeakBytes);
        seedCut = cut(p.seedPlan().activationPeakBytes);
        torchCut = cut(p.pytorchStylePlan(0.5).activationPeakBytes);
        state.ResumeTiming();
    }
    state.counters["lower_bound_cut_pct"] = floorCut;
    state.counters["lowest_plan_cut_pct"] = lowestCut;
    state.counters["seed_cut_pct"] = seedCut;
    state.counters["pytorch_style_0.5_cut_pct"] = torchCut;
    state.counters["ops"] = double(g.program->globalBlock().ops.size());
    state.counters["plans"] = double(plans.size());
    state.counters["cut_pct_within_5pct_flops"] = within5;
    state.counters["cut_pct_within_40pct_flops"] = within40;
}

void BM_BudgetSolve(benchmark::State& state, int layers) {
    const auto g = model("transformer", layers);
    planner::BudgetPlanner probe(g.program, g.spec);
    const int64_t budget = probe.originalActivationPeak() / 2;
    for (auto _ : state) {
        planner::BudgetPlanner p(g.program, g.spec);
        benchmark::DoNotOptimize(p.planForBudget(budget));
    }
    state.counters["ops"] = double(g.program->globalBlock().ops.size());
}

// The gap on every frontier point (boundFrontier with `pareto`'s options: the full model's LP
// up to 1000 candidates, else the lazy relaxation alone); the frontier itself outside the time.
void BM_BoundFrontier(benchmark::State& state, int layers) {
    const auto g = model("transformer", layers);
    planner::BudgetPlanner p(g.program, g.spec);
    const std::vector<planner::BudgetPlan> frontier = p.frontier(20);
    planner::ExactOptions options;
    options.lpMaxCandidates = 1000;
    size_t bounded = 0;
    double worstGap = 0;
    for (auto _ : state) {
        std::vector<planner::BudgetPlan> plans = frontier;
        benchmark::DoNotOptimize(p.boundFrontier(plans, options));
        bounded = 0;
        worstGap = 0;
        for (const auto& plan : plans)
            if (plan.bound) {
                ++bounded;
                worstGap = std::max(worstGap, plan.bound->gap);
            }
    }
    state.counters["candidates"] = double(p.candidateOpCount());
    state.counters["points"] = double(frontier.size());
    state.counters["bounded"] = double(bounded);
    state.counters["worst_gap"] = worstGap;
}

// The default frontier of a mid-size program with and without the search guided by the LP
// relaxation (PlannerOptions::relaxationGuidedUpTo): its price in time, its gain in plans.
void BM_GuidedFrontier(benchmark::State& state, int layers, bool guided) {
    zoo::ZooOptions o;  // hidden 64, sequence 16: 149 (2 layers) and 285 (4) candidates
    o.layers = layers;
    const auto g = zoo::generateModel(o);
    planner::PlannerOptions options;
    if (!guided) options.relaxationGuidedUpTo = 0;
    std::vector<planner::BudgetPlan> plans;
    for (auto _ : state) {
        planner::BudgetPlanner p(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, options);
        plans = p.frontier(24);
    }
    double flops = 0;
    for (const auto& plan : plans) flops += plan.recomputeFlops;
    state.counters["plans"] = double(plans.size());
    state.counters["mean_recompute_kflop"] = plans.empty() ? 0.0 : flops / double(plans.size()) / 1e3;
    state.counters["lowest_plan_kib"] = plans.empty() ? 0.0 : double(plans.back().activationPeakBytes) / 1024.0;
}

// One budget solve on a fresh planner up to 400 candidates: its own search, and with the
// answer grid (the default frontier's 20 budgets searched once, so that no answer is dearer
// than a frontier point that fits) as `solve --budget` runs.
void BM_GuidedBudgetSolve(benchmark::State& state, int layers, int gridPoints) {
    zoo::ZooOptions o;
    o.layers = layers;
    const auto g = zoo::generateModel(o);
    planner::PlannerOptions options;
    options.answerGridPoints = gridPoints;
    planner::BudgetPlanner probe(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, options);
    const int64_t budget = probe.budgetFromFraction(0.3);
    double flops = 0;
    for (auto _ : state) {
        planner::BudgetPlanner p(g.program, g.spec, RecomputeConfig::seedDefaults(), {}, options);
        flops = p.planForBudget(budget).recomputeFlops;
    }
    state.counters["recompute_kflop"] = flops / 1e3;
}

BENCHMARK_CAPTURE(BM_GuidedBudgetSolve, transformer2_own_search, 2, 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GuidedBudgetSolve, transformer2_answer_grid, 2, 20)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GuidedBudgetSolve, transformer4_own_search, 4, 0)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_GuidedBudgetSolve, transformer4_answer_grid, 4, 20)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_GuidedFrontier, transformer2_guided, 2, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GuidedFrontier, transformer2_cuts_only, 2, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GuidedFrontier, transformer4_guided, 4, true)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_GuidedFrontier, transformer4_cuts_only, 4, false)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Frontier20, transformer12, std::string("transformer"), 12)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Frontier20, transformer48_14k, std::string("transformer"), 48)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Frontier20, llama12, std::string("llama"), 12)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BudgetSolve, transformer360_100k, 360)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_BoundFrontier, transformer2, 2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BoundFrontier, transformer48_14k, 48)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
    // As recompute-cli does (app/cli/main.cpp): keep freed arrays instead of returning them
    // to the kernel, so page faults do not dominate.
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
