#pragma once
// `solve --budget B`: the memory-budget planner's entry point (cmd_pareto.cpp), called by
// cmd_solve.cpp with the options solve has already parsed and checked.
#include <string>

#include <CLI/CLI.hpp>

#include "model/RandomRecompute.h"

namespace rx::cli {

struct BudgetSolveArgs {
    std::string program;
    std::string budget;                    // bytes with a unit, or a fraction 0-1 (planner::parseBudget)
    std::string spec, config, costs;       // empty: absent
    std::string report, rewritten;         // outputs; empty: not written
    bool exact = false;                    // exhaustive search (small programs)
    std::string recomputeRandom;           // --recompute-random mask|seed|off; empty: off
};

// --recompute-random's value (empty: off); throws rx::Error on anything else.
RandomRecompute parseRecomputeRandomOption(const std::string& text);
// Adds --recompute-random to a command (solve, pareto, profile), bound to `target`.
CLI::Option* addRecomputeRandomOption(CLI::App& app, std::string& target);

int runBudgetSolve(const BudgetSolveArgs& args);  // exit code; throws rx::Error on bad input

}  // namespace rx::cli
