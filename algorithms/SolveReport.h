#pragma once
// The solve report (FORMATS.md "Solve report"): one writer for the CLI's --report and the
// explorer's export, so both give the same bytes for the same state (timings aside, which
// are measured). Streamed with RapidJSON straight into an atomic file.
#include <string>

#include "algorithms/Solver.h"
#include "model/RecomputeConfig.h"

namespace rx {

struct SolveReportInput {
    const Program& program;            // the original program
    const Analysis& analysis;          // op indices of recompute_ops
    const SolveResult& result;
    std::string programPath;           // "program"
    std::string specSource;            // "spec": the spec file read, or "detected"
    double parseMs = 0;                // timings_ms.parse
    bool reduced = true;               // network.reduced (SolveOptions::reduced)
    const RecomputeConfig* config = nullptr;  // "config" (every key) when given
};

// Pretty-printed JSON, keys in alphabetical order, ending in a newline.
std::string solveReportJson(const SolveReportInput& input);
// The same bytes into `path`, atomically (model/FileIO.h); throws rx::Error.
void writeSolveReportFile(const std::string& path, const SolveReportInput& input);

}  // namespace rx
