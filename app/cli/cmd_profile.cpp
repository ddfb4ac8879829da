// recompute-cli profile PROGRAM [--spec F] [--config F | --budget B] [--device cpu|cuda]
//                               [--report R.json] [--trace T.json] [--seed N] [--rtol R --atol A]
// Solves (the seed's algorithm or the given config), runs the original and the rewritten
// program on the same seeded inputs, and reports equivalence, measured peak memory beside
// the memory model's, time per op, the recompute overhead and the top ops.
#include "algorithms/Solver.h"

#include <iomanip>
#include <sstream>
#include <iostream>
#include <memory>

#include "algorithms/exec/CpuExecutor.h"
#include "algorithms/exec/Profile.h"
#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"
#include "algorithms/planner/Budget.h"
#include "algorithms/planner/BudgetPlanner.h"
#include "algorithms/planner/PlanResult.h"
#ifdef RX_HAVE_CUDA
#include "cuda/CudaExecutor.h"
#endif

namespace {

using namespace rx;

const char* kUsage =
    "usage: recompute-cli profile PROGRAM [--spec F] [--config F | --budget B] [--device cpu|cuda] [--report R.json] "
    "[--trace T.json] [--seed N] [--rtol R --atol A]";

// Every option of the command, parsed in one place (the CLI11 port replaces this block).
struct ProfileArgs {
    std::string program;
    std::optional<std::string> spec, config, report, trace, budget;
    std::string device = "cpu";
    uint64_t seed = 0;
    double rtol = 0, atol = 0;
};

ProfileArgs parseProfileArgs(const cli::Arguments& args) {
    if (args.positional.size() != 1) throw Error(kUsage);
    ProfileArgs a;
    a.program = args.positional[0];
    a.spec = args.option("--spec");
    a.config = args.option("--config");
    a.report = args.option("--report");
    a.trace = args.option("--trace");
    a.device = args.option("--device").value_or("cpu");
    a.seed = static_cast<uint64_t>(args.integer("--seed", 0, 0));
    a.rtol = args.number("--rtol", 0, 0);
    a.atol = args.number("--atol", 0, 0);
    if (a.device != "cpu" && a.device != "cuda" && a.device.rfind("cuda:", 0) != 0)
        throw Error("--device " + a.device + ": expected cpu or cuda");
    a.budget = args.option("--budget");
    if (a.config && a.budget) throw Error("--config and --budget exclude each other");
    return a;
}

std::string mib(int64_t bytes) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
    return s.str();
}

int runProfile(const cli::Arguments& args) {
    const ProfileArgs a = parseProfileArgs(args);
    auto program = std::make_shared<Program>(loadProgram(a.program));
    ResolvedSpec resolved = resolveSpec(*program, a.program, a.spec);
    RecomputeSpec spec = std::move(resolved.spec);
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    if (a.config) config = readConfigFile(*a.config);

    exec::CpuExecutor cpu;
    exec::Executor* executor = &cpu;
    std::function<int64_t()> reservedPeak;
#ifdef RX_HAVE_CUDA
    std::unique_ptr<cuda::CudaExecutor> gpu;
    if (a.device != "cpu") {
        gpu = cuda::makeCudaExecutor();  // "no CUDA device: ..." before any work
        executor = gpu.get();
        reservedPeak = [&gpu] { return gpu->lastReport().peakReservedBytes; };
    }
#else
    if (a.device != "cpu")
        throw Error("--device " + a.device + ": this recompute-cli was built without the CUDA backend (only --device cpu)");
#endif
    if (auto missing = executor->unsupportedOps(*program); !missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw Error(a.program + ": cannot run on the " + executor->name() + " executor, no kernel for: " + list);
    }
    exec::CpuExecutor::estimateCost(*program);  // malformed ops are refused before solving

    RecomputeSolver solver(program, spec);
    SolveResult seedSolve = solver.solve(config);
    if (!seedSolve.ok()) throw Error(a.program + ": the solver failed: " + seedSolve.error);
    std::shared_ptr<SolveResult> budgetSolve;
    if (a.budget) {  // the budget planner's plan instead of the seed's (solve --budget)
        const planner::BudgetSpec b = planner::parseBudget(*a.budget);
        planner::BudgetPlanner bp(program, spec, config, planner::CostModel::fromTypes(*program));
        const int64_t bytes = b.isFraction ? bp.budgetFromFraction(b.fraction) : b.bytes;
        try {
            budgetSolve = planner::solveResultFor(bp, bp.planForBudget(bytes), seedSolve);
        } catch (const Error& e) {
            throw Error(a.program + ": " + e.what());
        }
    }
    const SolveResult& solved = budgetSolve ? *budgetSolve : seedSolve;

    exec::ProfileInputs in;
    in.original = program.get();
    in.rewritten = solved.rewritten.get();
    in.clones = solved.clones;
    in.fwdOpEndIdx = spec.fwdOpEndIdx;
    in.backwardOpStartIdx = spec.backwardOpStartIdx;
    in.modelLiveOriginal = solved.originalMemory.liveBytes;
    in.modelLiveRewritten = solved.rewrittenMemory.liveBytes;
    in.modelPeakOriginal = solved.originalMemory.peakBytes;
    in.modelPeakRewritten = solved.rewrittenMemory.peakBytes;
    exec::ProfileOptions po;
    po.verify.seed = a.seed;
    po.verify.rtol = a.rtol;
    po.verify.atol = a.atol;
    po.verify.residentValues = spec.inputs;  // the memory model's resident set
    po.peakReservedOfLastRun = reservedPeak;
    exec::ProfileReport report = exec::profilePrograms(in, po, executor);
#ifdef RX_HAVE_CUDA
    if (gpu) report.device = gpu->lastReport().device;
#endif

    if (a.report) exec::writeFileAtomically(*a.report, exec::profileReportJson(report, a.program));
    if (a.trace) exec::writeFileAtomically(*a.trace, exec::chromeTraceJson(report));

    std::cout << a.program << " (spec: " << (resolved.source.empty() ? "detected" : resolved.source) << "): "
              << report.recomputedOps << " ops recomputed, device " << report.device << "\n"
              << report.verify.summary() << "\n";
    for (auto [label, run] : {std::pair{"original ", &report.original}, std::pair{"rewritten", &report.rewritten}})
        std::cout << label << ": peak " << mib(run->peakBytes) << " measured, " << mib(run->modelPeakBytes) << " modelled"
                  << (run->peakBytes == run->modelPeakBytes ? " (equal)" : " (DIFFERENT)") << "; step " << std::fixed
                  << std::setprecision(1) << run->totalMs << " ms\n";
    std::cout << "recompute overhead: " << std::setprecision(2) << report.recomputeOverheadMs << " ms ("
              << report.recomputeOverheadPct << "% of the original step)\n";
    std::cout << "top ops by time (rewritten):\n";
    for (size_t i : exec::topOpsByTime(report.rewritten, 5)) {
        const exec::OpProfile& o = report.rewritten.ops[i];
        std::cout << "  op " << o.index << " " << o.name << " " << std::setprecision(3) << o.ms << " ms"
                  << (o.recompute ? " (recompute)" : "") << "\n";
    }
    if (a.report) std::cout << "wrote " << *a.report << "\n";
    if (a.trace) std::cout << "wrote " << *a.trace << "\n";
    return report.equivalent ? 0 : 3;
}

rx::cli::RegisterCommand reg({"profile",
                              "profile PROGRAM [--spec F] [--config F | --budget B] [--device cpu|cuda] [--report R.json] "
                              "[--trace T.json] [--seed N] [--rtol R --atol A]",
                              {"--spec", "--config", "--budget", "--device", "--report", "--trace", "--seed", "--rtol", "--atol"},
                              &runProfile});
}  // namespace
