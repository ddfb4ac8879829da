#pragma once
// Parsing a memory budget: bytes with an optional unit (512MiB, 2GB, 1048576) or a
// fraction 0.0-1.0 of the way from the smallest feasible activation peak to the original's.
#include <cstdint>
#include <string>
#include <string_view>

namespace rx::planner {

struct BudgetSpec {
    bool isFraction = false;
    int64_t bytes = 0;     // when !isFraction
    double fraction = 0;   // when isFraction
};

// Throws rx::Error naming `what` (e.g. "--budget") and what was expected.
BudgetSpec parseBudget(std::string_view text, const std::string& what = "--budget");

// "1.50 GiB", "12.0 MiB", "512 B".
std::string humanBytes(int64_t bytes);
// "3.2 GFLOP", "120 MFLOP".
std::string humanFlops(double flops);

}  // namespace rx::planner
