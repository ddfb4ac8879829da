#pragma once
// The solve report (FORMATS.md "Solve report"): one writer for the CLI's --report and the
// explorer's export, so both give the same bytes for the same state (timings aside, which
// are measured). Streamed with RapidJSON straight into an atomic file.
#include <functional>
#include <string>

#include "algorithms/Solver.h"
#include "model/RecomputeConfig.h"

namespace rx {

class AtomicFile;  // model/FileIO.h

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

// Pretty-printed JSON ending in a newline. Keys in alphabetical order, but for the figures of
// the rewritten program and the timings (`memory`, `peak_bytes_after`, `timings_ms`), which
// close the report: they are the ones measured after the plan.
std::string solveReportJson(const SolveReportInput& input);
// The same bytes into `path`, atomically (model/FileIO.h); throws rx::Error. With
// `awaitRewritten`, everything before the closing figures is written first, then the call
// waits for it to return (the result's rewrite and memory profile final by then).
void writeSolveReportFile(const std::string& path, const SolveReportInput& input,
                          const std::function<void()>& awaitRewritten = {});
// The same into `file`, finished (fsynced) but not published: for a command whose outputs
// are committed together (model/FileIO.h commitAll).
void writeSolveReport(AtomicFile& file, const SolveReportInput& input, const std::function<void()>& awaitRewritten = {});

}  // namespace rx
