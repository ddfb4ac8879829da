// recompute-cli pareto PROGRAM [--spec F] [--config F] [--points N] [--report P.json|P.csv]
//                              [--costs PROFILE.json] [--exact] [--sets]
// and `solve --budget B` (runBudgetSolve, called from cmd_solve.cpp): the memory-budget
// planner of algorithms/planner/ on the command line.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "algorithms/planner/Budget.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/PlanReport.h"
#include "algorithms/planner/PlanResult.h"
#include "algorithms/Solver.h"
#include "exec/Executor.h"
#include "app/cli/BudgetSolve.h"
#include "app/cli/Command.h"
#include "app/cli/WarmUp.h"
#include "model/Diagnostic.h"
#include "model/FileIO.h"
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

// Program, spec, config and costs: what both commands read. Empty strings are absent options.
Loaded load(const std::string& path, const std::string& specPath, const std::string& configPath,
            const std::string& costsPath, const std::string& recomputeRandom) {
    Loaded l;
    l.program = std::make_shared<Program>(loadProgram(path));
    printReaderWarnings(path, *l.program);
    keepUntilExit(l.program);
    ResolvedSpec resolved = resolveSpec(*l.program, path, specPath.empty() ? std::nullopt : std::optional(specPath));
    l.spec = std::move(resolved.spec);
    l.specSource = resolved.source.empty() ? "detected" : resolved.source;
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    if (!configPath.empty()) config = readConfigFile(configPath);
    CostModel costs = CostModel::fromTypes(*l.program);
    if (!costsPath.empty()) costs.loadProfile(costsPath, *l.program);
    PlannerOptions options;
    options.randomRecompute = parseRecomputeRandomOption(recomputeRandom);
    l.planner = namingFile(path, [&] { return std::make_unique<BudgetPlanner>(l.program, l.spec, config, std::move(costs), options); });
    // Every plan is measured against these figures: without them a plan's peak would print as 0.
    if (!l.planner->originalMemory().ok())
        throw Error(path + ": the program's memory figures do not fit in 64 bits, so no plan can be measured: " +
                    l.planner->originalMemory().error);
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
        std::cout << "    " << p.value(c.value).name << ": " << valueSideName(c.referenceSide) << " -> "
                  << valueSideName(c.side) << ", " << (c.bytes > 0 ? "+" : "") << humanBytes(c.bytes) << ", "
                  << (c.flops > 0 ? "+" : "") << humanFlops(c.flops) << "\n";
    }
    if (list.size() > limit) std::cout << "    ... (" << list.size() - limit << " more in the report)\n";
}

const BudgetPlan* trySeed(BudgetPlanner& planner) {
    const BudgetPlanner::ReferencePlans& refs = planner.referencePlans();
    if (!refs.seed) std::cerr << "note: no seed plan to compare with: " << refs.seedError << "\n";
    return refs.seed;
}

// Inputs and outputs with their roles, for checkOutputPaths before any work.
void checkPaths(const std::string& program, const std::string& spec, const std::string& config,
                const std::string& costs, std::vector<NamedPath> outputs) {
    std::vector<NamedPath> inputs{{"PROGRAM", program}};
    if (!spec.empty()) inputs.push_back({"--spec", spec});
    else if (auto beside = specPathFor(program)) inputs.push_back({"the spec beside the program", *beside});
    if (!config.empty()) inputs.push_back({"--config", config});
    if (!costs.empty()) inputs.push_back({"--costs", costs});
    std::erase_if(outputs, [](const NamedPath& o) { return o.path.empty(); });
    checkOutputPaths(inputs, outputs);
}

// ", random ops recomputed from their masks" where --recompute-random is on; nothing by default.
std::string randomRecomputeNote(const BudgetPlanner& planner) {
    switch (planner.randomRecompute()) {
    case RandomRecompute::Mask: return ", random ops recomputed from their masks (--recompute-random mask)";
    case RandomRecompute::Seed: return ", random ops with a fixed seed re-run (--recompute-random seed)";
    case RandomRecompute::Off: break;
    }
    return "";
}

// Exact mode within `seconds` (the MILP's time limit; the bounds stop on work, not time, and
// do not read it); above 1000 candidate ops the full model (candidates × live ranges) costs
// more than the frontier itself, so plans there carry the lazy relaxation's bound instead.
ExactOptions exactOptions(double seconds, unsigned threads = 0, bool impliedRows = false) {
    ExactOptions o;
    o.timeLimitSeconds = seconds;
    o.threads = threads;
    o.impliedRows = impliedRows;
    o.lpMaxCandidates = 1000;
    return o;
}

struct ParetoArgs {
    std::string program, spec, config, costs, report;
    std::string recomputeRandom;  // mask | seed | off (empty: off)
    int points = 20;
    bool exact = false;
    bool sets = false;
    double exactSeconds = 60;
    unsigned exactThreads = 0;  // 0: one per hardware thread
    bool exactImpliedRows = false;
};

int runPareto(const ParetoArgs& a) {
    const std::string& path = a.program;
    const int points = a.points;
    const std::optional<std::string> report = a.report.empty() ? std::nullopt : std::optional(a.report);
    checkPaths(path, a.spec, a.config, a.costs, {{"--report", a.report}});
    {   // as `solve` does: the heap faulted in on the other core while the program is read
        std::error_code ec;
        const auto programBytes = std::filesystem::file_size(path, ec);
        std::vector<std::string> replaced;
        if (!a.report.empty()) replaced.push_back(a.report);
        warmUpAsync(ec ? 0 : expectedHeapBytes(programBytes), std::move(replaced));
    }
    Loaded l = load(path, a.spec, a.config, a.costs, a.recomputeRandom);
    BudgetPlanner& planner = *l.planner;

    // The reference plans (assembled once by the planner; its searches measure them too).
    const BudgetPlanner::ReferencePlans& refs = planner.referencePlans();
    if (!refs.seed) std::cerr << "note: no seed plan to compare with: " << refs.seedError << "\n";
    const std::vector<BudgetPlan>& references = refs.plans;
    std::vector<BudgetPlan> plans = a.exact ? planner.certifiedFrontier(points, exactOptions(a.exactSeconds, a.exactThreads, a.exactImpliedRows)) : planner.frontier(points);
    if (!a.exact) {  // the LP relaxation's gap on every point
        const ExactOptions bounds = exactOptions(10);
        if (const size_t cut = planner.boundFrontier(plans, bounds))
            std::cerr << "note: the bounds' safety time limit (" << bounds.boundSafetySeconds << " s) ran out: " << cut
                      << " frontier point(s) carry no bound\n";
    }
    const size_t frontierCount = plans.size();
    plans.insert(plans.end(), references.begin(), references.end());

    const double total = planner.totalFlops();
    std::cout << path << ": " << l.program->globalBlock().ops.size() << " ops, spec " << l.specSource << ", "
              << planner.candidateOpCount() << " recomputable ops, costs "
              << (planner.costs().measured() ? planner.costs().source() : std::string("by types"))
              << (planner.costs().estimatedOps() > 0 ? " (" + std::to_string(planner.costs().estimatedOps()) +
                                                           " ops not in it, estimated from their FLOPs at its rate)"
                                                     : std::string())
              << randomRecomputeNote(planner) << "\n";
    std::cout << "  original: peak " << humanBytes(planner.originalMemory().peakBytes) << ", activation peak "
              << humanBytes(planner.originalActivationPeak()) << ", " << humanFlops(total) << "\n";
    std::cout << "  " << frontierCount << " frontier plans" << (a.exact ? " (exact)" : "") << ":\n";
    for (size_t i = 0; i < plans.size(); ++i) {
        const auto& pl = plans[i];
        if (i == frontierCount) std::cout << "  reference plans:\n";
        std::cout << "    " << pl.source;
        if (pl.budgetFraction) std::cout << " (budget " << *pl.budgetFraction << ")";
        std::cout << ": activation peak " << humanBytes(pl.activationPeakBytes) << " ("
                  << pct(double(pl.activationPeakBytes - planner.originalActivationPeak()),
                         double(planner.originalActivationPeak()))
                  << "), peak " << humanBytes(pl.peakBytes) << ", recompute " << humanFlops(pl.recomputeFlops) << " (+"
                  << pct(pl.recomputeFlops, total) << "), " << pl.savedValues.size() << " saved";
        if (pl.bound) {
            if (pl.bound->optimal) std::cout << ", optimal (" << pl.bound->method << ")";
            else std::cout << ", gap " << pct(pl.bound->gap, 1.0) << " (" << pl.bound->method << " bound)";
            if (pl.bound->lowestPeak) std::cout << ", the lowest peak of the family";
        }
        std::cout << "\n";
    }
    // The floor: no plan goes below the lower bound; what fills the lowest plan's peak.
    const int64_t floor = planner.activationLowerBound();
    const BudgetPlan* lowest = nullptr;
    for (size_t i = 0; i < frontierCount; ++i)
        if (!lowest || plans[i].activationPeakBytes < lowest->activationPeakBytes) lowest = &plans[i];
    std::cout << "  floor: no plan goes below an activation peak of " << humanBytes(floor) << " ("
              << pct(double(floor - planner.originalActivationPeak()), double(planner.originalActivationPeak()))
              << ", lower bound)";
    if (lowest) {
        const PeakBreakdown b = planner.peakBreakdown(*lowest);
        std::cout << "; the lowest plan, " << humanBytes(lowest->activationPeakBytes) << ", peaks at op "
                  << b.peakOpIndex << " (" << b.peakOpName << (b.inBackward ? ", backward" : ", forward")
                  << ") holding outputs (gradients) " << humanBytes(b.outputs) << ", backward temporaries "
                  << humanBytes(b.backwardTemporaries) << ", forward values " << humanBytes(b.forwardValues)
                  << ", recomputed " << humanBytes(b.recomputed);
    }
    std::cout << "\n";
    if (report) {
        ReportContext ctx{path, l.specSource, planner.costs().source()};
        writeFileAtomic(*report, report->ends_with(".csv") ? paretoCsv(planner, plans, a.sets)
                                                              : paretoJson(planner, plans, refs.seed, ctx, a.sets));
    }
    return 0;
}

// --report: the format follows the name.
std::string checkReportName(const std::string& name) {
    if (name.ends_with(".json") || name.ends_with(".csv")) return "";
    return "--report expects a file name ending in .json or .csv, found '" + name + "'";
}

RegisterCommand reg("pareto", "The memory / recompute trade-off: frontier plans beside the seed's and reference plans",
                    [](CLI::App& app) {
                        auto a = std::make_shared<ParetoArgs>();
                        app.add_option("PROGRAM", a->program, "program to plan (PIR text or JSON)")
                            ->required()
                            ->check(CLI::ExistingFile);
                        app.add_option("--spec", a->spec, "recompute spec (default: PROGRAM.spec.json, else detected)")
                            ->check(CLI::ExistingFile);
                        app.add_option("--config", a->config, "heuristics config JSON (default: the seed's constants)")
                            ->check(CLI::ExistingFile);
                        app.add_option("--costs", a->costs, "measured per-op times (a profile report) instead of FLOPs")
                            ->check(CLI::ExistingFile);
                        auto* pts = app.add_option("--points", a->points, "frontier plans to search for (default 20)")
                                        ->check(CLI::Range(1, 100000));
                        app.add_option("--report", a->report, "frontier to write: P.json or P.csv")
                            ->check(CLI::Validator(checkReportName, "P.json|P.csv", "report name"));
                        (void)pts;
                        app.add_flag("--exact", a->exact,
                                     "certified frontier: exhaustive up to 16 candidate ops, else each point proven "
                                     "optimal by a MILP (GLPK, CBC) or given its gap to the LP relaxation's bound");
                        app.add_flag("--sets", a->sets,
                                     "report every plan's saved, recomputed and changed values and recomputed ops "
                                     "(default: per-plan summaries with their sizes)");
                        app.add_option("--exact-seconds", a->exactSeconds, "exact mode's time limit (default 60)")
                            ->check(cli::finiteIn(0.0, 86400.0));
                        app.add_option("--exact-threads", a->exactThreads,
                                       "frontier points the exact mode certifies at once, one MILP per thread "
                                       "(default: one per hardware thread)")
                            ->check(CLI::Range(1u, 1024u));
                        app.add_flag("--exact-implied-rows", a->exactImpliedRows,
                                     "with --exact: the MILP with the rows it implies for every plan (tighter bounds on "
                                     "RNNs; the primal heuristics round other optima)");
                        addRecomputeRandomOption(app, a->recomputeRandom);
                        return [a] { return runPareto(*a); };
                    });

}  // namespace

RandomRecompute parseRecomputeRandomOption(const std::string& text) {
    if (text.empty()) return RandomRecompute::Off;
    if (auto mode = parseRandomRecompute(text)) return *mode;
    throw Error("--recompute-random: expected mask, seed or off, found '" + text + "'");
}

CLI::Option* addRecomputeRandomOption(CLI::App& app, std::string& target) {
    return app
        .add_option("--recompute-random", target,
                    "let the budget planner recompute random ops: mask (a dropout output from its saved mask, "
                    "bitwise as the kernel computes it) or seed (re-run ops that carry a fixed seed); default off, "
                    "as the seed")
        ->check(CLI::IsMember({"mask", "seed", "off"}));
}

SolvedForRuns solveForRuns(const std::string& path, std::shared_ptr<const Program> program, const RecomputeSpec& spec,
                           const RecomputeConfig& config, const std::string& budget, const std::string& recomputeRandom,
                           RunHeap heap, bool withLiveBytes) {
    SolvedForRuns out;
    {
        RecomputeSolver solver(program, spec);
        const SolveResult seedSolved = solver.solve(config);
        if (!seedSolved.ok()) throw Error(path + ": the solver failed: " + seedSolved.error);
        std::shared_ptr<SolveResult> budgetSolved;
        if (!budget.empty()) {  // the plan solve --budget B (and its --recompute-random) writes
            const BudgetSpec b = parseBudget(budget);
            PlannerOptions options;
            options.randomRecompute = parseRecomputeRandomOption(recomputeRandom);
            try {
                BudgetPlanner bp(program, spec, config, CostModel::fromTypes(*program), options);
                const int64_t bytes = b.isFraction ? bp.budgetFromFraction(b.fraction) : b.bytes;
                budgetSolved = solveResultFor(bp, bp.planForBudget(bytes), seedSolved);
            } catch (const Error& e) {
                throw Error(path + ": " + e.what());
            }
        }
        const SolveResult& chosen = budgetSolved ? *budgetSolved : seedSolved;
        out.rewritten = chosen.rewritten;
        out.clones = chosen.clones;
        out.unchanged = chosen.unchanged;
        out.originalPeakBytes = chosen.originalMemory.peakBytes;
        out.rewrittenPeakBytes = chosen.rewrittenMemory.peakBytes;
        if (withLiveBytes) {
            out.originalLiveBytes = chosen.originalMemory.liveBytes;
            out.rewrittenLiveBytes = chosen.rewrittenMemory.liveBytes;
        }
    }
    program.reset();
    if (heap == RunHeap::Timed) exec::returnFreedHeap();
    else exec::useHeapForRuns();
    return out;
}

// solve PROGRAM --budget B [--exact] [--costs PROFILE.json] [--report R.json] [--rewritten OUT.pir]
int runBudgetSolve(const BudgetSolveArgs& a) {
    const std::string& path = a.program;
    const BudgetSpec budget = parseBudget(a.budget);
    checkPaths(path, a.spec, a.config, a.costs, {{"--report", a.report}, {"--rewritten", a.rewritten}, {"--milp", a.milp}});
    Loaded l = load(path, a.spec, a.config, a.costs, a.recomputeRandom);
    BudgetPlanner& planner = *l.planner;
    const int64_t bytes = budget.isFraction ? planner.budgetFromFraction(budget.fraction) : budget.bytes;
    if (!a.milp.empty() && planner.candidateOpCount() > ExactOptions{}.lpMaxCandidates)
        throw Error(path + ": --milp: " + std::to_string(planner.candidateOpCount()) +
                    " candidate ops; the exact mode models programs of up to " +
                    std::to_string(ExactOptions{}.lpMaxCandidates));
    BudgetPlan plan;
    try {
        plan = a.exact ? planner.certifiedPlanForBudget(bytes, exactOptions(a.exactSeconds, 0, a.exactImpliedRows)) : planner.planForBudget(bytes);
    } catch (const Error& e) {
        throw Error(path + ": " + e.what());
    }
    const BudgetPlan* seed = trySeed(planner);
    // Both outputs finished before either replaces its target (commitAll): all or none.
    std::unique_ptr<AtomicFile> rewrittenFile, reportFile;
    if (!a.rewritten.empty()) {
        WriteOptions wo;
        wo.generation = l.program->generation();
        wo.renumber = true;
        rewrittenFile = std::make_unique<AtomicFile>(a.rewritten);
        printProgram(*planner.rewrite(plan), [&](std::string_view chunk) { rewrittenFile->write(chunk); }, wo);
        rewrittenFile->finish();
    }
    if (!a.report.empty()) {
        ReportContext ctx{path, l.specSource, planner.costs().source()};
        reportFile = std::make_unique<AtomicFile>(a.report);
        reportFile->write(budgetSolveJson(planner, plan, seed, ctx));
        reportFile->finish();
    }
    std::unique_ptr<AtomicFile> milpFile;
    if (!a.milp.empty()) {
        milpFile = std::make_unique<AtomicFile>(a.milp);
        milpFile->write(planner.milpAsMps(bytes, a.exactImpliedRows));
        milpFile->finish();
    }
    commitAll({rewrittenFile.get(), reportFile.get(), milpFile.get()});
    const double total = planner.totalFlops();
    std::cout << path << ": " << l.program->globalBlock().ops.size() << " ops, spec " << l.specSource << "\n";
    std::cout << "  budget: " << humanBytes(bytes) << " (" << bytes << " bytes"
              << (budget.isFraction ? ", fraction " + std::to_string(budget.fraction) : std::string()) << ")"
              << (a.exact ? ", exact" : "") << randomRecomputeNote(planner) << "\n";
    std::cout << "  activation peak: " << humanBytes(planner.originalActivationPeak()) << " -> "
              << humanBytes(plan.activationPeakBytes) << "; peak " << humanBytes(planner.originalMemory().peakBytes)
              << " -> " << humanBytes(plan.peakBytes) << "\n";
    std::cout << "  recompute: " << plan.recomputeOps.size() << " ops, " << humanFlops(plan.recomputeFlops) << " (+"
              << pct(plan.recomputeFlops, total) << " of " << humanFlops(total) << ")";
    if (planner.costs().measured()) std::cout << ", " << plan.recomputeCost << " ms measured";
    std::cout << "\n  costs: " << (planner.costs().measured() ? planner.costs().source() + " (ms)" : std::string("by types (FLOPs)"));
    if (planner.costs().estimatedOps() > 0)
        std::cout << "; " << planner.costs().estimatedOps() << " of " << planner.program().globalBlock().ops.size()
                  << " ops not in it, estimated from their FLOPs at its rate";
    std::cout << "\n";
    if (!a.milp.empty())
        std::cout << "  milp: " << a.milp << " (MPS; objective: recompute cost / " << planner.milpCostScale() << ")\n";
    if (plan.bound)
        std::cout << "  optimality: " << (plan.bound->optimal ? "proven optimal" : "gap " + pct(plan.bound->gap, 1.0))
                  << " (" << plan.bound->method << ", cost lower bound " << plan.bound->costLowerBound << ")\n";
    std::cout << "  saved: " << plan.savedValues.size() << " values, recomputed: " << plan.recomputedValues.size()
              << " values\n";
    if (seed) printChanges(planner, plan, *seed, 10);
    return 0;
}

}  // namespace rx::cli
