// recompute-cli pareto PROGRAM [--spec F] [--config F] [--points N] [--report P.json|P.csv]
//                              [--costs PROFILE.json] [--exact]
// and `solve --budget B` (runBudgetSolve, called from cmd_solve.cpp): the memory-budget
// planner of algorithms/planner/ on the command line.
#include <cstdio>
#include <iostream>
#include <memory>

#include "algorithms/planner/Budget.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/PlanReport.h"
#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

namespace rx::cli {

namespace {

using namespace rx::planner;

struct Loaded {
    std::shared_ptr<Program> program;
    RecomputeSpec spec;
    std::string specSource;
    std::unique_ptr<BudgetPlanner> planner;
};

Loaded load(const Arguments& args, const std::string& path) {
    Loaded l;
    l.program = std::make_shared<Program>(loadProgram(path));
    ResolvedSpec resolved = resolveSpec(*l.program, path, args.option("--spec"));
    l.spec = std::move(resolved.spec);
    l.specSource = resolved.source.empty() ? "detected" : resolved.source;
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    if (auto c = args.option("--config")) config = readConfigFile(*c);
    CostModel costs = CostModel::fromTypes(*l.program);
    if (auto c = args.option("--costs")) costs.loadProfile(*c, *l.program);
    l.planner = std::make_unique<BudgetPlanner>(l.program, l.spec, config, std::move(costs));
    return l;
}

std::string pct(double part, double whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buf;
}

void printChanges(const BudgetPlanner& planner, const BudgetPlan& plan, const BudgetPlan& seed, size_t limit) {
    const Program& p = planner.program();
    const auto list = planner.explain(plan, seed);
    int64_t bytes = 0;
    double flops = 0;
    for (const auto& c : list) { bytes += c.bytes; flops += c.flops; }
    std::cout << "  against the seed's plan: " << list.size() << " values changed side, "
              << (bytes > 0 ? "+" : "") << humanBytes(bytes) << " held, " << (flops > 0 ? "+" : "")
              << humanFlops(flops) << " recomputed\n";
    for (size_t i = 0; i < list.size() && i < limit; ++i) {
        const auto& c = list[i];
        std::cout << "    " << p.values[c.value].name << ": " << valueSideName(c.referenceSide) << " -> "
                  << valueSideName(c.side) << ", " << (c.bytes > 0 ? "+" : "") << humanBytes(c.bytes) << ", "
                  << (c.flops > 0 ? "+" : "") << humanFlops(c.flops) << "\n";
    }
    if (list.size() > limit) std::cout << "    ... (" << list.size() - limit << " more in the report)\n";
}

std::unique_ptr<BudgetPlan> trySeed(BudgetPlanner& planner) {
    try {
        return std::make_unique<BudgetPlan>(planner.seedPlan());
    } catch (const Error& e) {
        std::cerr << "note: no seed plan to compare with: " << e.what() << "\n";
        return nullptr;
    }
}

int runPareto(const Arguments& args) {
    if (args.positional.size() != 1)
        throw Error("usage: recompute-cli pareto PROGRAM [--spec F] [--config F] [--points N] [--report P.json|P.csv] "
                    "[--costs PROFILE.json] [--exact]");
    const std::string path = args.positional[0];
    const int points = int(args.integer("--points", 20, 1));
    std::optional<std::string> report = args.option("--report");
    if (report && !report->ends_with(".json") && !report->ends_with(".csv"))
        throw Error("--report expects a file name ending in .json or .csv, found '" + *report + "'");
    Loaded l = load(args, path);
    BudgetPlanner& planner = *l.planner;

    // Reference plans first: the frontier search measures them too.
    std::vector<BudgetPlan> references;
    std::unique_ptr<BudgetPlan> seed = trySeed(planner);
    if (seed) references.push_back(*seed);
    for (double f : {0.0, 0.5, 1.0}) {
        BudgetPlan ps = planner.pytorchStylePlan(f);
        bool dup = false;
        for (const auto& q : references)
            if (q.source == "pytorch-style" && q.recomputeOps == ps.recomputeOps) dup = true;
        if (!dup) references.push_back(std::move(ps));
    }
    references.push_back(planner.fullCheckpointPlan());
    references.push_back(planner.noRecomputePlan());
    std::vector<BudgetPlan> plans =
        args.has("--exact") ? planner.exactFrontier() : planner.frontier(points, references);
    const size_t frontierCount = plans.size();
    plans.insert(plans.end(), references.begin(), references.end());

    const double total = planner.totalFlops();
    std::cout << path << ": " << l.program->globalBlock().ops.size() << " ops, spec " << l.specSource << ", "
              << planner.candidateOpCount() << " recomputable ops, costs "
              << (planner.costs().measured() ? planner.costs().source() : std::string("by types")) << "\n";
    std::cout << "  original: peak " << humanBytes(planner.originalMemory().peakBytes) << ", activation peak "
              << humanBytes(planner.originalActivationPeak()) << ", " << humanFlops(total) << "\n";
    std::cout << "  " << frontierCount << " frontier plans" << (args.has("--exact") ? " (exact)" : "") << ":\n";
    for (size_t i = 0; i < plans.size(); ++i) {
        const auto& pl = plans[i];
        if (i == frontierCount) std::cout << "  reference plans:\n";
        std::cout << "    " << pl.source;
        if (pl.budgetFraction) std::cout << " (budget " << *pl.budgetFraction << ")";
        std::cout << ": activation peak " << humanBytes(pl.activationPeakBytes) << " ("
                  << pct(double(pl.activationPeakBytes - planner.originalActivationPeak()),
                         double(planner.originalActivationPeak()))
                  << "), peak " << humanBytes(pl.peakBytes) << ", recompute " << humanFlops(pl.recomputeFlops) << " (+"
                  << pct(pl.recomputeFlops, total) << "), " << pl.savedValues.size() << " saved\n";
    }
    if (report) {
        ReportContext ctx{path, l.specSource, planner.costs().source()};
        writeFileReplacing(*report, report->ends_with(".csv") ? paretoCsv(planner, plans)
                                                              : paretoJson(planner, plans, seed.get(), ctx));
    }
    return 0;
}

RegisterCommand reg({"pareto",
                     "pareto PROGRAM [--spec F] [--config F] [--points N] [--report P.json|P.csv] "
                     "[--costs PROFILE.json] [--exact]",
                     {"--spec", "--config", "--points", "--report", "--costs"},
                     &runPareto});

}  // namespace

// solve PROGRAM --budget B [--exact] [--costs PROFILE.json] [--report R.json] [--rewritten OUT.pir]
int runBudgetSolve(const Arguments& args) {
    if (args.positional.size() != 1) throw Error("usage: recompute-cli solve PROGRAM --budget B [--spec F] [--config F] [--costs PROFILE.json] [--exact] [--report R.json] [--rewritten OUT.pir]");
    const std::string path = args.positional[0];
    const BudgetSpec budget = parseBudget(*args.option("--budget"));
    Loaded l = load(args, path);
    BudgetPlanner& planner = *l.planner;
    const int64_t bytes = budget.isFraction ? planner.budgetFromFraction(budget.fraction) : budget.bytes;
    BudgetPlan plan;
    try {
        plan = args.has("--exact") ? planner.exactPlanForBudget(bytes) : planner.planForBudget(bytes);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
    std::unique_ptr<BudgetPlan> seed = trySeed(planner);
    if (auto w = args.option("--rewritten")) {
        WriteOptions wo;
        wo.generation = l.program->generation;
        wo.renumber = true;
        writeFileReplacing(*w, printProgram(*planner.rewrite(plan), wo));
    }
    if (auto rep = args.option("--report")) {
        ReportContext ctx{path, l.specSource, planner.costs().source()};
        writeFileReplacing(*rep, budgetSolveJson(planner, plan, seed.get(), ctx));
    }
    const double total = planner.totalFlops();
    std::cout << path << ": " << l.program->globalBlock().ops.size() << " ops, spec " << l.specSource << "\n";
    std::cout << "  budget: " << humanBytes(bytes) << " (" << bytes << " bytes"
              << (budget.isFraction ? ", fraction " + std::to_string(budget.fraction) : std::string()) << ")"
              << (args.has("--exact") ? ", exact" : "") << "\n";
    std::cout << "  activation peak: " << humanBytes(planner.originalActivationPeak()) << " -> "
              << humanBytes(plan.activationPeakBytes) << "; peak " << humanBytes(planner.originalMemory().peakBytes)
              << " -> " << humanBytes(plan.peakBytes) << "\n";
    std::cout << "  recompute: " << plan.recomputeOps.size() << " ops, " << humanFlops(plan.recomputeFlops) << " (+"
              << pct(plan.recomputeFlops, total) << " of " << humanFlops(total) << ")";
    if (planner.costs().measured()) std::cout << ", " << plan.recomputeCost << " ms measured";
    std::cout << "\n  costs: " << (planner.costs().measured() ? planner.costs().source() + " (ms)" : std::string("by types (FLOPs)"))
              << "\n";
    std::cout << "  saved: " << plan.savedValues.size() << " values, recomputed: " << plan.recomputedValues.size()
              << " values\n";
    if (seed) printChanges(planner, plan, *seed, 10);
    return 0;
}

}  // namespace rx::cli
