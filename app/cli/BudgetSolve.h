#pragma once
// `solve --budget B`: the memory-budget planner's entry point (cmd_pareto.cpp), called by
// cmd_solve.cpp with the options solve has already parsed and checked; and the solve that
// verify and profile run before their runs (the seed's plan, or the planner's at --budget).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "model/Program.h"
#include "model/RandomRecompute.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

namespace rx::cli {

struct BudgetSolveArgs {
    std::string program;
    std::string budget;                    // bytes with a unit, or a fraction 0-1 (planner::parseBudget)
    std::string spec, config, costs;       // empty: absent
    std::string report, rewritten, milp;   // outputs; empty: not written (milp: MPS)
    bool exact = false;                    // exhaustive search (small programs)
    std::string recomputeRandom;           // --recompute-random mask|seed|off; empty: off
    double exactSeconds = 60;              // --exact-seconds: the exact mode's time limit
    bool exactImpliedRows = false;         // --exact-implied-rows (ExactOptions::impliedRows)
};

// --recompute-random's value (empty: off); throws rx::Error on anything else.
RandomRecompute parseRecomputeRandomOption(const std::string& text);
// Adds --recompute-random to a command (solve, pareto, profile), bound to `target`.
CLI::Option* addRecomputeRandomOption(CLI::App& app, std::string& target);

int runBudgetSolve(const BudgetSolveArgs& args);  // exit code; throws rx::Error on bad input

// What verify and profile keep of a solve for their runs.
struct SolvedForRuns {
    std::shared_ptr<const Program> rewritten;
    std::vector<OpId> clones;                      // recompute ops in `rewritten`
    bool unchanged = false;                        // the seed returned the program as is
    int64_t originalPeakBytes = 0, rewrittenPeakBytes = 0;  // the memory model's
    std::vector<int64_t> originalLiveBytes, rewrittenLiveBytes;  // per global op; empty unless asked for
};
// How the runs after the solve use the heap (exec/Executor.h): Timed keeps freed tensor
// blocks on the heap for reuse (no page faults inside kernel times: profile); Untimed mmaps
// blocks of 256 KiB and more, so the resident set follows the bytes a run holds (verify).
enum class RunHeap { Timed, Untimed };
// Solves for verify and profile: the seed's plan under `config`, or with `budget` (not empty)
// the budget planner's plan at that budget (as solve --budget, with --recompute-random's
// `recomputeRandom`); errors (rx::Error) name `path`. Then frees all else of the solve (the
// solver's analysis, the flow network, the plan) and `program`'s reference (a caller that
// hands over its last one has the original freed), and hands the freed heap back to the
// kernel as `heap` says: a 1M-op program's runs need that memory. `withLiveBytes`: also keep
// the model's bytes per op.
SolvedForRuns solveForRuns(const std::string& path, std::shared_ptr<const Program> program, const RecomputeSpec& spec,
                           const RecomputeConfig& config, const std::string& budget, const std::string& recomputeRandom,
                           RunHeap heap, bool withLiveBytes = false);

}  // namespace rx::cli
