#pragma once
// Last use of every value by position in the global block (a use inside a region counts at its
// top-level op): the liveness both the memory model and the explorer's memory bands rely on.
#include <cstdint>
#include <vector>

#include "model/Program.h"

namespace rx {

// lastUse[v] = index in the global block of the last op (or its ancestor) reading v; 0 if unused.
// Walks operands directly, so it needs no use index and works on an unfinished program.
std::vector<uint32_t> lastUseByGlobalIndex(const Program& program);

}  // namespace rx
