#pragma once
// Last use of every value by position in the global block (a use inside a region counts at its
// top-level op), as exec/Liveness.h computes it, in the shape the explorer's bands read.
#include <cstdint>
#include <vector>

#include "model/Program.h"

namespace rx {

// lastUse[v] = index in the global block of the last op (or its ancestor) reading v, its
// definition if unread, 0 if not defined in the global block. Walks operands directly, so it
// needs no use index and works on an unfinished program.
std::vector<uint32_t> lastUseByGlobalIndex(const Program& program);

}  // namespace rx
