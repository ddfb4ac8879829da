// libFuzzer target: any bytes as a profile report (`--costs`) of a fixed program -> finite,
// non-negative per-op times, or rx::Error. Crashes, hangs, leaks and UB are bugs.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "algorithms/planner/CostModel.h"
#include "fuzz/FuzzProgram.h"
#include "model/Diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const rx::Program& program = rx::fuzz::fixedProgram();
    try {
        rx::planner::CostModel costs = rx::planner::CostModel::fromTypes(program);
        costs.loadProfileJson(text, "fuzz.profile.json", program);
        for (rx::OpId op = 0; op < program.ops().size(); ++op) {
            const double ms = costs.cost(op);
            if (!std::isfinite(ms) || ms < 0) std::abort();  // the planner sums these
        }
    } catch (const rx::Error&) {
    }
    return 0;
}
