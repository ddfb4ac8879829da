// recompute-cli solve PROGRAM [--spec F] [--config F] [--report F] [--rewritten F]
//                             [--network F.dot|.json|.dimacs] [--unreduced]
// Runs the seed's auto_recompute (ALGORITHM.md) and writes what FORMATS.md promises.
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>

#include "algorithms/SolveReport.h"
#include "algorithms/Solver.h"
#include "app/cli/BudgetSolve.h"
#include "app/cli/Command.h"
#include "app/cli/WarmUp.h"
#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"


namespace {

using namespace rx;

struct SolveArgs {
    std::string program, spec, config, report, rewritten, network;
    std::string budget, costs;  // --budget selects the budget planner (cmd_pareto.cpp)
    std::string milp;           // with --budget: the exact mode's MILP at the budget (MPS)
    bool unreduced = false, exact = false;
    double exactSeconds = 60;     // with --exact: the MILP's time limit
    bool exactImpliedRows = false;
    std::string recomputeRandom;  // with --budget: mask | seed | off
};

// The budget planner (cmd_pareto.cpp) with the options solve parsed.
int runBudget(const SolveArgs& a) {
    if (!a.network.empty()) throw Error("--network is not available with --budget (the planner's network is not the seed's)");
    if (a.unreduced) throw Error("--unreduced is not available with --budget");
    return cli::runBudgetSolve({a.program, a.budget, a.spec, a.config, a.costs, a.report, a.rewritten, a.milp, a.exact,
                                 a.recomputeRandom, a.exactSeconds, a.exactImpliedRows});
}

std::string mib(int64_t bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
    return buf;
}

int runSolve(const SolveArgs& a) {
    using Clock = std::chrono::steady_clock;
    const std::string& path = a.program;
    {   // no output may overwrite an input or another output (checked before any work)
        std::vector<NamedPath> inputs{{"PROGRAM", path}}, outputs;
        if (!a.spec.empty()) inputs.push_back({"--spec", a.spec});
        if (!a.config.empty()) inputs.push_back({"--config", a.config});
        if (a.spec.empty())
            if (auto beside = specPathFor(path)) inputs.push_back({"the spec beside the program", *beside});
        if (!a.report.empty()) outputs.push_back({"--report", a.report});
        if (!a.rewritten.empty()) outputs.push_back({"--rewritten", a.rewritten});
        if (!a.network.empty()) outputs.push_back({"--network", a.network});
        if (!a.costs.empty()) inputs.push_back({"--costs", a.costs});
        checkOutputPaths(inputs, outputs);
        std::vector<std::string> replaced;
        for (const auto& o : outputs) replaced.push_back(o.path);
        std::error_code ec;
        const auto programBytes = std::filesystem::file_size(path, ec);
        cli::warmUpAsync(ec ? 0 : cli::expectedHeapBytes(programBytes), std::move(replaced));
    }
    if (!a.budget.empty()) return runBudget(a);  // the budget planner, not the seed's mode
    // The outputs go together: each is written and fsynced to its temporary, and only when all
    // are does any replace its target (commitAll); a full disk leaves every old output as it was.
    std::unique_ptr<AtomicFile> reportFile, rewrittenFile, networkFile;
    if (!a.report.empty()) reportFile = std::make_unique<AtomicFile>(a.report);
    if (!a.rewritten.empty()) rewrittenFile = std::make_unique<AtomicFile>(a.rewritten);
    const auto t0 = Clock::now();
    auto program = std::make_shared<Program>(loadProgram(path));
    cli::printReaderWarnings(path, *program);
    cli::keepUntilExit(program);
    const double parseMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

    ResolvedSpec resolved = resolveSpec(*program, path, a.spec.empty() ? std::nullopt : std::optional(a.spec));
    const RecomputeSpec& spec = resolved.spec;
    const std::string specSource = resolved.source.empty() ? "detected" : resolved.source;
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    if (!a.config.empty()) config = readConfigFile(a.config);

    const RecomputeSolver& solver = cli::keepUntilExit(std::make_shared<RecomputeSolver>(program, spec));
    SolveOptions options;
    options.reduced = !a.unreduced;
    SolveResult& r = cli::keepUntilExit(std::make_shared<SolveResult>());
    const Program& p = *program;
    const SolveReportInput report{p, solver.analysis(), r, path, specSource, parseMs, options.reduced, &config};
    WriteOptions programOptions;
    programOptions.generation = p.generation();
    programOptions.renumber = true;

    // The outputs are written while the solve goes on: the report from the moment the plan is
    // final (all but its closing figures, while the program is rewritten), the rewritten program
    // from the moment it exists (while its memory is profiled). Most of their time is the disk's
    // (fsync: ~1.7 ms per MB here), and what starts earlier ends earlier. Each writer reads only
    // what the solver announced as final (SolveStages).
    struct Outputs {
        std::promise<void> solved;               // the whole result is final (or failed)
        std::shared_future<void> solvedFuture = solved.get_future().share();
        std::future<void> report, rewritten;
        bool returned = false;  // solveInto returned (it did not throw)
        bool solvedSet = false;
        void markSolved(bool solveReturned) {
            if (solvedSet) return;
            returned = solveReturned;
            solved.set_value();
            solvedSet = true;
        }
        ~Outputs() { markSolved(false); }  // a throwing solve must not leave a writer waiting
    } out;
    struct Abandoned {};  // the solve failed after the plan: the report's temporary goes
    SolveStages stages;
    if (!a.report.empty())
        stages.planReady = [&] {
            out.report = std::async(std::launch::async, [&] {
                writeSolveReport(*reportFile, report, [&] {
                    out.solvedFuture.wait();
                    if (!out.returned || !r.ok()) throw Abandoned{};
                });
            });
        };
    const auto startProgramWrite = [&] {
        out.rewritten = std::async(std::launch::async, [&] {
            printProgram(*r.rewritten, [&](std::string_view chunk) { rewrittenFile->write(chunk); }, programOptions);
            rewrittenFile->finish();
        });
    };
    if (!a.rewritten.empty()) stages.rewritten = startProgramWrite;
    solver.solveInto(r, config, options, stages);
    out.markSolved(true);

    if (!r.ok()) {
        // The begun report was abandoned (or failed to write): the solve's error is the one to tell.
        if (out.report.valid()) try { out.report.get(); } catch (...) {}
        std::cerr << path << ": auto_recompute failed: " << r.error << "\n";
        if (!a.network.empty() && r.network) {
            // The network is what the user needs to see an ∞ path: write it anyway.
            r.network->writeFile(a.network, p);
            std::cerr << "network written to " << a.network << "\n";
        }
        return 1;
    }

    const Plan& plan = r.plan;
    std::exception_ptr error;
    try {
        // Where the solve announced no stage (the seed returns the program unchanged), the
        // outputs are written here.
        if (!a.rewritten.empty() && !out.rewritten.valid()) startProgramWrite();
        if (!a.network.empty()) {
            if (!r.network) throw Error("no flow network: the seed returns the program unchanged");
            networkFile = std::make_unique<AtomicFile>(a.network);
            r.network->writeTo(*networkFile, p, &r.cut.sinkSide);
        }
        if (!a.report.empty() && !out.report.valid()) writeSolveReport(*reportFile, report);
    } catch (...) {
        error = std::current_exception();
    }
    // Waits for both writers; rethrows the first write error.
    for (std::future<void>* f : {&out.report, &out.rewritten}) try {
            if (f->valid()) f->get();
        } catch (...) {
            if (!error) error = std::current_exception();
        }
    if (error) std::rethrow_exception(error);
    commitAll({reportFile.get(), rewrittenFile.get(), networkFile.get()});

    // Short human summary.
    std::cout << path << ": " << p.globalBlock().ops.size() << " ops, spec " << specSource << " (fwd end "
              << spec.fwdOpEndIdx << ", bwd start " << spec.backwardOpStartIdx << ")\n";
    if (r.unchanged) {
        std::cout << "  the seed returns the program unchanged (no backward values or bwd start past the end)\n";
        return 0;
    }
    auto list = [&](const std::vector<ValueId>& vs) {
        std::string s;
        for (size_t i = 0; i < vs.size() && i < 12; ++i) s += (i ? ", " : "") + p.value(vs[i]).name;
        if (vs.size() > 12) s += ", ... (" + std::to_string(vs.size()) + ")";
        return "{" + s + "}";
    };
    if (!r.seedError.empty())  // algo, issue 8: the seed fails here; what follows is ours
        std::cout << "  note: the seed raises here: " << r.seedError.message << " (value " << r.seedError.value
                  << ", op " << r.seedError.opIndex << " " << r.seedError.opName << ", rule " << r.seedError.rule
                  << ": " << r.seedError.detail << ")\n"
                  << "  the plan below is an extension of this project, not the seed's answer\n";
    std::cout << "  network: " << r.network->nodeCount() << " nodes, " << r.network->arcs.size() << " edges"
              << (options.reduced ? " (Preflow on " + std::to_string(r.cut.solvedNodes) + " nodes after contraction)" : "")
              << "\n";
    std::cout << "  cut value: " << plan.cutValueText() << "\n";
    std::cout << "  saved: " << list(plan.savedValues) << "\n";
    std::cout << "  mid-hold: " << list(plan.midHoldValues) << ", " << plan.memorySavedBytes << " bytes ("
              << mib(plan.memorySavedBytes) << ") saved\n";
    std::cout << "  recomputed ops: " << plan.recomputeOps.size() << "\n";
    for (const MemoryProfile* m : {&r.originalMemory, &r.rewrittenMemory})
        if (!m->ok()) std::cout << "  warning: " << m->error << "\n";
    if (!r.originalMemory.liveBytes.empty() && r.rewrittenMemory.ok())
        std::cout << "  peak memory: " << mib(r.originalMemory.peakBytes) << " -> " << mib(r.rewrittenMemory.peakBytes)
                  << "\n";
    for (const auto& w : plan.warnings) std::cout << "  warning: " << w << "\n";
    for (const auto& h : plan.hazards) std::cout << "  hazard: " << h << "\n";
    std::cout << "  time: " << (parseMs + r.timings.totalMs) << " ms\n";
    return 0;
}

cli::RegisterCommand reg("solve", "Run the seed's auto_recompute and write the plan, report, program and network",
                         [](CLI::App& app) {
                             auto a = std::make_shared<SolveArgs>();
                             app.add_option("PROGRAM", a->program, "program to solve (PIR text or JSON)")->required();
                             app.add_option("--spec", a->spec, "recompute spec (default: PROGRAM.spec.json, else detected)")->check(cli::kNonEmpty);
                             app.add_option("--config", a->config, "heuristics config JSON (default: the seed's constants)")->check(cli::kNonEmpty);
                             app.add_option("--report", a->report, "solve report JSON to write")->check(cli::kNonEmpty);
                             app.add_option("--rewritten", a->rewritten, "rewritten program (PIR text) to write")->check(cli::kNonEmpty);
                             app.add_option("--network", a->network, "flow network to write: .dot, .json or .dimacs")->check(cli::kNonEmpty);
                             app.add_flag("--unreduced", a->unreduced, "run Preflow on the whole network (no contraction)");
                             auto* budget = app.add_option("--budget", a->budget,
                                            "plan to an activation-peak budget instead of the seed's plan: bytes "
                                            "(512MiB, 2GB, 1000000) or a fraction 0-1 of the feasible range")->check(cli::kNonEmpty);
                             app.add_option("--costs", a->costs, "with --budget: measured per-op times (a profile report)")->check(cli::kNonEmpty)
                                 ->needs(budget);
                             auto* exact = app.add_flag("--exact", a->exact, "with --budget: a certified plan (exhaustive up to 16 candidate ops, else a MILP (GLPK, CBC) proves it "
                                          "optimal or bounds its gap)")->needs(budget);
                             app.add_option("--exact-seconds", a->exactSeconds, "with --exact: the exact mode's time limit (default 60)")
                                 ->check(cli::finiteIn(0.0, 86400.0))->needs(exact);
                             app.add_flag("--exact-implied-rows", a->exactImpliedRows,
                                          "with --budget: the MILP with the rows it implies for every plan (tighter bounds "
                                          "on RNNs; the primal heuristics round other optima)")->needs(budget);
                             app.add_option("--milp", a->milp, "with --budget: the exact mode's MILP at the budget to write (MPS, "
                                            "for any MILP solver; binaries r<op>: op recomputed)")->check(cli::kNonEmpty)->needs(budget);
                             cli::addRecomputeRandomOption(app, a->recomputeRandom)->needs(budget);
                             return [a] { return runSolve(*a); };
                         });

}  // namespace
