// recompute-cli verify PROGRAM [--spec F] [--config F] [--seed N] [--rtol R --atol A] [--json]
// Solves with the seed's algorithm (or the given config), then runs the original and the
// rewritten program on the CPU with the same seeded inputs and compares every fetched value.
#include "algorithms/Solver.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <iostream>
#include <memory>

#include "algorithms/exec/CpuExecutor.h"
#include "algorithms/exec/Verify.h"
#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

namespace {

using namespace rx;

int runVerify(const cli::Arguments& args) {
    if (args.positional.size() != 1)
        throw Error("usage: recompute-cli verify PROGRAM [--spec F] [--config F] [--seed N] [--rtol R --atol A] [--json]");
    const std::string& path = args.positional[0];
    auto program = std::make_shared<Program>(loadProgram(path));
    ResolvedSpec resolved = resolveSpec(*program, path, args.option("--spec"));
    RecomputeSpec spec = std::move(resolved.spec);
    const std::string specSource = resolved.source.empty() ? "detected" : resolved.source;
    RecomputeConfig config = RecomputeConfig::seedDefaults();
    if (auto c = args.option("--config")) config = readConfigFile(*c);

    exec::CpuExecutor cpu;
    if (auto missing = cpu.unsupportedOps(*program); !missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        throw Error(path + ": cannot run on the CPU executor, no kernel for: " + list);
    }
    {   // refuse hours of work before solving (run() checks the same limits)
        exec::RunOptions limits;
        exec::CpuExecutor::Cost cost = exec::CpuExecutor::estimateCost(*program);
        if (cost.multiplyAdds > limits.maxMultiplyAdds || cost.largestElements > limits.maxElementsPerValue)
            throw Error(path + ": too large for the CPU executor: " + std::to_string(cost.multiplyAdds) +
                        " multiply-adds, largest value " + cost.largestValue + " with " + std::to_string(cost.largestElements) +
                        " elements (limits " + std::to_string(limits.maxMultiplyAdds) + ", " +
                        std::to_string(limits.maxElementsPerValue) + ")");
    }
    exec::VerifyOptions vo;
    vo.seed = static_cast<uint64_t>(args.integer("--seed", 0, 0));
    vo.rtol = args.number("--rtol", 0, 0);
    vo.atol = args.number("--atol", 0, 0);
    vo.residentValues = spec.inputs;  // the memory model's resident set, so the peaks compare

    RecomputeSolver solver(program, spec);
    SolveResult solved = solver.solve(config);
    if (!solved.ok()) throw Error(path + ": the solver failed: " + solved.error);
    exec::VerifyReport report = exec::verifyPrograms(*program, *solved.rewritten, vo, &cpu);

    if (args.has("--json")) {
        QJsonObject o;
        o["equivalent"] = report.equivalent;
        o["compared"] = report.compared;
        o["bitwise_equal"] = report.bitwiseEqual;
        o["max_abs_difference"] = report.maxAbsDifference;
        o["original_peak_bytes"] = static_cast<double>(report.originalPeakBytes);
        o["rewritten_peak_bytes"] = static_cast<double>(report.rewrittenPeakBytes);
        o["model_original_peak_bytes"] = static_cast<double>(solved.originalMemory.peakBytes);
        o["model_rewritten_peak_bytes"] = static_cast<double>(solved.rewrittenMemory.peakBytes);
        o["recomputed_ops"] = static_cast<int>(solved.clones.size());
        o["unchanged"] = solved.unchanged;
        o["spec"] = QString::fromStdString(specSource);
        if (report.firstDifference) {
            QJsonObject d;
            d["value"] = QString::fromStdString(report.firstDifference->valueName);
            d["fetch"] = QString::fromStdString(report.firstDifference->fetchName);
            d["index"] = static_cast<double>(report.firstDifference->index);
            d["reason"] = QString::fromStdString(report.firstDifference->reason);
            d["original"] = report.firstDifference->original;
            d["rewritten"] = report.firstDifference->rewritten;
            o["first_difference"] = d;
        }
        std::cout << QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
    } else {
        std::cout << path << " (spec: " << specSource << "): " << solved.clones.size() << " ops recomputed"
                  << (solved.unchanged ? " (program unchanged)" : "") << "\n"
                  << report.summary() << "\n"
                  << "memory model peak: " << solved.originalMemory.peakBytes << " -> " << solved.rewrittenMemory.peakBytes
                  << " bytes\n";
    }
    return report.equivalent ? 0 : 3;
}

rx::cli::RegisterCommand reg({"verify", "verify PROGRAM [--spec F] [--config F] [--seed N] [--rtol R --atol A] [--json]",
                              {"--spec", "--config", "--seed", "--rtol", "--atol"}, &runVerify});
}  // namespace
