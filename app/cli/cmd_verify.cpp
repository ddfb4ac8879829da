// recompute-cli verify PROGRAM [--spec F] [--config F] [--seed N] [--input-dims NAME=DIMS]... [--rtol R --atol A] [--json]
//                              [--budget B [--recompute-random mask|seed]]
// Runs the original program on the CPU, solves with the seed's algorithm (or the given
// config; or the budget planner's plan at budget B), then runs the rewritten program with
// the same seeded inputs and compares every fetched value with the original's.

#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/prettywriter.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "exec/cpu/CpuExecutor.h"
#include "exec/Verify.h"
#include "app/cli/BudgetSolve.h"
#include "app/cli/Command.h"
#include "app/cli/ProgramToRun.h"
#include "app/cli/WarmUp.h"
#include "model/Diagnostic.h"
#include "model/JsonWriter.h"
#include "model/PirReader.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

namespace {

using namespace rx;

struct VerifyArgs {
    std::string program, spec, config;
    std::string budget, recomputeRandom;  // --budget: the budget planner's plan instead of the seed's
    uint64_t seed = 0;
    std::vector<std::string> inputDims;  // --input-dims NAME=DIMS
    double rtol = 0, atol = 0;
    bool json = false;
};

int runVerify(const VerifyArgs& a) {
    const std::string& path = a.program;
    // Freed once it has run and been solved (not kept until exit): the rewritten program runs alone.
    std::shared_ptr<const Program> program = cli::loadProgramToRun(path, a.inputDims);
    ResolvedSpec resolved = resolveSpec(*program, path, a.spec.empty() ? std::nullopt : std::optional(a.spec));
    RecomputeSpec spec = std::move(resolved.spec);
    const std::string specSource = resolved.source.empty() ? "detected" : resolved.source;
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    if (!a.config.empty()) config = readConfigFile(a.config);

    exec::CpuExecutor cpu;
    if (auto missing = cpu.unsupportedOps(*program); !missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw Error(path + ": cannot run on the CPU executor, no kernel for: " + list);
    }
    {   // refuse hours of work before solving (run() checks the same limits)
        exec::RunOptions limits;
        // Malformed ops are refused here.
        const exec::CpuExecutor::Cost cost = cli::namingFile(path, [&] { return exec::CpuExecutor::estimateCost(*program); });
        if (cost.multiplyAdds > limits.maxMultiplyAdds || cost.largestElements > limits.maxElementsPerValue)
            throw Error(path + ": too large for the CPU executor: " + std::to_string(cost.multiplyAdds) +
                        " multiply-adds, largest value " + cost.largestValue + " with " + std::to_string(cost.largestElements) +
                        " elements (limits " + std::to_string(limits.maxMultiplyAdds) + ", " +
                        std::to_string(limits.maxElementsPerValue) + ")");
    }
    exec::VerifyOptions vo;
    vo.seed = a.seed;
    vo.rtol = a.rtol;
    vo.atol = a.atol;
    vo.residentValues = spec.inputs;  // the memory model's resident set, so the peaks compare
    // The original runs before the solve, so its run never shares the memory with the
    // rewritten program (its fetches wait in a temporary file, exec::StreamingComparison).
    exec::Verification verification(vo, &cpu);
    exec::useHeapForRuns();
    cli::namingFile(path + ": running the original program", [&] { verification.runOriginal(*program); });
    cli::configureHeapForLargeRuns();  // back to the solve's heap set-up (main.cpp)

    // Only the rewritten program remains for its run (unless unchanged): the solve's
    // analysis, network and plan and the original are freed, and what they held goes back.
    const cli::SolvedForRuns solved =
        cli::solveForRuns(path, std::move(program), spec, config, a.budget, a.recomputeRandom, cli::RunHeap::Untimed);
    cli::keepUntilExit(std::const_pointer_cast<Program>(solved.rewritten));  // freed by the exit, not before it
    exec::VerifyReport report =
        cli::namingFile(path + ": running the rewritten program", [&] { return verification.runRewritten(*solved.rewritten); });

    if (a.json) {
        // Keys in alphabetical order (what scripts have read so far).
        rapidjson::OStreamWrapper os(std::cout);
        PrettyJsonWriter<rapidjson::OStreamWrapper> w(os);
        auto key = [&](const char* k) { w.Key(k); };
        auto string = [&](const std::string& s) { w.String(s.data(), rapidjson::SizeType(s.size())); };
        auto number = [&](double d) {  // RapidJSON refuses nan/inf: JSON has no spelling for them
            if (std::isfinite(d)) w.Double(d);
            else w.Null();
        };
        w.StartObject();
        key("bitwise_equal"), w.Bool(report.bitwiseEqual);
        key("compared"), w.Int64(int64_t(report.compared));
        key("equivalent"), w.Bool(report.equivalent);
        if (report.firstDifference) {
            const auto& d = *report.firstDifference;
            key("first_difference");
            w.StartObject();
            key("fetch"), string(d.fetchName);
            key("index"), w.Int64(int64_t(d.index));
            key("original"), number(d.original);
            key("reason"), string(d.reason);
            key("rewritten"), number(d.rewritten);
            key("value"), string(d.valueName);
            w.EndObject();
        }
        key("max_abs_difference"), number(report.maxAbsDifference);
        key("model_original_peak_bytes"), w.Int64(solved.originalPeakBytes);
        key("model_rewritten_peak_bytes"), w.Int64(solved.rewrittenPeakBytes);
        key("original_peak_bytes"), w.Int64(int64_t(report.originalPeakBytes));
        key("recomputed_ops"), w.Int64(int64_t(solved.clones.size()));
        key("rewritten_peak_bytes"), w.Int64(int64_t(report.rewrittenPeakBytes));
        key("spec"), string(specSource);
        key("unchanged"), w.Bool(solved.unchanged);
        w.EndObject();
        std::cout << "\n";
    } else {
        std::cout << path << " (spec: " << specSource << "): " << solved.clones.size() << " ops recomputed"
                  << (solved.unchanged ? " (program unchanged)" : "") << "\n"
                  << report.summary() << "\n"
                  << "memory model peak: " << solved.originalPeakBytes << " -> " << solved.rewrittenPeakBytes
                  << " bytes\n";
    }
    return report.equivalent ? 0 : 3;
}

rx::cli::RegisterCommand reg("verify", "Solve, then run the original and rewritten programs on the CPU and compare",
                             [](CLI::App& app) {
                                 auto a = std::make_shared<VerifyArgs>();
                                 app.add_option("PROGRAM", a->program, "program to verify (PIR text or JSON)")->required();
                                 app.add_option("--spec", a->spec, "recompute spec (default: PROGRAM.spec.json, else detected)")->check(cli::kNonEmpty);
                                 app.add_option("--config", a->config, "heuristics config JSON")->check(cli::kNonEmpty);
                                 app.add_option("--seed", a->seed, "seed of the random inputs");
                                 cli::addInputDimsOption(app, a->inputDims);
                                 app.add_option("--rtol", a->rtol, "relative tolerance")->check(cli::finiteNonNegative());
                                 app.add_option("--atol", a->atol, "absolute tolerance")->check(cli::finiteNonNegative());
                                 app.add_flag("--json", a->json, "one JSON object on stdout");
                                 auto* budget = app.add_option("--budget", a->budget,
                                                               "verify the budget planner's plan at this budget (as solve --budget) "
                                                               "instead of the seed's")
                                                    ->check(cli::kNonEmpty);
                                 cli::addRecomputeRandomOption(app, a->recomputeRandom)->needs(budget);
                                 return [a] { return runVerify(*a); };
                             });
}  // namespace
