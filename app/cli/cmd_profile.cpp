// recompute-cli profile PROGRAM [--spec F] [--config F | --budget B] [--device cpu|cuda|cuda:N]
//                               [--report R.json] [--trace T.json] [--seed N] [--input-dims NAME=DIMS]...
//                               [--rtol R --atol A]
// Solves (the seed's algorithm or the given config), runs the original and the rewritten
// program on the same seeded inputs, and reports equivalence, measured peak memory beside
// the memory model's, time per op, the recompute overhead and the top ops.

#include <iomanip>
#include <sstream>
#include <iostream>
#include <memory>

#include "exec/cpu/CpuExecutor.h"
#include "exec/Profile.h"
#include "app/cli/Command.h"
#include "app/cli/ProgramToRun.h"
#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/PirReader.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"
#include "algorithms/planner/Budget.h"
#include "app/cli/BudgetSolve.h"
#ifdef RX_HAVE_CUDA
#include "cuda/CudaExecutor.h"
#endif

namespace {

using namespace rx;

// Every option of the command, bound by CLI11 (see the definer at the bottom).
struct ProfileArgs {
    std::string program;
    std::optional<std::string> spec, config, report, trace, budget;
    std::string recomputeRandom;  // with --budget: mask | seed | off
    std::string device = "cpu";
    uint64_t seed = 0;
    std::vector<std::string> inputDims;  // --input-dims NAME=DIMS
    double rtol = 0, atol = 0;
    int repeats = 5, warmup = 1;
};

std::string mib(int64_t bytes) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
    return s.str();
}

int runProfile(const ProfileArgs& a) {
    {   // no output may overwrite an input or the other output (checked before any work)
        std::vector<NamedPath> inputs{{"PROGRAM", a.program}}, outputs;
        if (a.spec) inputs.push_back({"--spec", *a.spec});
        else if (auto beside = specPathFor(a.program)) inputs.push_back({"the spec beside the program", *beside});
        if (a.config) inputs.push_back({"--config", *a.config});
        if (a.report) outputs.push_back({"--report", *a.report});
        if (a.trace) outputs.push_back({"--trace", *a.trace});
        checkOutputPaths(inputs, outputs);
    }
    auto program = cli::loadProgramToRun(a.program, a.inputDims);
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
    if (a.device != "cpu") {
        cli::delegateToCudaBuild();  // recompute-cli-cuda runs it, when it was built
        throw Error("--device " + a.device + ": this recompute-cli was built without the CUDA backend (only --device cpu)");
    }
#endif
    if (auto missing = executor->unsupportedOps(*program); !missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw Error(a.program + ": cannot run on the " + executor->name() + " executor, no kernel for: " + list);
    }
    cli::namingFile(a.program, [&] { exec::CpuExecutor::estimateCost(*program); });  // malformed ops refused before solving

    cli::SolvedForRuns solved = cli::solveForRuns(a.program, program, spec, config, a.budget.value_or(""), a.recomputeRandom,
                                                  cli::RunHeap::Timed, /*withLiveBytes=*/true);
    const std::shared_ptr<const Program> rewritten = std::move(solved.rewritten);
    exec::ProfileInputs in;
    in.clones = std::move(solved.clones);
    in.modelLiveOriginal = std::move(solved.originalLiveBytes);
    in.modelLiveRewritten = std::move(solved.rewrittenLiveBytes);
    in.modelPeakOriginal = solved.originalPeakBytes;
    in.modelPeakRewritten = solved.rewrittenPeakBytes;
    in.original = program.get();
    in.rewritten = rewritten.get();
    in.fwdOpEndIdx = spec.fwdOpEndIdx;
    in.backwardOpStartIdx = spec.backwardOpStartIdx;
    exec::ProfileOptions po;
    po.verify.seed = a.seed;
    po.verify.rtol = a.rtol;
    po.verify.atol = a.atol;
    po.verify.residentValues = spec.inputs;  // the memory model's resident set
    po.peakReservedOfLastRun = reservedPeak;
    po.repeats = a.repeats;
    po.warmupRuns = a.warmup;
    exec::ProfileReport report = cli::namingFile(a.program, [&] { return exec::profilePrograms(in, po, executor); });
#ifdef RX_HAVE_CUDA
    if (gpu) report.device = gpu->lastReport().device;
#endif

    if (a.report) writeFileAtomic(*a.report, exec::profileReportJson(report, a.program));
    if (a.trace) writeFileAtomic(*a.trace, exec::chromeTraceJson(report));

    std::cout << a.program << " (spec: " << (resolved.source.empty() ? "detected" : resolved.source) << "): "
              << report.recomputedOps << " ops recomputed, device " << report.device << "\n"
              << report.verify.summary() << "\n";
    for (auto [label, run] : {std::pair{"original ", &report.original}, std::pair{"rewritten", &report.rewritten}})
        std::cout << label << ": peak " << mib(run->peakBytes) << " measured, " << mib(run->modelPeakBytes) << " modelled"
                  << (run->peakBytes == run->modelPeakBytes ? " (equal)" : " (DIFFERENT)") << "; step " << std::fixed
                  << std::setprecision(1) << run->totalMs << " ms median of " << report.repeats << " (min " << run->totalMsMin
                  << ", max " << run->totalMsMax << ")\n";
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

// --device: cpu, cuda or cuda:N.
std::string checkDevice(const std::string& d) {
    if (d == "cpu" || d == "cuda") return "";
    if (d.rfind("cuda:", 0) == 0 && d.size() > 5 && d.find_first_not_of("0123456789", 5) == std::string::npos) return "";
    return "expected cpu, cuda or cuda:N, found '" + d + "'";
}

// --budget: what planner::parseBudget accepts (bytes with a unit, or a fraction 0-1).
std::string checkBudget(const std::string& b) {
    try {
        planner::parseBudget(b);
        return "";
    } catch (const Error& e) {
        return e.what();
    }
}

rx::cli::RegisterCommand reg(
    "profile", "Solve, run the original and the rewritten program on the same inputs, and profile both",
    [](CLI::App& app) {
        auto a = std::make_shared<ProfileArgs>();
        app.add_option("PROGRAM", a->program, "program to profile (PIR text or JSON)")->required()->check(CLI::ExistingFile);
        app.add_option("--spec", a->spec, "recompute spec (default: PROGRAM.spec.json, else detected)")
            ->check(CLI::ExistingFile);
        auto* config = app.add_option("--config", a->config, "heuristics config JSON (default: the seed's constants)")
                           ->check(CLI::ExistingFile);
        auto* budget = app.add_option("--budget", a->budget,
                                      "profile the budget planner's plan instead: bytes (512MiB, 2GB) or a fraction 0-1")
                           ->check(CLI::Validator(checkBudget, "BUDGET", "budget"));
        config->excludes(budget);
        rx::cli::addRecomputeRandomOption(app, a->recomputeRandom)->needs(budget);
        app.add_option("--device", a->device, "executor: cpu, cuda or cuda:N (default cpu)")
            ->check(CLI::Validator(checkDevice, "DEVICE", "device"));
        app.add_option("--report", a->report, "profile report JSON to write")->check(cli::kNonEmpty);
        app.add_option("--trace", a->trace, "Chrome trace JSON to write (chrome://tracing, Perfetto)")->check(cli::kNonEmpty);
        app.add_option("--seed", a->seed, "seed of the generated inputs (default 0)");
        cli::addInputDimsOption(app, a->inputDims);
        app.add_option("--repeats", a->repeats,
                       "measured runs of each program, interleaved after the warm-up; times are medians (default 5)")
            ->check(CLI::Range(1, 1000));
        app.add_option("--warmup", a->warmup, "unmeasured runs of each program before the repeats (default 1)")
            ->check(CLI::Range(0, 100));
        app.add_option("--rtol", a->rtol, "relative tolerance of the comparison (default 0: bitwise)")
            ->check(cli::finiteNonNegative());
        app.add_option("--atol", a->atol, "absolute tolerance of the comparison (default 0: bitwise)")
            ->check(cli::finiteNonNegative());
        return [a] { return runProfile(*a); };
    });
}  // namespace
